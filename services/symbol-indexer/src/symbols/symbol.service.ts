import type {
  FindReferences,
  GetFileOutline,
  LocateSymbol,
  OutlineNode,
  Reference,
  RegisteredRepository,
  SymbolDef,
} from '@sextant/contracts';
import { BusRequestError, ServiceError, type RegistryClient } from '@sextant/messaging';
import { DefinitionResolver } from './definitions.js';
import { ReferenceBinder, type BoundReference } from './references.js';
import { snippetOf, type SourceLines } from './source-lines.js';
import type { SymbolRow, SymbolStore } from './symbol.store.js';

/** Which repositories a call covers: one (named, or the workspace), or all registered ones. */
interface Scope {
  repositories: RegisteredRepository[] | null;
  /** The workspace was registered by this call: its index is still being built. */
  partial: boolean;
}

/** How long a resolved `repo`/`workspace` is reused: the registry is asked again after this. */
const SCOPE_TTL_MS = 5_000;
/** Definitions of one name whose references are gathered for a name-only `find_references`. */
const MAX_DEFINITIONS = 20;

/** The symbol tools, over the symbol index; repositories and workspaces are the registry's. */
export class SymbolService {
  private readonly scopes = new Map<string, { scope: Scope; at: number }>();

  private readonly binder: ReferenceBinder;
  private readonly definitions: DefinitionResolver;

  constructor(
    private readonly store: SymbolStore,
    private readonly registry: Pick<RegistryClient, 'repositories' | 'workspace'>,
    private readonly sources: SourceLines,
  ) {
    this.binder = new ReferenceBinder(store);
    this.definitions = new DefinitionResolver(store);
  }

  async locate(input: LocateSymbol.Request): Promise<LocateSymbol.Response> {
    const scope = await this.scope(input, true);
    const found = await this.store.locate(input.name, {
      repositoryIds: scope.repositories?.map((r) => r.id) ?? null,
      kind: input.kind,
      language: input.language,
      limit: input.limit,
    });
    let rows = found.rows;
    if (input.path !== undefined) {
      // Go to definition: what the name denotes where it is used comes first.
      const repository = this.single(scope, 'A use position (path, line)');
      const denoted = (
        await this.definitions.at(repository.id, input.path.replace(/^\.\//, ''), bareName(input.name), input.line!, input.column)
      ).filter((d) => (!input.kind || d.kind === input.kind) && (!input.language || d.language === input.language));
      const first = new Set(denoted.map((d) => `${d.path}\0${d.ordinal}`));
      rows = [...denoted, ...rows.filter((r) => !first.has(`${r.path}\0${r.ordinal}`))].slice(0, input.limit);
    }
    const names = await this.names(scope, rows);
    return {
      definitions: rows.map((row) => definition(row, names)),
      truncated: found.truncated,
      ...(scope.partial ? { result_completeness: 'partial' as const } : {}),
    };
  }

  async outline(input: GetFileOutline.Request): Promise<GetFileOutline.Response> {
    const { repositories } = await this.scope(input, false);
    const repository = repositories![0]!;
    const path = input.path.replace(/^\.\//, '');
    const file = await this.store.outline(repository.id, path);
    if (!file) {
      throw ServiceError.of(
        'not_found',
        `"${path}" is not in the symbol index of ${repository.name} (not a file of it, or not indexed yet: see index_status).`,
        { path, repo: repository.name },
      );
    }
    return { repo: repository.name, path, language: file.language, symbols: tree(file.symbols) };
  }

  async references(input: FindReferences.Request): Promise<FindReferences.Response> {
    const scope = await this.scope(input, true);
    const scopeIds = scope.repositories?.map((r) => r.id) ?? null;
    const definitions =
      input.path !== undefined ? await this.definitionAt(scope, input) : await this.definitionsNamed(input.name!, scopeIds);
    let found: BoundReference[] = [];
    let cut = false;
    if (definitions.length === 0) {
      ({ refs: found, truncated: cut } = await this.binder.unbound(bareName(input.name!), scopeIds));
    }
    for (const definition of definitions) {
      const sameName = (await this.store.locate(definition.name, { repositoryIds: scopeIds, limit: 200 })).rows;
      const { refs, truncated } = await this.binder.of(definition, scopeIds, sameName);
      found.push(...refs);
      cut ||= truncated;
    }
    if (input.include_definitions) {
      found.push(...definitions.map((d) => ({ ...d, kind: 'definition' as const, enclosing: d.parent, qualifier: null })));
    }
    const unique = new Map(found.map((r) => [`${r.repositoryId}\0${r.path}\0${r.line}\0${r.column}`, r]));
    found = [...unique.values()].sort(
      (a, b) => cmp(a.repositoryId, b.repositoryId) || cmp(a.path, b.path) || a.line - b.line || a.column - b.column,
    );
    const page = found.slice(0, input.limit);
    const repositories = await this.repositoriesOf(scope, [...definitions, ...page]);
    return {
      definitions: definitions.map((d) => definition(d, names(repositories))),
      references: await this.describe(page, repositories),
      total: found.length,
      truncated: cut || found.length > page.length,
    };
  }

  /** The definition whose name is at `path:line` (and `column`, and named `name`, when given). */
  private async definitionAt(scope: Scope, input: FindReferences.Request): Promise<SymbolRow[]> {
    const repository = scope.repositories?.length === 1 ? scope.repositories[0]! : undefined;
    if (!repository) {
      throw ServiceError.of(
        'invalid_input',
        'A definition position (path, line) needs repo or workspace: this server has no default workspace.',
        {
          field: 'repo',
        },
      );
    }
    const path = input.path!.replace(/^\.\//, '');
    let rows = await this.store.definitionsAt(repository.id, path, input.line!);
    if (input.name !== undefined) rows = rows.filter((r) => r.name === bareName(input.name!));
    if (input.column !== undefined) {
      const column = input.column;
      rows = rows.filter((r) => column >= r.column && column <= r.column + r.name.length);
    }
    if (rows.length === 0) {
      throw ServiceError.of(
        'not_found',
        `No definition${input.name ? ` of "${input.name}"` : ''} starts at ${path}:${input.line}${input.column !== undefined ? `:${input.column}` : ''} in ${repository.name} (get_file_outline lists a file's definitions).`,
        { path, line: input.line, repo: repository.name },
      );
    }
    return rows.slice(0, 1);
  }

  /** The one repository a position is in: `repo`, or the workspace. */
  private single(scope: Scope, what: string): RegisteredRepository {
    const repository = scope.repositories?.length === 1 ? scope.repositories[0] : undefined;
    if (!repository) {
      throw ServiceError.of('invalid_input', `${what} needs repo or workspace: this server has no default workspace.`, { field: 'repo' });
    }
    return repository;
  }

  /** Definitions with exactly this name (`Container.name`: in that container), at most `MAX_DEFINITIONS`. */
  private async definitionsNamed(name: string, scopeIds: readonly string[] | null): Promise<SymbolRow[]> {
    const dot = name.lastIndexOf('.');
    const container = dot > 0 && dot < name.length - 1 ? name.slice(0, dot) : null;
    const bare = bareName(name);
    const { rows } = await this.store.locate(name, { repositoryIds: scopeIds, limit: 200 });
    return rows.filter((r) => r.name === bare && (container === null || r.container === container)).slice(0, MAX_DEFINITIONS);
  }

  /** The registered repositories the rows belong to (those of the scope, then any other asked of the registry). */
  private async repositoriesOf(scope: Scope, rows: ReadonlyArray<{ repositoryId: string }>): Promise<Map<string, RegisteredRepository>> {
    const known = new Map((scope.repositories ?? []).map((r) => [r.id, r]));
    const missing = [...new Set(rows.map((r) => r.repositoryId))].filter((id) => !known.has(id));
    if (missing.length > 0) for (const r of await this.registry.repositories(missing)) if (r) known.set(r.id, r);
    return known;
  }

  /** The wire form of references: repository names, enclosing symbols and snippet lines. */
  private async describe(page: readonly BoundReference[], repositories: ReadonlyMap<string, RegisteredRepository>): Promise<Reference[]> {
    const byRepository = new Map<string, BoundReference[]>();
    for (const r of page) byRepository.set(r.repositoryId, [...(byRepository.get(r.repositoryId) ?? []), r]);
    const enclosing = new Map<string, string>();
    const lines = new Map<string, Map<string, string[]>>();
    await Promise.all(
      [...byRepository].map(async ([repositoryId, refs]) => {
        const keys = [
          ...new Map(
            refs.filter((r) => r.enclosing >= 0).map((r) => [`${r.path}\0${r.enclosing}`, { path: r.path, ordinal: r.enclosing }]),
          ).values(),
        ];
        for (const s of await this.store.symbolsByOrdinal(repositoryId, keys)) {
          enclosing.set(`${repositoryId}\0${s.path}\0${s.ordinal}`, s.container ? `${s.container}.${s.name}` : s.name);
        }
        const repository = repositories.get(repositoryId);
        if (repository)
          lines.set(
            repositoryId,
            await this.sources.read(
              repository,
              refs.map((r) => r.path),
            ),
          );
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
    }));
  }

  /**
   * `repo` → that registered repository; `workspace` → resolved by the
   * registry (its rules and errors); neither → the default workspace, or,
   * where the server has none and `all` is allowed, every repository.
   */
  private async scope(input: { repo?: string; workspace?: string }, all: boolean): Promise<Scope> {
    // A scope resolved a moment ago is reused (one registry round trip less per call); not one that just auto-discovered a workspace.
    const key = `${all}\0${input.repo ?? ''}\0${input.workspace ?? ''}`;
    const cached = this.scopes.get(key);
    if (cached && Date.now() - cached.at < SCOPE_TTL_MS) return cached.scope;
    const scope = await this.resolve(input, all);
    if (!scope.partial) {
      if (this.scopes.size >= 1_000) this.scopes.clear();
      this.scopes.set(key, { scope, at: Date.now() });
    }
    return scope;
  }

  private async resolve(input: { repo?: string; workspace?: string }, all: boolean): Promise<Scope> {
    if (input.repo !== undefined) {
      const [repository] = await this.registry.repositories([input.repo]);
      if (!repository) {
        throw ServiceError.of('not_found', `No registered repository is "${input.repo}" (list_repositories shows them).`, {
          repo: input.repo,
        });
      }
      return { repositories: [repository], partial: false };
    }
    try {
      const { repository, discovered } = await this.registry.workspace(input.workspace);
      return { repositories: [repository], partial: discovered };
    } catch (error) {
      const noDefault = input.workspace === undefined && error instanceof BusRequestError && error.error.code === 'invalid_input';
      if (noDefault && all) return { repositories: null, partial: false };
      throw error;
    }
  }

  /** Repository names by id, for the rows of a call over all repositories. */
  private async names(scope: Scope, rows: readonly SymbolRow[]): Promise<Map<string, string>> {
    const known = scope.repositories ?? [];
    const missing = [...new Set(rows.map((r) => r.repositoryId))].filter((id) => !known.some((r) => r.id === id));
    const found = missing.length > 0 ? await this.registry.repositories(missing) : [];
    return new Map([...known, ...found.filter((r) => r !== null)].map((r) => [r.id, r.name]));
  }
}

function definition(row: SymbolRow, names: ReadonlyMap<string, string>): SymbolDef {
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

function names(repositories: ReadonlyMap<string, RegisteredRepository>): Map<string, string> {
  return new Map([...repositories.values()].map((r) => [r.id, r.name]));
}

function bareName(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 && dot < name.length - 1 ? name.slice(dot + 1) : name;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
