import { z } from 'zod';
import { intIn } from '../common.js';
import { defineTool } from '../tool.js';
import { EffectiveScope, Evidence, SEARCH_LIMITS, normalizeScope, scopedQueryFields, searchMetaFields } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'vector-search.ask.v1';
export const Request = z
  .strictObject({
    ...scopedQueryFields,
    topK: intIn(1, SEARCH_LIMITS.topKMax).default(SEARCH_LIMITS.askTopKDefault),
    minScore: z.number().min(0).max(1).default(0),
  })
  .refine((r) => r.query !== undefined, { message: 'required', path: ['query'] })
  .transform(normalizeScope);
export type Request = z.output<typeof Request>;

export const Response = z.object({
  answer: z.string().describe('Answer citing evidences as [1], [2]…; extractive when no LLM is configured.'),
  evidences: z.array(Evidence),
  meta: z.object({
    scope: EffectiveScope,
    topK: z.int(),
    minScore: z.number(),
    llmModel: z.string().describe('"none" when the answer is extractive.'),
    collection: z.string(),
    totalMatches: z.int(),
    contextsUsed: z.int(),
    elapsedMs: z.number(),
    ...searchMetaFields,
  }),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'ask_code',
  title: 'Ask a question about code',
  description: 'Answer a question about the code with cited evidence: retrieves the best snippets in scope and answers from them only.',
  service: 'vector-search',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
