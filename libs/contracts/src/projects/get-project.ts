import { z } from 'zod';
import { SUBJECTS } from '../subjects.js';
import { defineTool } from '../tool.js';
import { Project, ProjectRef } from './common.js';

export const SUBJECT = SUBJECTS.projects.get;
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
