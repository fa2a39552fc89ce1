import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `refs` is looked up by file with a non-unique index on (repository_id, path) instead of its primary key on
 * (repository_id, path, name) (issue 40, `npm run bench:symbol-storage`). A row per file and name is the store's own
 * invariant: `packReferences` gives one row per name, and `SymbolStore.replace` deletes a file's rows before it inserts
 * them, in one transaction. As a unique index, every entry carried the whole key, repository id, path and name: the
 * largest index of the schema. Postgres deduplicates equal keys of a non-unique B-tree index, so the new index holds
 * one entry per file with its rows' addresses. Reading one name of a file now reads the file's rows and keeps that
 * name's, as many as the file has names. ADR 0064.
 */
export class RefsByFile1733300000000 implements MigrationInterface {
  name = 'RefsByFile1733300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX "refs_file" ON "symbol_indexer"."refs" ("repository_id", "path")`);
    await q.query(`ALTER TABLE "symbol_indexer"."refs" DROP CONSTRAINT "refs_pkey"`);
  }

  /** Refused, in its transaction, if a file ever came to hold two rows of one name. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "symbol_indexer"."refs" ADD PRIMARY KEY ("repository_id", "path", "name")`);
    await q.query(`DROP INDEX "symbol_indexer"."refs_file"`);
  }
}
