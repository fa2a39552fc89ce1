import { z } from 'zod';
import { UpstreamRateLimit, boundedInt, text } from '../common.js';
import { defineTool } from '../tool.js';
import { GIT_LIMITS } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'git-cache.search-repositories.v1';
export const Request = z.strictObject({
  query: text(1, 256).describe('GitHub search query, e.g. "tree-sitter language:rust stars:>100".'),
  sort_by: z.enum(['relevance', 'stars', 'forks', 'updated']).default('relevance'),
  order: z.enum(['desc', 'asc']).default('desc'),
  per_page: boundedInt(1, GIT_LIMITS.perPageMax, GIT_LIMITS.perPageDefault),
  page: boundedInt(1, 1000, 1),
});
export type Request = z.output<typeof Request>;

export const License = z.object({ key: z.string(), name: z.string(), spdx_id: z.string(), url: z.string().nullable() });

export const Repository = z.object({
  name: z.string(),
  full_name: z.string(),
  private: z.boolean(),
  html_url: z.string(),
  description: z.string().nullable(),
  fork: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  pushed_at: z.string(),
  git_url: z.string(),
  ssh_url: z.string(),
  clone_url: z.string(),
  svn_url: z.string(),
  homepage: z.string().nullable(),
  language: z.string().nullable(),
  license: License.nullable(),
  topics: z.array(z.string()),
  visibility: z.string(),
  default_branch: z.string(),
});

export const Response = z.object({
  repositories: z.array(Repository),
  total_count: z.int(),
  page: z.int(),
  per_page: z.int(),
  truncated: z.boolean().describe('True when repositories were left out to keep the answer within its size budget.'),
  notes: z.array(z.string()).optional(),
  rate_limit: UpstreamRateLimit.optional(),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'search_repositories',
  title: 'Search GitHub repositories',
  description: 'Search repositories on GitHub (or GitHub Enterprise) by query, sorted by relevance, stars, forks or update time.',
  service: 'git-cache',
  subject: SUBJECT,
  input: Request,
  output: Response,
  annotations: { openWorldHint: true, idempotentHint: false },
});
