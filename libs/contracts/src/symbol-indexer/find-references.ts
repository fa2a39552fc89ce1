import { z } from 'zod';
import { boundedInt } from '../common.js';
import { defineTool } from '../tool.js';
import { Reference, SYMBOL_LIMITS, SymbolName, targetFields } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'symbol-indexer.find-references.v1';
export const Request = z.strictObject({
  name: SymbolName,
  ...targetFields,
  limit: boundedInt(1, 1000, SYMBOL_LIMITS.limitDefault * 5),
});
export type Request = z.output<typeof Request>;
export const Response = z.object({ references: z.array(Reference), total: z.int(), truncated: z.boolean() });
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'find_references',
  title: 'Find references',
  description: 'References to a symbol across the workspace: calls, imports, type uses.',
  service: 'symbol-indexer',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
