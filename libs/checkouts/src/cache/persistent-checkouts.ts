import { ProcessGitRunner } from '../git/git-runner.js';
import { LauncherSpawner } from '../process/launcher.js';
import { parseRepository, type LocatorPolicy } from '../repository/locator.js';
import { CloneCache } from './clone-cache.js';

/** What an indexing service needs to read remote repositories: its git, its persistent clones, and the locator policy. */
export interface PersistentCheckouts {
  policy: LocatorPolicy;
  spawner: LauncherSpawner;
  git: ProcessGitRunner;
  clones: CloneCache;
}

/** The git protocols a runner allows: https, http, git, and file:// only where the policy allows file URLs. */
export function gitProtocols(allowFileUrls: boolean): string[] {
  return ['https', 'http', 'git', ...(allowFileUrls ? ['file'] : [])];
}

/**
 * The indexers' checkouts (workspace-registry, symbol-indexer): git through
 * the launcher process and a persistent clone cache under `root` (stable
 * names, kept across restarts, refreshed on every use, no size cap) — the
 * clone cache's second policy beside git-cache's per-process one.
 */
export function persistentCheckouts(options: {
  root: string;
  git: { allowedHosts: string[]; allowFileUrls: boolean; caseInsensitiveHosts?: string[]; cloneTimeoutMs: number };
  childEnv: { PATH: string | undefined; HOME: string | undefined };
}): PersistentCheckouts {
  const { allowedHosts, allowFileUrls, caseInsensitiveHosts, cloneTimeoutMs } = options.git;
  const spawner = new LauncherSpawner();
  const git = new ProcessGitRunner({
    protocols: gitProtocols(allowFileUrls),
    defaultTimeoutMs: cloneTimeoutMs,
    baseEnv: options.childEnv,
    spawner,
  });
  const clones = new CloneCache({
    root: options.root,
    maxBytes: Number.MAX_SAFE_INTEGER,
    refreshAfterMs: 0,
    evictAfterMs: 365 * 24 * 3_600_000,
    cloneTimeoutMs,
    git,
    persistent: true,
  });
  return { policy: { allowedHosts, allowFileUrls, caseInsensitiveHosts }, spawner, git, clones };
}

/** A repository as an indexing job pins it: a workspace (read where it is), or a remote one at the commit Discovery pinned. */
export interface PinnedRepository {
  repository: { kind: 'local' | 'remote'; locator: string; ref: string | null };
  commit: string | null;
}

/**
 * Runs `read` over the files of a job's repository: a workspace in place, a
 * remote repository in the stage's persistent clone — fetched only when the
 * clone is not at the job's commit yet (once per job, not per batch). `read`
 * learns the commit the files are at.
 */
export function atJobCommit<T>(
  checkouts: Pick<PersistentCheckouts, 'clones' | 'policy'>,
  pinned: PinnedRepository,
  read: (dir: string, commit: string | null) => Promise<T>,
): Promise<T> {
  const { repository } = pinned;
  if (repository.kind === 'local') return read(repository.locator, pinned.commit);
  const locator = parseRepository(repository.locator, checkouts.policy);
  return checkouts.clones.withCheckout(locator, repository.ref ?? undefined, (checkout) => read(checkout.dir, checkout.commit), {
    current: pinned.commit ?? undefined,
  });
}
