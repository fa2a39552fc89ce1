import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A record of the audit trail is stored once (issue 35, ADR 0046): its request id is unique, so a batch the gateway
 * hands over again (its answer was lost to a timeout) adds nothing. Copies such retries stored before are removed
 * first (the earliest kept): they are one call each.
 */
export class AuditLogRequestId1764210000000 implements MigrationInterface {
  name = 'AuditLogRequestId1764210000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DELETE FROM "projects"."audit_log" AS later
      USING "projects"."audit_log" AS earlier
      WHERE later.request_id = earlier.request_id AND later.id > earlier.id`);
    await q.query(`CREATE UNIQUE INDEX "audit_log_request_id_key" ON "projects"."audit_log" ("request_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "projects"."audit_log_request_id_key"`);
  }
}
