import { z } from 'zod';
import { intIn } from '../common.js';
import { defineTool } from '../tool.js';
import { EffectiveScope, SEARCH_LIMITS, SearchHit, normalizeScope, scopedQueryFields, searchMetaFields } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'vector-search.search.v1';
export const Request = z
  .strictObject({
    ...scopedQueryFields,
    topK: intIn(1, SEARCH_LIMITS.topKMax)
      .optional()
      .describe(`Results to return (default ${SEARCH_LIMITS.topKDefault}, max ${SEARCH_LIMITS.topKMax}).`),
    vector: z
      .array(z.number())
      .min(1)
      .max(SEARCH_LIMITS.vectorMaxDims)
      .optional()
      .describe('Precomputed query embedding; when given, `query` is not embedded.'),
    mode: z.enum(['hybrid', 'semantic', 'lexical']).default('hybrid'),
    min_score: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe('Leave out results scoring below this (0–1, as results[].score): e.g. 0.5 keeps only strong matches.'),
  })
  // `term` and `limit` are the vocabulary's aliases of `query` and `topK` (defineTool).
  .refine((r) => r.query !== undefined, { message: 'query (or term) is required', path: ['query'] })
  .transform((r) => ({ ...normalizeScope(r), topK: r.topK ?? SEARCH_LIMITS.topKDefault }));
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
    low_confidence: z
      .literal(true)
      .optional()
      .describe("None of the query's words occurs in what was searched: the results are only near it in the embedding space."),
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
