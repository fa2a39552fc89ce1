import { z } from 'zod';
import { defineTool } from '../tool.js';
import { Membership, ProjectRef, RepositoryId } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'projects.add-repository.v1';
export const Request = z.strictObject({ project: ProjectRef, repository_id: RepositoryId });
export type Request = z.output<typeof Request>;
export const Response = Membership.extend({
  added: z.boolean().describe('False when the repository was already a member (the call is idempotent).'),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'add_repository_to_project',
  title: 'Add repository to project',
  description: 'Add a repository to a project. Idempotent: adding a member again changes nothing.',
  service: 'projects',
  subject: SUBJECT,
  input: Request,
  output: Response,
  access: 'maintain',
  annotations: { readOnlyHint: false, idempotentHint: true },
});
