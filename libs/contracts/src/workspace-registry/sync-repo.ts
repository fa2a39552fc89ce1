import { z } from 'zod';
import { Workspace } from '../common.js';
import { defineTool } from '../tool.js';
import { Response as IndexRepoResponse } from './index-repo.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'workspace-registry.sync-repo.v1';
export const Request = z.strictObject({ workspace: Workspace.optional() });
export type Request = z.output<typeof Request>;
export const Response = IndexRepoResponse;
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'sync_repo',
  title: 'Sync a workspace index',
  description: 'Start an incremental index job: only files changed since the last index.',
  service: 'workspace-registry',
  subject: SUBJECT,
  input: Request,
  output: Response,
  access: 'maintain',
  annotations: { readOnlyHint: false, idempotentHint: false },
  startsJob: { idField: 'job_id' },
});
