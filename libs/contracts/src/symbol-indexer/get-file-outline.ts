import { z } from 'zod';
import { defineTool } from '../tool.js';
import { FilePath, Freshness, OutlineNode, targetFields } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'symbol-indexer.file-outline.v1';
export const Request = z.strictObject({ path: FilePath, ...targetFields });
export type Request = z.output<typeof Request>;
export const Response = z.object({
  freshness: Freshness,
  repo: z.string(),
  path: z.string(),
  language: z.string().nullable(),
  symbols: z.array(OutlineNode),
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
