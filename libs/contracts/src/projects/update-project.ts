import { z } from 'zod';
import { defineTool } from '../tool.js';
import { Description, Project, ProjectName, ProjectRef, RepositoryIds } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'projects.update.v1';
export const Request = z
  .strictObject({
    project: ProjectRef,
    name: ProjectName.optional(),
    description: Description.nullable().optional().describe('New description; null clears it.'),
    repository_ids: RepositoryIds.optional().describe('Replaces the whole set of member repositories.'),
  })
  .refine((r) => r.name !== undefined || r.description !== undefined || r.repository_ids !== undefined, {
    message: 'nothing to update: give name, description or repository_ids',
  });
export type Request = z.output<typeof Request>;
export const Response = z.object({ project: Project });
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'update_project',
  title: 'Update project',
  description: 'Rename a project, change its description, or replace its repositories (repository_ids replaces the whole set).',
  service: 'projects',
  subject: SUBJECT,
  input: Request,
  output: Response,
  access: 'maintain',
  annotations: { readOnlyHint: false, idempotentHint: true },
});
