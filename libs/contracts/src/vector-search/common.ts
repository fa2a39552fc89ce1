import { z } from 'zod';
import { EffectiveScope, RepoName, Scope, Workspace, text } from '../common.js';
import { Freshness } from '../symbol-indexer/common.js';

export const SEARCH_LIMITS = { topKDefault: 10, topKMax: 100, askTopKDefault: 5, vectorMaxDims: 8192, queryMax: 4000 } as const;

/** Fields shared by search_code and ask_code: the query and how it is scoped. */
export const scopedQueryFields = {
  query: text(1, SEARCH_LIMITS.queryMax).optional().describe('Natural-language or code query.'),
  scope: Scope.optional().describe('Where to search. {type:"all"} needs ALLOW_GLOBAL_SCOPE=true. When present, `repo` is ignored.'),
  repo: RepoName.optional().describe('Legacy: used only when `scope` is absent, meaning {type:"repo", repo}.'),
  pathPrefix: z.string().max(1024).optional().describe('Only paths starting with this prefix.'),
  workspace: Workspace.optional(),
};

/**
 * `scope` wins over `repo` (and over its alias `repository`, which the
 * vocabulary turns into `repo` before this runs).
 */
export function normalizeScope<T extends { scope?: Scope; repo?: string }>(v: T) {
  return v.scope ? { ...v, repo: undefined } : v;
}

export const SearchHit = z.object({
  repo: z.string().describe('Repository of the hit; "(unknown)" for points written without a repo payload.'),
  score: z
    .number()
    .describe('0–1, higher is better (hybrid: fused rank; semantic: cosine similarity; lexical: squashed BM25-style score).'),
  path: z.string(),
  startLine: z.int(),
  endLine: z.int(),
  snippet: z.string(),
  symbol: z.string().optional().describe('The definition the snippet is (or is part of), e.g. "Cart.add"; a Markdown heading.'),
  language: z.string().optional(),
  commit: z.string().optional().describe('The commit the indexed text was read at.'),
});

export const Evidence = SearchHit.pick({
  repo: true,
  score: true,
  path: true,
  startLine: true,
  endLine: true,
  snippet: true,
  symbol: true,
  commit: true,
});

/** What search answers also say about their repositories and how they were searched (beyond the results). */
export const searchMetaFields = {
  warnings: z
    .array(z.string())
    .optional()
    .describe('What the answer could not do as asked: a repository not indexed yet or behind its branch, a fallback taken …'),
  freshness: Freshness.optional(),
  embeddings: z
    .object({ model: z.string(), kind: z.enum(['lexical', 'semantic']), dimension: z.int() })
    .optional()
    .describe('The embedder of the collection: "lexical" is the built-in feature-hashing embedder (no language model).'),
};

export { EffectiveScope };
