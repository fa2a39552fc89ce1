import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * References, import bindings and supertypes. `refs` holds one row per file and used
 * name, its occurrences packed in one text (`line,column,kind,enclosing,qualifier`
 * joined by `;`): a file uses a few hundred names thousands of times, and a
 * row per occurrence would multiply the rows written by ten. An import gets
 * what it binds (`name alias` pairs joined by `,`), whether it re-exports,
 * and the file or directory it resolves to (`target`; null: outside the
 * repository). `supertypes`: what a class, interface or struct (a symbol
 * by ordinal) extends or embeds (`relation` extends) or implements, by name. Files indexed before this migration have no references until
 * they are indexed in full again (`index_repo` with `force: true`).
 */
export class AddReferences1732600000000 implements MigrationInterface {
  name = 'AddReferences1732600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "symbol_indexer"."refs" (
        "repository_id" text NOT NULL,
        "path" text NOT NULL,
        "name" text NOT NULL,
        "occurrences" text NOT NULL,
        PRIMARY KEY ("repository_id", "path", "name")
      )`);
    await q.query(`CREATE INDEX "refs_name" ON "symbol_indexer"."refs" ("name", "repository_id")`);
    await q.query(`ALTER TABLE "symbol_indexer"."imports" ADD COLUMN "bindings" text NOT NULL DEFAULT ''`);
    await q.query(`ALTER TABLE "symbol_indexer"."imports" ADD COLUMN "reexport" boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE "symbol_indexer"."imports" ADD COLUMN "target" text`);
    await q.query(`CREATE INDEX "imports_target" ON "symbol_indexer"."imports" ("repository_id", "target")`);
    await q.query(`CREATE INDEX "files_indexed_at" ON "symbol_indexer"."files" ("indexed_at")`);
    // Names by prefix too (similar names), whatever the database's collation: pattern operators answer = and LIKE 'p%'.
    await q.query(`DROP INDEX "symbol_indexer"."symbols_name_key"`);
    await q.query(`CREATE INDEX "symbols_name_key" ON "symbol_indexer"."symbols" ("name_key" text_pattern_ops, "repository_id")`);
    await q.query(
      `CREATE INDEX "symbols_classes" ON "symbol_indexer"."symbols" ("repository_id", "path") WHERE kind IN ('class', 'interface', 'struct', 'trait')`,
    );
    await q.query(`
      CREATE TABLE "symbol_indexer"."supertypes" (
        "repository_id" text NOT NULL,
        "path" text NOT NULL,
        "ordinal" int NOT NULL,
        "name" text NOT NULL,
        "relation" text NOT NULL,
        PRIMARY KEY ("repository_id", "path", "ordinal", "name")
      )`);
    await q.query(`CREATE INDEX "supertypes_name" ON "symbol_indexer"."supertypes" ("name")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "symbol_indexer"."symbols_classes"`);
    await q.query(`DROP INDEX "symbol_indexer"."symbols_name_key"`);
    await q.query(`CREATE INDEX "symbols_name_key" ON "symbol_indexer"."symbols" ("name_key", "repository_id")`);
    await q.query(`DROP TABLE "symbol_indexer"."supertypes"`);
    await q.query(`DROP INDEX "symbol_indexer"."files_indexed_at"`);
    await q.query(`DROP INDEX "symbol_indexer"."imports_target"`);
    await q.query(`ALTER TABLE "symbol_indexer"."imports" DROP COLUMN "target", DROP COLUMN "reexport", DROP COLUMN "bindings"`);
    await q.query(`DROP TABLE "symbol_indexer"."refs"`);
  }
}
