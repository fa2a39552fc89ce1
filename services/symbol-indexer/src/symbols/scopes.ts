import type { Freshness, RegisteredRepository } from '@sextant/contracts';
import { BusRequestError, ServiceError, type RegistryClient } from '@sextant/messaging';

/** Which repositories a call covers: some (named, or the workspace), or all registered ones (null). */
export interface Scope {
  repositories: RegisteredRepository[] | null;
  /** The workspace was registered by this call: its index is still being built. */
  partial: boolean;
}

/** How long a resolved `repo`/`workspace`, or a repository's freshness, is reused: the registry is asked again after this. */
const SCOPE_TTL_MS = 5_000;
/** Repositories an answer over all of them reports the freshness of, at most. */
const FRESHNESS_MAX = 50;

/**
 * What a call's `repo` / `workspace` / `repository` means, asked of the
 * registry (it owns repositories and workspaces) and kept a few seconds.
 */
export class Scopes {
  private readonly cache = new Map<string, { scope: Scope; at: number }>();

  private readonly fresh = new Map<string, { entry: Freshness[number]; at: number }>();

  constructor(private readonly registry: Pick<RegistryClient, 'repositories' | 'workspace' | 'freshness'>) {}

  /** The freshness of the repositories an answer covers: the scope's, or (over all) those its rows come from (`repositoriesOf`). */
  freshness(scope: Scope, rowRepositories: ReadonlyMap<string, RegisteredRepository>): Promise<Freshness> {
    return this.freshnessOf((scope.repositories ?? [...rowRepositories.values()]).slice(0, FRESHNESS_MAX));
  }

  /** Each repository's indexed commit and whether its branch moved past it (the registry's answer, kept a few seconds). */
  async freshnessOf(repositories: readonly RegisteredRepository[]): Promise<Freshness> {
    const now = Date.now();
    const stale = repositories.filter((r) => !(now - (this.fresh.get(r.id)?.at ?? 0) < SCOPE_TTL_MS));
    if (stale.length > 0) {
      const answers = await this.registry.freshness(stale.map((r) => r.id));
      if (this.fresh.size >= 10_000) this.fresh.clear();
      stale.forEach((r, i) => {
        const a = answers[i];
        this.fresh.set(r.id, { entry: { repo: r.name, commit: a?.indexed_commit ?? null, behind_head: a?.behind_head ?? null }, at: now });
      });
    }
    return repositories.map((r) => ({ ...this.fresh.get(r.id)!.entry, repo: r.name }));
  }

  /**
   * `repo` → that registered repository; `workspace` → resolved by the
   * registry (its rules and errors); neither → the default workspace, or,
   * where the server has none and `all` is allowed, every repository.
   */
  async of(input: { repo?: string; workspace?: string }, all: boolean): Promise<Scope> {
    // A scope resolved a moment ago is reused (one registry round trip less per call); not one that just auto-discovered a workspace.
    const key = `${all}\0${input.repo ?? ''}\0${input.workspace ?? ''}`;
    const cached = this.cache.get(key);
    if (cached && Date.now() - cached.at < SCOPE_TTL_MS) return cached.scope;
    const scope = await this.resolve(input, all);
    if (!scope.partial) {
      if (this.cache.size >= 1_000) this.cache.clear();
      this.cache.set(key, { scope, at: Date.now() });
    }
    return scope;
  }

  /** The one repository a call is about: `repo`, or the workspace (the default one when neither is given). */
  async one(input: { repo?: string; workspace?: string }, what: string): Promise<RegisteredRepository> {
    return single(await this.of(input, false), what);
  }

  /** The registered repositories rows belong to (those of the scope, then any other asked of the registry). */
  async repositoriesOf(scope: Scope, rows: ReadonlyArray<{ repositoryId: string }>): Promise<Map<string, RegisteredRepository>> {
    const known = new Map((scope.repositories ?? []).map((r) => [r.id, r]));
    const missing = [...new Set(rows.map((r) => r.repositoryId))].filter((id) => !known.has(id));
    if (missing.length > 0) for (const r of await this.registry.repositories(missing)) if (r) known.set(r.id, r);
    return known;
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
}

/** The one repository of a scope; `what` names what needs it, for the error. */
export function single(scope: Scope, what: string): RegisteredRepository {
  const repository = scope.repositories?.length === 1 ? scope.repositories[0] : undefined;
  if (!repository) {
    throw ServiceError.of('invalid_input', `${what} needs repo or workspace: this server has no default workspace.`, { field: 'repo' });
  }
  return repository;
}

/** Repository names by id. */
export function namesOf(repositories: ReadonlyMap<string, RegisteredRepository>): Map<string, string> {
  return new Map([...repositories.values()].map((r) => [r.id, r.name]));
}
