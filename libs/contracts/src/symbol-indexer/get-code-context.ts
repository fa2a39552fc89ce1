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
    max_tokens: boundedInt(SYMBOL_LIMITS.maxTokensMin, SYMBOL_LIMITS.maxTokensMax, SYMBOL_LIMITS.maxTokensDefault).describe(
      "The most tokens this answer takes, counted with the cl100k_base tokenizer over the answer's JSON text: every field " +
        `but the gateway's metadata. At least ${SYMBOL_LIMITS.maxTokensMin}: freshness and symbol are always sent (about ` +
        '120 tokens with a typical path); should they alone take more, only they come, with truncated: true.',
    ),
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
  estimated_tokens: z.int().describe("This answer's tokens (cl100k_base), as counted against max_tokens."),
  truncated: z.boolean().describe('Something was left out to stay within max_tokens.'),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'get_code_context',
  title: 'Code context bundle',
  description:
    'A compact bundle for a symbol or query: the definition body, its file outline, imports and the top related symbols, sized to max_tokens (real tokens of the whole answer).',
  service: 'symbol-indexer',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
