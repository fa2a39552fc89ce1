import { z } from 'zod';
import { Workspace } from '../common.js';
import { defineInternal } from '../tool.js';
import { RegisteredRepository } from './registered-repository.js';

/**
 * Internal (not a tool): a tool's `workspace` field resolved as tools.md
 * says (registered, auto-discovered under an allowed root, or the default
 * workspace when omitted), with the same errors.
 */
export const SUBJECT = 'workspace-registry.resolve-workspace.v1';
export const Request = z.strictObject({ workspace: Workspace.optional() });
export type Request = z.output<typeof Request>;
export const Response = z.object({
  repository: RegisteredRepository,
  /** Registered by this call (auto-discovery): indexing has started and indexed answers are partial. */
  discovered: z.boolean(),
});
export type Response = z.output<typeof Response>;

export const request = defineInternal({ name: 'resolve-workspace', subject: SUBJECT, input: Request, output: Response });
