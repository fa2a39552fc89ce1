import { z } from 'zod';
import { text, Workspace } from '../common.js';
import { defineTool } from '../tool.js';
import { JobStatus } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'workspace-registry.index-repository.v1';
export const Request = z.strictObject({
  repository: text(1, 1024).describe('owner/repo or a git URL.'),
  ref: text(1, 255).optional().describe("Branch or tag (default: the repository's default branch)."),
  localPath: Workspace.optional().describe('Index this local git repository (absolute path) instead of cloning.'),
});
export type Request = z.output<typeof Request>;
export const Response = z.object({
  runId: z.string(),
  status: JobStatus.describe('pending when the call returns at once; the final status when the call followed the job (progress asked).'),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'index_repository',
  title: 'Index a repository',
  description:
    'Register and index a repository: owner/repo or a git URL on an allowed host (cloned, shallow), or a local git repository (localPath). ' +
    'Returns a runId to poll with get_index_job_status.',
  service: 'workspace-registry',
  subject: SUBJECT,
  input: Request,
  output: Response,
  access: 'maintain',
  annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: true },
  startsJob: { idField: 'runId' },
});
