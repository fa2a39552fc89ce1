import { z } from 'zod';
import { SUBJECTS } from '../subjects.js';
import { defineTool } from '../tool.js';
import { Membership, ProjectRef, RepositoryId } from './common.js';

export const SUBJECT = SUBJECTS.projects.removeRepository;
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
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
});
