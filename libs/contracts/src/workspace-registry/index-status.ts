import { z } from 'zod';
import { discoveryFields, IndexingStatus, Workspace } from '../common.js';
import { defineTool } from '../tool.js';
import { ActiveJob, InterruptedRecoveryReport } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'workspace-registry.index-status.v1';
export const Request = z.strictObject({ workspace: Workspace.optional() });
export type Request = z.output<typeof Request>;
export const Response = z.object({
  ...discoveryFields,
  project_id: z.string(),
  repo_root: z.string(),
  index_status: IndexingStatus,
  active_job: ActiveJob.optional(),
  interrupted_recovery_report: InterruptedRecoveryReport.optional(),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'index_status',
  title: 'Index status',
  description: "A workspace's index status, the active job's progress, and any jobs interrupted by a restart.",
  service: 'workspace-registry',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
