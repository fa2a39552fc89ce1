import { BatchCache, groupBy } from './helpers.js';
import type { SymbolStore, TypeEdge } from './symbol.store.js';

/** Subtypes read per name: a name like Python's `object` is extended by thousands of classes (a family stops at 200). */
const SUBTYPES_PER_NAME = 200;

/**
 * The type hierarchy by names, among the repositories of a scope, read as one call needs it: each name's
 * supertypes and subtypes are asked once, the names of a level together. One call binds up to twenty
 * same-named members whose classes are mostly of one hierarchy; without it, each walked it again.
 */
export class TypeGraph {
  private readonly up: BatchCache<string[]>;
  private readonly down: BatchCache<string[]>;

  constructor(store: SymbolStore, scope: readonly string[] | null) {
    const byFrom = (edges: TypeEdge[]) => new Map([...groupBy(edges, (e) => e.from)].map(([from, list]) => [from, list.map((e) => e.to)]));
    this.up = new BatchCache(
      async (names) => byFrom(await store.supertypesOf(names, scope)),
      () => [],
    );
    this.down = new BatchCache(
      async (names) => byFrom(await store.subtypeNamesOf(names, scope, SUBTYPES_PER_NAME)),
      () => [],
    );
  }

  /** How many names it has read. */
  get size(): number {
    return this.up.size + this.down.size;
  }

  /** What the types named `names` extend, implement or embed, by name. */
  async supertypes(names: Iterable<string>): Promise<string[]> {
    return [...new Set((await this.up.get(names)).flat())];
  }

  /** The types that extend, implement or embed one of `names`, by name. */
  async subtypes(names: Iterable<string>): Promise<string[]> {
    return [...new Set((await this.down.get(names)).flat())];
  }
}
