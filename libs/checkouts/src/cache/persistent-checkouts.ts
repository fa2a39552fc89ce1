import { ProcessGitRunner } from '../git/git-runner.js';
import { LauncherSpawner } from '../process/launcher.js';
import type { LocatorPolicy } from '../repository/locator.js';
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
  git: { allowedHosts: string[]; allowFileUrls: boolean; cloneTimeoutMs: number };
  childEnv: { PATH: string | undefined; HOME: string | undefined };
}): PersistentCheckouts {
  const { allowedHosts, allowFileUrls, cloneTimeoutMs } = options.git;
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
  return { policy: { allowedHosts, allowFileUrls }, spawner, git, clones };
}
