import { z } from 'zod';
import { intIn, text } from '../common.js';
import { defineTool } from '../tool.js';
import { EffectiveScope, SEARCH_LIMITS, SearchHit, normalizeScope, scopedQueryFields, searchMetaFields } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'vector-search.search.v1';
export const Request = z
  .strictObject({
    ...scopedQueryFields,
    term: text(1, SEARCH_LIMITS.queryMax).optional().describe('Alias of `query` [004].'),
    topK: intIn(1, SEARCH_LIMITS.topKMax)
      .optional()
      .describe(`Results to return (default ${SEARCH_LIMITS.topKDefault}, max ${SEARCH_LIMITS.topKMax}).`),
    limit: intIn(1, SEARCH_LIMITS.topKMax).optional().describe('Alias of `topK` [004].'),
    vector: z
      .array(z.number())
      .min(1)
      .max(SEARCH_LIMITS.vectorMaxDims)
      .optional()
      .describe('Precomputed query embedding; when given, `query` is not embedded.'),
    mode: z.enum(['hybrid', 'semantic', 'lexical']).default('hybrid'),
  })
  .refine((r) => r.query !== undefined || r.term !== undefined, { message: 'query (or term) is required', path: ['query'] })
  .transform(({ term, limit, ...r }) => ({
    ...normalizeScope(r),
    query: r.query ?? term,
    topK: r.topK ?? limit ?? SEARCH_LIMITS.topKDefault,
  }));
export type Request = z.output<typeof Request>;

export const Response = z.object({
  results: z.array(SearchHit),
  meta: z.object({
    scope: EffectiveScope,
    topK: z.int(),
    pathPrefix: z.string().nullable(),
    collection: z.string(),
    mode: z.enum(['hybrid', 'semantic', 'lexical']),
    ...searchMetaFields,
  }),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'search_code',
  title: 'Search code by meaning',
  description:
    'Semantic and lexical search over indexed code in one repository, several, a project, or all (when allowed). ' +
    'Returns ranked snippets with repo, path and line range.',
  service: 'vector-search',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
