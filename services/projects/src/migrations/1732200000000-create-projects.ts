import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Projects and their member repositories. Names are unique by `name_key` (NFKC + lower case, computed in code). */
export class CreateProjects1732200000000 implements MigrationInterface {
  name = 'CreateProjects1732200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "projects"."projects" (
        "id" uuid PRIMARY KEY,
        "name" text NOT NULL,
        "name_key" text NOT NULL,
        "description" text,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX "projects_name_key_uq" ON "projects"."projects" ("name_key")`);
    await q.query(`
      CREATE TABLE "projects"."project_repositories" (
        "project_id" uuid NOT NULL REFERENCES "projects"."projects" ("id") ON DELETE CASCADE,
        "repository_id" text NOT NULL,
        "added_at" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("project_id", "repository_id")
      )`);
    await q.query(`CREATE INDEX "project_repositories_repository_idx" ON "projects"."project_repositories" ("repository_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "projects"."project_repositories"`);
    await q.query(`DROP TABLE "projects"."projects"`);
  }
}
