import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One identity per repository (ADR 0044): a column the registry's lookups and
 * uniqueness key on, in place of the locator string as first written. It is
 * filled (and rows that meet merged) at start-up by `reconcileIdentities`,
 * since computing it takes the locator policy and, for local repositories,
 * the file system. `repository_merges` keeps each merged-away id and whether
 * the projects service has moved its memberships yet.
 */
export class RepositoryIdentity1764200000000 implements MigrationInterface {
  name = 'RepositoryIdentity1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "workspace_registry"."repositories" ADD COLUMN "identity" text`);
    await q.query(`CREATE UNIQUE INDEX "repositories_identity_uq" ON "workspace_registry"."repositories" ("identity")`);
    await q.query(`DROP INDEX "workspace_registry"."repositories_locator_uq"`);
    await q.query(`CREATE INDEX "repositories_locator" ON "workspace_registry"."repositories" ("locator")`);
    await q.query(`
      CREATE TABLE "workspace_registry"."repository_merges" (
        "merged_id" uuid PRIMARY KEY,
        "repository_id" uuid NOT NULL,
        "locator" text NOT NULL,
        "merged_at" timestamptz NOT NULL DEFAULT now(),
        "memberships_moved_at" timestamptz
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "workspace_registry"."repository_merges"`);
    await q.query(`DROP INDEX "workspace_registry"."repositories_locator"`);
    await q.query(`CREATE UNIQUE INDEX "repositories_locator_uq" ON "workspace_registry"."repositories" ("locator")`);
    await q.query(`DROP INDEX "workspace_registry"."repositories_identity_uq"`);
    await q.query(`ALTER TABLE "workspace_registry"."repositories" DROP COLUMN "identity"`);
  }
}
