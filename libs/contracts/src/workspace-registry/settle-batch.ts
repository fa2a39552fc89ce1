import { z } from 'zod';
import { boundedInt, text } from '../common.js';
import { defineInternal } from '../tool.js';

/**
 * Internal (not a tool): what a stage worker says of a batch it holds —
 * still working (renew), done with counters summed into the job's progress
 * (complete), or failed (given back for another attempt, or failing the job
 * after `max_attempts`).
 */
export const SUBJECT = 'workspace-registry.settle-batch.v1';
export const Request = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('renew'), id: z.int(), owner: text(1, 200), lease_ms: boundedInt(1_000, 600_000, 15_000) }),
  z.strictObject({ action: z.literal('complete'), id: z.int(), owner: text(1, 200), result: z.record(z.string(), z.number()) }),
  z.strictObject({
    action: z.literal('fail'),
    id: z.int(),
    owner: text(1, 200),
    error: z.string().max(2_000),
    max_attempts: boundedInt(1, 100, 3),
  }),
]);
export type Request = z.output<typeof Request>;
export const Response = z.object({
  /** renew/complete: whether the batch was still this worker's; fail: the batch's status after it (null: not this worker's). */
  ok: z.boolean(),
  status: z.enum(['ready', 'failed']).nullable().optional(),
});
export type Response = z.output<typeof Response>;

export const request = defineInternal({ name: 'settle-batch', subject: SUBJECT, input: Request, output: Response });
