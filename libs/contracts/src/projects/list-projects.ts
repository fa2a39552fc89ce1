import { z } from 'zod';
import { boundedInt } from '../common.js';
import { defineTool } from '../tool.js';
import { PROJECT_LIMITS, ProjectSummary } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'projects.list.v1';
export const Request = z.strictObject({
  limit: boundedInt(1, PROJECT_LIMITS.listMax, PROJECT_LIMITS.listDefault).describe(
    `Maximum projects to return (default ${PROJECT_LIMITS.listDefault}, max ${PROJECT_LIMITS.listMax}).`,
  ),
});
export type Request = z.output<typeof Request>;
export const Response = z.object({
  projects: z.array(ProjectSummary).describe('Sorted by name.'),
  total: z.int().describe('Number of projects in all.'),
  truncated: z.boolean().describe('True when more projects exist than were returned.'),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'list_projects',
  title: 'List projects',
  description: 'List projects with their repository counts, sorted by name.',
  service: 'projects',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
