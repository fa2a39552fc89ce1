import { z } from 'zod';
import { defineInternal } from '../tool.js';
import { AUDIT_LIMITS } from './audit-bounds.js';

// Caps in UTF-16 units: `boundAuditRecord` cuts in UTF-8 bytes (at least one per unit), so what it makes passes.
const field = z.string().max(AUDIT_LIMITS.fieldBytes);

/**
 * One tool call, as the audit trail keeps it (issue #13): who, what, on what, how it ended; never a secret. Every
 * field is bounded (AUDIT_LIMITS, issue 35): a record the gateway made with `boundAuditRecord` always passes.
 */
export const AuditRecord = z.object({
  at: field.describe('ISO time the call arrived'),
  principal: field.describe('kind:name, e.g. key:ci, user:alice, local'),
  principal_id: field,
  tool: field,
  /** The call's scope as it named it: repo, repos, project, workspace, scope, repository. */
  scope: z
    .record(z.string().max(AUDIT_LIMITS.scopeKeyBytes), z.unknown())
    .refine((scope) => Object.keys(scope).length <= AUDIT_LIMITS.scopeKeys + 1, { message: `at most ${AUDIT_LIMITS.scopeKeys} keys` })
    .refine((scope) => JSON.stringify(scope).length <= AUDIT_LIMITS.recordBytes / 2, { message: 'too large' }),
  /** Repositories the answer covered (its freshness), at most 50. */
  repositories: z.array(field).max(AUDIT_LIMITS.repositories),
  code: field.describe('ok or the error code'),
  duration_ms: z.number(),
  trace_id: field.nullable(),
  request_id: field.describe('unique per call: the store keeps a record once however often it is handed over'),
  /** The query, pattern or question; null when the caller opted out (Sextant-Audit-Query: off) or the tool has none. */
  query: z.string().max(AUDIT_LIMITS.queryBytes).nullable(),
});
export type AuditRecord = z.output<typeof AuditRecord>;

/** Internal (not a tool): the gateway hands the projects service a batch of audit records to keep (with retention). */
export const SUBJECT = 'projects.record-audit.v1';
/**
 * A batch: each record an object, not checked field by field here. The projects service bounds and cleans each one
 * (`boundAuditRecord`) and checks it against `AuditRecord`; a record that still fails is set aside alone. A record
 * over a cap (from a gateway of another version) therefore never fails the records of its batch.
 */
export const Request = z.strictObject({ records: z.array(z.record(z.string(), z.unknown())).min(1).max(500) });
export type Request = z.output<typeof Request>;
/** `stored`: records new to the table (one handed over again is not stored twice); `refused`: records it could not store, each logged with why. */
export const Response = z.object({ stored: z.int(), refused: z.int().optional() });
export type Response = z.output<typeof Response>;

export const request = defineInternal({ name: 'record-audit', subject: SUBJECT, input: Request, output: Response });
