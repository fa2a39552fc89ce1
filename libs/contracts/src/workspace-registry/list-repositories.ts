import { z } from 'zod';
import { boundedInt, IndexingStatus } from '../common.js';
import { defineTool } from '../tool.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'workspace-registry.list-repositories.v1';
export const Request = z.strictObject({ limit: boundedInt(1, 1000, 100) });
export type Request = z.output<typeof Request>;
export const Response = z.object({
  repositories: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      url: z.string().nullable(),
      repo_root: z.string().nullable(),
      default_branch: z.string().nullable(),
      index_status: IndexingStatus,
      indexed_commit: z.string().nullable(),
      last_indexed_at: z.string().nullable(),
      behind_head: z.boolean().nullable().describe('True when the indexed commit is behind the branch head; null if unknown.'),
    }),
  ),
  total: z.int(),
  truncated: z.boolean(),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'list_repositories',
  title: 'List repositories',
  description: 'Registered repositories with their index status, indexed commit, and whether the index is behind the branch head.',
  service: 'workspace-registry',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
