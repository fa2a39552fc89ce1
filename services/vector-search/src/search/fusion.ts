import type { Hit } from './hit.js';

/**
 * Reciprocal-rank fusion's constant: the hit at 0-based position p of a list
 * of weight w adds w / (RRF_K + p + 1). (Qdrant's weighted rrf stretches the
 * ranks instead, 1 / ((p + 1) / w + k - 1): with the built-in embedder's
 * weight that measured worse here, bench/search-quality; ADR 0023.)
 */
export const RRF_K = 60;
/** What an exact match of the query with a chunk's symbol name adds, as a share of a first rank in one list. */
const SYMBOL_BONUS = 0.5;
/** What query words in a chunk's path add, at most, as a share of a first rank in one list. */
const PATH_BONUS = 0.25;

export interface Ranked extends Hit {
  /** 0–1. */
  score: number;
}

const key = (h: Hit) => `${h.repositoryId}\0${h.path}\0${h.ordinal}`;

/** What position `p` (0-based) of a list of weight `w` adds. */
export function rrfScore(p: number, w: number): number {
  return w / (RRF_K + p + 1);
}

/**
 * Hits already fused by reciprocal rank with one more list of weight `w` fused in, best first (rank scores add up:
 * the same as fusing every list at once).
 */
export function withList(fused: readonly Hit[], list: readonly Hit[], w: number): Hit[] {
  const out = new Map(fused.map((h) => [key(h), { ...h }]));
  list.forEach((hit, p) => {
    const entry = out.get(key(hit));
    if (entry) entry.score += rrfScore(p, w);
    else out.set(key(hit), { ...hit, score: rrfScore(p, w) });
  });
  return [...out.values()].sort((a, b) => b.score - a.score);
}

/** Hits of every list by their fused reciprocal-rank score, best first. */
export function reciprocalRank(lists: ReadonlyArray<readonly Hit[]>, weights: readonly number[] = lists.map(() => 1)): Hit[] {
  const fused = new Map<string, Hit>();
  lists.forEach((list, i) => {
    list.forEach((hit, p) => {
      const k = key(hit);
      const entry = fused.get(k);
      if (entry) entry.score += rrfScore(p, weights[i]);
      else fused.set(k, { ...hit, score: rrfScore(p, weights[i]) });
    });
  });
  return [...fused.values()].sort((a, b) => b.score - a.score);
}

/**
 * Fuses ranked lists by reciprocal rank (list i's ranks count `weights[i]`,
 * 1 by default), then adds the cheap signals that help on code (`withSignals`).
 */
export function fuse(
  lists: ReadonlyArray<readonly Hit[]>,
  queryTokens: ReadonlySet<string>,
  pathWords: (path: string) => string[],
  weights: readonly number[] = lists.map(() => 1),
): Ranked[] {
  return withSignals(reciprocalRank(lists, weights), queryTokens, pathWords, weights);
}

/**
 * Adds to reciprocal-rank scores (fused from lists of these `weights`) the
 * signals that help on code: the query names the chunk's symbol, the
 * query's words are in its path. Scores are scaled to 0–1 by the best a
 * chunk could get (first in every list, both signals).
 */
export function withSignals(
  fused: readonly Hit[],
  queryTokens: ReadonlySet<string>,
  pathWords: (path: string) => string[],
  weights: readonly number[],
): Ranked[] {
  const first = rrfScore(0, 1);
  const best = weights.reduce((sum, w) => sum + rrfScore(0, w), 0) + (SYMBOL_BONUS + PATH_BONUS) * first;
  return fused
    .map((hit) => {
      let score = hit.score;
      const symbol = hit.symbol?.split('.').at(-1)?.toLowerCase();
      if (symbol && queryTokens.has(symbol)) score += SYMBOL_BONUS * first;
      const words = pathWords(hit.path);
      if (queryTokens.size > 0 && words.length > 0) {
        const shared = [...queryTokens].filter((t) => words.includes(t)).length;
        score += PATH_BONUS * first * (shared / queryTokens.size);
      }
      return { ...hit, score: Math.min(1, score / best) };
    })
    .sort((a, b) => b.score - a.score || a.path.localeCompare(b.path) || a.startLine - b.startLine);
}

/**
 * Best first, without chunks that overlap a better one of the same file
 * (the pieces of a split definition share a few lines).
 */
export function withoutOverlaps<T extends Hit>(ranked: readonly T[]): T[] {
  const kept: T[] = [];
  for (const hit of ranked) {
    const overlaps = kept.some(
      (k) => k.repositoryId === hit.repositoryId && k.path === hit.path && k.startLine <= hit.endLine && hit.startLine <= k.endLine,
    );
    if (!overlaps) kept.push(hit);
  }
  return kept;
}

/**
 * The same hits with at most `perFile` chunks of one file among the first
 * ones: a file's further chunks move below every file's first `perFile`
 * (in their order), so one long file does not fill a page of results.
 */
export function spreadAcrossFiles<T extends Hit>(ranked: readonly T[], perFile: number): T[] {
  const seen = new Map<string, number>();
  const first: T[] = [];
  const rest: T[] = [];
  for (const hit of ranked) {
    const file = `${hit.repositoryId}\0${hit.path}`;
    const n = (seen.get(file) ?? 0) + 1;
    seen.set(file, n);
    (n <= perFile ? first : rest).push(hit);
  }
  return [...first, ...rest];
}

/** A test file's path: a `test`/`tests`/`__tests__`/`spec` folder, or a name such as `x.test.ts`, `x_test.go`, `test_x.py`. */
const TEST_PATH = /(^|\/)(tests?|__tests__|specs?|testing)\/|[._-](test|spec)s?\.[^/]+$|(^|\/)test_[^/]+\.py$|_test\.go$/i;
/** Words of a query that ask for tests: then test files keep their score. */
const TEST_WORDS = new Set(['test', 'tests', 'testing', 'spec', 'specs', 'fixture', 'fixtures', 'mock', 'mocks']);

/**
 * Test files scaled by `factor` when the query does not ask for tests: they repeat the names of what they test, so
 * lexically they often outrank the code asked about (issue 38).
 */
export function demoteTests<T extends Hit>(ranked: readonly T[], queryWords: ReadonlySet<string>, factor: number): T[] {
  if ([...queryWords].some((w) => TEST_WORDS.has(w))) return [...ranked];
  return ranked
    .map((hit) => (TEST_PATH.test(hit.path) ? { ...hit, score: hit.score * factor } : hit))
    .sort((a, b) => b.score - a.score || a.path.localeCompare(b.path) || a.startLine - b.startLine);
}
