import { z } from 'zod';
import { boundedInt } from '../common.js';
import { defineTool } from '../tool.js';
import { FilePath, answerFields, OutlineNode, targetFields } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'symbol-indexer.file-outline.v1';
export const Request = z.strictObject({
  path: FilePath,
  ...targetFields,
  limit: boundedInt(1, 10_000, 2_000).describe('Symbols listed at most, in source order (default 2000, max 10000).'),
});
export type Request = z.output<typeof Request>;
export const Response = z.object({
  ...answerFields,
  repo: z.string(),
  path: z.string(),
  language: z.string().nullable(),
  symbols: z.array(OutlineNode),
  symbol_count: z.int().describe('Symbols the file defines.'),
  truncated: z.boolean().describe('True when `limit` cut the tree (the first `limit` symbols in source order are listed).'),
  skipped: z
    .string()
    .nullable()
    .describe('Why the file is indexed at file level only (no grammar, binary, too large, past its time budget …); null when parsed.'),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'get_file_outline',
  title: 'File outline',
  description: "A file's symbol tree: classes, functions, methods and their nesting, with line ranges.",
  service: 'symbol-indexer',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
