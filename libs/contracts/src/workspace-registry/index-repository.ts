import { z } from 'zod';
import { text } from '../common.js';
import { defineTool } from '../tool.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'workspace-registry.index-repository.v1';
export const Request = z.strictObject({
  repository: text(1, 1024).describe('owner/repo or a git URL.'),
  ref: text(1, 255).optional().describe('Branch or tag (default main/master).'),
  localPath: z.string().min(1).max(4096).optional().describe('Index this local directory instead of cloning.'),
});
export type Request = z.output<typeof Request>;
export const Response = z.object({ runId: z.string(), status: z.literal('pending') });
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'index_repository',
  title: 'Index a repository',
  description: 'Clone (through git-cache) and index a repository; returns a runId to poll with get_index_job_status.',
  service: 'workspace-registry',
  subject: SUBJECT,
  input: Request,
  output: Response,
  annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: true },
});
