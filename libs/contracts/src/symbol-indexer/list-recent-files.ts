import { z } from 'zod';
import { boundedInt, Workspace } from '../common.js';
import { defineTool } from '../tool.js';
import { answerFields } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'symbol-indexer.recent-files.v1';
export const Request = z.strictObject({ limit: boundedInt(1, 100, 10), workspace: Workspace.optional() });
export type Request = z.output<typeof Request>;
export const Response = z.object({
  ...answerFields,
  files: z.array(z.object({ repo: z.string(), path: z.string(), language: z.string().nullable(), indexed_at: z.string() })),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'list_recent_files',
  title: 'Recently indexed files',
  description: 'The most recently indexed files, newest first.',
  service: 'symbol-indexer',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
