import { z } from 'zod';
import { SUBJECTS } from '../subjects.js';
import { defineTool } from '../tool.js';
import { FilePath, OutlineNode, targetFields } from './common.js';

export const SUBJECT = SUBJECTS.symbolIndexer.fileOutline;
export const Request = z.strictObject({ path: FilePath, ...targetFields });
export type Request = z.output<typeof Request>;
export const Response = z.object({
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
