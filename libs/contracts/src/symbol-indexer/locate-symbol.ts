import { z } from 'zod';
import { boundedInt, ResultCompleteness } from '../common.js';
import { defineTool } from '../tool.js';
import { SYMBOL_LIMITS, SymbolDef, SymbolKind, SymbolName, targetFields } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'symbol-indexer.locate-symbol.v1';
export const Request = z.strictObject({
  name: SymbolName,
  kind: SymbolKind.optional(),
  language: z.string().max(32).optional(),
  ...targetFields,
  limit: boundedInt(1, SYMBOL_LIMITS.limitMax, SYMBOL_LIMITS.limitDefault),
});
export type Request = z.output<typeof Request>;
export const Response = z.object({
  definitions: z.array(SymbolDef),
  truncated: z.boolean(),
  result_completeness: ResultCompleteness.optional(),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'locate_symbol',
  title: 'Locate symbol definitions',
  description: 'Find where a symbol (function, class, type, …) is defined, by name, optionally filtered by kind and language.',
  service: 'symbol-indexer',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
