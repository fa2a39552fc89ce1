import { z } from 'zod';
import { intIn, text } from '../common.js';
import { defineTool } from '../tool.js';
import { GIT_LIMITS } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'git-cache.open-file.v1';
export const Request = z
  .strictObject({
    repo: text(1, 512).describe('Repository directory under CODEBASE_ROOT (ignored in REPO_ROOT mode).'),
    path: z.string().min(1, 'must not be empty').max(4096).describe('Path relative to the repository root.'),
    startLine: intIn(1, GIT_LIMITS.lineMax).optional().describe('1-based first line (default 1).'),
    endLine: intIn(1, GIT_LIMITS.lineMax)
      .optional()
      .describe(`1-based last line, inclusive (default: up to ${GIT_LIMITS.openFileMaxLines} lines).`),
  })
  .refine((r) => r.startLine === undefined || r.endLine === undefined || r.endLine >= r.startLine, {
    message: 'endLine must be >= startLine',
    path: ['endLine'],
  });
export type Request = z.output<typeof Request>;

export const Response = z.object({
  repo: z.string(),
  path: z.string(),
  startLine: z.int(),
  endLine: z.int(),
  totalLines: z.int(),
  content: z.string(),
  truncated: z.boolean(),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'open_file',
  title: 'Open a file',
  description: 'Read a file (or a line range) from a repository checkout. Paths cannot escape the repository.',
  service: 'git-cache',
  subject: SUBJECT,
  shardBy: 'repository',
  input: Request,
  output: Response,
});
