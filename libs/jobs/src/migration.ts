import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The job tables, in the schema of the service that owns the jobs. Returned
 * as a migration class so the owner lists it with its own migrations.
 */
export function jobTablesMigration(schema: string): new () => MigrationInterface {
  const s = `"${schema}"`;
  return class CreateJobTables1732300000000 implements MigrationInterface {
    name = 'CreateJobTables1732300000000';

    async up(q: QueryRunner): Promise<void> {
      await q.query(`
        CREATE TABLE ${s}."jobs" (
          "id" uuid PRIMARY KEY,
          "key" text NOT NULL,
          "kind" text NOT NULL,
          "mode" text NOT NULL,
          "status" text NOT NULL CHECK ("status" IN ('pending', 'running', 'completed', 'failed', 'skipped')),
          "params" jsonb NOT NULL DEFAULT '{}',
          "stage" text,
          "percent" int NOT NULL DEFAULT 0,
          "message" text,
          "stats" jsonb NOT NULL DEFAULT '{}',
          "retry_count" int NOT NULL DEFAULT 0,
          "error_message" text,
          "owner" text,
          "lease_until" timestamptz,
          "interrupted_at" timestamptz,
          "created_at" timestamptz NOT NULL DEFAULT now(),
          "started_at" timestamptz,
          "completed_at" timestamptz
        )`);
      // One active job per key (a repository): a second request finds the first.
      await q.query(`CREATE UNIQUE INDEX "jobs_one_active" ON ${s}."jobs" ("key") WHERE "status" IN ('pending', 'running')`);
      await q.query(`CREATE INDEX "jobs_pending" ON ${s}."jobs" ("created_at") WHERE "status" = 'pending'`);
      await q.query(`CREATE INDEX "jobs_by_key" ON ${s}."jobs" ("key", "created_at" DESC)`);
      await q.query(`
        CREATE TABLE ${s}."job_batches" (
          "id" bigserial PRIMARY KEY,
          "job_id" uuid NOT NULL REFERENCES ${s}."jobs" ("id") ON DELETE CASCADE,
          "stage" text NOT NULL,
          "items" jsonb NOT NULL,
          "status" text NOT NULL DEFAULT 'ready' CHECK ("status" IN ('ready', 'claimed', 'done', 'failed')),
          "owner" text,
          "lease_until" timestamptz,
          "attempts" int NOT NULL DEFAULT 0,
          "result" jsonb,
          "error" text
        )`);
      await q.query(`CREATE INDEX "job_batches_open" ON ${s}."job_batches" ("stage", "id") WHERE "status" IN ('ready', 'claimed')`);
      await q.query(`CREATE INDEX "job_batches_by_job" ON ${s}."job_batches" ("job_id", "stage")`);
    }

    async down(q: QueryRunner): Promise<void> {
      await q.query(`DROP TABLE ${s}."job_batches"`);
      await q.query(`DROP TABLE ${s}."jobs"`);
    }
  };
}
