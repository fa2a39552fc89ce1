import type { ExtractedSymbol, FoundDefinition } from './extraction.js';

/* Scope trees and definition ranges: which scope or definition holds a position, each found by a binary search. */

/** Each local name with the ranges of the scopes it is declared in (the innermost scope around its declaration). */
export function localScopes(scopes: ScopeTree, locals: ReadonlyArray<{ name: string; at: number }>): Map<string, Spans> {
  const byName = new Map<string, Array<[number, number]>>();
  for (const local of locals) {
    const best = scopes.innermost(local.at);
    if (!best) continue;
    const ranges = byName.get(local.name);
    if (ranges) ranges.push(best);
    else byName.set(local.name, [best]);
  }
  return new Map([...byName].map(([name, ranges]) => [name, new Spans(ranges)]));
}

export function isShadowed(shadowed: ReadonlyMap<string, Spans>, name: string, at: number): boolean {
  return shadowed.get(name)?.holds(at) === true;
}

/**
 * A syntax tree's scopes (ranges that nest or are apart), sorted by start, each with the innermost one around it
 * (`parents`): the innermost scope holding a position is found by a binary search and a climb as deep as the scopes
 * nest, where a walk back through every earlier scope was quadratic in a file of many functions.
 */
export class ScopeTree {
  private readonly ranges: ReadonlyArray<[number, number]>;
  private readonly starts: number[];
  private readonly parents: number[] = [];

  constructor(ranges: Array<[number, number]>) {
    this.ranges = ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    this.starts = ranges.map((r) => r[0]);
    const open: number[] = [];
    for (const [i, [, end]] of ranges.entries()) {
      while (open.length > 0 && ranges[open.at(-1)!][1] < end) open.pop();
      this.parents.push(open.at(-1) ?? -1);
      open.push(i);
    }
  }

  innermost(at: number): [number, number] | undefined {
    let i = lastAtOrBefore(this.starts, at);
    while (i >= 0 && this.ranges[i][1] <= at) i = this.parents[i]!;
    return i >= 0 ? this.ranges[i] : undefined;
  }
}

/** Ranges of any shape, by start, with the furthest end reached so far: whether one holds a position is one binary search. */
class Spans {
  private readonly starts: number[];
  private readonly reach: number[] = [];

  constructor(ranges: Array<[number, number]>) {
    ranges.sort((a, b) => a[0] - b[0]);
    this.starts = ranges.map((r) => r[0]);
    let furthest = -Infinity;
    for (const [, end] of ranges) this.reach.push((furthest = Math.max(furthest, end)));
  }

  holds(at: number): boolean {
    const i = lastAtOrBefore(this.starts, at);
    return i >= 0 && this.reach[i] > at;
  }
}

/** Index of the last of sorted `starts` at or before `at`, or -1. */
function lastAtOrBefore(starts: readonly number[], at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid] <= at) lo = mid + 1;
    else hi = mid - 1;
  }
  return hi;
}

/** The innermost definition of some kinds spanning `start`..`end` (its ordinal), or -1. */
export type EnclosingAt = (start: number, end: number) => number;

/**
 * Positions of the definitions read once (each read crosses into WebAssembly); then per question a binary search and
 * a climb of the parents: linear overall, where a scan of every earlier definition per supertype took minutes on a
 * file of 30,000 classes.
 */
export function enclosingLookup(
  found: readonly FoundDefinition[],
  symbols: readonly ExtractedSymbol[],
): (wanted: (symbol: ExtractedSymbol) => boolean) => EnclosingAt {
  const starts = found.map((d) => d.node.startIndex);
  const ends = found.map((d) => d.node.endIndex);
  return (wanted) => (start, end) => {
    let i = lastAtOrBefore(starts, start);
    while (i >= 0 && !(ends[i] >= end && wanted(symbols[i]))) i = symbols[i].parent;
    return i;
  };
}
