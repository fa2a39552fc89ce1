import type {
  FindReferences,
  FindRelatedSymbols,
  GetCodeContext,
  GetFileOutline,
  GetSymbolHierarchy,
  LocateSymbol,
  OutlineNode,
  Reference,
  RegisteredRepository,
  SymbolDef,
} from '@sextant/contracts';
import { join } from 'node:path';
import { languageOf } from '@sextant/checkouts';
import { namesOf, single, type Scope, type Scopes } from '@sextant/registry-client';
import { ServiceError } from '@sextant/work';
import { parsedLanguages, type ParsePool } from '@sextant/parsing';
import { cmp, groupBy, repoPath } from '../helpers.js';
import type { BindingFacts } from '../binding/binding-facts.js';
import { DefinitionResolver } from '../binding/definitions.js';
import { ReferenceBinder, type BoundReference } from '../binding/references.js';
import { snippetOf, type SourceLines } from './source-lines.js';
import { exactlyNamed, SAME_NAMED, splitName, type ReferenceRow, type SymbolRow, type SymbolStore } from '../index/symbol.store.js';
import type { LabelledReference, LineReader, PreciseAnswers, Precision } from '../precise/precise-answers.js';
import { packContext, tokenCounter } from './token-budget.js';

/** Definitions of one name whose references are gathered for a name-only `find_references`. */
const MAX_DEFINITIONS = 20;
/** Children and subtypes listed by get_symbol_hierarchy at most. */
const HIERARCHY_MAX = 200;
/** Related symbols get_code_context adds at most. */
const CONTEXT_RELATED = 8;
/** Precise occurrences read for one find_references at most. */
const PRECISE_REFERENCES = 10_000;

/** The symbol tools, over the symbol index; repositories and workspaces are the registry's. */
export class SymbolService {
  private readonly binder: ReferenceBinder;
  private readonly definitions: DefinitionResolver;

  constructor(
    private readonly store: SymbolStore,
    private readonly scopes: Scopes,
    private readonly sources: SourceLines,
    facts: BindingFacts,
    private readonly pool: ParsePool,
    private readonly precise: PreciseAnswers,
  ) {
    this.binder = new ReferenceBinder(store, facts);
    this.definitions = new DefinitionResolver(store, facts);
  }

  async locate(input: LocateSymbol.Request): Promise<LocateSymbol.Response> {
    const scope = await this.scopes.of(input, true);
    const found = await this.store.locate(input.name, {
      repositoryIds: scope.repositories?.map((r) => r.id) ?? null,
      kind: input.kind,
      language: input.language,
      limit: input.limit,
    });
    let rows = found.rows;
    // Definitions from the precise tier: those it resolved (go to definition in a file it covers), and below those it
    // confirms; the others are the search tier's.
    const precise = new Set<SymbolRow>();
    if (input.path !== undefined) {
      // Go to definition: what the name denotes where it is used comes first.
      const repository = single(scope, 'A use position (path, line)');
      const path = repoPath(input.path);
      const resolved = await this.precise.definitionAt(repository.id, path, bareName(input.name), input.line!, input.column);
      for (const r of resolved ?? []) precise.add(r);
      const [local, denoted] =
        precise.size > 0
          ? [undefined, [...precise]]
          : await Promise.all([
              // A parameter or local variable hides every other definition of its name.
              input.name === bareName(input.name) ? this.localAt(repository, path, input.name, input.line!, input.column) : undefined,
              this.definitions.at(repository.id, path, bareName(input.name), input.line!, input.column),
            ]);
      const wanted = (d: SymbolRow) => (!input.kind || d.kind === input.kind) && (!input.language || d.language === input.language);
      const best = [...(local ? [local] : []), ...denoted].filter(wanted);
      const first = new Set(best.map((d) => `${d.path}\0${d.ordinal}`));
      rows = [...best, ...rows.filter((r) => !first.has(`${r.path}\0${r.ordinal}`))].slice(0, input.limit);
    }
    // Definitions found by name in a file the precise tier covers, where the compiler defines a symbol at the name.
    for (const r of await this.precise.confirmed(rows.filter((r) => !precise.has(r)))) precise.add(r);
    const repositories = await this.scopes.repositoriesOf(scope, rows);
    const names = namesOf(repositories);
    return {
      ...(await this.answer(scope, repositories)),
      // Rows of a repository the registry no longer knows (an evicted workspace) are left out.
      definitions: rows
        .filter((row) => repositories.has(row.repositoryId))
        .map((row) => definition(row, names, precise.has(row) ? 'precise' : 'search')),
      truncated: found.truncated,
    };
  }

  /**
   * The parameter or local variable `name` denotes at a use (the index holds no locals: the file is parsed now, in
   * the pool), as a definition of kind `variable` inside the innermost definition around it; undefined: no local's.
   */
  private async localAt(
    repository: RegisteredRepository,
    path: string,
    name: string,
    line: number,
    column: number | undefined,
  ): Promise<SymbolRow | undefined> {
    return (await this.localWithUses(repository, path, name, line, column, false))?.definition;
  }

  /**
   * `localAt` (`name` may be left out when `column` is given), and with `uses` the other places the name denotes that
   * local in its file, each with the innermost definition around it (`enclosing`, by ordinal).
   */
  private async localWithUses(
    repository: RegisteredRepository,
    path: string,
    name: string | undefined,
    line: number,
    column: number | undefined,
    uses: boolean,
  ): Promise<{ definition: SymbolRow; uses: BoundReference[] } | undefined> {
    const language = languageOf(path);
    if (!language || !parsedLanguages().has(language) || (name === undefined && column === undefined)) return undefined;
    const found = await this.sources.inCheckout(repository, (dir) =>
      this.pool.localDefinition(join(dir, path), language, name, line, column, uses),
    );
    if (!found) return undefined;
    const symbols = (await this.store.outline(repository.id, path))?.symbols ?? [];
    const around = (at: number) => symbols.filter((s) => s.line <= at && at <= s.endLine).at(-1);
    const definition: SymbolRow = {
      repositoryId: repository.id,
      path,
      ordinal: -1,
      name: found.name,
      kind: 'variable',
      line: found.line,
      endLine: found.line,
      container: around(found.line)?.name ?? null,
      signature: found.text,
      parent: -1,
      language,
      column: found.column,
      defaultExport: false,
    };
    const bound = (found.uses ?? []).map((u): BoundReference => ({
      repositoryId: repository.id,
      path,
      name: found.name,
      line: u.line,
      column: u.column,
      kind: u.kind,
      enclosing: around(u.line)?.ordinal ?? -1,
      qualifier: null,
    }));
    return { definition, uses: bound };
  }

  async outline(input: GetFileOutline.Request): Promise<GetFileOutline.Response> {
    const { repository, scope } = await this.scopes.one(input, 'get_file_outline');
    const path = repoPath(input.path);
    const file = await this.store.outline(repository.id, path);
    if (!file) {
      throw ServiceError.of(
        'not_found',
        `"${path}" is not in the symbol index of ${repository.name} (not a file of it, or not indexed yet: see index_status).`,
        { path, repo: repository.name },
      );
    }
    return {
      ...(await this.scopes.answer(scope, new Map())),
      repo: repository.name,
      path,
      language: file.language,
      symbols: tree(file.symbols.slice(0, input.limit)),
      symbol_count: file.symbols.length,
      truncated: file.symbols.length > input.limit,
      skipped: file.skipped,
    };
  }

  async references(input: FindReferences.Request): Promise<FindReferences.Response> {
    const scope = await this.scopes.of(input, true);
    const scopeIds = scope.repositories?.map((r) => r.id) ?? null;
    // By name: its definitions are among the same-named ones the binder reads for its members (one lookup).
    const located =
      input.path === undefined
        ? this.store.locate(input.name!, { repositoryIds: scopeIds, limit: SAME_NAMED }).then((r) => r.rows)
        : undefined;
    // At a position: a definition of the index that starts there, else the parameter or local variable the name there
    // denotes (the index holds no locals: its uses are found in its file, parsed now).
    const local = located ? undefined : await this.localOrDefinitionAt(scope, input);
    const definitions = located ? exactlyNamed(await located, input.name!).slice(0, MAX_DEFINITIONS) : local!.definitions;
    // At a position the name may be left out.
    const bare = input.name === undefined ? undefined : bareName(input.name);
    const bound = local?.uses
      ? { refs: local.uses, truncated: false }
      : definitions.length === 0
        ? await this.binder.unbound(bare!, scopeIds)
        : // A qualified name's lookup is not the bare name's the binder needs.
          await this.binder.ofAll(definitions, scopeIds, located ? bare : undefined, located && input.name === bare ? located : undefined);
    // Where the precise tier covers the definitions' files, its references replace the search tier's (ADR 0053).
    let found: LabelledReference[] =
      local?.uses || definitions.length === 0
        ? bound.refs.map((r) => ({ ...r, precision: 'search' as const }))
        : await this.precise.references(definitions, bound.refs, PRECISE_REFERENCES, this.lines(scope));
    const cut = bound.truncated;
    if (input.include_definitions) {
      found.push(
        ...definitions.map((d) => ({
          ...d,
          kind: 'definition' as const,
          enclosing: d.parent,
          qualifier: null,
          precision: 'search' as const,
        })),
      );
    }
    const unique = new Map(found.map((r) => [`${r.repositoryId}\0${r.path}\0${r.line}\0${r.column}`, r]));
    found = [...unique.values()].sort(
      (a, b) => cmp(a.repositoryId, b.repositoryId) || cmp(a.path, b.path) || a.line - b.line || a.column - b.column,
    );
    const repositories = await this.scopes.repositoriesOf(scope, [...definitions, ...found]);
    found = found.filter((r) => repositories.has(r.repositoryId));
    const page = found.slice(0, input.limit);
    return {
      ...(await this.answer(scope, repositories)),
      definitions: definitions.map((d) => definition(d, namesOf(repositories))),
      references: await this.describe(page, repositories),
      total: found.length,
      truncated: cut || found.length > page.length,
    };
  }

  /**
   * The definition whose name is at `path:line` (and `column`, and named `name`, when given); else, when the name
   * there is a parameter's or a local variable's (a declaration or a use of it: `column` or `name` needed), that local
   * with its uses in its file.
   */
  private async localOrDefinitionAt(
    scope: Scope,
    input: FindReferences.Request,
  ): Promise<{ definitions: SymbolRow[]; uses?: BoundReference[] }> {
    const repository = single(scope, 'A definition position (path, line)');
    const path = repoPath(input.path!);
    let rows = await this.store.definitionsAt(repository.id, path, input.line!);
    if (input.name !== undefined) rows = rows.filter((r) => r.name === bareName(input.name!));
    if (input.column !== undefined) {
      const column = input.column;
      rows = rows.filter((r) => column >= r.column && column <= r.column + r.name.length);
    }
    if (rows.length > 0) return { definitions: rows.slice(0, 1) };
    const bare = input.name === undefined ? undefined : bareName(input.name);
    if (bare === input.name) {
      const local = await this.localWithUses(repository, path, bare, input.line!, input.column, true);
      if (local) return { definitions: [local.definition], uses: local.uses };
    }
    throw ServiceError.of(
      'not_found',
      `No definition${input.name ? ` of "${input.name}"` : ''} starts at ${path}:${input.line}${input.column !== undefined ? `:${input.column}` : ''} in ${repository.name}, and no parameter or local variable is named there (get_file_outline lists a file's definitions).`,
      { path, line: input.line, repo: repository.name },
    );
  }

  async hierarchy(input: GetSymbolHierarchy.Request): Promise<GetSymbolHierarchy.Response> {
    const scope = await this.scopes.of(input, true);
    const scopeIds = scope.repositories?.map((r) => r.id) ?? null;
    const [symbol] = await this.definitionsNamed(input.name, scopeIds);
    if (!symbol) {
      return {
        ...(await this.scopes.answer(scope, new Map())),
        symbol: null,
        parents: [],
        children: [],
        extends: [],
        implements: [],
        embeds: [],
        subtypes: [],
        truncated: false,
      };
    }
    const file = (await this.store.outline(symbol.repositoryId, symbol.path))?.symbols ?? [];
    const byOrdinal = new Map(file.map((r) => [r.ordinal, r]));
    const parents: SymbolRow[] = [];
    for (let p = byOrdinal.get(symbol.parent); p; p = byOrdinal.get(p.parent)) parents.push(p);
    const children = file.filter((r) => r.parent === symbol.ordinal);
    const supertypes = await this.store.supertypesOfSymbol(symbol);
    // Subtypes: those the precise tier links to it where it covers its file (an aliased or qualified name in the
    // extends clause too), then those whose extends or implements clause names it.
    const named = await this.store.subtypesOf([symbol.name], scopeIds, HIERARCHY_MAX + 1);
    const linked = await this.precise.subtypes(
      symbol,
      named.filter((r) => r.kind === 'interface'),
      HIERARCHY_MAX,
    );
    const key = (r: SymbolRow) => `${r.repositoryId}\0${r.path}\0${r.ordinal}`;
    const precise = new Set((linked?.rows ?? []).map(key));
    const found = [...(linked?.rows ?? []), ...named.filter((r) => !precise.has(key(r)))];
    const repositories = await this.scopes.repositoriesOf(scope, [symbol, ...found]);
    const subtypes = found.slice(0, HIERARCHY_MAX).filter((r) => repositories.has(r.repositoryId));
    const names = namesOf(repositories);
    const def = (r: SymbolRow) => definition({ ...r, repositoryId: symbol.repositoryId, language: r.language ?? symbol.language }, names);
    return {
      ...(await this.answer(scope, repositories)),
      symbol: definition(symbol, names),
      parents: parents.map(def),
      children: children.slice(0, HIERARCHY_MAX).map(def),
      ...supertypes,
      subtypes: subtypes.map((r) => definition(r, names, precise.has(key(r)) ? 'precise' : 'search')),
      truncated: children.length > HIERARCHY_MAX || found.length > HIERARCHY_MAX || linked?.truncated === true,
    };
  }

  async related(input: FindRelatedSymbols.Request): Promise<FindRelatedSymbols.Response> {
    const scope = await this.scopes.of(input, true);
    const scopeIds = scope.repositories?.map((r) => r.id) ?? null;
    const [symbol] = await this.definitionsNamed(input.name, scopeIds);
    if (!symbol) {
      return {
        ...(await this.scopes.answer(scope, new Map())),
        symbol: null,
        same_container: [],
        callers: [],
        callees: [],
        similar_names: [],
        truncated: false,
      };
    }
    const found = await this.relatedOf(symbol, scope, input.limit);
    const all = [symbol, ...found.sameContainer, ...found.callers, ...found.callees, ...found.similar];
    const repositories = await this.scopes.repositoriesOf(scope, all);
    const names = namesOf(repositories);
    const defs = (rows: readonly SymbolRow[]) => rows.map((r) => definition(r, names));
    const labelled = (rows: readonly SymbolRow[]) => rows.map((r) => definition(r, names, found.precise.has(r) ? 'precise' : 'search'));
    return {
      ...(await this.answer(scope, repositories)),
      symbol: definition(symbol, names),
      same_container: defs(found.sameContainer),
      callers: labelled(found.callers),
      callees: labelled(found.callees),
      similar_names: defs(found.similar),
      truncated: found.truncated,
    };
  }

  async context(input: GetCodeContext.Request): Promise<GetCodeContext.Response> {
    const scope = await this.scopes.of(input, true);
    const scopeIds = scope.repositories?.map((r) => r.id) ?? null;
    const symbol = await this.contextSymbol(input, scopeIds);
    const count = await tokenCounter();
    if (!symbol) {
      const head = { ...(await this.scopes.answer(scope, new Map())), symbol: null };
      return { ...head, ...packContext({ head, body: null, imports: [], outline: [], related: [] }, input.max_tokens, count) };
    }
    const repositories = await this.scopes.repositoriesOf(scope, [symbol]);
    const repository = repositories.get(symbol.repositoryId);
    const file = await this.store.outline(symbol.repositoryId, symbol.path);
    const [lines, imports, related] = await Promise.all([
      repository
        ? this.sources.read(repository, new Map([[symbol.path, [[symbol.line, symbol.endLine] as const]]]))
        : new Map<string, Map<number, string>>(),
      this.store.importsOf(symbol.repositoryId, [symbol.path]),
      // The bundle's related symbols are what the definition calls and its container's other members: who calls it
      // (a find_references) and names like it are not asked for.
      this.relatedOf(symbol, scope, CONTEXT_RELATED, file?.symbols, { callers: false, similar: false }),
    ]);
    const bodyLines = lines.get(symbol.path);
    const body = bodyLines
      ? Array.from({ length: symbol.endLine - symbol.line + 1 }, (_, i) => bodyLines.get(symbol.line + i) ?? '').join('\n')
      : null;
    const names = namesOf(await this.scopes.repositoriesOf(scope, [...related.callees, ...related.sameContainer]));
    const head = { ...(await this.scopes.answer(scope, repositories)), symbol: definition(symbol, namesOf(repositories)) };
    // Sized to max_tokens in real tokens, the whole answer counted (see packContext), parts in order of worth.
    const packed = packContext(
      {
        head,
        body,
        imports: [...new Set(imports.map((i) => i.module))],
        outline: tree(file?.symbols ?? []),
        related: [...related.callees, ...related.sameContainer].slice(0, CONTEXT_RELATED).map((r) => definition(r, names)),
      },
      input.max_tokens,
      count,
    );
    return { ...head, ...packed };
  }

  /** `name`, or the first name of `query` that the index defines. */
  private async contextSymbol(input: GetCodeContext.Request, scopeIds: readonly string[] | null): Promise<SymbolRow | undefined> {
    if (input.name !== undefined) return (await this.definitionsNamed(input.name, scopeIds))[0];
    for (const word of (input.query ?? '').match(/[\p{L}_$][\p{L}\p{N}_$.]{2,}/gu)?.slice(0, 20) ?? []) {
      const [found] = await this.definitionsNamed(word, scopeIds);
      if (found) return found;
    }
    return undefined;
  }

  /** The neighbours of a definition: its container's other members, who uses it, what it calls, names like it. */
  private async relatedOf(
    symbol: SymbolRow,
    scope: Scope,
    limit: number,
    /** The definitions of the symbol's file, when the caller has them already. */
    fileSymbols?: readonly SymbolRow[],
    /** The parts to find (false: left empty): callers take a find_references, similar names a lookup. */
    parts: { callers: boolean; similar: boolean } = { callers: true, similar: true },
  ): Promise<{
    sameContainer: SymbolRow[];
    callers: SymbolRow[];
    callees: SymbolRow[];
    similar: SymbolRow[];
    /** The callers and callees the precise tier gave (a reference it found in them; the definition it links a call to). */
    precise: Set<SymbolRow>;
    truncated: boolean;
  }> {
    const scopeIds = scope.repositories?.map((r) => r.id) ?? null;
    const file = fileSymbols ?? (await this.store.outline(symbol.repositoryId, symbol.path))?.symbols ?? [];
    const language = symbol.language;
    const inFile = file.map((r) => ({ ...r, repositoryId: symbol.repositoryId, language: r.language ?? language }));
    const siblings = inFile.filter((r) => r.parent === symbol.parent && r.ordinal !== symbol.ordinal);
    // Callers: the definitions around its references (the precise tier's where it covers: its own uses and those of
    // the members it overrides or implements, not of their other implementations), most frequent first.
    const refs = parts.callers
      ? await this.precise.references(
          [symbol],
          (await this.binder.ofAll([symbol], scopeIds)).refs,
          PRECISE_REFERENCES,
          this.lines(scope),
          'up',
        )
      : [];
    const callerCounts = new Map<string, { repositoryId: string; path: string; ordinal: number; n: number; precise: boolean }>();
    for (const r of refs) {
      if (r.enclosing < 0 || r.kind === 'definition') continue;
      const key = `${r.repositoryId}\0${r.path}\0${r.enclosing}`;
      const known = callerCounts.get(key) ?? { repositoryId: r.repositoryId, path: r.path, ordinal: r.enclosing, n: 0, precise: false };
      known.n++;
      known.precise ||= r.precision === 'precise';
      callerCounts.set(key, known);
    }
    const ranked = [...callerCounts.values()].sort((a, b) => b.n - a.n);
    const callers: SymbolRow[] = [];
    const precise = new Set<SymbolRow>();
    for (const [repositoryId, keys] of groupBy(ranked.slice(0, limit), (k) => k.repositoryId)) {
      for (const row of await this.store.symbolsByOrdinal(repositoryId, keys)) {
        callers.push(row);
        if (keys.some((k) => k.precise && k.path === row.path && k.ordinal === row.ordinal)) precise.add(row);
      }
    }
    callers.sort(
      (a, b) =>
        ranked.findIndex((k) => k.path === a.path && k.ordinal === a.ordinal) -
        ranked.findIndex((k) => k.path === b.path && k.ordinal === b.ordinal),
    );
    // Callees: the names it calls inside its body, each to the definition it denotes there.
    const inside = new Set([symbol.ordinal]);
    for (const r of inFile) if (inside.has(r.parent)) inside.add(r.ordinal);
    // With each name's row of the file: resolving the callee reads it, and need not read it again.
    const calls = new Map<string, { line: number; column: number; row: ReferenceRow }>();
    for (const row of await this.store.callsIn(symbol.repositoryId, symbol.path)) {
      for (const o of row.occurrences) {
        if (o.kind === 'call' && inside.has(o.enclosing) && !calls.has(row.name))
          calls.set(row.name, { line: o.line, column: o.column, row });
      }
    }
    const word = /^[_$]*[\p{Ll}\p{Lu}][\p{Ll}\p{N}]+/u.exec(symbol.name)?.[0] ?? symbol.name;
    const covered = calls.size > 0 && symbol.ordinal >= 0 && (await this.precise.covers(symbol.repositoryId, symbol.path));
    // Each callee is resolved on its own (a few short queries): all at once, with the similar names.
    const [denoted, similar] = await Promise.all([
      // The definition the precise tier links a call to where it covers the file, else the search tier's.
      Promise.all(
        [...calls].slice(0, limit).map(async ([name, at]) => {
          const linked = covered ? await this.precise.definitionAt(symbol.repositoryId, symbol.path, name, at.line, at.column) : undefined;
          if (linked?.length) {
            precise.add(linked[0]);
            return linked;
          }
          return this.definitions.at(symbol.repositoryId, symbol.path, name, at.line, at.column, at.row);
        }),
      ),
      parts.similar ? this.store.similar(word.length >= 3 ? word : symbol.name, symbol.name, scopeIds, limit) : [],
    ]);
    const callees = denoted
      .map((found) => found[0])
      .filter((d): d is SymbolRow => d !== undefined && !(d.path === symbol.path && d.ordinal === symbol.ordinal));
    return {
      sameContainer: siblings.slice(0, limit),
      callers,
      callees,
      similar,
      precise,
      truncated: siblings.length > limit || ranked.length > limit || calls.size > limit,
    };
  }

  /** Definitions with exactly this name (`Container.name`: in that container), at most `MAX_DEFINITIONS`. */
  private definitionsNamed(name: string, scopeIds: readonly string[] | null): Promise<SymbolRow[]> {
    return this.store.named(name, scopeIds, MAX_DEFINITIONS);
  }

  /** Source lines of the scope's repositories (the precise tier reads them to tell a JSDoc link). */
  private lines(scope: Scope): LineReader {
    return async (repositoryId, wanted) => {
      const repository = (await this.scopes.repositoriesOf(scope, [{ repositoryId }])).get(repositoryId);
      return repository ? this.sources.read(repository, wanted) : new Map();
    };
  }

  /** `Scopes.answer` with each repository's precise tier's commit, for the tools that answer from it where it covers. */
  private answer(scope: Scope, repositories: ReadonlyMap<string, RegisteredRepository>): ReturnType<Scopes['answer']> {
    return this.scopes.answer(scope, repositories, (ids) => this.precise.tiers(ids));
  }

  /** The wire form of references: repository names, enclosing symbols and snippet lines. */
  private async describe(
    page: readonly LabelledReference[],
    repositories: ReadonlyMap<string, RegisteredRepository>,
  ): Promise<Reference[]> {
    const byRepository = groupBy(page, (r) => r.repositoryId);
    const enclosing = new Map<string, string>();
    const lines = new Map<string, Map<string, Map<number, string>>>();
    await Promise.all(
      [...byRepository].map(async ([repositoryId, refs]) => {
        const keys = [
          ...new Map(
            refs.filter((r) => r.enclosing >= 0).map((r) => [`${r.path}\0${r.enclosing}`, { path: r.path, ordinal: r.enclosing }]),
          ).values(),
        ];
        // The enclosing definitions' names are asked for first: a Postgres server answers while the files are read
        // (in-process PGlite answers after).
        const named = this.store.symbolsByOrdinal(repositoryId, keys);
        named.catch(() => undefined);
        const repository = repositories.get(repositoryId);
        if (repository) {
          const wanted = new Map<string, Array<[number, number]>>();
          for (const r of refs) wanted.set(r.path, [...(wanted.get(r.path) ?? []), [r.line, r.line]]);
          lines.set(repositoryId, await this.sources.read(repository, wanted));
        }
        for (const s of await named) {
          enclosing.set(`${repositoryId}\0${s.path}\0${s.ordinal}`, s.container ? `${s.container}.${s.name}` : s.name);
        }
      }),
    );
    return page.map((r) => ({
      repo: repositories.get(r.repositoryId)?.name ?? r.repositoryId,
      path: r.path,
      line: r.line,
      column: r.column,
      snippet: snippetOf(lines.get(r.repositoryId)?.get(r.path), r.line),
      kind: r.kind,
      enclosing: r.enclosing >= 0 ? (enclosing.get(`${r.repositoryId}\0${r.path}\0${r.enclosing}`) ?? null) : null,
      precision: r.precision,
    }));
  }
}

function definition(row: SymbolRow, names: ReadonlyMap<string, string>, precision?: Precision): SymbolDef {
  return {
    repo: names.get(row.repositoryId) ?? row.repositoryId,
    path: row.path,
    name: row.name,
    kind: row.kind as SymbolDef['kind'],
    line: row.line,
    endLine: row.endLine,
    container: row.container,
    signature: row.signature,
    ...(row.language ? { language: row.language } : {}),
    ...(precision ? { precision } : {}),
  };
}

/** Rows in source order with their parent's ordinal → the nested outline. */
function tree(rows: readonly SymbolRow[]): OutlineNode[] {
  const nodes = new Map<number, OutlineNode>();
  const roots: OutlineNode[] = [];
  for (const row of rows) {
    const node: OutlineNode = {
      name: row.name,
      kind: row.kind as OutlineNode['kind'],
      line: row.line,
      endLine: row.endLine,
      signature: row.signature,
      children: [],
    };
    nodes.set(row.ordinal, node);
    (nodes.get(row.parent)?.children ?? roots).push(node);
  }
  return roots;
}

function bareName(name: string): string {
  return splitName(name).bare;
}
