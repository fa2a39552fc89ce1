import { z } from 'zod';
import { defineInternal } from '../tool.js';

/**
 * Internal (not a tool): the registry merged repositories that turned out to
 * be one (ADR 0044); each project that held a merged-away id holds the
 * repository it was merged into instead. Idempotent: the registry re-sends
 * until it is answered.
 */
export const SUBJECT = 'projects.move-memberships.v1';
export const Request = z.strictObject({
  moves: z
    .array(z.strictObject({ from: z.uuid(), to: z.uuid() }))
    .min(1)
    .max(500),
});
export type Request = z.output<typeof Request>;
export const Response = z.object({ moved: z.int().describe('Memberships that now name the surviving repository') });
export type Response = z.output<typeof Response>;

export const request = defineInternal({ name: 'move-memberships', subject: SUBJECT, input: Request, output: Response });
