import { watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

/** What a watcher saw since it was last asked: the paths named by events, or why changes may have been missed. */
export type WatchedChanges = { paths: string[] } | { missed: string };

/**
 * The paths of a working tree that changed, as the kernel reports them
 * (`fs.watch`, inotify on Linux): one watch per directory given, none in
 * `.git`. An event names an entry of a watched directory: a file written,
 * created, deleted or renamed, or a directory created or removed (a new
 * directory is not watched: its name is reported, and the caller walks).
 * A directory given that does not exist is not watched (its parent names it
 * if it is made). When events may have been lost (a watch failed, an event
 * without a name, a directory that could not be watched, more names than `maxPaths`), `take`
 * says so instead of naming paths, and keeps saying it: the watcher is then
 * of no more use and is replaced. It cannot see changes made where the kernel
 * does not report them (a network file system changed from another machine).
 */
export class TreeWatcher {
  private readonly watchers: FSWatcher[] = [];
  private changed = new Set<string>();
  private missedBecause: string | undefined;

  /** Watches `directories` (paths relative to `root`, '' for the root itself). */
  constructor(
    root: string,
    readonly directories: ReadonlySet<string>,
    private readonly maxPaths = 1_000,
  ) {
    for (const dir of directories) {
      if (this.missedBecause) break;
      try {
        // Not persistent: a watcher does not keep the process alive.
        const watcher = watch(join(root, dir), { persistent: false }, (_event, name) => this.saw(dir, name));
        watcher.on('error', (error: Error) => this.miss(`a watch failed: ${error.message}`));
        this.watchers.push(watcher);
      } catch (error) {
        // Gone (a deleted file git's index still lists was in it): its parent, also watched, names it if it comes back.
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') continue;
        // ENOSPC: the user's inotify watches are used up (fs.inotify.max_user_watches).
        this.miss(`${dir || '.'} could not be watched: ${(error as Error).message}`);
      }
    }
  }

  /** Whether changes may have been missed (the watcher is then of no more use). */
  get missed(): string | undefined {
    return this.missedBecause;
  }

  /** What changed since the last `take` (or since the watcher started); the next `take` starts afresh. */
  take(): WatchedChanges {
    if (this.missedBecause) return { missed: this.missedBecause };
    const paths = [...this.changed];
    this.changed = new Set();
    return { paths };
  }

  close(): void {
    for (const watcher of this.watchers.splice(0)) watcher.close();
  }

  private saw(dir: string, name: string | Buffer | null): void {
    if (this.missedBecause) return;
    if (name === null) return this.miss('an event named no file');
    const entry = typeof name === 'string' ? name : name.toString('utf8');
    if (dir === '' && entry === '.git') return;
    this.changed.add(dir ? `${dir}/${entry}` : entry);
    if (this.changed.size > this.maxPaths) this.miss(`more than ${this.maxPaths} paths changed`);
  }

  private miss(reason: string): void {
    this.missedBecause ??= reason;
    this.changed.clear();
    this.close();
  }
}

/** The directories holding `paths` (relative, `/`-separated), with every directory above them, the root as ''. */
export function directoriesOf(paths: Iterable<string>): Set<string> {
  const dirs = new Set<string>(['']);
  for (const path of paths) {
    for (let slash = path.lastIndexOf('/'); slash > 0; slash = path.lastIndexOf('/', slash - 1)) {
      const dir = path.slice(0, slash);
      if (dirs.has(dir)) break; // its parents are in already
      dirs.add(dir);
    }
  }
  return dirs;
}
