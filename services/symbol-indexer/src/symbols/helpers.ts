import { posix } from 'node:path';

/** Items by key, in their order. */
export function groupBy<T>(items: Iterable<T>, key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

/** Adds `value` to the set under `key`. */
export function addTo(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}

/** Strings in code-unit order (what `sort` does by default), for comparators. */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A path as the index holds it: relative to the repository root, without `./` or a trailing `/`. */
export function repoPath(path: string): string {
  return posix.normalize(path.replace(/^\.\//, '')).replace(/\/$/, '');
}
