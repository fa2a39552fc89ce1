import { z } from 'zod';
import { boundedInt } from '../common.js';
import { defineTool } from '../tool.js';
import { answerFields, SYMBOL_LIMITS, SymbolDef, SymbolName, targetFields } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'symbol-indexer.related-symbols.v1';
export const Request = z.strictObject({
  name: SymbolName,
  ...targetFields,
  limit: boundedInt(1, SYMBOL_LIMITS.limitMax, SYMBOL_LIMITS.limitDefault),
});
export type Request = z.output<typeof Request>;
export const Response = z.object({
  ...answerFields,
  symbol: SymbolDef.nullable(),
  same_container: z.array(SymbolDef),
  callers: z.array(SymbolDef),
  callees: z.array(SymbolDef),
  similar_names: z.array(SymbolDef),
  truncated: z.boolean(),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'find_related_symbols',
  title: 'Related symbols',
  description: 'Symbols related to one: same container or module, callers and callees found by reference, similar names.',
  service: 'symbol-indexer',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
