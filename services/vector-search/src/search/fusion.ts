import type { Hit } from '../store/chunk-store.js';

/** Reciprocal-rank fusion's constant: a hit at rank r of a list adds 1 / (RRF_K + r). */
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

/**
 * Fuses ranked lists by reciprocal rank (list i's ranks count `weights[i]`,
 * 1 by default), then adds the cheap signals that help on code: the query
 * names the chunk's symbol, the query's words are in its path. Scores are
 * scaled to 0–1 by the best a chunk could get (first in every list, both
 * signals).
 */
export function fuse(
  lists: ReadonlyArray<readonly Hit[]>,
  queryTokens: ReadonlySet<string>,
  pathWords: (path: string) => string[],
  weights: readonly number[] = lists.map(() => 1),
): Ranked[] {
  const fused = new Map<string, { hit: Hit; score: number }>();
  lists.forEach((list, i) => {
    list.forEach((hit, rank) => {
      const entry = fused.get(key(hit)) ?? { hit, score: 0 };
      entry.score += weights[i]! / (RRF_K + rank + 1);
      fused.set(key(hit), entry);
    });
  });
  const first = 1 / (RRF_K + 1);
  const best = weights.reduce((a, b) => a + b, 0) * first + (SYMBOL_BONUS + PATH_BONUS) * first;
  for (const entry of fused.values()) {
    const symbol = entry.hit.symbol?.split('.').at(-1)?.toLowerCase();
    if (symbol && queryTokens.has(symbol)) entry.score += SYMBOL_BONUS * first;
    const words = pathWords(entry.hit.path);
    if (queryTokens.size > 0 && words.length > 0) {
      const shared = [...queryTokens].filter((t) => words.includes(t)).length;
      entry.score += PATH_BONUS * first * (shared / queryTokens.size);
    }
  }
  return [...fused.values()]
    .map(({ hit, score }) => ({ ...hit, score: Math.min(1, score / best) }))
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
