import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The repository registry (local workspaces and remote repositories alike),
 * the file manifest Discovery writes, and the files each job changes.
 */
export class CreateRegistry1732400000000 implements MigrationInterface {
  name = 'CreateRegistry1732400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "workspace_registry"."repositories" (
        "id" uuid PRIMARY KEY,
        "kind" text NOT NULL CHECK ("kind" IN ('local', 'remote')),
        "locator" text NOT NULL,
        "name" text NOT NULL,
        "name_key" text NOT NULL,
        "ref" text,
        "origin" text NOT NULL CHECK ("origin" IN ('registered', 'auto_discovered', 'default')),
        "status" text NOT NULL DEFAULT 'not_indexed' CHECK ("status" IN ('not_indexed', 'indexing', 'ready', 'failed')),
        "indexed_commit" text,
        "indexed_ref" text,
        "last_indexed_at" timestamptz,
        "manifest_version" text,
        "file_count" int NOT NULL DEFAULT 0,
        "symbol_count" int NOT NULL DEFAULT 0,
        "last_used_at" timestamptz NOT NULL DEFAULT now(),
        "created_at" timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX "repositories_locator_uq" ON "workspace_registry"."repositories" ("locator")`);
    await q.query(`CREATE INDEX "repositories_name_key" ON "workspace_registry"."repositories" ("name_key")`);
    await q.query(`
      CREATE TABLE "workspace_registry"."files" (
        "repository_id" uuid NOT NULL REFERENCES "workspace_registry"."repositories" ("id") ON DELETE CASCADE,
        "path" text NOT NULL,
        "size" bigint NOT NULL,
        "hash" text NOT NULL,
        "language" text,
        "mtime_ms" bigint NOT NULL,
        "indexed_at" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("repository_id", "path")
      )`);
    await q.query(`CREATE INDEX "files_recent" ON "workspace_registry"."files" ("repository_id", "indexed_at" DESC)`);
    await q.query(`
      CREATE TABLE "workspace_registry"."job_files" (
        "job_id" uuid NOT NULL REFERENCES "workspace_registry"."jobs" ("id") ON DELETE CASCADE,
        "path" text NOT NULL,
        "change" text NOT NULL CHECK ("change" IN ('added', 'modified', 'deleted')),
        "size" bigint,
        "hash" text,
        "language" text,
        "mtime_ms" bigint,
        PRIMARY KEY ("job_id", "path")
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "workspace_registry"."job_files"`);
    await q.query(`DROP TABLE "workspace_registry"."files"`);
    await q.query(`DROP TABLE "workspace_registry"."repositories"`);
  }
}
