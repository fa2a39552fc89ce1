import { z } from 'zod';
import { boundedInt, text } from '../common.js';
import { defineTool } from '../tool.js';
import { answerFields, OutlineNode, SYMBOL_LIMITS, SymbolDef, SymbolName, targetFields } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'symbol-indexer.code-context.v1';
export const Request = z
  .strictObject({
    name: SymbolName.optional(),
    query: text(1, 2000).optional(),
    max_tokens: boundedInt(100, SYMBOL_LIMITS.maxTokensMax, SYMBOL_LIMITS.maxTokensDefault),
    ...targetFields,
  })
  .refine((r) => r.name !== undefined || r.query !== undefined, { message: 'give name or query', path: ['name'] });
export type Request = z.output<typeof Request>;
export const Response = z.object({
  ...answerFields,
  symbol: SymbolDef.nullable(),
  definition: z.string().nullable(),
  outline: z.array(OutlineNode),
  imports: z.array(z.string()),
  related: z.array(SymbolDef),
  estimated_tokens: z.int(),
  truncated: z.boolean(),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'get_code_context',
  title: 'Code context bundle',
  description:
    'A compact bundle for a symbol or query: the definition body, its file outline, imports and the top related symbols, sized to max_tokens.',
  service: 'symbol-indexer',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
