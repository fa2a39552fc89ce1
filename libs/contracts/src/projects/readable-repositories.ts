import { z } from 'zod';
import { defineInternal } from '../tool.js';

/**
 * Internal (not a tool): the registry ids of the repositories the request's
 * principal may read (members of the projects it holds a role in) and of
 * those it maintains (members of its projects as maintainer), or `all` for
 * an admin. Services that answer over repositories ask it (and keep
 * the answer a few seconds) to leave out what the caller may not see.
 */
export const SUBJECT = 'projects.readable-repositories.v1';
export const Request = z.strictObject({});
export type Request = z.output<typeof Request>;
export const Response = z.object({ all: z.boolean(), repository_ids: z.array(z.string()), maintained_ids: z.array(z.string()) });
export type Response = z.output<typeof Response>;

export const request = defineInternal({ name: 'readable-repositories', subject: SUBJECT, input: Request, output: Response });
