import { z } from 'zod';
import { discoveryFields } from '../common.js';
import { defineTool } from '../tool.js';
import { GitWorkspace, RepositoryLocator } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'git-cache.list-refs.v1';
export const Request = z.strictObject({ repository: RepositoryLocator.optional(), workspace: GitWorkspace.optional() });
export type Request = z.output<typeof Request>;
export const Response = z.object({
  branches: z.array(z.string()),
  tags: z.array(z.string()),
  indexing_status: discoveryFields.indexing_status,
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'list_repository_refs',
  title: 'List branches and tags',
  description: 'List the branches and tags of a remote repository.',
  service: 'git-cache',
  subject: SUBJECT,
  shardBy: 'repository',
  input: Request,
  output: Response,
  annotations: { openWorldHint: true },
});
