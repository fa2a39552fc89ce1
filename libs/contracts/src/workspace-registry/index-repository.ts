import { z } from 'zod';
import { text, Workspace } from '../common.js';
import { defineTool } from '../tool.js';
import { JobStatus } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'workspace-registry.index-repository.v1';
export const Request = z
  .strictObject({
    repository: text(1, 1024)
      .optional()
      .describe(
        'owner/repo or a git URL. With localPath it may be left out: a local repository is named after its directory ' +
          "(another name given here is not used, and the answer's notes say so).",
      ),
    ref: text(1, 255).optional().describe("Branch or tag (default: the repository's default branch)."),
    localPath: Workspace.optional().describe('Index this local git repository (absolute path) instead of cloning.'),
  })
  .refine((r) => r.repository !== undefined || r.localPath !== undefined, {
    message: 'required: a repository (owner/repo or a git URL), or a localPath',
    path: ['repository'],
  });
export type Request = z.output<typeof Request>;
export const Response = z.object({
  job_id: z.string().describe('The indexing job: get_index_job_status {job_id}.'),
  runId: z.string().describe('The same as job_id (its first name here; kept for clients that read it).'),
  status: JobStatus.describe('pending when the call returns at once; the final status when the call followed the job (progress asked).'),
  notes: z.array(z.string()).optional().describe('What was not done as asked: a repository name beside localPath is not used.'),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'index_repository',
  title: 'Index a repository',
  description:
    'Register and index a repository: owner/repo or a git URL on an allowed host (cloned, shallow), or a local git repository (localPath). ' +
    'Returns a job_id (also as runId) to poll with get_index_job_status.',
  service: 'workspace-registry',
  subject: SUBJECT,
  input: Request,
  output: Response,
  access: 'maintain',
  annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: true },
  startsJob: { idField: 'job_id' },
});
