import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { directoriesUnder, TreeWatcher, VENDORED_DIRECTORIES, type WatchedChanges } from '@sextant/checkouts';

export interface WatchOptions {
  /** A workspace with more directories than this is not watched (each takes an inotify watch); 0: none is. */
  maxDirectories: number;
  /** A watched workspace is still walked whole when its last whole walk is older than this (events the kernel dropped). */
  wholeWalkEveryMs: number;
  /** Workspaces watched at once (the most recently indexed). */
  maxWorkspaces: number;
  /** Told of each change a watcher sees in a workspace (by repository id): e.g. to sync it soon. */
  onChange?: (repositoryId: string) => void;
}

interface WatchState {
  watcher?: TreeWatcher;
  /** The watcher has seen every change since the manifest's job: its paths alone tell a sync what to look at. */
  trusted: boolean;
  /** The job that makes the watcher trusted once Finalizing records it. */
  pendingJob?: string;
  /** `gitStamp` as the last job found it: which files git lists moves with it. */
  gitStamp: string | null;
  wholeWalkAt: number;
  /** The workspace cannot be watched (too many directories, or the kernel refused a watch): its syncs walk every file. */
  refused?: boolean;
}

/**
 * What changed in the local workspaces since their last job, as a `TreeWatcher`
 * saw it, so that a sync looks at those paths instead of walking every file
 * (a walk stats each of them; with tens of thousands that is most of a sync).
 * A watcher starts after a whole walk and is trusted once a later whole walk,
 * begun while it watched, is recorded: a change before that walk began is in
 * the walk, one after in the watcher's paths. It loses that trust when a job
 * does not finish, when events may have been lost, when what decides which
 * files git lists moved (`gitStamp`: the index, exclude and config files),
 * and every `wholeWalkEveryMs`; the next sync then walks every file again.
 */
export class Watches {
  private readonly log = new Logger('Watches');
  private readonly states = new Map<string, WatchState>();

  constructor(private readonly options: WatchOptions) {}

  /**
   * At the start of a job's discovery: the paths changed since the last recorded job, or undefined when every file
   * must be walked (`incremental` false: a full or forced job, which walks every file anyway).
   */
  begin(repositoryId: string, jobId: string, dir: string, incremental: boolean): string[] | undefined {
    const state = this.states.get(repositoryId) ?? { trusted: false, gitStamp: null, wholeWalkAt: 0 };
    // Most recently indexed last: the first is the one to stop watching.
    this.states.delete(repositoryId);
    this.states.set(repositoryId, state);
    this.evict();
    if (state.watcher?.missed) {
      this.log.log(`${dir}: watching again after the next whole walk (${state.watcher.missed})`);
      state.watcher.close();
      state.watcher = undefined;
    }
    const stamp = gitStamp(dir);
    // Taken either way: a whole walk sees what the watcher saw so far.
    const taken = state.watcher?.take();
    const usable =
      incremental &&
      state.trusted &&
      taken !== undefined &&
      'paths' in taken &&
      stamp !== null &&
      stamp === state.gitStamp &&
      Date.now() - state.wholeWalkAt < this.options.wholeWalkEveryMs;
    state.trusted = false;
    state.gitStamp = stamp;
    state.pendingJob = state.watcher ? jobId : undefined;
    if (!usable) {
      state.wholeWalkAt = Date.now();
      return undefined;
    }
    return taken.paths;
  }

  /**
   * After a whole walk: the workspace's directories (every one, not only those holding files git lists: a file made
   * in any of them may be listed) are watched. A watcher of other directories is replaced; a new watcher is trusted
   * only after the next whole walk.
   */
  walked(repositoryId: string, dir: string): void {
    const state = this.states.get(repositoryId);
    if (!state || state.gitStamp === null || this.options.maxDirectories === 0) return;
    const directories = directoriesUnder(dir, VENDORED_DIRECTORIES, this.options.maxDirectories);
    if (directories && state.watcher && sameSet(state.watcher.directories, directories)) return;
    state.watcher?.close();
    state.watcher = undefined;
    state.pendingJob = undefined;
    if (!directories) {
      if (!state.refused)
        this.log.log(`${dir}: not watched, more than ${this.options.maxDirectories} directories (SEXTANT_WATCH_MAX_DIRECTORIES)`);
      state.refused = true;
      return;
    }
    // Refused by the kernel before (its inotify watches used up): not tried again at each whole walk.
    if (state.refused) return;
    const watcher = new TreeWatcher(dir, directories, undefined, () => this.options.onChange?.(repositoryId));
    if (watcher.missed) {
      this.log.warn(`${dir}: not watched, ${watcher.missed}; each sync walks every file`);
      state.refused = true;
      return;
    }
    state.watcher = watcher;
  }

  /** Finalizing recorded job `jobId`: a watcher that watched through its discovery has seen every change since. */
  committed(repositoryId: string, jobId: string): void {
    const state = this.states.get(repositoryId);
    if (!state) return;
    state.trusted = state.watcher !== undefined && !state.watcher.missed && state.pendingJob === jobId;
    state.pendingJob = undefined;
  }

  /**
   * What changed in a watched workspace since its last job's discovery began: the paths its index does not reflect
   * yet (or why they are not known). Undefined: the workspace is not watched (here), so nobody knows.
   */
  pending(repositoryId: string): WatchedChanges | undefined {
    return this.states.get(repositoryId)?.watcher?.peek();
  }

  close(): void {
    for (const state of this.states.values()) state.watcher?.close();
    this.states.clear();
  }

  private evict(): void {
    while (this.states.size > this.options.maxWorkspaces) {
      const [oldest, state] = this.states.entries().next().value!;
      state.watcher?.close();
      this.states.delete(oldest);
    }
  }
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

/**
 * What decides which files git lists, besides the tree: `.git/index`, `.git/info/exclude`, `.git/config` (a
 * `core.excludesFile`) and the user's global ignore file, each by inode, size and mtime; null when `.git` is not a
 * directory (a linked worktree).
 */
function gitStamp(dir: string): string | null {
  const git = join(dir, '.git');
  if (!statSync(git, { throwIfNoEntry: false })?.isDirectory()) return null;
  // Where git finds it with the environment it runs in (HOME, and no XDG_CONFIG_HOME: see ProcessGitRunner).
  const globalIgnore = join(homedir(), '.config', 'git', 'ignore');
  return [join(git, 'index'), join(git, 'info', 'exclude'), join(git, 'config'), globalIgnore]
    .map((file) => {
      const info = statSync(file, { throwIfNoEntry: false, bigint: true });
      return info ? `${info.ino}:${info.size}:${info.mtimeNs}` : '-';
    })
    .join('|');
}
