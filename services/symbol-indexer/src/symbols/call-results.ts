import { calledName, nameSpaceOf } from '@sextant/parsing';
import type { SymbolStore } from './symbol.store.js';

/** Same-named functions and methods read per lookup. */
const DEFINITIONS_MAX = 2_000;

/** The type of a call of a name nothing in the index defines: a library's or the language's, no class of the index. */
export const EXTERNAL = '<external>';

/** Per `space\0name`: the type a call of that name gives, or undefined. */
export type CallCache = Map<string, string | undefined>;

/**
 * Receivers as the extraction stored them → the type they denote. A call's result (`f()`: `x := f(); x.g`,
 * `f().g`) is the result every function and method named `f` declares, when they agree on one (`this`: the
 * method's class); else, or when one of them declares none, unknown — the access then binds as untyped. Other
 * receivers are types already. A name no function or method of the index has is the library's or the language's
 * (`s.trim().includes(…)`): its result is `EXTERNAL`, a type no member of the index belongs to. Names are looked up among the languages of `space` only, once per `cache`.
 */
export async function callResolver(
  store: SymbolStore,
  receivers: Iterable<string | undefined>,
  space: string,
  scope: readonly string[] | null,
  cache: CallCache,
): Promise<(receiver: string | undefined) => string | undefined> {
  const wanted = new Set<string>();
  for (const receiver of receivers) {
    const name = receiver === undefined ? undefined : calledName(receiver);
    if (name !== undefined && !cache.has(`${space}\0${name}`)) wanted.add(name);
  }
  if (wanted.size > 0) {
    const types = new Map<string, Set<string | null>>([...wanted].map((n) => [n, new Set<string | null>()]));
    for (const row of await store.returnsOf([...wanted], scope, DEFINITIONS_MAX)) {
      if (nameSpaceOf(row.language) !== space) continue;
      types.get(row.name)?.add(row.returns === 'this' ? row.container : row.returns);
    }
    for (const [name, results] of types) {
      const [only] = results;
      cache.set(`${space}\0${name}`, results.size === 0 ? EXTERNAL : results.size === 1 && only !== null ? only : undefined);
    }
  }
  return (receiver) => {
    if (receiver === undefined) return undefined;
    const name = calledName(receiver);
    return name === undefined ? receiver : cache.get(`${space}\0${name}`);
  };
}
