import { posix } from 'node:path';
import { languageOf } from '@sextant/checkouts';
import { hasPackageScope, KEY, nameSpaceOf, parsedLanguages, SELF } from '@sextant/parsing';
import { calledName, receiverResolver } from './receiver-types.js';
import { ownerKey, type BindingFacts, type ScopeFacts } from './binding-facts.js';
import { addTo, groupBy } from '../helpers.js';
import { SAME_NAMED, type Occurrence, type ReferenceRow, type SymbolRow, type SymbolStore } from '../index/symbol.store.js';
import type { TypeGraph } from './type-graph.js';

/** Kinds whose definitions are reached through an object (`x.name`), not by a bare name. */
export const MEMBER_KINDS: ReadonlySet<string> = new Set(['method', 'property', 'field']);
export { SELF } from '@sextant/parsing';
/** Kinds of definitions that are types (or hold members as one): a member written in anything else belongs to a type without a name. */
export const TYPE_LIKE: ReadonlySet<string> = new Set(['class', 'interface', 'type', 'enum', 'struct', 'trait', 'module', 'other']);
/** Kinds of definitions that hold a value (whose declared type, `returns`, is the type of what it holds). */
const VALUE_KINDS: ReadonlySet<string> = new Set(['variable', 'constant', 'property', 'field']);
/** How many files deep `export … from` chains are followed (both ways: to importers, back to a definition). */
export const REEXPORT_DEPTH = 4;
/** Kinds that declare a type only, not a value; and values only, not a type. */
export const TYPE_ONLY: ReadonlySet<string> = new Set(['interface', 'type']);
const VALUE_ONLY: ReadonlySet<string> = new Set(['constant', 'variable', 'function']);
/** Members bound at the same time by one call (each is a handful of short queries). */
const MEMBER_CONCURRENCY = 4;
/** How many levels of supertypes and subtypes make a member's family; and how many classes at most. */
export const HIERARCHY_DEPTH = 5;
const FAMILY_MAX = 200;
/** Rows (file × name) read per lookup; past it the answer says truncated. */
const MAX_ROWS = 20_000;

/** One occurrence bound to a definition (or, for a name defined nowhere, to the name). */
export interface BoundReference extends Omit<Occurrence, 'kind'> {
  kind: Occurrence['kind'] | 'definition';
  repositoryId: string;
  path: string;
  name: string;
}

/**
 * What one call's bindings share (a name-only question binds up to 20 definitions, mostly of one hierarchy): the
 * rows of a name, a class's family, what the rows' files know; and the facts of the scope, kept across calls while
 * the index does not change (`BindingFacts`).
 */
interface BindingMemo {
  rows: Map<string, Promise<ReferenceRow[]>>;
  families: Map<string, Promise<Set<string>>>;
  facts: ScopeFacts;
  /** Per name: what its rows' files know (namespace aliases, which class a line is in). */
  files: Map<string, Promise<{ namespaces: Map<string, Set<string>>; classAt: (file: string, line: number) => string | undefined }>>;
  /** Per name and name space: its rows in files of that space, and the receivers of their occurrences. */
  spaces: Map<string, { rows: Set<ReferenceRow>; receivers: Set<string | undefined> }>;
}

/** What a file exports of a definition's bindings: the names it exports it under, and of namespaces that hold it. */
interface Exported {
  sites: Sites;
  names: Set<string>;
  spaces: Set<string>;
}

/** Which occurrences of which names, in which files, denote one definition. */
interface Sites {
  /** Bare uses: file → local names that denote the definition there. */
  bare: Map<string, Set<string>>;
  /** Member accesses through a namespace: file → qualifiers (`ns` in `ns.name`) that denote the definition's module there. */
  namespaces: Map<string, Set<string>>;
  /** Every name to look up. */
  names: Set<string>;
}

/**
 * Binds references to definitions without a type checker, as far as the
 * index allows: a top-level definition is used where it is declared and
 * where an import (followed through re-exports) brings it in, by its own
 * name, an alias, or a namespace (`ns.name`, Go's `pkg.Name`); a Go
 * definition also in the other files of its package; a nested one only in
 * its file (locals were already dropped at extraction). A member (method,
 * property, field) is used as `x.name`, and its family is its class with
 * the supertypes and subtypes (by name): through `this`/`self` inside a
 * class of the family; through an object whose type its file declares
 * (`x: Foo`, `new Foo()`, a typed field: the extraction's receiver) when
 * that type is of the family; an access of unknown type when no member
 * outside the family has its name in scope, else as the language says
 * (`untypedMembers`: in files that mention a class of the family and no
 * rival definer, or not at all). The family is the language's (`memberBinding`: the whole hierarchy,
 * or the class and the subtypes that inherit the member); under `hierarchy`
 * the family's other declarations of the member (overrides,
 * implementations) are listed as sites of kind `definition`. ADR 0034. A member of a type without a name (written
 * in a function's result, a parameter's or a variable's type) is its owner's alone; one written in a value declared
 * of a named type is that type's (`placeMembers`, `anonymousMemberUses`, ADR 0039).
 */
export class ReferenceBinder {
  constructor(
    private readonly store: SymbolStore,
    private readonly facts: BindingFacts,
  ) {}

  /**
   * The references of some definitions, together, among the repositories of `scope`: non-members bound
   * at once, members a few at a time. `name`: they are all the definitions of that bare name, and when
   * they hold every member of it, their member references together are every member access of the name
   * (no rival is left to tell apart), found in one pass.
   */
  async ofAll(
    definitions: readonly SymbolRow[],
    scope: readonly string[] | null,
    name?: string,
    /** The definitions named `name` in scope, as `SymbolStore.locate` gives them (limit `SAME_NAMED`), when already asked for. */
    named?: Promise<SymbolRow[]>,
  ): Promise<{ refs: BoundReference[]; truncated: boolean }> {
    const memo: BindingMemo = {
      rows: new Map(),
      families: new Map(),
      facts: await this.facts.of(scope),
      files: new Map(),
      spaces: new Map(),
    };
    const sameNames = new Map<string, Promise<SymbolRow[]>>(name !== undefined && named ? [[name, named]] : []);
    const sameName = (n: string) => {
      let rows = sameNames.get(n);
      if (!rows) sameNames.set(n, (rows = this.store.locate(n, { repositoryIds: scope, limit: SAME_NAMED }).then((r) => r.rows)));
      return rows;
    };
    const refs: BoundReference[] = [];
    let truncated = false;
    // A constructor is called by its class's name (`new Label(…)`): its references are those calls of the class.
    const constructors = definitions.filter(isConstructor);
    let members = definitions.filter((d) => MEMBER_KINDS.has(d.kind) && !isConstructor(d));
    if (name !== undefined && members.length > 1) {
      const all = (await sameName(name)).filter((d) => MEMBER_KINDS.has(d.kind) && d.name === name);
      if (all.every((m) => members.some((d) => d.repositoryId === m.repositoryId && d.path === m.path && d.ordinal === m.ordinal))) {
        const accesses = await this.memberAccesses(name, scope, memo);
        refs.push(...accesses.refs);
        truncated ||= accesses.truncated;
        members = [];
      }
    }
    const bindNext = async (): Promise<void> => {
      for (let member = members.shift(); member; member = members.shift()) {
        const bound = await this.ofMember(member, scope, await sameName(member.name), memo);
        refs.push(...bound.refs);
        truncated ||= bound.truncated;
      }
    };
    const bindMembers = async (): Promise<void> => {
      // What every member needs, read while the hierarchies are walked: the same-named definitions, the rows of
      // the name and what their files know.
      for (const n of new Set(members.map((m) => m.name))) {
        // Failures surface where each is awaited.
        sameName(n).catch(() => undefined);
        this.rowsOf(n, scope, memo)
          .then((rows) => this.filesOf(n, rows, memo))
          .catch(() => undefined);
      }
      await this.walkHierarchies(members, memo.facts.types);
      await Promise.all(Array.from({ length: Math.min(MEMBER_CONCURRENCY, members.length) }, bindNext));
    };
    // Names and members share no lookup: both at once (a Postgres server answers them side by side; PGlite in turn).
    const nonMembers = definitions.filter((d) => !MEMBER_KINDS.has(d.kind));
    const [names, calls] = await Promise.all([
      this.declarationSpaces(nonMembers, sameName).then((spaces) => this.ofNames(nonMembers, memo.facts, spaces)),
      this.constructorCalls(constructors, memo.facts),
      bindMembers(),
    ]);
    refs.push(...names.refs, ...calls.refs);
    truncated ||= names.truncated || calls.truncated;
    return { refs, truncated };
  }

  /** The calls of the classes of some constructors (`new Label(…)`), as the language service lists a constructor's references. */
  private async constructorCalls(
    constructors: readonly SymbolRow[],
    facts: ScopeFacts,
  ): Promise<{ refs: BoundReference[]; truncated: boolean }> {
    if (constructors.length === 0) return { refs: [], truncated: false };
    const classes: SymbolRow[] = [];
    for (const [repositoryId, list] of groupBy(constructors, (c) => c.repositoryId)) {
      classes.push(
        ...(await this.store.symbolsByOrdinal(
          repositoryId,
          list.map((c) => ({ path: c.path, ordinal: c.parent })),
        )),
      );
    }
    const bound = await this.ofNames(classes, facts);
    // Under whatever name the importer gives the class (`import L from`, `{ Label as L }`).
    return { refs: bound.refs.filter((r) => r.kind === 'call'), truncated: bound.truncated };
  }

  /** Every use of a name that nothing in scope defines (a library's function, a global). */
  async unbound(name: string, scope: readonly string[] | null): Promise<{ refs: BoundReference[]; truncated: boolean }> {
    const rows = await this.store.references([name], scope, MAX_ROWS + 1);
    return { refs: flatten(rows.slice(0, MAX_ROWS), () => true), truncated: rows.length > MAX_ROWS };
  }

  /** Every member access of a name in scope (`x.name`, not through a namespace import): the references of all its members at once. */
  private async memberAccesses(
    name: string,
    scope: readonly string[] | null,
    memo: BindingMemo,
  ): Promise<{ refs: BoundReference[]; truncated: boolean }> {
    const rows = await this.rowsOf(name, scope, memo);
    const namespaces = await this.namespaceAliases(rows, memo.facts);
    const refs = flatten(
      rows.slice(0, MAX_ROWS),
      (row, o) => o.qualifier !== null && !namespaces.get(`${row.repositoryId}\0${row.path}`)?.has(o.qualifier),
    );
    return { refs, truncated: rows.length > MAX_ROWS };
  }

  /**
   * The references of non-member definitions, bound together: one import-graph walk and one read of
   * the files where any of them can be used, then each occurrence kept for the definitions it denotes.
   */
  /**
   * Declaration merging (TypeScript's; no other language lets a file declare one name twice so): a name its file
   * declares twice at the top level, as a type only (`interface X`, `type X`) and as a value only (`const X`,
   * `function X`), is one name with two meanings; a use in a type position
   * (`: X`, `ns.X` in a type) denotes the type, any other the value, as the language service tells them apart.
   * The definitions of `definitions` that have such a partner, with the space they are references in.
   */
  private async declarationSpaces(
    definitions: readonly SymbolRow[],
    sameName: (name: string) => Promise<SymbolRow[]>,
  ): Promise<Map<SymbolRow, 'type' | 'value'>> {
    const spaces = new Map<SymbolRow, 'type' | 'value'>();
    for (const d of definitions) {
      const space = TYPE_ONLY.has(d.kind) ? 'type' : VALUE_ONLY.has(d.kind) ? 'value' : undefined;
      if (space === undefined || d.parent >= 0) continue;
      const partner = (await sameName(d.name)).some(
        (c) =>
          c.repositoryId === d.repositoryId &&
          c.path === d.path &&
          c.parent < 0 &&
          c.name === d.name &&
          (space === 'type' ? VALUE_ONLY : TYPE_ONLY).has(c.kind),
      );
      if (partner) spaces.set(d, space);
    }
    return spaces;
  }

  private async ofNames(
    definitions: readonly SymbolRow[],
    facts: ScopeFacts,
    spaces: ReadonlyMap<SymbolRow, 'type' | 'value'> = new Map(),
  ): Promise<{ refs: BoundReference[]; truncated: boolean }> {
    const refs: BoundReference[] = [];
    let truncated = false;
    for (const [repositoryId, defs] of groupBy(definitions, (d) => d.repositoryId)) {
      const bindings = defs.map((definition) => {
        const sites: Sites = { bare: new Map(), namespaces: new Map(), names: new Set([definition.name]) };
        addTo(sites.bare, definition.path, definition.name);
        const topLevel = definition.parent < 0 || definition.container === null;
        const folder = hasPackageScope(definition.language) && topLevel ? posix.dirname(definition.path) : undefined;
        return { definition, sites, topLevel, folder };
      });
      await this.followImports(
        repositoryId,
        bindings.filter((b) => b.topLevel),
        facts,
      );
      // Only the files where a name can denote its definition: its own, its importers', its package's (`packageScope`).
      const files = new Set<string>();
      const names = new Set<string>();
      for (const { sites } of bindings) {
        for (const path of [...sites.bare.keys(), ...sites.namespaces.keys()]) files.add(path);
        for (const name of sites.names) names.add(name);
      }
      const packages = [...new Set(bindings.flatMap((b) => (b.folder === undefined ? [] : [b.folder])))];
      const packageFiles = await facts.directoryFiles.get(packages.map((p) => `${repositoryId}\0${p === '.' ? '' : `${p}/`}`));
      for (const path of packageFiles.flat()) files.add(path);
      const rows = await this.store.referencesAt(repositoryId, [...files], [...names], MAX_ROWS + 1);
      truncated ||= rows.length > MAX_ROWS;
      for (const { definition, sites, folder } of bindings) {
        const space = spaces.get(definition);
        refs.push(
          ...flatten(rows.slice(0, MAX_ROWS), (row, o) => {
            // An import takes both meanings of a merged name.
            if (space !== undefined && o.kind !== 'import' && (o.kind === 'type') !== (space === 'type')) return false;
            if (o.qualifier === null) {
              if (sites.bare.get(row.path)?.has(row.name)) return true;
              return (
                folder !== undefined &&
                row.name === definition.name &&
                languageOf(row.path) === definition.language &&
                posix.dirname(row.path) === folder
              );
            }
            return row.name === definition.name && sites.namespaces.get(row.path)?.has(o.qualifier) === true;
          }),
        );
      }
    }
    return { refs, truncated };
  }

  /** For each definition, the files that import its file (or package, `packageScope`), directly or through `export … from`, and the names it has there. */
  private async followImports(
    repositoryId: string,
    bindings: ReadonlyArray<{ definition: SymbolRow; sites: Sites }>,
    facts: ScopeFacts,
  ): Promise<void> {
    // Per target file: which definitions it exports under which names, and under which names it exports a namespace
    // that holds them (`export * as ns from './definition'`).
    let frontier = new Map<string, Exported[]>();
    for (const { definition, sites } of bindings) {
      const key = hasPackageScope(definition.language) ? packageKey(definition.path) : definition.path;
      // A default export is also the file's `default` (`import x from`, `export { default as y } from`).
      const names = new Set([definition.name, ...(definition.defaultExport ? ['default'] : [])]);
      frontier.set(key, [...(frontier.get(key) ?? []), { sites, names, spaces: new Set() }]);
    }
    const seen = new Set<string>();
    for (let depth = 0; depth < REEXPORT_DEPTH && frontier.size > 0; depth++) {
      for (const key of frontier.keys()) seen.add(key);
      const importers = (await facts.importers.get([...frontier.keys()].map((target) => `${repositoryId}\0${target}`))).flat();
      const next = new Map<string, Exported[]>();
      const passOn = (file: string, sites: Sites, name: string, as: 'names' | 'spaces') => {
        if (seen.has(file)) return;
        const list = next.get(file) ?? [];
        let entry = list.find((e) => e.sites === sites);
        if (!entry) list.push((entry = { sites, names: new Set(), spaces: new Set() }));
        entry[as].add(name);
        next.set(file, list);
      };
      for (const row of importers) {
        for (const { sites, names: exported, spaces } of frontier.get(row.target ?? '') ?? []) {
          for (const b of row.bindings) {
            for (const name of exported) {
              if (b.name === name) {
                addTo(sites.bare, row.path, b.alias);
                addTo(sites.bare, row.path, name);
                sites.names.add(b.alias);
                if (row.reexport) passOn(row.path, sites, b.alias, 'names');
              } else if (b.name === '*' && b.alias === '' && name !== 'default') {
                // `export * from` passes every name on but `default`.
                addTo(sites.bare, row.path, name);
                if (row.reexport) passOn(row.path, sites, name, 'names');
              } else if (b.name === '*') {
                addTo(sites.namespaces, row.path, b.alias);
                if (row.reexport) passOn(row.path, sites, b.alias, 'spaces');
              }
            }
            // A namespace of the definition's module, imported or passed on by name (or by `export * from`).
            for (const space of spaces) {
              if (b.name === space) {
                addTo(sites.namespaces, row.path, b.alias);
                if (row.reexport) passOn(row.path, sites, b.alias, 'spaces');
              } else if (b.name === '*' && b.alias === '' && row.reexport) {
                passOn(row.path, sites, space, 'spaces');
              }
            }
          }
        }
      }
      frontier = next;
    }
  }

  private async ofMember(
    member: SymbolRow,
    scope: readonly string[] | null,
    others: readonly SymbolRow[],
    memo: BindingMemo,
  ): Promise<{ refs: BoundReference[]; truncated: boolean }> {
    const [{ definition, owner, ownerIsType }] = await placeMembers([member], memo.facts);
    const rows = await this.rowsOf(definition.name, scope, memo);
    const home = `${definition.repositoryId}\0${definition.path}`;
    const { namespaces, classAt } = await this.filesOf(definition.name, rows, memo);
    // Members are bound among files of languages that see each other's names (a Python `User` is not TypeScript's).
    const space = nameSpaceOf(definition.language);
    const { rows: spaceRows, receivers } = inNameSpace(definition.name, space, rows, memo);
    const inSpace = (row: ReferenceRow) => spaceRows.has(row);
    if (definition.container === null && definition.parent < 0 && definition.kind === 'property' && parsedLanguages().get(definition.language ?? '')?.typeLiterals === true) {
      // A type without a name written outside any definition (a cast's `as { error: E }`, a type argument's `{ hi: string }`): used there if at all.
      const refs = flatten(
        rows.slice(0, MAX_ROWS),
        (row, o) =>
          `${row.repositoryId}\0${row.path}` === home && o.qualifier !== null && o.line >= definition.line && o.line <= definition.endLine,
      );
      return { refs, truncated: rows.length > MAX_ROWS };
    }
    // An owner named as a type is that type's (`const ZodType = $constructor(…)` beside `interface ZodType`).
    if (owner && definition === member && !TYPE_LIKE.has(owner.kind) && !ownerIsType) {
      const reachable = owner.parent < 0 || MEMBER_KINDS.has(owner.kind);
      const [typeOf, [importers]] = await Promise.all([
        receiverResolver(this.store, memo.facts.types, receivers, space, scope, memo.facts.receivers),
        reachable
          ? memo.facts.importers.get([hasPackageScope(definition.language) ? `${definition.repositoryId}\0${packageKey(definition.path)}` : home])
          : [[]],
      ]);
      const alone = !others.some(
        (o) =>
          MEMBER_KINDS.has(o.kind) &&
          o.name === definition.name &&
          `${o.repositoryId}\0${o.path}` === home &&
          o.ordinal !== definition.ordinal,
      );
      // Where the owner can be named: its file, the files that import it (and, with `packageScope`, its package's).
      const sees = new Set([home, ...importers.map((i) => `${i.repositoryId}\0${i.path}`)]);
      const visible = (row: ReferenceRow) =>
        sees.has(`${row.repositoryId}\0${row.path}`) ||
        (reachable &&
          hasPackageScope(definition.language) &&
          row.repositoryId === definition.repositoryId &&
          posix.dirname(row.path) === posix.dirname(definition.path));
      return {
        refs: anonymousMemberUses(
          rows.slice(0, MAX_ROWS).filter((row) => inSpace(row) && visible(row)),
          { home, owner, alone },
          typeOf,
        ),
        truncated: rows.length > MAX_ROWS,
      };
    }
    const sameMember = (
      await placeMembers(
        others.filter((o) => MEMBER_KINDS.has(o.kind) && o.name === definition.name && nameSpaceOf(o.language) === space),
        memo.facts,
      )
    ).map((p) => p.definition);
    const spec = parsedLanguages().get(definition.language ?? '');
    const nearest = spec?.memberBinding === 'nearest';
    // Classes with a member of that name: those that declare one, and (`nearest`) those whose methods assign
    // `self.name = …` (a Python instance attribute: the class's own).
    const definers = new Set(sameMember.map((o) => o.container ?? ''));
    if (nearest) {
      for (const row of rows.filter(inSpace)) {
        for (const o of row.occurrences) {
          if (o.kind === 'write' && o.qualifier !== null && SELF.has(o.qualifier))
            definers.add(classAt(`${row.repositoryId}\0${row.path}`, o.line) ?? '');
        }
      }
      definers.delete(definition.container ?? '');
    }
    // `hierarchy`: the class and its supertypes and subtypes, as a call through any of them may reach this member
    // (overrides, implementations). `nearest`: the class and the subtypes that inherit the member without redefining it.
    const family = !definition.container
      ? new Set<string>()
      : nearest
        ? await this.inheritorsOf(definition.container, definers, memo.facts.types)
        : await this.familyOf(definition, definers, memo);
    const rivals = [...definers].filter((c) => !family.has(c));
    // The files that name a class of the family: where an untyped access may be its (when another class has the
    // name too), and where a property key may be (always: a key's object has no type the index can see).
    const keys = rows.some((r) => r.occurrences.some((o) => o.qualifier === KEY));
    const byMentions = spec?.untypedMembers !== 'omit';
    // Three independent lookups, side by side.
    const [interfaces, mentions, rivalMentions, typeOf] = await Promise.all([
      // Interfaces satisfied without saying so (Go): a call through one that declares the name may reach this member.
      spec?.implicitInterfaces && definition.container ? memo.facts.interfaces.get([definition.name]).then(([i]) => i) : new Set<string>(),
      family.size > 0 && ((rivals.length > 0 && byMentions) || keys)
        ? memo.facts.mentions.get(family).then((files) => new Set(files.flatMap((f) => [...f])))
        : undefined,
      // The files that name a class with a member of that name outside the family: there an untyped access may be theirs.
      rivals.length > 0 && (byMentions || keys)
        ? memo.facts.mentions.get(rivals).then((files) => new Set(files.flatMap((f) => [...f])))
        : new Set<string>(),
      receiverResolver(this.store, memo.facts.types, receivers, space, scope, memo.facts.receivers),
    ]);
    // A type alias (`typeAliases`: TypeScript's `type X = A | B`) has the members of the types it names: no type to bind by.
    const outside = [...new Set(Array.from(receivers, typeOf))].filter(
      (r): r is string => r !== undefined && !family.has(r) && !interfaces.has(r),
    );
    const aliases = new Set(
      spec?.typeAliases ? (await memo.facts.aliases.get(outside)).flatMap((alias, i) => (alias ? [outside[i]] : [])) : [],
    );
    const refs = flattenBy(rows.slice(0, MAX_ROWS), (row) => {
      if (!inSpace(row)) return false;
      const file = `${row.repositoryId}\0${row.path}`;
      const modules = namespaces.get(file);
      // A file that names the family (the member's own file does) and no rival (another definer of the name: a class,
      // or the owner of a literal with that key): an access of unknown type there is the family's. Where a rival is
      // named too, even in the member's file, it may be either's: not guessed (ADR 0040).
      const named = (file === home || mentions?.has(file) === true) && !rivalMentions.has(file);
      return (o) => {
        if (o.qualifier === null) return false;
        // `this.name` / `self.name`: the member of the class the line is in (or of a class of its family).
        // (A function that declares what `this` is, `function f(this: Ajv)`, has it as the receiver.)
        if (SELF.has(o.qualifier) && o.receiver === undefined) return family.has(classAt(file, o.line) ?? '');
        // `Class.name` through a class of the family (also where an import binds that name to a module of the same name).
        if (family.has(o.qualifier)) return true;
        // `ns.name` where `ns` is an imported module is a module's name, not a member.
        if (modules?.has(o.qualifier)) return false;
        // The object's type, where its file says it.
        const receiver = typeOf(o.receiver);
        if (receiver !== undefined && !aliases.has(receiver)) return family.has(receiver) || interfaces.has(receiver);
        if (o.qualifier === KEY) return named;
        // An object of unknown type: bound when no other class defines the name; else by the files that mention the
        // family, or (`untypedMembers: omit`) not at all, as a language server that cannot infer the type leaves it out.
        if (rivals.length === 0) return true;
        return byMentions && named;
      };
    });
    // The declarations it overrides or that override it are sites of the same member, as a language server lists them
    // (`hierarchy`; under `nearest` — Python, Go, which has no overriding — a redefinition is another member).
    for (const o of nearest ? [] : sameMember) {
      if (
        o === definition ||
        (o.repositoryId === definition.repositoryId && o.path === definition.path && o.ordinal === definition.ordinal)
      )
        continue;
      if (o.container === null || !family.has(o.container)) continue;
      // Another signature of the same member (an overload in the same class) is its own declaration, not a site.
      if (o.container === definition.container && o.repositoryId === definition.repositoryId && o.path === definition.path) continue;
      refs.push({
        repositoryId: o.repositoryId,
        path: o.path,
        name: o.name,
        line: o.line,
        column: o.column,
        kind: 'definition',
        enclosing: o.parent,
        qualifier: null,
      });
    }
    return { refs, truncated: rows.length > MAX_ROWS };
  }

  /**
   * The hierarchies of the members' classes read for all of them at once, level by level (up for languages that
   * bind by the whole hierarchy, then down), so that binding each member finds its family in `types`: twenty
   * members of unrelated classes took a hundred queries one after another. Past a few families' worth of
   * classes the rest is read as each member needs it.
   */
  private async walkHierarchies(members: readonly SymbolRow[], types: TypeGraph): Promise<void> {
    const seen = new Set<string>();
    let up: string[] = [];
    for (const m of members) {
      if (m.container === null) continue;
      seen.add(m.container);
      if (parsedLanguages().get(m.language ?? '')?.memberBinding !== 'nearest') up.push(m.container);
    }
    const enough = () => seen.size >= FAMILY_MAX * 4;
    for (let depth = 0; depth < HIERARCHY_DEPTH && up.length > 0 && !enough(); depth++) {
      up = (await types.supertypes(up)).filter((n) => !seen.has(n));
      for (const name of up) seen.add(name);
    }
    let down = [...seen];
    for (let depth = 0; depth < HIERARCHY_DEPTH && down.length > 0 && !enough(); depth++) {
      down = (await types.subtypes(down)).filter((n) => !seen.has(n));
      for (const name of down) seen.add(name);
    }
  }

  /** What the files of a name's rows know (namespace aliases, which class a line is in), once per call. */
  private filesOf(
    name: string,
    rows: readonly ReferenceRow[],
    memo: BindingMemo,
  ): Promise<{ namespaces: Map<string, Set<string>>; classAt: (file: string, line: number) => string | undefined }> {
    let known = memo.files.get(name);
    if (!known) {
      known = Promise.all([
        this.namespaceAliases(rows, memo.facts),
        this.classesOf(
          rows.filter((r) => r.occurrences.some((o) => o.qualifier !== null && SELF.has(o.qualifier))),
          memo.facts,
        ),
      ]).then(([namespaces, classAt]) => ({ namespaces, classAt }));
      memo.files.set(name, known);
    }
    return known;
  }

  /** The rows of a name in scope, once per call. */
  private rowsOf(name: string, scope: readonly string[] | null, memo: BindingMemo): Promise<ReferenceRow[]> {
    let rows = memo.rows.get(name);
    if (!rows) memo.rows.set(name, (rows = this.store.references([name], scope, MAX_ROWS + 1)));
    return rows;
  }

  /** `family` of a member's class, whose name the classes of `definers` declare, once per call. */
  private familyOf(member: SymbolRow, definers: ReadonlySet<string>, memo: BindingMemo): Promise<Set<string>> {
    const key = [member.repositoryId, member.path, member.container, ...[...definers].sort()].join('\0');
    let family = memo.families.get(key);
    if (!family) memo.families.set(key, (family = this.family(member, definers, memo.facts)));
    return family;
  }

  /**
   * The names the supertypes of a member's class have where they are declared, for those its file imports under
   * another name (`import AjvCore from './core'` → `Ajv`, the class `./core` exports as its default;
   * `import { Base as B }` → `Base`): alias → name.
   */
  private async importedSupertypes(member: SymbolRow, supertypes: readonly string[], facts: ScopeFacts): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (supertypes.length === 0) return out;
    for (const i of await this.store.importsOf(member.repositoryId, [member.path])) {
      if (i.target === null) continue;
      for (const b of i.bindings) {
        if (!supertypes.includes(b.alias) || b.name === b.alias || b.name === '*') continue;
        const names =
          b.name === 'default'
            ? (await facts.defaultExports.get([`${member.repositoryId}\0${i.target}`]))[0].map((d) => d.name)
            : [b.name];
        for (const name of names) out.set(b.alias, name);
      }
    }
    return out;
  }

  /**
   * The names other files import the member's class under (`import AjvCore from './core'` where `./core` exports
   * `class Ajv` as its default): subtypes declared there name it so (`class Ajv2019 extends AjvCore`).
   */
  private async importedAs(member: SymbolRow, facts: ScopeFacts): Promise<string[]> {
    const file = `${member.repositoryId}\0${member.path}`;
    const [[importers], [defaults]] = await Promise.all([facts.importers.get([file]), facts.defaultExports.get([file])]);
    const isDefault = defaults.some((d) => d.name === member.container);
    const out = new Set<string>();
    for (const i of importers) {
      for (const b of i.bindings) {
        if (b.alias !== '' && b.alias !== member.container && (b.name === member.container || (b.name === 'default' && isDefault)))
          out.add(b.alias);
      }
    }
    return [...out];
  }

  /**
   * A class with the subtypes (down the chain, by name) that inherit a member from it: a subtype among `definers`
   * (the classes defining a member of that name) has its own, and so does what derives from it. At most `FAMILY_MAX`.
   */
  private async inheritorsOf(container: string, definers: ReadonlySet<string>, types: TypeGraph): Promise<Set<string>> {
    return this.withSubtypes(new Set([container]), types, (name) => !definers.has(name));
  }

  /**
   * The classes whose member of a name is one member with the member of `container`, by name, at most `FAMILY_MAX`,
   * as a language service relates them:
   * - up, the class and those of its supertypes that declare the name (`definers`): the members it overrides or
   *   implements. A supertype that does not declare it joins only as a subtype of one that does, so a sibling's
   *   same-named member is its own unless a common supertype declares it (`class A implements I { x }` and
   *   `class B implements I { x }` share `x` only when `I` has it). The chain follows what declarations say
   *   (`extends`, `implements`), not what a type alias is made of (`type I = T & U`). A supertype the class's file
   *   imports under another name is known by its own too (`importedSupertypes`), and joins by both; so does the
   *   class itself under the names other files import it by (`importedAs`);
   * - down, every subtype of those, which inherits or overrides the member; below a type alias, only the subtypes
   *   that inherit it (a class that implements `type I = T & U` and declares `x` has its own `x`, not `T`'s).
   */
  private async family(member: SymbolRow, definers: ReadonlySet<string>, facts: ScopeFacts): Promise<Set<string>> {
    const { types } = facts;
    const container = member.container!;
    // Read while the supertypes are walked; a failure surfaces where it is awaited.
    const importedAs = this.importedAs(member, facts);
    importedAs.catch(() => undefined);
    const family = new Set([container]);
    const seen = new Set([container]);
    let up = [container];
    for (let depth = 0; depth < HIERARCHY_DEPTH && up.length > 0 && seen.size < FAMILY_MAX; depth++) {
      up = (await types.supertypes(up, true)).filter((n) => !seen.has(n));
      const renamed =
        depth === 0
          ? await this.importedSupertypes(
              member,
              up.filter((n) => !definers.has(n)),
              facts,
            )
          : new Map<string, string>();
      for (const [alias, name] of renamed) {
        if (seen.has(name) || !definers.has(name)) continue;
        family.add(alias);
        up.push(name);
      }
      for (const name of up) {
        seen.add(name);
        if (definers.has(name)) family.add(name);
      }
    }
    for (const alias of await importedAs) family.add(alias);
    let down = [...family];
    const aliases = new Set<string>();
    for (let depth = 0; depth < HIERARCHY_DEPTH && down.length > 0 && family.size < FAMILY_MAX; depth++) {
      const next: string[] = [];
      for (const edge of await types.subtypeEdges(down)) {
        if (family.has(edge.to) || family.size >= FAMILY_MAX) continue;
        if (aliases.has(edge.from) && definers.has(edge.to)) continue;
        family.add(edge.to);
        if (edge.relation === 'aliases') aliases.add(edge.to);
        next.push(edge.to);
      }
      down = next;
    }
    return family;
  }

  /** `family` with the subtypes of its classes, level by level (those `follow` accepts, and theirs). */
  private async withSubtypes(family: Set<string>, types: TypeGraph, follow: (name: string) => boolean): Promise<Set<string>> {
    let frontier = [...family];
    for (let depth = 0; depth < HIERARCHY_DEPTH && frontier.length > 0 && family.size < FAMILY_MAX; depth++) {
      frontier = (await types.subtypes(frontier)).filter((n) => !family.has(n) && follow(n));
      for (const name of frontier) {
        if (family.size >= FAMILY_MAX) break;
        family.add(name);
      }
    }
    return family;
  }

  /** For the files of `rows`: which class (innermost) a line of a file (`repository\0path`) is in. */
  private async classesOf(rows: readonly ReferenceRow[], facts: ScopeFacts): Promise<(file: string, line: number) => string | undefined> {
    const files = [...new Set(rows.map((r) => `${r.repositoryId}\0${r.path}`))];
    const classes = new Map((await facts.classes.get(files)).map((list, i) => [files[i], list]));
    return (file, line) => {
      let best: { name: string; line: number; endLine: number } | undefined;
      for (const c of classes.get(file) ?? []) {
        if (c.line <= line && line <= c.endLine && (!best || c.line >= best.line)) best = c;
      }
      return best?.name;
    };
  }

  /** Per file (`repository\0path`) of `rows`, the local names bound to whole modules (`import * as ns`, `import pkg`). */
  private async namespaceAliases(rows: readonly ReferenceRow[], facts: ScopeFacts): Promise<Map<string, Set<string>>> {
    const files = [...new Set(rows.map((r) => `${r.repositoryId}\0${r.path}`))];
    return new Map((await facts.namespaces.get(files)).map((aliases, i) => [files[i], aliases]));
  }
}

/**
 * The uses of a member of a type without a name (`{ unit: string }` written as a function's result, a parameter's,
 * a variable's or a property's type; a Go test table's `[]struct{…}`; an object literal's method): that type is its
 * owner's, the definition it is written in, and no other type has it — no family, no rival, no other declaration of
 * the member, whatever their containers are called. Its uses: an access whose receiver is the owner's type
 * (`getSizing().unit`, `args.precision` with `args: {…}`; in the owner's file, a call of the owner's name is the
 * owner's); one through the owner by name (`api.foo`, `this._def.minSize.value`); in the owner's file, a key or an
 * access of unknown type — anywhere in it when no other member of the file has the name (`{ many: … }` in an object
 * the type is given to), else in the owner's lines (`{ unit: … }` in the initializer the type annotates). Beyond the
 * owner's file (`rows` holds only the files that can name the owner), only the first two; there, `x.owner.name` is
 * not enough.
 */
function anonymousMemberUses(
  rows: readonly ReferenceRow[],
  { home, owner, alone }: { home: string; owner: SymbolRow; alone: boolean },
  typeOf: (receiver: string | undefined) => string | undefined,
): BoundReference[] {
  return flattenBy(rows, (row) => {
    const inHome = `${row.repositoryId}\0${row.path}` === home;
    return (o) => {
      if (o.qualifier === null) return false;
      // In its file, the result of a call of a name is the owner's type only when it calls the owner (`getSizing().unit`),
      // even where same-named functions elsewhere disagree on what they give.
      const call = inHome ? calledName(o.receiver) : undefined;
      if (call !== undefined) return call === owner.name;
      const receiver = typeOf(o.receiver);
      if (receiver !== undefined) return receiver === owner.name;
      if (o.qualifier === owner.name) return true;
      if (!inHome) return false;
      return alone || o.qualifier.endsWith(`.${owner.name}`) || (owner.line <= o.line && o.line <= owner.endLine);
    };
  });
}

/**
 * Where members belong: each with the definition it is written in (`owner`), and whether a type has the owner's name
 * (then the member is that type's: `const ZodType = $constructor(…, { optional() {…} })` beside `interface ZodType`).
 * Else a member written in a value declared of a named type (`const def: KeywordDefinition = { code() {…} }`) is that
 * type's: it comes back with the type as its container. `heldAs`: for a member of a value's literal, the named type
 * it belongs to either way (the type whose declaration of the member TypeScript goes to).
 */
export async function placeMembers(
  members: readonly SymbolRow[],
  facts: ScopeFacts,
): Promise<Array<{ definition: SymbolRow; owner: SymbolRow | undefined; ownerIsType: boolean; heldAs: string | undefined }>> {
  const nested = members.filter((m) => m.parent >= 0);
  const owners = new Map((await facts.owners.get(nested.map(ownerKey))).map((owner, i) => [nested[i], owner]));
  const declaredOf = (owner: SymbolRow | undefined) =>
    owner && VALUE_KINDS.has(owner.kind) && owner.returns && owner.returns !== owner.name ? owner.returns : undefined;
  const names = [...new Set([...owners.values()].flatMap((o) => (o ? [o.name, declaredOf(o) ?? o.name] : [])))];
  const types = new Map((await facts.typeNames.get(names)).map((known, i) => [names[i], known]));
  return members.map((member) => {
    const owner = owners.get(member);
    const declared = declaredOf(owner);
    const ownerIsType = owner !== undefined && types.get(owner.name) === true;
    const typed = declared !== undefined && types.get(declared) === true && !ownerIsType;
    const definition = typed ? { ...member, container: declared } : member;
    const heldAs = owner && VALUE_KINDS.has(owner.kind) ? (ownerIsType ? owner.name : typed ? declared : undefined) : undefined;
    return { definition, owner, ownerIsType, heldAs };
  });
}

/** A class's constructor, where the language names one (`LanguageSpec.constructorName`: JavaScript's `constructor`). */
function isConstructor(definition: SymbolRow): boolean {
  const name = parsedLanguages().get(definition.language ?? '')?.constructorName;
  return name !== null && name !== undefined && definition.name === name && definition.parent >= 0;
}

function flatten(rows: readonly ReferenceRow[], keep: (row: ReferenceRow, o: Occurrence) => boolean): BoundReference[] {
  return flattenBy(rows, (row) => (o) => keep(row, o));
}

/** `flatten` with what is known of a row worked out once for its occurrences (`keepOf(row)`: false, none of them). */
function flattenBy(rows: readonly ReferenceRow[], keepOf: (row: ReferenceRow) => false | ((o: Occurrence) => boolean)): BoundReference[] {
  const out: BoundReference[] = [];
  for (const row of rows) {
    const keep = keepOf(row);
    if (!keep) continue;
    for (const o of row.occurrences) {
      if (keep(o)) out.push({ repositoryId: row.repositoryId, path: row.path, name: row.name, ...o });
    }
  }
  return out;
}

/**
 * A name's rows in files of one name space (a Python `User` is not TypeScript's), and the receivers of their
 * occurrences (a call's result, `f()`, is what `f` declares it returns): worked out once per call for all the
 * name's members.
 */
function inNameSpace(
  name: string,
  space: string,
  rows: readonly ReferenceRow[],
  memo: BindingMemo,
): { rows: Set<ReferenceRow>; receivers: Set<string | undefined> } {
  const key = `${name}\0${space}`;
  let found = memo.spaces.get(key);
  if (!found) {
    const inSpace = new Set(rows.filter((row) => nameSpaceOf(languageOf(row.path)) === space));
    const receivers = new Set<string | undefined>();
    for (const row of inSpace) for (const o of row.occurrences) receivers.add(o.receiver);
    memo.spaces.set(key, (found = { rows: inSpace, receivers }));
  }
  return found;
}

/** The package of a file of a `packageScope` language (Go) as imports resolve it: its directory, `./` at the root. */
export function packageKey(path: string): string {
  const dir = posix.dirname(path);
  return dir === '.' ? './' : `${dir}/`;
}
