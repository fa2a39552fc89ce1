import { z } from 'zod';
import { discoveryFields, Workspace } from '../common.js';
import { defineTool } from '../tool.js';
import { JobStatus } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'workspace-registry.index-repo.v1';
export const Request = z.strictObject({
  workspace: Workspace.optional(),
  force: z.boolean().default(false).describe('Force a full re-index.'),
});
export type Request = z.output<typeof Request>;
export const Response = z.object({
  job_id: z.string(),
  runId: z.string().describe('The same as job_id (the name index_repository used for it).'),
  progress_token: z.string().describe('"index-job-<job_id>": correlates notifications/progress and index_status.'),
  status: JobStatus,
  mode: z.enum(['full', 'incremental']),
  file_count: z.int().describe('Files the index held when the job was started (0 before a first index completes).'),
  indexing_status: discoveryFields.indexing_status,
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'index_repo',
  title: 'Index a workspace',
  description:
    'Start indexing a workspace (full, or incremental when an index exists). Progress via notifications/progress or index_status.',
  service: 'workspace-registry',
  subject: SUBJECT,
  input: Request,
  output: Response,
  access: 'maintain',
  annotations: { readOnlyHint: false, idempotentHint: false },
  startsJob: { idField: 'job_id' },
});
