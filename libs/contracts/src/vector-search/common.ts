import { z } from 'zod';
import { EffectiveScope, RepoName, Scope, Workspace, text } from '../common.js';

export const SEARCH_LIMITS = { topKDefault: 10, topKMax: 100, askTopKDefault: 5, vectorMaxDims: 8192, queryMax: 4000 } as const;

/** Fields shared by search_code and ask_code: the query and how it is scoped. */
export const scopedQueryFields = {
  query: text(1, SEARCH_LIMITS.queryMax).optional().describe('Natural-language or code query.'),
  scope: Scope.optional().describe('Where to search. {type:"all"} needs ALLOW_GLOBAL_SCOPE=true. When present, `repo` is ignored.'),
  repo: RepoName.optional().describe('Legacy: used only when `scope` is absent, meaning {type:"repo", repo}.'),
  repository: RepoName.optional().describe('Legacy alias of `repo` [004].'),
  pathPrefix: z.string().max(1024).optional().describe('Only paths starting with this prefix.'),
  workspace: Workspace.optional(),
};

/** `query` is required unless an alias carries it; `scope` wins over `repo`/`repository`. */
export function normalizeScope<T extends { scope?: Scope; repo?: string; repository?: string }>(v: T) {
  const { repository, ...rest } = v;
  return v.scope ? { ...rest, repo: undefined } : { ...rest, repo: v.repo ?? repository };
}

export const SearchHit = z.object({
  repo: z.string().describe('Repository of the hit; "(unknown)" for points written without a repo payload.'),
  score: z.number(),
  path: z.string(),
  startLine: z.int(),
  endLine: z.int(),
  snippet: z.string(),
  symbol: z.string().optional(),
  language: z.string().optional(),
});

export const Evidence = SearchHit.pick({ repo: true, score: true, path: true, startLine: true, endLine: true, snippet: true });

export { EffectiveScope };
