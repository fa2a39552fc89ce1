import { readdirSync, watch, type Dirent, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

/** What a watcher saw since it was last asked: the paths named by events, or why changes may have been missed. */
export type WatchedChanges = { paths: string[] } | { missed: string };

/**
 * The paths of a working tree that changed, as the kernel reports them
 * (`fs.watch`, inotify on Linux): one watch per directory given. An event
 * names an entry of a watched directory: a file written, created, deleted or
 * renamed, or a directory created or removed. A watched directory that is
 * removed, moved, replaced or (given but not there) made leaves the watcher
 * of no more use (a watch follows the directory it was set on, not its name),
 * as does anything else by which events may have been lost: a watch that
 * failed, an event without a name, more names than `maxPaths`. `take` then
 * says so instead of naming paths, and keeps saying it; the caller walks and
 * starts a new watcher. A directory not given (a new one) is not watched: its
 * name is reported, for the caller to walk. It cannot see changes made where
 * the kernel does not report them (a network file system changed from
 * another machine).
 */
export class TreeWatcher {
  private readonly watchers: FSWatcher[] = [];
  private changed = new Set<string>();
  private missedBecause: string | undefined;

  /** Watches `directories` (paths relative to `root`, '' for the root itself); `onChange` hears of each event as it comes. */
  constructor(
    root: string,
    readonly directories: ReadonlySet<string>,
    private readonly maxPaths = 1_000,
    private readonly onChange?: () => void,
  ) {
    for (const dir of directories) {
      if (this.missedBecause) break;
      try {
        // Not persistent: a watcher does not keep the process alive.
        const watcher = watch(join(root, dir), { persistent: false }, (_event, name) => this.saw(dir, name));
        watcher.on('error', (error: Error) => this.miss(`a watch failed: ${error.message}`));
        this.watchers.push(watcher);
      } catch (error) {
        // Gone meanwhile: its parent, also watched, names it if it comes back (and then this watcher is of no more use).
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

  /** What changed since the last `take`, without taking it. */
  peek(): WatchedChanges {
    return this.missedBecause ? { missed: this.missedBecause } : { paths: [...this.changed] };
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
    const path = dir ? `${dir}/${entry}` : entry;
    if (this.directories.has(path)) return this.miss(`the watched directory ${path} was removed, moved or made`);
    this.changed.add(path);
    if (this.changed.size > this.maxPaths) this.miss(`more than ${this.maxPaths} paths changed`);
    this.onChange?.();
  }

  private miss(reason: string): void {
    this.missedBecause ??= reason;
    this.changed.clear();
    this.close();
  }
}

/**
 * Every directory under `root` (relative, '' for the root itself), not
 * following links, without `.git` and without directories named one of
 * `excluded` (at any depth); undefined past `max` of them.
 */
export function directoriesUnder(root: string, excluded: readonly string[], max: number): Set<string> | undefined {
  const skip = new Set(['.git', ...excluded]);
  const found = new Set<string>(['']);
  const pending = [''];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    let entries: Dirent[];
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true });
    } catch {
      continue; // removed meanwhile, or unreadable: a whole walk skips it too
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || skip.has(entry.name)) continue;
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      found.add(path);
      if (found.size > max) return undefined;
      pending.push(path);
    }
  }
  return found;
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
