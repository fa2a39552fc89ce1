import { z } from 'zod';
import { defineTool } from '../tool.js';
import { Membership, ProjectRef, RepositoryId } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'projects.remove-repository.v1';
export const Request = z.strictObject({ project: ProjectRef, repository_id: RepositoryId });
export type Request = z.output<typeof Request>;
export const Response = Membership.extend({
  removed: z.boolean().describe('False when the repository was not a member (the call is idempotent).'),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'remove_repository_from_project',
  title: 'Remove repository from project',
  description: 'Remove a repository from a project. Idempotent: removing a non-member changes nothing.',
  service: 'projects',
  subject: SUBJECT,
  input: Request,
  output: Response,
  access: 'maintain',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
});
