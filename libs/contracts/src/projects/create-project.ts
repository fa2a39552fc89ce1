import { z } from 'zod';
import { defineTool } from '../tool.js';
import { Description, Project, ProjectName, RepositoryIds } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'projects.create.v1';
export const Request = z.strictObject({
  name: ProjectName,
  description: Description.optional(),
  repository_ids: RepositoryIds.optional(),
});
export type Request = z.output<typeof Request>;
export const Response = z.object({ project: Project });
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'create_project',
  title: 'Create project',
  description:
    'Create a project: a named group of repositories that can be used as a search scope (scope: {type:"project"}). ' +
    'Names are unique case-insensitively.',
  service: 'projects',
  subject: SUBJECT,
  input: Request,
  output: Response,
  access: 'admin',
  annotations: { readOnlyHint: false, idempotentHint: false },
});
