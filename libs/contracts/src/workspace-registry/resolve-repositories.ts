import { z } from 'zod';
import { text } from '../common.js';
import { defineInternal } from '../tool.js';
import { RegisteredRepository } from './registered-repository.js';

/** Internal (not a tool): registered repositories by id, name (case-insensitive) or locator; projects and git-cache ask it. */
export const SUBJECT = 'workspace-registry.resolve-repositories.v1';
export const Request = z.strictObject({ references: z.array(text(1, 4096)).min(1).max(1000) });
export type Request = z.output<typeof Request>;
export const Response = z.object({
  /** One entry per reference, in order; null: no registered repository (or an ambiguous name). */
  repositories: z.array(RegisteredRepository.nullable()),
});
export type Response = z.output<typeof Response>;

export const request = defineInternal({ name: 'resolve-repositories', subject: SUBJECT, input: Request, output: Response });
