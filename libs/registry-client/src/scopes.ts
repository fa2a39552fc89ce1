import {
  GetProject,
  LOCAL_PRINCIPAL,
  ReadableRepositories,
  type Freshness,
  type IndexingStatus,
  type RegisteredRepository,
} from '@sextant/contracts';
import { BusRequestError, type BusClient } from '@sextant/messaging';
import { currentPrincipal, ServiceError } from '@sextant/work';
import type { RegistryClient } from './registry-client.js';

/** Which repositories a call covers: some (named, a project's, or the workspace), or all registered ones (null). */
export interface Scope {
  repositories: RegisteredRepository[] | null;
  /** The workspace was registered by this call (auto-discovery): its index is still being built. */
  partial: boolean;
  /** How the call named them, for answers that report their effective scope. */
  type: 'repo' | 'repos' | 'project' | 'workspace' | 'all';
  /** The project, when the call named one: its name. */
  project?: string;
  /** The caller may not read every repository: rows that name none (points of an older indexer) are left out. */
  restricted?: true;
}

/** What a call may name its repositories by; at most one of them (the contracts check that). */
export interface ScopeInput {
  repo?: string;
  repos?: readonly string[];
  project?: string;
  workspace?: string;
}

/**
 * What every answer over a scope carries: the commit per repository (and the edits a watched workspace's index does
 * not reflect yet), and, when the index does not cover the scope, why and what to call.
 */
export interface ScopeAnswer {
  freshness: Freshness;
  indexing_status?: 'indexing';
  result_completeness?: 'partial';
  hint?: string;
}

/** The registry's word on one repository, as an answer needs it. */
interface FreshnessEntry {
  entry: Freshness[number];
  status: IndexingStatus | undefined;
  kind: RegisteredRepository['kind'];
}

/** Repositories a hint names, at most (then "and N more"). */
const HINT_NAMES = 3;

/** How long a resolved scope, or a repository's freshness, is reused: the registry is asked again after this. */
const SCOPE_TTL_MS = 5_000;
/** Repositories an answer over all of them reports the freshness of, at most. */
const FRESHNESS_MAX = 50;

/**
 * What a call's `repo` / `repos` / `project` / `workspace` means, asked of
 * the registry (it owns repositories and workspaces) and of projects (they
 * group registry ids), and kept a few seconds. One place for every service
 * that answers over repositories (the symbol tools, search).
 */
export class Scopes {
  private readonly cache = new Map<string, { scope: Scope; at: number }>();
  private readonly access: ReadableRepositoryIds;
  private readonly fresh = new Map<string, FreshnessEntry & { at: number }>();

  /**
   * `forget`: called with the ids of repositories that rows still name but
   * the registry no longer knows (evicted workspaces), so the service can
   * drop what it holds of them; their rows are left out of answers meanwhile.
   */
  constructor(
    private readonly registry: Pick<RegistryClient, 'repositories' | 'workspace' | 'freshness'>,
    private readonly bus?: Pick<BusClient, 'request'>,
    private readonly forget?: (repositoryIds: string[]) => Promise<unknown>,
  ) {
    this.access = new ReadableRepositoryIds(bus);
  }

  /**
   * The freshness of the repositories an answer covers (the scope's, or over all those its rows come from), and, when
   * some are being indexed, were never indexed or failed, the marks and the one-line hint that say so. `tiers`, when
   * given, adds the service's own fields to each repository's entry (the symbol tools: the precise tier's commit).
   */
  async answer(
    scope: Scope,
    rowRepositories: ReadonlyMap<string, RegisteredRepository>,
    tiers?: (repositoryIds: string[]) => Promise<ReadonlyMap<string, Partial<Freshness[number]>>>,
  ): Promise<ScopeAnswer> {
    const covered = (scope.repositories ?? [...rowRepositories.values()]).slice(0, FRESHNESS_MAX);
    const [entries, extra] = await Promise.all([this.entriesOf(covered), tiers?.(covered.map((r) => r.id))]);
    const freshness = entries.map((e, i) => ({ ...e.entry, ...extra?.get(covered[i].id) }));
    const uncovered = entries.filter((e) => e.entry.commit === null || e.status === 'indexing');
    const indexing = scope.partial || uncovered.some((e) => e.status === 'indexing');
    if (!indexing && uncovered.length === 0) return { freshness };
    return {
      freshness,
      ...(indexing ? { indexing_status: 'indexing' as const } : {}),
      ...(uncovered.some((e) => e.entry.commit === null) || scope.partial ? { result_completeness: 'partial' as const } : {}),
      ...(uncovered.length > 0 ? { hint: hintFor(uncovered) } : {}),
    };
  }

  /** Each repository's indexed commit and whether its branch moved past it (the registry's answer, kept a few seconds). */
  async freshnessOf(repositories: readonly RegisteredRepository[]): Promise<Freshness> {
    return (await this.entriesOf(repositories)).map((e) => e.entry);
  }

  private async entriesOf(repositories: readonly RegisteredRepository[]): Promise<FreshnessEntry[]> {
    const now = Date.now();
    const stale = repositories.filter((r) => !(now - (this.fresh.get(r.id)?.at ?? 0) < SCOPE_TTL_MS));
    if (stale.length > 0) {
      const answers = await this.registry.freshness(stale.map((r) => r.id));
      if (this.fresh.size >= 10_000) this.fresh.clear();
      stale.forEach((r, i) => {
        const a = answers[i];
        const entry: Freshness[number] = {
          repo: r.name,
          commit: a?.indexed_commit ?? null,
          behind_head: a?.behind_head ?? null,
          ...(a?.dirty ? { dirty: true as const, changed_paths: a.changed_paths } : {}),
        };
        this.fresh.set(r.id, { entry, status: a?.index_status, kind: r.kind, at: now });
      });
    }
    return repositories.map((r) => {
      const { entry, status, kind } = this.fresh.get(r.id)!;
      return { entry: { ...entry, repo: r.name }, status, kind };
    });
  }

  /**
   * `project` → its member repositories; `repos` → each (all must be
   * registered); `repo` → that one; `workspace` → resolved by the registry
   * (its rules and errors); none → the default workspace, or, where the
   * server has none and `all` is allowed, every repository.
   */
  async of(input: ScopeInput, all: boolean): Promise<Scope> {
    // A scope resolved a moment ago for the same caller is reused (one registry round trip less per call); not one that
    // just auto-discovered a workspace.
    const principal = currentPrincipal() ?? LOCAL_PRINCIPAL;
    const key = JSON.stringify([`${principal.kind}:${principal.id}`, all, input.repo, input.repos, input.project, input.workspace]);
    const cached = this.cache.get(key);
    if (cached && Date.now() - cached.at < SCOPE_TTL_MS) return cached.scope;
    const readable = await this.access.readable();
    const scope = await this.resolve(input, all, readable);
    if (readable) scope.restricted = true;
    if (!scope.partial) {
      if (this.cache.size >= 1_000) this.cache.clear();
      this.cache.set(key, { scope, at: Date.now() });
    }
    return scope;
  }

  /** The one repository a call is about (`repo`, or the workspace), with its scope (for `answer`). */
  async one(input: { repo?: string; workspace?: string }, what: string): Promise<{ repository: RegisteredRepository; scope: Scope }> {
    const scope = await this.of(input, false);
    return { repository: single(scope, what), scope };
  }

  /**
   * The registered repositories rows belong to (those of the scope, then any
   * other asked of the registry). Ids the registry no longer knows are
   * absent from the map (leave their rows out) and handed to `forget`.
   */
  async repositoriesOf(scope: Scope, rows: ReadonlyArray<{ repositoryId: string }>): Promise<Map<string, RegisteredRepository>> {
    const known = new Map((scope.repositories ?? []).map((r) => [r.id, r]));
    const missing = [...new Set(rows.map((r) => r.repositoryId))].filter((id) => !known.has(id));
    if (missing.length === 0) return known;
    const found = await this.registry.repositories(missing);
    const gone: string[] = [];
    missing.forEach((id, i) => {
      const repository = found[i];
      if (repository) known.set(repository.id, repository);
      else gone.push(id);
    });
    if (gone.length > 0) void this.forget?.(gone).catch(() => undefined);
    return known;
  }

  /**
   * A repository the caller may not read is treated as one that does not
   * exist (`not_found`, the same words), so names do not leak; "all" means
   * all it may read.
   */
  private async resolve(input: ScopeInput, all: boolean, readable: ReadonlySet<string> | undefined): Promise<Scope> {
    if (input.project !== undefined) return this.project(input.project);
    if (input.repos !== undefined) return { repositories: await this.named(input.repos, readable), partial: false, type: 'repos' };
    if (input.repo !== undefined) return { repositories: await this.named([input.repo], readable), partial: false, type: 'repo' };
    try {
      const { repository, discovered } = await this.registry.workspace(input.workspace);
      if (readable && !readable.has(repository.id)) throw notRegistered([input.workspace ?? 'the default workspace']);
      return { repositories: [repository], partial: discovered, type: 'workspace' };
    } catch (error) {
      const noDefault = input.workspace === undefined && error instanceof BusRequestError && error.error.code === 'invalid_input';
      if (noDefault && all) return this.everything(readable);
      throw error;
    }
  }

  /** `scope: {type: "all"}`: every repository the caller may read (for one who may read all, every registered one: null). */
  async all(): Promise<Scope> {
    return this.everything(await this.access.readable());
  }

  private async everything(readable: ReadonlySet<string> | undefined): Promise<Scope> {
    if (!readable) return { repositories: null, partial: false, type: 'all' };
    const mine = readable.size === 0 ? [] : await this.registry.repositories([...readable]);
    return { repositories: mine.filter((r): r is RegisteredRepository => r !== null), partial: false, type: 'all', restricted: true };
  }

  /** Registered repositories by id, name or URL; any unknown one (or one the caller may not read) is `not_found`, naming each. */
  private async named(references: readonly string[], readable: ReadonlySet<string> | undefined): Promise<RegisteredRepository[]> {
    const found = (await this.registry.repositories(references)).map((r) => (r && readable && !readable.has(r.id) ? null : r));
    const unknown = references.filter((_, i) => !found[i]);
    if (unknown.length > 0) throw notRegistered(unknown);
    const unique = new Map(found.map((r) => [r!.id, r!]));
    return [...unique.values()];
  }

  /** A project's members (projects answers `not_found` for an unknown project); members the registry no longer knows are skipped. */
  private async project(project: string): Promise<Scope> {
    if (!this.bus) throw ServiceError.invalid({ project: 'this service does not take a project scope' });
    const { project: found } = await this.bus.request<GetProject.Response>(GetProject.SUBJECT, { project });
    const members = found.repository_ids.length === 0 ? [] : await this.registry.repositories(found.repository_ids);
    return {
      repositories: members.filter((r): r is RegisteredRepository => r !== null),
      partial: false,
      type: 'project',
      project: found.name,
    };
  }
}

/**
 * One line on the repositories an answer's index does not cover: being indexed (answers fill in as it goes), never
 * indexed, or failed, each with what to call.
 */
function hintFor(uncovered: readonly FreshnessEntry[]): string {
  const names = (entries: readonly FreshnessEntry[]) => {
    const shown = entries.slice(0, HINT_NAMES).map((e) => e.entry.repo);
    return entries.length > HINT_NAMES ? `${shown.join(', ')} and ${entries.length - HINT_NAMES} more` : shown.join(', ');
  };
  const call = (entries: readonly FreshnessEntry[]) =>
    entries.every((e) => e.kind === 'local') ? 'call index_repo' : 'call index_repository with its URL (index_repo for a workspace)';
  const parts: string[] = [];
  const indexing = uncovered.filter((e) => e.status === 'indexing');
  const failed = uncovered.filter((e) => e.status === 'failed');
  const never = uncovered.filter((e) => e.status !== 'indexing' && e.status !== 'failed');
  if (indexing.length > 0) {
    parts.push(
      `${names(indexing)} ${indexing.length === 1 ? 'is' : 'are'} being indexed: this answer covers what is indexed so far (index_status shows progress)`,
    );
  }
  if (never.length > 0) parts.push(`${names(never)} ${never.length === 1 ? 'is' : 'are'} not indexed: ${call(never)}`);
  if (failed.length > 0) parts.push(`indexing ${names(failed)} failed (index_status says why): ${call(failed)} to try again`);
  return parts.join('; ');
}

function notRegistered(references: readonly string[]): ServiceError {
  return ServiceError.of(
    'not_found',
    `No registered repository is ${references.map((r) => `"${r}"`).join(', ')} (list_repositories shows them).`,
    { repos: references },
  );
}

/**
 * The registry ids of the repositories the request's caller may read
 * (undefined: all, for an admin), asked of the projects service and kept a
 * few seconds per caller. Without a principal in scope (an in-process call,
 * not a request: a handler always has one), the local user's: all. Without
 * a bus to ask, none.
 */
export class ReadableRepositoryIds {
  private readonly cache = new Map<
    string,
    { read: ReadonlySet<string> | undefined; maintain: ReadonlySet<string> | undefined; at: number }
  >();

  constructor(private readonly bus?: Pick<BusClient, 'request'>) {}

  /** The repositories the caller may read; undefined: all. */
  async readable(): Promise<ReadonlySet<string> | undefined> {
    return (await this.ofCaller()).read;
  }

  /** The repositories the caller maintains (it may index them); undefined: all. */
  async maintained(): Promise<ReadonlySet<string> | undefined> {
    return (await this.ofCaller()).maintain;
  }

  private async ofCaller(): Promise<{ read: ReadonlySet<string> | undefined; maintain: ReadonlySet<string> | undefined }> {
    const principal = currentPrincipal() ?? LOCAL_PRINCIPAL;
    if (principal.admin) return { read: undefined, maintain: undefined };
    if (!this.bus) return { read: new Set(), maintain: new Set() };
    const key = `${principal.kind}:${principal.id}`;
    const cached = this.cache.get(key);
    if (cached && Date.now() - cached.at < SCOPE_TTL_MS) return cached;
    const answer = await this.bus.request<ReadableRepositories.Response>(ReadableRepositories.SUBJECT, {});
    const entry = answer.all
      ? { read: undefined, maintain: undefined, at: Date.now() }
      : { read: new Set(answer.repository_ids), maintain: new Set(answer.maintained_ids), at: Date.now() };
    if (this.cache.size >= 10_000) this.cache.clear();
    this.cache.set(key, entry);
    return entry;
  }
}

/** The one repository of a scope; `what` names what needs it, for the error. */
export function single(scope: Scope, what: string): RegisteredRepository {
  const repository = scope.repositories?.length === 1 ? scope.repositories[0] : undefined;
  if (!repository) {
    throw ServiceError.of('invalid_input', `${what} needs one repository (repo or workspace): this call names ${describe(scope)}.`, {
      field: 'repo',
    });
  }
  return repository;
}

function describe(scope: Scope): string {
  if (scope.repositories === null) return 'none and this server has no default workspace';
  return `${scope.repositories.length} (${scope.type})`;
}

/** Repository names by id. */
export function namesOf(repositories: ReadonlyMap<string, RegisteredRepository>): Map<string, string> {
  return new Map([...repositories.values()].map((r) => [r.id, r.name]));
}
