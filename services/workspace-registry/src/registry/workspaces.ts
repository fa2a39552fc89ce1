import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { basename, isAbsolute, sep } from 'node:path';
import { Logger } from '@nestjs/common';
import { localIdentity, looksLikeLocator, parseRepository, type LocatorPolicy, type RepositoryLocator } from '@sextant/checkouts';
import { ServiceError } from '@sextant/work';
import type { RegistryStore, Repository, RepositoryOrigin } from './registry.store.js';

export interface WorkspaceOptions {
  defaultWorkspace: string | undefined;
  /** Real paths; empty: auto-discovery off. */
  allowedRoots: readonly string[];
  autoWorkspacesMax: number;
  policy: LocatorPolicy;
  /** Called after a repository left the registry (its jobs are cancelled). */
  onRemoved?: (repositoryId: string) => Promise<unknown>;
}

/** A remote repository as `index_repository` takes it: `owner/repo` (on GitHub) or any locator git-cache accepts. */
export function remoteLocator(repository: string, policy: LocatorPolicy): RepositoryLocator {
  return parseRepository(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repository) ? `github:${repository}` : repository, policy);
}

/**
 * The identity (ADR 0044) of what a reference names when it is a path of this
 * machine or a repository URL; undefined for anything else (an id, a
 * name). A URL that cannot be normalized throws `invalid_input`.
 */
function identityOf(reference: string, policy: LocatorPolicy): string | undefined {
  if (reference.startsWith('/')) return localIdentity(reference);
  // A URL that cannot be normalized is refused (invalid_input), never taken for an unregistered repository.
  if (looksLikeLocator(reference)) return remoteLocator(reference, policy).identity;
  try {
    return remoteLocator(reference, policy).identity;
  } catch {
    return undefined;
  }
}

/** A resolved workspace, and whether this call registered it (auto-discovery: indexing starts, answers are partial). */
export interface Resolved {
  repository: Repository;
  discovered: boolean;
}

/**
 * Workspace resolution (tools.md, "Workspaces"): omitted → the default
 * workspace; registered → used; unknown → `workspace_not_registered` unless
 * auto-discovery is on (allowed roots configured), when a git repository
 * under an allowed root is registered (`auto_discovered`, capped, least
 * recently used evicted first). Also registers what `index_repository` names.
 */
export class Workspaces {
  private readonly log = new Logger('Workspaces');

  constructor(
    private readonly store: RegistryStore,
    private readonly options: WorkspaceOptions,
  ) {}

  get autoDiscovery(): boolean {
    return this.options.allowedRoots.length > 0;
  }

  /**
   * `readable`: the repositories the caller may read, when it may not read
   * all. Such a caller gets one answer for a workspace it may not read,
   * registered or not, and registers nothing: an auto-discovered workspace
   * belongs to no project, so it could not read it anyway.
   */
  async resolve(workspace: string | undefined, readable?: ReadonlySet<string>): Promise<Resolved> {
    if (workspace === undefined) return { repository: await this.defaultWorkspace(), discovered: false };
    const known = await this.registeredAt(workspace);
    if (readable && !(known && readable.has(known.id))) {
      throw ServiceError.of(
        'workspace_not_registered',
        `Workspace "${workspace}" is not registered, or is not in a project you may read (list_repositories shows yours).`,
        { workspace },
      );
    }
    if (known) {
      // Use only orders auto-discovered workspaces for eviction.
      if (known.origin === 'auto_discovered') await this.store.touch(known.id);
      return { repository: known, discovered: false };
    }
    if (!this.autoDiscovery) {
      throw ServiceError.of(
        'workspace_not_registered',
        `Workspace "${workspace}" is not registered and auto-discovery is off (no allowed roots: --allowed-root / SEXTANT_ALLOWED_ROOTS). ` +
          'Register it with index_repository {localPath}, or leave out "workspace" for the default one.',
        { workspace },
      );
    }
    const root = await this.checkLocal(workspace, 'workspace');
    // One discovery at a time in this process: counting, evicting and registering are one step, so two calls cannot both pass the cap.
    const turn = this.discovering.then(() => this.discover(root));
    this.discovering = turn.catch(() => undefined);
    return turn;
  }

  private discovering: Promise<unknown> = Promise.resolve();

  private async discover(root: string): Promise<Resolved> {
    // Another call may have registered it while this one waited its turn.
    const known = await this.registeredAt(root);
    if (known) return { repository: known, discovered: false };
    await this.makeRoom();
    const repository = await this.registerWorkspace(root, 'auto_discovered');
    this.log.log(`auto-discovered workspace ${root}`);
    return { repository, discovered: true };
  }

  /**
   * Registers a local directory (`index_repository {localPath}`): a git repository, under an allowed root when roots
   * are set, named after its directory. A `name` given with it (`repository`) is not ignored: it must be that name
   * (or the path itself), else nothing is registered and the answer says which name the directory has.
   */
  async registerLocal(path: string): Promise<Repository> {
    const root = await this.checkLocal(path, 'localPath');
    return this.registerWorkspace(root, 'registered');
  }

  /** A workspace root (its real path) in the registry, under its identity; the one registered already if any. */
  private registerWorkspace(root: string, origin: RepositoryOrigin): Promise<Repository> {
    return this.store.register({ kind: 'local', locator: root, identity: localIdentity(root), name: basename(root), ref: null, origin });
  }

  /** Registers a remote repository (`owner/repo` or a git URL on an allowed host); a new `ref` replaces the old one. */
  async registerRemote(repository: string, ref: string | undefined): Promise<Repository> {
    const locator = remoteLocator(repository, this.options.policy);
    const existing = await this.store.byIdentity(locator.identity);
    if (existing) {
      if ((ref ?? null) !== existing.ref) await this.store.setRef(existing.id, ref ?? null);
      return { ...existing, ref: ref ?? null };
    }
    return this.store.register({
      kind: 'remote',
      locator: locator.url,
      identity: locator.identity,
      name: locator.display,
      ref: ref ?? null,
      origin: 'registered',
    });
  }

  /**
   * Registers the default workspace at start, so list_repositories shows it before any tool used it; one that
   * cannot be registered (gone, not a git repository) is named in the log and answered as today when used.
   */
  async registerDefault(): Promise<void> {
    if (this.options.defaultWorkspace === undefined) return;
    try {
      await this.defaultWorkspace();
    } catch (error) {
      this.log.warn(`default workspace ${this.options.defaultWorkspace}: ${(error as Error).message}`);
    }
  }

  private async defaultWorkspace(): Promise<Repository> {
    const path = this.options.defaultWorkspace;
    if (path === undefined) {
      throw ServiceError.invalid({
        workspace: 'required: this server has no default workspace (start it with --workspace DIR or SEXTANT_WORKSPACE, or name one)',
      });
    }
    const known = await this.registeredAt(path);
    if (known) return known;
    // The operator chose the default workspace: it need not lie under an allowed root.
    const root = await this.checkLocal(path, 'workspace', false);
    return this.registerWorkspace(root, 'default');
  }

  /** The registered repository a path or URL names, by its identity (any spelling), without registering anything. */
  async registeredAt(reference: string): Promise<Repository | undefined> {
    const identity = identityOf(reference, this.options.policy);
    return identity === undefined ? undefined : this.store.byIdentity(identity);
  }

  /** The real path of a local repository root, or the error that says why it cannot be one. */
  private async checkLocal(path: string, field: string, underRoot = true): Promise<string> {
    if (!isAbsolute(path)) throw ServiceError.invalid({ [field]: `"${path}" is not an absolute path` });
    const real = await realpath(path).catch(() => {
      throw ServiceError.invalid({ [field]: `"${path}" does not exist` });
    });
    if (underRoot && this.autoDiscovery && !this.options.allowedRoots.some((root) => real === root || real.startsWith(root + sep))) {
      throw ServiceError.of(
        'workspace_not_allowed',
        `"${path}" resolves to ${real}, outside every allowed root (${this.options.allowedRoots.join(', ')}).`,
        { [field]: path },
      );
    }
    const info = await stat(real);
    if (!info.isDirectory()) throw ServiceError.invalid({ [field]: `"${path}" is not a directory` });
    try {
      await access(real, constants.R_OK | constants.X_OK);
    } catch {
      throw ServiceError.invalid({ [field]: `"${path}" cannot be read by the server` });
    }
    const git = await stat(`${real}${sep}.git`).catch(() => undefined);
    if (!git) throw ServiceError.invalid({ [field]: `"${path}" is not a git repository (no .git at its root)` });
    return real;
  }

  /** At the cap of auto-discovered workspaces: evict the least recently used one without an active job, else refuse. */
  private async makeRoom(): Promise<void> {
    if ((await this.store.countAutoDiscovered()) < this.options.autoWorkspacesMax) return;
    const victim = await this.store.leastRecentlyUsedAutoDiscovered();
    if (!victim) {
      throw ServiceError.of(
        'workspace_limit_exceeded',
        `${this.options.autoWorkspacesMax} auto-discovered workspaces are registered and all are indexing; try again when one finishes.`,
        { limit: this.options.autoWorkspacesMax },
      );
    }
    this.log.log(`evicting auto-discovered workspace ${victim.locator} (least recently used) to make room`);
    await this.store.delete(victim.id);
    await this.options.onRemoved?.(victim.id);
  }
}
