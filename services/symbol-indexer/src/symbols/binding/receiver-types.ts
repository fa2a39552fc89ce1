import { nameSpaceOf, parseReceiver, type ParsedReceiver, type ReceiverStep } from '@sextant/parsing';
import type { SymbolStore } from '../index/symbol.store.js';
import type { TypeGraph } from './type-graph.js';

/** Same-named definitions read per name: a name with more is too common to tell its type by (unknown). */
const DEFINITIONS_PER_NAME = 200;
/** How far up the supertypes a member is sought (`x.opts` with `opts` declared by a base class). */
const SUPERTYPE_DEPTH = 3;

/** The type of a call of a name the index defines nowhere, or of a member of a type it does not define: no class of the index. */
const EXTERNAL = '<external>';

/** Per `space\0receiver` (and each of its prefixes): the type it denotes, or undefined. */
export type ReceiverCache = Map<string, string | undefined>;

/**
 * Receivers as the extraction stored them (`parseReceiver`) → the type they denote, read from the index's declared
 * types. A type name is itself. A call's result (`f()`) is the result every function and method named `f` declares,
 * when they agree on one (`this`: the method's class); a member taken from a type (`Foo.opts`) is the type the member
 * declares, and a member called (`Foo.load()`) the result it declares (`this`: the type it was called on) — sought in
 * the type, then its supertypes, nearest first. Where definitions disagree, or one declares nothing, the receiver is
 * unknown and the access binds as untyped. A name or type the index defines nowhere is a library's or the language's
 * (`s.trim().includes(…)`, `this.server.listen()` with `server: http.Server`): `EXTERNAL`, a type no member of the
 * index belongs to. Names are looked up among the languages of `space` only, each once per `cache`.
 */
export async function receiverResolver(
  store: SymbolStore,
  types: TypeGraph,
  receivers: Iterable<string | undefined>,
  space: string,
  scope: readonly string[] | null,
  cache: ReceiverCache,
): Promise<(receiver: string | undefined) => string | undefined> {
  const key = (text: string) => `${space}\0${text}`;
  const compound = (text: string) => text.includes('(') || text.includes('.');
  const pending = new Map<string, ParsedReceiver>();
  for (const receiver of receivers) {
    if (receiver !== undefined && compound(receiver) && !cache.has(key(receiver))) pending.set(receiver, parseReceiver(receiver));
  }
  if (pending.size > 0) {
    await resolveCalls(
      store,
      [...pending.values()].filter((p) => p.call).map((p) => p.base),
      space,
      scope,
      cache,
    );
    // Then the members, a step at a time for all receivers at once.
    let walks = [...pending].map(([text, parsed]) => {
      const start = parsed.call ? `${parsed.base}()` : parsed.base;
      return { text, steps: parsed.steps, at: 0, prefix: start, type: parsed.call ? cache.get(key(start)) : parsed.base };
    });
    while (walks.length > 0) {
      const wanted = new Map<string, { type: string; step: ReceiverStep }>();
      const next: typeof walks = [];
      for (const walk of walks) {
        if (walk.at >= walk.steps.length || walk.type === undefined) {
          cache.set(key(walk.text), walk.at >= walk.steps.length ? walk.type : undefined);
          continue;
        }
        const step = walk.steps[walk.at];
        const prefix = `${walk.prefix}.${step.name}${step.call ? '()' : ''}`;
        if (walk.type === EXTERNAL) cache.set(key(prefix), EXTERNAL);
        else if (!cache.has(key(prefix))) wanted.set(prefix, { type: walk.type, step });
        next.push({ ...walk, at: walk.at + 1, prefix });
      }
      if (wanted.size > 0) await resolveMembers(store, types, wanted, space, scope, (prefix, type) => cache.set(key(prefix), type));
      walks = next.map((walk) => ({ ...walk, type: cache.get(key(walk.prefix)) }));
    }
  }
  return (receiver) => (receiver === undefined ? undefined : compound(receiver) ? cache.get(key(receiver)) : receiver);
}

/** The name a receiver calls when it is the result of one call (`f()`, not `f().g` nor `x.f()`), else undefined. */
export function calledName(receiver: string | undefined): string | undefined {
  if (receiver === undefined) return undefined;
  const parsed = parseReceiver(receiver);
  return parsed.call && parsed.steps.length === 0 ? parsed.base : undefined;
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const item of items) out.set(key(item), (out.get(key(item)) ?? 0) + 1);
  return out;
}

/** What calling each name gives (`f()`), into `cache`. */
async function resolveCalls(
  store: SymbolStore,
  names: readonly string[],
  space: string,
  scope: readonly string[] | null,
  cache: ReceiverCache,
): Promise<void> {
  const wanted = [...new Set(names)].filter((n) => !cache.has(`${space}\0${n}()`));
  if (wanted.length === 0) return;
  const results = new Map<string, Set<string | null>>(wanted.map((n) => [n, new Set<string | null>()]));
  const rows = await store.returnsOf(wanted, scope, DEFINITIONS_PER_NAME);
  const read = countBy(rows, (row) => row.name);
  for (const row of rows) {
    if (nameSpaceOf(row.language) !== space) continue;
    results.get(row.name)?.add(row.returns === 'this' ? row.container : row.returns);
  }
  for (const [name, found] of results) {
    const [only] = found;
    const known = (read.get(name) ?? 0) < DEFINITIONS_PER_NAME;
    cache.set(
      `${space}\0${name}()`,
      !known ? undefined : found.size === 0 ? EXTERNAL : found.size === 1 && only !== null ? only : undefined,
    );
  }
}

/** For each `prefix` → (type, step): the type the step gives, by the member's declaration nearest the type. */
async function resolveMembers(
  store: SymbolStore,
  types: TypeGraph,
  wanted: ReadonlyMap<string, { type: string; step: ReceiverStep }>,
  space: string,
  scope: readonly string[] | null,
  set: (prefix: string, type: string | undefined) => void,
): Promise<void> {
  // Each type with its supertypes, level by level; each level of all types read in one lookup (then kept by `types`).
  const levels = new Map<string, string[][]>([...new Set([...wanted.values()].map((w) => w.type))].map((t) => [t, [[t]]]));
  for (let depth = 1; depth <= SUPERTYPE_DEPTH; depth++) {
    const last = [...levels.values()].flatMap((list) => list[depth - 1] ?? []);
    if (last.length === 0) break;
    await types.supertypes(last);
    for (const list of levels.values()) {
      const level = list[depth - 1];
      if (!level || level.length === 0) continue;
      const up = (await types.supertypes(level)).filter((n) => !list.some((seen) => seen.includes(n)));
      if (up.length > 0) list.push(up);
    }
  }
  const containers = [...new Set([...levels.values()].flat(2))];
  const names = [...new Set([...wanted.values()].map((w) => w.step.name))];
  const [members, defined] = await Promise.all([
    store.membersOf(names, containers, scope, DEFINITIONS_PER_NAME),
    store.typesDefined(containers, scope),
  ]);
  // A member name with more definitions than were read is too common to tell by: unknown.
  const read = countBy(members, (m) => m.name);
  const inSpace = members.filter((m) => nameSpaceOf(m.language) === space);
  const known = new Set(defined.filter((d) => nameSpaceOf(d.language) === space).map((d) => d.name));
  for (const [prefix, { type, step }] of wanted) {
    if ((read.get(step.name) ?? 0) >= DEFINITIONS_PER_NAME) {
      set(prefix, undefined);
      continue;
    }
    let result: string | undefined;
    let found = false;
    for (const level of levels.get(type)!) {
      const declared = inSpace.filter((m) => m.name === step.name && m.container !== null && level.includes(m.container));
      if (declared.length === 0) continue;
      found = true;
      // A method gives its result when called; a property or field its type when read; anything else nothing known.
      const results = new Set(
        declared.map((m) => {
          const callable = m.kind === 'method' || m.kind === 'function';
          if (callable !== step.call) return null;
          return m.returns === 'this' ? type : m.returns;
        }),
      );
      const [only] = results;
      result = results.size === 1 && only !== null ? only : undefined;
      break;
    }
    // A member of a type the index defines nowhere (a library's) is the library's.
    set(prefix, found ? result : known.has(type) ? undefined : EXTERNAL);
  }
}
