import { z } from 'zod';
import { boundedInt, intIn } from '../common.js';
import { defineTool } from '../tool.js';
import { FilePath, answerFields, oneScope, scopeFields, SYMBOL_LIMITS, SymbolDef, SymbolKind, SymbolName } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'symbol-indexer.locate-symbol.v1';
export const Request = z
  .strictObject({
    name: SymbolName,
    kind: SymbolKind.optional(),
    language: z.string().max(32).optional(),
    path: FilePath.optional().describe(
      'With `line`: a file where the name is used (extension); the definition it denotes there comes first (a parameter or local variable as kind `variable`).',
    ),
    line: intIn(1, 10_000_000).optional().describe('1-based line of that use.'),
    column: intIn(0, 100_000).optional().describe('0-based column of that use, when the line has several.'),
    ...scopeFields,
    limit: boundedInt(1, SYMBOL_LIMITS.limitMax, SYMBOL_LIMITS.limitDefault),
  })
  .refine((r) => (r.path === undefined) === (r.line === undefined), { message: 'path and line go together', path: ['line'] })
  .refine(...oneScope);
export type Request = z.output<typeof Request>;
export const Response = z.object({
  ...answerFields,
  definitions: z.array(SymbolDef),
  truncated: z.boolean(),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'locate_symbol',
  title: 'Locate symbol definitions',
  description:
    'Find where a symbol (function, class, type, …) is defined, by name, optionally filtered by kind and language. Give the path and line where the name is used to get the definition it denotes there first (go to definition).',
  service: 'symbol-indexer',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
