import { z } from 'zod';
import { defineInternal } from '../tool.js';

/** One tool call, as the audit trail keeps it (issue #13): who, what, on what, how it ended; never a secret. */
export const AuditRecord = z.object({
  at: z.string().describe('ISO time the call arrived'),
  principal: z.string().describe('kind:name, e.g. key:ci, user:alice, local'),
  principal_id: z.string(),
  tool: z.string(),
  /** The call's scope as it named it: repo, repos, project, workspace, scope, repository. */
  scope: z.record(z.string(), z.unknown()),
  /** Repositories the answer covered (its freshness), at most 50. */
  repositories: z.array(z.string()).max(50),
  code: z.string().describe('ok or the error code'),
  duration_ms: z.number(),
  trace_id: z.string().nullable(),
  request_id: z.string(),
  /** The query, pattern or question; null when the caller opted out (Sextant-Audit-Query: off) or the tool has none. */
  query: z.string().max(2_000).nullable(),
});
export type AuditRecord = z.output<typeof AuditRecord>;

/** Internal (not a tool): the gateway hands the projects service a batch of audit records to keep (with retention). */
export const SUBJECT = 'projects.record-audit.v1';
export const Request = z.strictObject({ records: z.array(AuditRecord).min(1).max(500) });
export type Request = z.output<typeof Request>;
export const Response = z.object({ stored: z.int() });
export type Response = z.output<typeof Response>;

export const request = defineInternal({ name: 'record-audit', subject: SUBJECT, input: Request, output: Response });
