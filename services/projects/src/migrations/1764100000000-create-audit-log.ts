import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The audit trail of tool calls (issue #13), kept SEXTANT_AUDIT_RETENTION_DAYS. */
export class CreateAuditLog1764100000000 implements MigrationInterface {
  name = 'CreateAuditLog1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "projects"."audit_log" (
        "id" bigserial PRIMARY KEY,
        "at" timestamptz NOT NULL,
        "principal" text NOT NULL,
        "principal_id" text NOT NULL,
        "tool" text NOT NULL,
        "scope" jsonb NOT NULL,
        "repositories" text[] NOT NULL,
        "code" text NOT NULL,
        "duration_ms" double precision NOT NULL,
        "trace_id" text,
        "request_id" text NOT NULL,
        "query" text
      )`);
    await q.query(`CREATE INDEX "audit_log_at_idx" ON "projects"."audit_log" ("at")`);
    await q.query(`CREATE INDEX "audit_log_principal_idx" ON "projects"."audit_log" ("principal_id", "at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "projects"."audit_log"`);
  }
}
