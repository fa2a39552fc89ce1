import type { GetFileOutline, LocateSymbol, OutlineNode, RegisteredRepository, SymbolDef } from '@sextant/contracts';
import { BusRequestError, ServiceError, type RegistryClient } from '@sextant/messaging';
import type { SymbolRow, SymbolStore } from './symbol.store.js';

/** Which repositories a call covers: one (named, or the workspace), or all registered ones. */
interface Scope {
  repositories: RegisteredRepository[] | null;
  /** The workspace was registered by this call: its index is still being built. */
  partial: boolean;
}

/** How long a resolved `repo`/`workspace` is reused: the registry is asked again after this. */
const SCOPE_TTL_MS = 5_000;

/** The symbol tools, over the symbol index; repositories and workspaces are the registry's. */
export class SymbolService {
  private readonly scopes = new Map<string, { scope: Scope; at: number }>();

  constructor(
    private readonly store: SymbolStore,
    private readonly registry: Pick<RegistryClient, 'repositories' | 'workspace'>,
  ) {}

  async locate(input: LocateSymbol.Request): Promise<LocateSymbol.Response> {
    const scope = await this.scope(input, true);
    const { rows, truncated } = await this.store.locate(input.name, {
      repositoryIds: scope.repositories?.map((r) => r.id) ?? null,
      kind: input.kind,
      language: input.language,
      limit: input.limit,
    });
    const names = await this.names(scope, rows);
    return {
      definitions: rows.map((row) => definition(row, names)),
      truncated,
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
