import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * API keys (issue #13): only their SHA-256 is kept (a key is 32 random
 * bytes, so a fast hash is enough: there is nothing to guess), with the
 * first characters for people to tell keys apart. Grants are per project
 * (by id, removed with the project) or org-wide (`admin`).
 */
export class CreateApiKeys1764000000000 implements MigrationInterface {
  name = 'CreateApiKeys1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "projects"."api_keys" (
        "id" uuid PRIMARY KEY,
        "name" text NOT NULL,
        "name_key" text NOT NULL,
        "sha256" text NOT NULL,
        "prefix" text NOT NULL,
        "admin" boolean NOT NULL DEFAULT false,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "revoked_at" timestamptz
      )`);
    await q.query(`CREATE UNIQUE INDEX "api_keys_sha256_uq" ON "projects"."api_keys" ("sha256")`);
    // A name is reused only once its key is revoked.
    await q.query(`CREATE UNIQUE INDEX "api_keys_name_key_uq" ON "projects"."api_keys" ("name_key") WHERE "revoked_at" IS NULL`);
    await q.query(`
      CREATE TABLE "projects"."api_key_grants" (
        "key_id" uuid NOT NULL REFERENCES "projects"."api_keys" ("id") ON DELETE CASCADE,
        "project_id" uuid NOT NULL REFERENCES "projects"."projects" ("id") ON DELETE CASCADE,
        "role" text NOT NULL CHECK ("role" IN ('reader', 'maintainer')),
        PRIMARY KEY ("key_id", "project_id")
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "projects"."api_key_grants"`);
    await q.query(`DROP TABLE "projects"."api_keys"`);
  }
}
