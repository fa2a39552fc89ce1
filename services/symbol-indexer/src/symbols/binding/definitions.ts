import { posix } from 'node:path';
import { languageOf } from '@sextant/checkouts';
import { hasPackageScope, nameSpaceOf } from '@sextant/parsing';
import { calledName, receiverResolver } from './receiver-types.js';
import { packageKey, HIERARCHY_DEPTH, MEMBER_KINDS, placeMembers, REEXPORT_DEPTH, SELF, TYPE_LIKE, TYPE_ONLY } from './references.js';
import type { ImportRow, Occurrence, ReferenceRow, SymbolRow, SymbolStore } from '../index/symbol.store.js';
import { ownerKey, type BindingFacts } from './binding-facts.js';

/** Same-named definitions considered in one repository. */
const CANDIDATES = 500;

/**
 * Go to definition: the definition a name denotes where it is used, by the
 * same bindings `find_references` follows, in reverse. A bare name is the
 * file's own definition, else what an import brings in under that name
 * (through re-exports), else (Go) one of its package; `this.name` is the
 * member of the class the line is in (or of its supertypes), `x.name` with
 * `x` of a type its file declares that type's (or a supertype's); `ns.name`
 * the module's definition; `Class.name` that class's member.
 */
export class DefinitionResolver {
  constructor(
    private readonly store: SymbolStore,
    private readonly facts: BindingFacts,
  ) {}

  /**
   * The definitions `name` denotes at `path:line` (`column` when the line uses it more than once), best first; none when
   * it cannot tell. `uses`: the name's references row in that file, when the caller has read it already (not read again).
   */
  async at(
    repositoryId: string,
    path: string,
    name: string,
    line: number,
    column: number | undefined,
    uses?: ReferenceRow,
  ): Promise<SymbolRow[]> {
    // Only definitions of languages that see this file's names (a TypeScript use never denotes a Python definition).
    const space = nameSpaceOf(languageOf(path));
    const candidates = (await this.store.locate(name, { repositoryIds: [repositoryId], limit: CANDIDATES })).rows.filter(
      (r) => r.name === name && nameSpaceOf(r.language) === space,
    );
    // Where the bindings tell nothing, the one definition of that name is the best guess.
    const found = await this.resolve(repositoryId, path, name, line, column, space, candidates, uses);
    return found.length === 0 && candidates.length === 1 ? candidates : found;
  }

  private async resolve(
    repositoryId: string,
    path: string,
    name: string,
    line: number,
    column: number | undefined,
    space: string,
    candidates: readonly SymbolRow[],
    uses: ReferenceRow | undefined,
  ): Promise<SymbolRow[]> {
    const covers = (start: number) => column === undefined || (column >= start && column <= start + name.length);
    // The position is a definition's own name: that definition.
    const own = candidates.filter((c) => c.path === path && c.line === line && covers(c.column));
    if (own.length > 0) return mergedFirst(await this.declaredFirst(repositoryId, own, candidates), candidates);
    const given = uses?.repositoryId === repositoryId && uses.path === path && uses.name === name ? uses : undefined;
    const row = given ?? (await this.store.referencesIn(repositoryId, path, name));
    const use = row?.occurrences.find((o) => o.line === line && covers(o.column));
    if (!use) return [];
    // A member of a literal held by a value of a named type: the type's member first, wherever it is written.
    const found = await this.declaredFirst(
      repositoryId,
      nearFirst(await this.ofUse(repositoryId, path, name, line, space, use, candidates), path, line),
      candidates,
    );
    // Overloads (several signatures of one name): the first that takes as many arguments as the call passes, as the
    // language's overload resolution starts.
    return mergedFirst(use.arity === undefined || found.length < 2 ? found : byArity(found, use.arity), candidates);
  }

  /**
   * `found` with, first, the declarations of the type its object literals' members are held as: for a member of a
   * literal that a value of a named type holds (`const def: Keyword = { code() {} }`; zod's
   * `const ZodType = $constructor(…, { parse() {} })` beside `interface ZodType`), the type's own member, as TypeScript
   * goes from an object literal's member (or `def.code` through the value) to the property of its type.
   */
  private async declaredFirst(repositoryId: string, found: SymbolRow[], candidates: readonly SymbolRow[]): Promise<SymbolRow[]> {
    const nested = found.filter((d) => MEMBER_KINDS.has(d.kind) && d.parent >= 0);
    if (nested.length === 0) return found;
    const facts = await this.facts.of([repositoryId]);
    const types = (await placeMembers(nested, facts)).flatMap((p) => (p.heldAs === undefined ? [] : [p.heldAs]));
    if (types.length === 0) return found;
    // Declarations: the members written in a type, not in another value's literal.
    const members = candidates.filter((c) => c.container !== null && c.parent >= 0 && MEMBER_KINDS.has(c.kind) && !found.includes(c));
    const owners = await facts.owners.get(members.map(ownerKey));
    const declared = await this.ofType(
      repositoryId,
      types,
      members.filter((_, i) => owners[i] !== undefined && TYPE_LIKE.has(owners[i].kind)),
    );
    // Of same-named types (of other modules too), the declaration nearest the literal first.
    return declared.length > 0 ? [...nearFirst(declared, found[0].path, found[0].line), ...found] : found;
  }

  private async ofUse(
    repositoryId: string,
    path: string,
    name: string,
    line: number,
    space: string,
    use: Occurrence,
    candidates: readonly SymbolRow[],
  ): Promise<SymbolRow[]> {
    // The name an import statement takes (`import { a as b }`): what the module exports under it.
    if (use.kind === 'import') return this.imported(repositoryId, path, name, candidates);
    if (use.qualifier === null) return this.bare(repositoryId, path, name, candidates);
    // `this.name` is the class's member, unless the function declares what `this` is (the receiver then says).
    if (SELF.has(use.qualifier) && use.receiver === undefined) return this.member(repositoryId, path, line, candidates);
    const facts = await this.facts.of([repositoryId]);
    const receiver = (await receiverResolver(this.store, facts.types, [use.receiver], space, [repositoryId], facts.receivers))(
      use.receiver,
    );
    if (receiver !== undefined) {
      const ofReceiver = await this.ofType(repositoryId, [receiver], candidates);
      if (ofReceiver.length > 0) return ofReceiver;
    } else {
      // The result of a function the file defines (where same-named ones elsewhere disagree on it): a member of the
      // type it declares, written in its result (`getSizing(): { unit: string }`), is the file's own.
      const called = calledName(use.receiver);
      const ofResult = called === undefined ? [] : candidates.filter((c) => c.path === path && c.container === called);
      if (ofResult.length > 0) return ofResult;
    }
    const viaModule = await this.throughNamespace(repositoryId, path, use.qualifier, name, candidates);
    if (viaModule.length > 0) return viaModule;
    // `value.name`, where `value` holds an object literal with that member (its type's member goes first, in `resolve`).
    const ofClass = candidates.filter((c) => c.container === use.qualifier);
    return ofClass.length > 0 ? ofClass : candidates.filter((c) => MEMBER_KINDS.has(c.kind));
  }

  private async bare(repositoryId: string, path: string, name: string, candidates: readonly SymbolRow[]): Promise<SymbolRow[]> {
    const found = await this.seenFrom(repositoryId, [{ file: path, alias: name }], candidates);
    const language = languageOf(path);
    if (found.length > 0 || !hasPackageScope(language)) return found;
    return candidates.filter((c) => languageOf(c.path) === language && posix.dirname(c.path) === posix.dirname(path));
  }

  /** The name an import statement takes (`import { a as b }`, at `a` or `b`; `import b from`): what its module exports so. */
  private async imported(repositoryId: string, path: string, name: string, candidates: readonly SymbolRow[]): Promise<SymbolRow[]> {
    const wanted: Array<{ file: string; alias: string }> = [];
    for (const i of await this.store.importsOf(repositoryId, [path])) {
      for (const b of i.bindings) {
        if (i.target !== null && b.name !== '*' && (b.name === name || b.alias === name)) wanted.push({ file: i.target, alias: b.name });
      }
    }
    return this.seenFrom(repositoryId, wanted, candidates);
  }

  /**
   * What names denote as files see them (`wanted`: a name in a file): the file's own definition of it (`default`: the
   * definition it exports as its default), else what the file's imports bind to it, followed through `export … from`
   * to the file that defines it.
   */
  private async seenFrom(
    repositoryId: string,
    start: Array<{ file: string; alias: string }>,
    candidates: readonly SymbolRow[],
  ): Promise<SymbolRow[]> {
    // Same-named definitions, for a name other than the one asked about (an alias's original, a re-export's).
    const named = new Map<string, Promise<readonly SymbolRow[]>>();
    const definitionsOf = (alias: string): Promise<readonly SymbolRow[]> => {
      if (candidates.some((c) => c.name === alias)) return Promise.resolve(candidates);
      let rows = named.get(alias);
      if (!rows)
        named.set(alias, (rows = this.store.locate(alias, { repositoryIds: [repositoryId], limit: CANDIDATES }).then((r) => r.rows)));
      return rows;
    };
    const own = await this.followExports(repositoryId, start, async (w) => {
      const rows =
        w.alias === 'default'
          ? await this.store.defaultExportOf(repositoryId, w.file)
          : (await definitionsOf(w.alias)).filter((c) => inTarget(c, w.file) && c.name === w.alias && !MEMBER_KINDS.has(c.kind));
      return rows.length > 0 ? [...rows] : undefined;
    });
    return own ?? [];
  }

  /**
   * Names in files (`start`), followed through `export … from` (and `import … from`: what a file's imports bind to the
   * name) to the files they come from, up to REEXPORT_DEPTH: the first answer `at` gives for one of them, nearest first.
   * `at` may read the imports of the file it is asked about (read once per step, when first asked).
   */
  private async followExports<T>(
    repositoryId: string,
    start: Array<{ file: string; alias: string }>,
    at: (wanted: { file: string; alias: string }, imports: () => Promise<ImportRow[]>) => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const seen = new Set(start.map((w) => `${w.file}\0${w.alias}`));
    let wanted = start;
    for (let depth = 0; depth <= REEXPORT_DEPTH && wanted.length > 0; depth++) {
      let imports: ImportRow[] | undefined;
      const load = async () =>
        (imports ??= await this.store.importsOf(
          repositoryId,
          wanted.filter((w) => !w.file.endsWith('/')).map((w) => w.file),
        ));
      for (const w of wanted) {
        const found = await at(w, async () => (await load()).filter((i) => i.path === w.file));
        if (found !== undefined) return found;
      }
      const next: Array<{ file: string; alias: string }> = [];
      for (const w of wanted) {
        for (const i of await load()) {
          if (i.path !== w.file || i.target === null) continue;
          for (const b of i.bindings) {
            // `export * from` passes every name on but `default`.
            const exported =
              b.alias === w.alias && b.name !== '*'
                ? b.name
                : b.name === '*' && b.alias === '' && w.alias !== 'default'
                  ? w.alias
                  : undefined;
            const key = `${i.target}\0${exported}`;
            if (exported !== undefined && !seen.has(key)) {
              seen.add(key);
              next.push({ file: i.target, alias: exported });
            }
          }
        }
      }
      wanted = next;
    }
    return undefined;
  }

  private async member(repositoryId: string, path: string, line: number, candidates: readonly SymbolRow[]): Promise<SymbolRow[]> {
    const [inFile] = await (await this.facts.of([repositoryId])).classes.get([`${repositoryId}\0${path}`]);
    const classes = inFile.filter((c) => c.line <= line && line <= c.endLine);
    const inner = classes.sort((a, b) => b.line - a.line)[0];
    return inner ? this.ofType(repositoryId, [inner.name], candidates) : [];
  }

  /** The members among `candidates` of a type: its own, else the nearest of its supertypes'. */
  private async ofType(repositoryId: string, typeNames: string[], candidates: readonly SymbolRow[]): Promise<SymbolRow[]> {
    let names = typeNames;
    const seen = new Set(names);
    const { types } = await this.facts.of([repositoryId]);
    for (let depth = 0; depth < HIERARCHY_DEPTH && names.length > 0; depth++) {
      const found = candidates.filter((c) => c.container !== null && names.includes(c.container));
      if (found.length > 0) return found;
      names = (await types.supertypes(names)).filter((n) => !seen.has(n));
      for (const n of names) seen.add(n);
    }
    return [];
  }

  /**
   * `qualifier.name` where `qualifier` names a module: its `name`. The module is what the file imports as a namespace
   * under that name (`import * as q`), or what a name it imports comes to through re-exports (`import { q } from
   * './index'`, where a barrel says `export * as q from './q'`); a Go package: its files.
   */
  private async throughNamespace(
    repositoryId: string,
    path: string,
    qualifier: string,
    name: string,
    candidates: readonly SymbolRow[],
  ): Promise<SymbolRow[]> {
    const module = await this.followExports(repositoryId, [{ file: path, alias: qualifier }], async (w, imports) => {
      const namespace = (await imports()).find((i) => i.target !== null && i.bindings.some((b) => b.name === '*' && b.alias === w.alias));
      return namespace?.target ?? undefined;
    });
    // A file: its own definition, else what its imports bring in under that name (as a bare use there is resolved).
    return module === undefined ? [] : this.seenFrom(repositoryId, [{ file: module, alias: name }], candidates);
  }
}

/**
 * Where several definitions remain, the nearest to the use first: those of its file (of names declared more than once
 * in it, as sequential test cases do, the last declared before the use), then of its directory, then the rest.
 */
function nearFirst(found: readonly SymbolRow[], path: string, line: number): SymbolRow[] {
  if (found.length < 2) return [...found];
  const dir = posix.dirname(path);
  // Sort keys: the place, then (in the use's file) preceding declarations by nearness, then the order found.
  const keyed = found.map((d, i) => {
    const preceding = d.path === path && !MEMBER_KINDS.has(d.kind) && d.line <= line;
    return { d, keys: [d.path === path ? 0 : posix.dirname(d.path) === dir ? 1 : 2, preceding ? 0 : 1, preceding ? -d.line : i] };
  });
  keyed.sort((a, b) => a.keys[0] - b.keys[0] || a.keys[1] - b.keys[1] || a.keys[2] - b.keys[2]);
  return keyed.map((k) => k.d);
}

/**
 * Declaration merging (TypeScript's `interface X` and `const X` in one file, `type X` and `const X`): one symbol of
 * several declarations, which go to definition lists in source order. When the first answer is a top-level
 * definition with such partners in its file, they come first, in source order.
 */
export function mergedFirst(found: readonly SymbolRow[], candidates: readonly SymbolRow[]): SymbolRow[] {
  const top = found[0];
  if (!top || top.parent >= 0) return [...found];
  const partners = candidates.filter(
    (c) => c.path === top.path && c.parent < 0 && c.name === top.name && TYPE_ONLY.has(c.kind) !== TYPE_ONLY.has(top.kind),
  );
  if (partners.length === 0) return [...found];
  const merged = [top, ...partners].sort((a, b) => a.line - b.line);
  const key = (d: SymbolRow) => `${d.path}\0${d.ordinal}`;
  const first = new Set(merged.map(key));
  return [...merged, ...found.filter((d) => !first.has(key(d)))];
}

/**
 * `found` with the definitions whose signature cannot take `arity` arguments last (each group in its order): one
 * whose signature says nothing of it (a property of a function type, `setImmediate: SetImmediateFunction`) keeps its place.
 */
export function byArity(found: readonly SymbolRow[], arity: number): SymbolRow[] {
  const refuses = found.filter((d) => d.signature !== null && takesArguments(d.signature, arity) === false);
  return [...found.filter((d) => !refuses.includes(d)), ...refuses];
}

/**
 * Whether a signature as written (`f<T>(a: A, b?: B, ...rest: C[]): R`) takes `arity` arguments: at least its
 * required parameters, at most all (any number past a rest parameter); a `this` parameter is none. Undefined when
 * the signature has no whole parameter list (cut short, or none written).
 */
export function takesArguments(signature: string, arity: number): boolean | undefined {
  let depth = 0;
  let open = -1;
  for (let i = 0; i < signature.length && open < 0; i++) {
    const c = signature[i];
    if (c === '<') depth++;
    else if (c === '>' && signature[i - 1] !== '=') depth--;
    else if (c === '(' && depth <= 0) open = i;
  }
  if (open < 0) return undefined;
  const parameters: string[] = [];
  let start = open + 1;
  depth = 0;
  for (let i = open + 1; i < signature.length; i++) {
    const c = signature[i];
    if ('([{<'.includes(c)) depth++;
    else if (')]}'.includes(c) || (c === '>' && signature[i - 1] !== '=')) {
      if (depth === 0 && c === ')') {
        parameters.push(signature.slice(start, i));
        const listed = parameters.map((p) => p.trim()).filter((p) => p !== '' && !/^this\s*[:?]/.test(p));
        const rest = listed.some((p) => p.startsWith('...'));
        const required = listed.filter(
          (p) => !p.startsWith('...') && !/^[\p{L}\p{N}_$]+\s*\?/u.test(p) && !p.replace(/=>/g, '').includes('='),
        ).length;
        return arity >= required && (rest || arity <= listed.length);
      }
      depth--;
    } else if (c === ',' && depth === 0) {
      parameters.push(signature.slice(start, i));
      start = i + 1;
    }
  }
  return undefined;
}

/** A definition in an import's target: that file, or (`packageScope`) a file of that package directory. */
function inTarget(definition: SymbolRow, target: string): boolean {
  return target.endsWith('/') ? packageKey(definition.path) === target : definition.path === target;
}
