import { BatchCache, groupBy } from '../helpers.js';
import type { SymbolStore, TypeEdge } from '../index/symbol.store.js';

/** Subtypes read per name: a name like Python's `object` is extended by thousands of classes (a family stops at 200). */
const SUBTYPES_PER_NAME = 200;

/**
 * The type hierarchy by names, among the repositories of a scope, read as one call needs it: each name's
 * supertypes and subtypes are asked once, the names of a level together. One call binds up to twenty
 * same-named members whose classes are mostly of one hierarchy; without it, each walked it again.
 */
export class TypeGraph {
  private readonly up: BatchCache<TypeEdge[]>;
  private readonly down: BatchCache<TypeEdge[]>;

  constructor(store: SymbolStore, scope: readonly string[] | null) {
    this.up = new BatchCache(
      async (names) => groupBy(await store.supertypesOf(names, scope), (e) => e.from),
      () => [],
    );
    this.down = new BatchCache(
      async (names) => groupBy(await store.subtypeNamesOf(names, scope, SUBTYPES_PER_NAME), (e) => e.from),
      () => [],
    );
  }

  /** How many names it has read. */
  get size(): number {
    return this.up.size + this.down.size;
  }

  /**
   * What the types named `names` extend, implement or embed, by name; and what a type alias names (`type X = A & B`:
   * A and B), unless `declared`, which keeps only the supertypes a declaration says (`extends`, `implements`).
   */
  async supertypes(names: Iterable<string>, declared = false): Promise<string[]> {
    const edges = (await this.up.get(names)).flat();
    return [...new Set((declared ? edges.filter((e) => e.relation !== 'aliases') : edges).map((e) => e.to))];
  }

  /** The types that extend, implement or embed one of `names`, or are type aliases made of them, by name. */
  async subtypes(names: Iterable<string>): Promise<string[]> {
    return [...new Set((await this.subtypeEdges(names)).map((e) => e.to))];
  }

  /** `subtypes`, as edges: from one of `names` to its subtype, `aliases` where the subtype is a type alias of it. */
  async subtypeEdges(names: Iterable<string>): Promise<TypeEdge[]> {
    return (await this.down.get(names)).flat();
  }
}
