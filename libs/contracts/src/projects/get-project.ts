import { z } from 'zod';
import { defineTool } from '../tool.js';
import { Project, ProjectRef } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'projects.get.v1';
export const Request = z.strictObject({ project: ProjectRef });
export type Request = z.output<typeof Request>;
export const Response = z.object({ project: Project });
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'get_project',
  title: 'Get project',
  description: 'Get a project with its full repository list. `project` is the id or the name (case-insensitive).',
  service: 'projects',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
