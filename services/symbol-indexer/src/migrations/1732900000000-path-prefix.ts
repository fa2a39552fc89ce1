import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The files of a directory (a Go package: where a top-level name is used without an import) as an index range:
 * with the primary key alone, the lookup read every file of the repository (5–10 ms a package on the bench corpus's
 * Postgres, eight packages one after another for `find_references parse`). `text_pattern_ops` orders paths by their
 * bytes, whatever the database's collation, so a prefix is one range of it.
 */
export class PathPrefix1732900000000 implements MigrationInterface {
  name = 'PathPrefix1732900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX "files_path_prefix" ON "symbol_indexer"."files" ("repository_id", "path" text_pattern_ops)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "symbol_indexer"."files_path_prefix"`);
  }
}
