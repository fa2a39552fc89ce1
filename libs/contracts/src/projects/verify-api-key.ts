import { z } from 'zod';
import { defineInternal } from '../tool.js';
import { ProjectRole } from './role.js';

/** An API key as the gateway sees it once verified: who it is and what it was granted. Never the key. */
export const ApiKeyGrant = z.object({
  id: z.string(),
  name: z.string(),
  /** Org-wide admin: every project, every tool. */
  admin: z.boolean(),
  /** The role the key holds in each of its projects, by project id. */
  projects: z.record(z.string(), ProjectRole),
});
export type ApiKeyGrant = z.output<typeof ApiKeyGrant>;

/**
 * Internal (not a tool): the gateway asks the projects service, which keeps
 * API keys hashed, whether a presented key is valid. It sends the key's
 * SHA-256, never the key; a revoked or unknown key answers null.
 */
export const SUBJECT = 'projects.verify-api-key.v1';
export const Request = z.strictObject({ sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be a lowercase hex SHA-256') });
export type Request = z.output<typeof Request>;
export const Response = z.object({ key: ApiKeyGrant.nullable() });
export type Response = z.output<typeof Response>;

export const request = defineInternal({ name: 'verify-api-key', subject: SUBJECT, input: Request, output: Response });
