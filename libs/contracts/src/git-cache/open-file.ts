import { z } from 'zod';
import { intIn, text } from '../common.js';
import { defineTool } from '../tool.js';
import { GIT_LIMITS, GitWorkspace } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'git-cache.open-file.v1';
export const Request = z
  .strictObject({
    repo: text(1, 1024)
      .optional()
      .describe(
        'The repository, named as the other tools name it: the id or name of a registered repository (the `repo` of a ' +
          'search_code, locate_symbol, find_references or grep_repository result), a workspace path, a repository URL ' +
          '(https://host/owner/repo, github:owner/repo), or a directory under CODEBASE_ROOT (ignored in REPO_ROOT mode). ' +
          'Required unless "workspace" is given.',
      ),
    workspace: GitWorkspace.optional(),
    ref: text(1, 255)
      .optional()
      .describe(
        'A branch or tag of a remote repository, read at its head. Default: the commit its index reflects (the commit ' +
          'search and symbol answers were made from), else its registered branch. A workspace is read as its working tree.',
      ),
    path: z.string().min(1, 'must not be empty').max(4096).describe('Path relative to the repository root.'),
    startLine: intIn(1, GIT_LIMITS.lineMax).optional().describe('1-based first line (default 1).'),
    endLine: intIn(1, GIT_LIMITS.lineMax)
      .optional()
      .describe(
        `1-based last line, inclusive (default: up to ${GIT_LIMITS.openFileMaxLines} lines or 64 KiB; "next" says what to ask for next).`,
      ),
  })
  .refine((r) => r.repo !== undefined || r.workspace !== undefined, {
    message: 'required: a repository (id, name, URL or workspace path), or a workspace',
    path: ['repo'],
  })
  .refine((r) => r.startLine === undefined || r.endLine === undefined || r.endLine >= r.startLine, {
    message: 'endLine must be >= startLine',
    path: ['endLine'],
  });
export type Request = z.output<typeof Request>;

export const Response = z.object({
  repo: z.string().describe('The repository as other tools name it (a registered one by its name).'),
  path: z.string(),
  commit: z.string().nullable().describe('The commit the content is at; null: a working tree (a workspace, a directory of the server).'),
  startLine: z.int(),
  endLine: z.int(),
  totalLines: z.int(),
  content: z.string(),
  truncated: z.boolean(),
  next: z
    .object({ startLine: z.int(), endLine: z.int() })
    .nullable()
    .describe('When cut short: the range to ask for next (the rest of what was asked, as much as one answer holds).'),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'open_file',
  title: 'Open a file',
  description:
    'Read a file (or a line range) of a repository: a workspace from its working tree, a remote repository from its clone ' +
    'at the commit its index reflects. Paths cannot escape the repository.',
  service: 'git-cache',
  subject: SUBJECT,
  shardBy: 'repo',
  input: Request,
  output: Response,
});
