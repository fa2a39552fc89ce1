import { z } from 'zod';
import { defineTool } from '../tool.js';
import { ProjectRef } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'projects.delete.v1';
export const Request = z.strictObject({ project: ProjectRef });
export type Request = z.output<typeof Request>;
export const Response = z.object({
  deleted: z.literal(true),
  project: z.object({ id: z.string(), name: z.string() }),
  repositories_removed: z.int().describe('Memberships removed; the repositories themselves stay indexed.'),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'delete_project',
  title: 'Delete project',
  description: 'Delete a project and its memberships. The repositories stay registered and indexed.',
  service: 'projects',
  subject: SUBJECT,
  input: Request,
  output: Response,
  access: 'maintain',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
});
