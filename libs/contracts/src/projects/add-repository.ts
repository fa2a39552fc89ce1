import { z } from 'zod';
import { SUBJECTS } from '../subjects.js';
import { defineTool } from '../tool.js';
import { Membership, ProjectRef, RepositoryId } from './common.js';

export const SUBJECT = SUBJECTS.projects.addRepository;
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
  annotations: { readOnlyHint: false, idempotentHint: true },
});
