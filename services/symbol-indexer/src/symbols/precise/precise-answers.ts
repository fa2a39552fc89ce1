import type { BoundReference } from '../binding/references.js';
import type { SymbolRow, SymbolStore } from '../index/symbol.store.js';
import { ROLE } from './scip-index.js';
import type { PreciseHit, PreciseStore } from './precise.store.js';

/** Which tier an answer's item comes from (ADR 0053). */
export type Precision = 'precise' | 'search';

export type LabelledReference = BoundReference & { precision: Precision };

/** Lines of a repository's files as they are now: path → line (1-based) → text. */
export type LineReader = (
  repositoryId: string,
  wanted: ReadonlyMap<string, Array<[number, number]>>,
) => Promise<Map<string, Map<number, string>>>;

/** The text of a line before a name a JSDoc link names (`{@link X}`, `{@link X.y}`): the compiler records no symbol there. */
const BEFORE_DOC_LINK = /\{@link(?:code|plain)?\s+(?:[\p{L}_$][\p{L}\p{N}_$]*\.)?$/u;

/**
 * The last descriptor of a SCIP symbol, its name and suffix: `… src/`a.ts`/Cart#add().` → `add`, `().`; a parameter
 * `…/add().(n)` → `n`, `()`. Accessors are named as written at their uses: `` Cart#`<get>count`(). `` → `count`.
 */
function lastDescriptor(symbol: string): { name: string; suffix: string } | undefined {
  const parameter = /\(([^()`]+)\)$/.exec(symbol);
  if (parameter) return { name: parameter[1], suffix: '()' };
  const m = /(?:`((?:[^`]|``)*)`|([^\s/#.`():![\]]+))(\([^()]*\)\.|\.|#|:|!)$/.exec(symbol);
  if (!m) return undefined;
  const name = m[1] !== undefined ? m[1].replaceAll('``', '`') : m[2];
  return { name: name.replace(/^<[gs]et>/, ''), suffix: m[3] };
}

/**
 * The symbols an editor's "find all references" puts together with `symbol`: a class's constructor (scip-typescript
 * records `new X()` on `X#<constructor>().`), a getter's setter and the reverse (`<get>x().`, `<set>x().`).
 */
function companions(symbol: string): string[] {
  const out = [symbol];
  if (symbol.endsWith('#')) out.push(`${symbol}\`<constructor>\`().`);
  for (const [a, b] of [
    ['`<get>', '`<set>'],
    ['`<set>', '`<get>'],
  ] as const) {
    const at = symbol.lastIndexOf(a);
    if (at >= 0) out.push(symbol.slice(0, at) + b + symbol.slice(at + a.length));
  }
  return out;
}

/**
 * The SCIP descriptor suffixes a definition of the search tier's kind can have: a merged declaration (`const X` and
 * `interface X`) gives one place several symbols, of which the kind picks the one an editor means.
 */
const SUFFIXES: Record<string, readonly string[]> = {
  function: ['().'],
  method: ['().'],
  class: ['#'],
  interface: ['#'],
  type: ['#'],
  enum: ['#'],
  struct: ['#'],
  trait: ['#'],
  variable: ['.'],
  constant: ['.'],
  field: ['.', '().'],
  property: ['.', '().'],
};

/** Definition sites go to definition reads at most (a name defined in many places: the first by path). */
const DEFINITION_SITES = 50;

/** Subtypes at every level read for one type at most (the direct ones are found among them). */
const IMPLEMENTERS = 2_000;

/** A reference's kind from SCIP roles and the symbol's descriptor, when the search tier has none at that place. */
function kindOf(hit: PreciseHit): BoundReference['kind'] {
  if (hit.roles & ROLE.import) return 'import';
  if (hit.roles & ROLE.write) return 'write';
  const suffix = lastDescriptor(hit.symbol)?.suffix;
  if (suffix === '#') return 'type';
  if (suffix?.endsWith(').')) return 'call';
  return 'read';
}

/**
 * Answers from the precise tier where it covers the question: the files of a repository whose SCIP index is fresh
 * (the symbols stage has not re-indexed them since its run started). Everything else stays the search tier's.
 */
export class PreciseAnswers {
  constructor(
    private readonly precise: PreciseStore,
    private readonly symbols: SymbolStore,
  ) {}

  /**
   * The references of `definitions`, the precise tier's in the files it covers and the search tier's (`found`) in
   * the others. The symbol of a definition is the one SCIP has at its name (a definition there first, of the
   * definition's kind); a covered file with none there means the compiler knows no symbol there, and the covered
   * files give no references. The symbols of a member's family count too (`family`), their declarations included
   * (an interface's member and the members implementing or overriding it: an editor lists them as references of
   * one another); the asked symbols' own declarations are not references. When a definition's file is
   * not covered, the search tier's answer stands whole for its repository. In covered files the search tier's
   * references stay in JSDoc links (`{@link X}`), where the compiler recorded no symbol; the override declarations
   * the search tier lists (kind `definition`) are left out there.
   */
  async references(
    definitions: readonly SymbolRow[],
    found: readonly BoundReference[],
    limit: number,
    lines: LineReader,
    /**
     * `all`: the whole family, as an editor's "find all references"; `up`: only the members the definitions override
     * or implement (a call through an interface's member may reach them; a call of a sibling implementation never does).
     */
    family: 'all' | 'up' = 'all',
  ): Promise<LabelledReference[]> {
    const search = (r: BoundReference): LabelledReference => ({ ...r, precision: 'search' });
    const byRepository = new Map<string, SymbolRow[]>();
    for (const d of definitions) byRepository.set(d.repositoryId, [...(byRepository.get(d.repositoryId) ?? []), d]);
    /** Per covered repository, the asked symbols (`own`) and those with their family (`all`). */
    const covered = new Map<string, { own: Set<string>; all: string[] }>();
    // Most repositories have no precise index: one query says so.
    const indexed = await this.precise.indexed([...byRepository.keys()]);
    for (const [repositoryId, defs] of byRepository) {
      if (!indexed.has(repositoryId)) continue;
      const symbols = await Promise.all(defs.map((d) => (d.ordinal < 0 ? Promise.resolve(undefined) : this.definedAt(d))));
      if (symbols.every((s) => s !== undefined)) {
        const own = symbols.flat().flatMap(companions);
        const all =
          family === 'all' ? await this.family(repositoryId, own) : [...own, ...(await this.precise.overridden(repositoryId, own))];
        covered.set(repositoryId, { own: new Set(own), all });
      }
    }
    if (covered.size === 0) return found.map(search);
    const out: LabelledReference[] = [];
    for (const [repositoryId, { own, all }] of covered) {
      const hits = await this.precise.occurrencesOf(repositoryId, all, limit + 1);
      const known = new Map(found.filter((r) => r.repositoryId === repositoryId).map((r) => [`${r.path}\0${r.line}\0${r.column}`, r]));
      // A definition's own name is not one of its references, even where the compiler does not call it a definition
      // (a module's `__doc__ = …` assigns what typeshed defines; a name assigned twice is defined at the first).
      const asked = new Set(byRepository.get(repositoryId)!.map((d) => `${d.path}\0${d.line}\0${d.column}`));
      for (const h of hits) {
        if ((h.roles & ROLE.definition && own.has(h.symbol)) || asked.has(`${h.path}\0${h.line}\0${h.column}`)) continue;
        out.push({
          repositoryId,
          path: h.path,
          name: lastDescriptor(h.symbol)?.name ?? '',
          line: h.line,
          column: h.column,
          // A family member's declaration is a definition whatever the search tier calls that place.
          kind: h.roles & ROLE.definition ? 'definition' : (known.get(`${h.path}\0${h.line}\0${h.column}`)?.kind ?? kindOf(h)),
          enclosing: h.enclosing,
          qualifier: null,
          precision: 'precise',
        });
      }
    }
    // The search tier's answer where the precise tier does not cover: other repositories, files not covered, and in
    // covered files JSDoc links (`{@link X}`), where the compiler recorded no symbol.
    const paths = new Map<string, Set<string>>();
    const unresolved = new Map<string, Set<string>>();
    for (const repositoryId of covered.keys()) {
      const mine = found.filter((r) => r.repositoryId === repositoryId);
      const fresh = await this.precise.freshPaths(repositoryId, [...new Set(mine.map((r) => r.path))]);
      paths.set(repositoryId, fresh);
      const inCovered = mine.filter((r) => fresh.has(r.path) && r.kind !== 'definition');
      const occupied = await this.precise.occupied(repositoryId, inCovered);
      const candidates = inCovered.filter((r) => !occupied.has(`${r.path}:${r.line}:${r.column}`));
      const wanted = new Map<string, Array<[number, number]>>();
      for (const r of candidates) wanted.set(r.path, [...(wanted.get(r.path) ?? []), [r.line, r.line]]);
      const text = candidates.length > 0 ? await lines(repositoryId, wanted) : new Map<string, Map<number, string>>();
      const links = candidates.filter((r) => BEFORE_DOC_LINK.test(text.get(r.path)?.get(r.line)?.slice(0, r.column) ?? ''));
      unresolved.set(repositoryId, new Set(links.map((r) => `${r.path}:${r.line}:${r.column}`)));
    }
    for (const r of found) {
      if (!paths.get(r.repositoryId)?.has(r.path) || unresolved.get(r.repositoryId)?.has(`${r.path}:${r.line}:${r.column}`)) {
        out.push(search(r));
      }
    }
    return out;
  }

  /**
   * Go to definition: the definitions of the index that the precise tier says `name` at `path:line` (`column`)
   * denotes, or undefined when it does not cover that file, has nothing there, or a local there.
   */
  async definitionAt(
    repositoryId: string,
    path: string,
    name: string,
    line: number,
    column: number | undefined,
  ): Promise<SymbolRow[] | undefined> {
    const at = await this.precise.symbolsAt(repositoryId, path, line, column);
    // A local there (a destructured name is a local and its property at once): the parsed file's scopes answer.
    if (at.some((s) => s.symbol.startsWith('local '))) return undefined;
    const named = at.filter((s) => lastDescriptor(s.symbol)?.name === name);
    const symbols = named.length > 0 ? named.map((s) => s.symbol) : column !== undefined ? at.map((s) => s.symbol) : [];
    if (symbols.length === 0) return undefined;
    // `new X()` names X's constructor: X itself is where an editor goes when X declares none.
    const wanted = [...new Set(symbols.flatMap((s) => [s, s.replace(/`<constructor>`\(\)\.$/, '')]))];
    return this.definitionsOf(repositoryId, wanted);
  }

  /**
   * The types that extend or implement the type `d` directly, as the compiler links them (SCIP `is_implementation`
   * relationships, which name every level), as the symbol index's definitions, at most `limit` (`truncated`: there
   * were more); undefined when the precise tier does not cover `d`'s file or `d` is not a type. A type that also
   * extends or implements another subtype of `d` is that one's subtype, not `d`'s: the others are the compiler's, and
   * `interfaces`, the search tier's interfaces that name `d` in their extends clause (scip-typescript records no
   * relationship for an interface extending another, so a class implementing such an interface would otherwise look
   * direct).
   */
  async subtypes(
    d: SymbolRow,
    interfaces: readonly SymbolRow[],
    limit: number,
  ): Promise<{ rows: SymbolRow[]; truncated: boolean } | undefined> {
    if (d.ordinal < 0 || !(await this.covers(d.repositoryId, d.path))) return undefined;
    const symbols = (await this.definedAt(d))?.filter((s) => s.endsWith('#'));
    if (!symbols?.length) return undefined;
    const found = await this.precise.implementers(d.repositoryId, symbols, IMPLEMENTERS);
    const through = await Promise.all(
      interfaces.filter((i) => i.repositoryId === d.repositoryId && i.ordinal >= 0).map((i) => this.definedAt(i)),
    );
    const all = new Set([...found.map((f) => f.symbol), ...through.flatMap((t) => t ?? [])]);
    const direct = found.filter((f) => !f.supertypes.some((t) => t !== f.symbol && all.has(t))).map((f) => f.symbol);
    const rows = await this.definitionsOf(d.repositoryId, direct, limit + 1);
    return { rows: rows.slice(0, limit), truncated: rows.length > limit || found.length >= IMPLEMENTERS };
  }

  /** Whether the precise tier answers for `path` of the repository (it has an index, and the file is unchanged since). */
  async covers(repositoryId: string, path: string): Promise<boolean> {
    return (
      (await this.precise.indexed([repositoryId])).has(repositoryId) && (await this.precise.freshPaths(repositoryId, [path])).has(path)
    );
  }

  /** The symbol index's definitions at the precise tier's definitions of `symbols` (at most `limit` sites), once each. */
  private async definitionsOf(repositoryId: string, symbols: readonly string[], limit = DEFINITION_SITES): Promise<SymbolRow[]> {
    const sites = await this.precise.definitionsOf(repositoryId, symbols, limit);
    const found = await Promise.all(
      sites.map(async (site) => {
        const defined = await this.symbols.definitionsAt(repositoryId, site.path, site.line);
        const exact = defined.filter((d) => d.column === site.column);
        return exact.length > 0 ? exact : defined.filter((d) => d.name === lastDescriptor(site.symbol)?.name);
      }),
    );
    const unique = new Map(found.flat().map((r) => [`${r.path}\0${r.ordinal}`, r]));
    return [...unique.values()];
  }

  /**
   * The precise tier's commit per repository that has a precise index (for the answer's `freshness`: items labelled
   * "precise" are of that commit, the others of the search tier's).
   */
  async tiers(repositoryIds: readonly string[]): Promise<Map<string, { precise_commit: string | null }>> {
    const commits = await this.precise.commits(repositoryIds);
    return new Map([...commits].map(([id, commit]) => [id, { precise_commit: commit }]));
  }

  /**
   * Which of the search tier's definitions the precise tier confirms: in a file it covers, the compiler defines a
   * symbol at the definition's name. The others (files it does not cover, names it defines nothing at, locals) are
   * the search tier's.
   */
  async confirmed(rows: readonly SymbolRow[]): Promise<Set<SymbolRow>> {
    const out = new Set<SymbolRow>();
    const candidates = rows.filter((r) => r.ordinal >= 0);
    const indexed = await this.precise.indexed([...new Set(candidates.map((r) => r.repositoryId))]);
    for (const repositoryId of indexed) {
      const mine = candidates.filter((r) => r.repositoryId === repositoryId);
      const defined = await this.precise.definedAt(repositoryId, mine);
      for (const r of mine) if (defined.has(`${r.path}:${r.line}:${r.column}`)) out.add(r);
    }
    return out;
  }

  /**
   * File-level edges from the precise tier, between files it covers: a file that references a symbol defined in
   * another depends on it. `of` "dependents": the files that use what `paths` define; "dependencies": the files
   * that define what `paths` use. Relationships are not followed.
   */
  edges(
    repositoryId: string,
    paths: readonly string[],
    of: 'dependents' | 'dependencies',
    limit: number,
  ): Promise<Array<{ path: string; target: string }>> {
    return this.precise.uses(repositoryId, paths, of, limit);
  }

  /**
   * `symbols` with the members they override and those that override them (SCIP `is_reference` relationships, which
   * list every member up the hierarchy; one step down), as an editor's "find all references" takes a member.
   */
  private async family(repositoryId: string, symbols: readonly string[]): Promise<string[]> {
    const all = new Set(symbols);
    let step = [...all];
    for (let depth = 0; depth < 2 && step.length > 0; depth++) {
      step = (await this.precise.related(repositoryId, step)).filter((s) => !all.has(s));
      for (const s of step) all.add(s);
    }
    return [...all];
  }

  /**
   * The global symbols at a definition's name, as the compiler sees it: those defined there (else any there), of
   * the definition's kind when some are; [] when its file is covered but has none there; undefined when its file
   * is not covered.
   */
  private async definedAt(d: SymbolRow): Promise<string[] | undefined> {
    const at = await this.precise.symbolsAt(d.repositoryId, d.path, d.line, d.column);
    if (at.length === 0) return (await this.precise.freshPaths(d.repositoryId, [d.path])).has(d.path) ? [] : undefined;
    const defined = at.some((s) => s.definition) ? at.filter((s) => s.definition) : at;
    const suffixes = SUFFIXES[d.kind];
    const ofKind = suffixes ? defined.filter((s) => suffixes.some((x) => s.symbol.endsWith(x))) : [];
    return (ofKind.length > 0 ? ofKind : defined).map((s) => s.symbol);
  }
}
