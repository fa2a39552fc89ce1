import { z } from 'zod';
import { boundedInt, text, discoveryFields } from '../common.js';
import { defineTool } from '../tool.js';
import { GIT_LIMITS, GitWorkspace, RepositoryLocator } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'git-cache.grep.v1';
export const Request = z.strictObject({
  repository: RepositoryLocator.optional(),
  ref_name: text(1, 255)
    .optional()
    .describe("Branch or tag; default: the repository's default branch. A branch or tag that does not exist is not_found."),
  pattern: z
    .string()
    .min(1, 'must not be empty')
    .max(GIT_LIMITS.patternMax)
    .describe('Regular expression (or literal with use_regex=false).'),
  case_sensitive: z.boolean().default(false),
  use_regex: z.boolean().default(true),
  file_extensions: z
    .array(text(1, 32))
    .max(50)
    .optional()
    .describe('Only files with these extensions, e.g. ["rs","toml"]; compared case-insensitively.'),
  exclude_dirs: z
    .array(text(1, 255))
    .max(50)
    .optional()
    .describe('Directories to skip, e.g. ["target","node_modules"]; plain relative paths, no glob characters.'),
  context_lines: boundedInt(0, GIT_LIMITS.contextLinesMax, 0),
  max_matches: boundedInt(1, GIT_LIMITS.maxMatchesMax, GIT_LIMITS.maxMatchesDefault),
  workspace: GitWorkspace.optional(),
});
export type Request = z.output<typeof Request>;

export const LineMatch = z.object({
  line_number: z.int(),
  line: z.string(),
  ranges: z.array(z.tuple([z.int(), z.int()])).describe('[start, length] in characters of the line.'),
  context_before: z.array(z.string()).optional(),
  context_after: z.array(z.string()).optional(),
});

export const Response = z.object({
  repo: z
    .string()
    .optional()
    .describe('The repository searched, as open_file takes it: a registered one by its name, else as the call spelled it.'),
  matches: z.array(z.object({ path: z.string(), line_matches: z.array(LineMatch) })),
  stats: z.object({
    files_searched: z.int(),
    total_matches: z.int(),
    files_with_matches: z.int(),
    execution_time_ms: z.number(),
  }),
  truncated: z.boolean(),
  ref: z.string().optional().describe('The ref actually searched.'),
  notes: z.array(z.string()).optional().describe('E.g. a missing branch fell back to main.'),
  indexing_status: discoveryFields.indexing_status,
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'grep_repository',
  title: 'Grep a repository',
  description:
    'Search a repository (cloned into a local cache, shallow) for a regex or literal with ripgrep. Returns matching lines with ranges.',
  service: 'git-cache',
  subject: SUBJECT,
  shardBy: 'repository',
  input: Request,
  output: Response,
  annotations: { openWorldHint: true },
});
