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

/**
 * Values by key, fetched for many keys in one go and kept for the life of the cache: a key asked again, or while
 * its fetch is under way, is not fetched again. A key the fetch leaves out gets `missing()`; a fetch that fails is
 * not kept (its keys are fetched again when next asked).
 */
export class BatchCache<V> {
  private readonly values = new Map<string, Promise<V>>();

  constructor(
    private readonly fetch: (keys: string[]) => Promise<Map<string, V>>,
    private readonly missing: () => V,
  ) {}

  /** How many keys it holds. */
  get size(): number {
    return this.values.size;
  }

  /** The values of `keys`, one per key given (a key given twice has its value twice). */
  get(keys: Iterable<string>): Promise<V[]> {
    const given = [...keys];
    const absent = [...new Set(given)].filter((k) => !this.values.has(k));
    if (absent.length > 0) {
      const fetched = this.fetch(absent);
      for (const key of absent) {
        const value = fetched.then((found) => found.get(key) ?? this.missing());
        this.values.set(key, value);
        value.catch(() => {
          if (this.values.get(key) === value) this.values.delete(key);
        });
      }
    }
    return Promise.all(given.map((k) => this.values.get(k)!));
  }
}
