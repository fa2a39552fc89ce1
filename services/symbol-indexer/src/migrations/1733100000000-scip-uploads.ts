import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SCIP uploads in transit (ADR 0056): an upload begun by a caller for a repository and commit, and the parts of its
 * index as they cross the bus (any replica may receive any part). Rows live until the upload finishes, is cancelled, or
 * is abandoned for an hour (removed when the next upload begins).
 */
export class ScipUploads1733100000000 implements MigrationInterface {
  name = 'ScipUploads1733100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "symbol_indexer"."scip_uploads" (
        "id" uuid PRIMARY KEY,
        "repository_id" text NOT NULL,
        "commit" text NOT NULL,
        "principal" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE "symbol_indexer"."scip_upload_parts" (
        "upload_id" uuid NOT NULL REFERENCES "symbol_indexer"."scip_uploads" ("id") ON DELETE CASCADE,
        "part" int NOT NULL,
        "data" bytea NOT NULL,
        PRIMARY KEY ("upload_id", "part")
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "symbol_indexer"."scip_upload_parts", "symbol_indexer"."scip_uploads"`);
  }
}
