import { lstatSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Logger } from '@nestjs/common';
import {
  changedFiles,
  directoriesOf,
  newWalkStats,
  parseRepository,
  walkFiles,
  type CloneCache,
  type GitRunner,
  type LocatorPolicy,
  type WalkedFile,
  type WalkStats,
  type WatchedChanges,
} from '@sextant/checkouts';
import { ServiceError } from '@sextant/work';
import type { JobFile, ManifestEntry, RegistryStore, Repository } from '../registry/registry.store.js';
import { Watches, type WatchOptions } from './watches.js';

/** The files of a repository at one commit, for as long as `work` runs. */
export interface PinnedFiles {
  dir: string;
  /** Null for a local workspace without commits. */
  commit: string | null;
  ref: string | null;
}

export interface DiscoveryResult {
  commit: string | null;
  ref: string | null;
  /** Files found (text, within the size cap, not vendored). */
  scanned: number;
  changes: { added: number; modified: number; deleted: number };
  skipped: WalkStats['skipped'];
  /** What the job changes in the manifest (null: gone); see `Discovery.commit`. */
  delta: Map<string, ManifestEntry | null>;
}

export interface DiscoveryDeps {
  git: GitRunner;
  clones: CloneCache;
  store: RegistryStore;
  policy: LocatorPolicy;
  maxFileBytes: number;
  /** Local workspaces are watched for changes (`Watches`); default: not. */
  watch?: Omit<WatchOptions, 'maxWorkspaces'>;
}

/**
 * The first stage of every job: pins the commit, walks the files, compares
 * them with the manifest and writes what changed (`job_files`), in batches.
 * Full: every file is read. Incremental: a remote repository reads only the
 * files git says changed since the indexed commit; a local workspace reads
 * only files whose size or mtime moved since the last scan.
 */
export class Discovery {
  private readonly log = new Logger('Discovery');
  /**
   * The manifests of the last few repositories indexed, as their last job
   * left them (keyed by that job: the repository's `manifestVersion`), so a
   * sync does not read 20,000 rows back from the database each time.
   */
  private readonly manifests = new Map<string, { version: string; entries: Map<string, ManifestEntry> }>();
  /**
   * Binary files of each repository as the last walk read them (size, mtime):
   * a local workspace's sync skips them again without reading them. In
   * memory only: after a restart they are read once more.
   */
  private readonly binaries = new Map<string, Map<string, { size: number; mtimeMs: number }>>();
  private readonly watches: Watches;

  constructor(private readonly deps: DiscoveryDeps) {
    this.watches = new Watches({ maxDirectories: 0, wholeWalkEveryMs: 0, ...deps.watch, maxWorkspaces: CACHED_MANIFESTS });
  }

  close(): void {
    this.watches.close();
  }

  /** What changed in a watched workspace that its index does not reflect yet (undefined: not watched here). */
  pending(repositoryId: string): WatchedChanges | undefined {
    return this.watches.pending(repositoryId);
  }

  /** Runs `work` on the repository's files: the workspace itself, or a persistent clone pinned for the duration. */
  async withFiles<T>(repository: Repository, work: (files: PinnedFiles) => Promise<T>): Promise<T> {
    if (repository.kind === 'remote') {
      const locator = parseRepository(repository.locator, this.deps.policy);
      return this.deps.clones.withCheckout(locator, repository.ref ?? undefined, (c) => work({ dir: c.dir, commit: c.commit, ref: c.ref }));
    }
    const dir = repository.locator;
    const info = await stat(dir).catch(() => undefined);
    if (!info?.isDirectory()) {
      throw ServiceError.of('not_found', `The workspace directory ${dir} no longer exists (or cannot be read).`, { workspace: dir });
    }
    const read = (args: string[]) =>
      this.deps.git.run(args, { cwd: dir }).then(
        (out) => out.trim() || null,
        () => null,
      );
    const [commit, ref] = await Promise.all([
      read(['rev-parse', '--verify', '-q', 'HEAD']),
      read(['symbolic-ref', '--short', '-q', 'HEAD']),
    ]);
    return work({ dir, commit, ref });
  }

  /** The repository's manifest: the cached copy when it is the current version, else read from the database (and cached). */
  private async manifestOf(repository: Repository): Promise<Map<string, ManifestEntry>> {
    const cached = this.manifests.get(repository.id);
    if (cached && repository.manifestVersion !== null && cached.version === repository.manifestVersion) return cached.entries;
    const entries = await this.deps.store.manifest(repository.id);
    if (repository.manifestVersion !== null) this.keep(repository.id, repository.manifestVersion, entries);
    return entries;
  }

  private keep(repositoryId: string, version: string, entries: Map<string, ManifestEntry>): void {
    this.manifests.delete(repositoryId);
    this.manifests.set(repositoryId, { version, entries });
    while (this.manifests.size > CACHED_MANIFESTS) this.manifests.delete(this.manifests.keys().next().value!);
  }

  /**
   * After Finalizing recorded job `jobId` as the manifest's version: brings the
   * cached manifest (the one the job started from) up to it, in place, with
   * the job's `delta` (null: the path is gone). A cache of another version is dropped.
   */
  commit(repository: Repository, jobId: string, delta: ReadonlyMap<string, ManifestEntry | null>): void {
    if (repository.kind === 'local') this.watches.committed(repository.id, jobId);
    const cached = this.manifests.get(repository.id);
    if (!cached || cached.version !== repository.manifestVersion) {
      this.manifests.delete(repository.id);
      return;
    }
    for (const [path, entry] of delta) {
      if (entry) cached.entries.set(path, entry);
      else cached.entries.delete(path);
    }
    cached.version = jobId;
  }

  async run(
    jobId: string,
    repository: Repository,
    files: PinnedFiles,
    options: { full: boolean; force: boolean },
    report: (scanned: number, listed: number) => Promise<void>,
  ): Promise<DiscoveryResult> {
    const { store } = this.deps;
    const t0 = performance.now();
    const [, manifest] = await Promise.all([store.clearJobFiles(jobId), this.manifestOf(repository)]);
    const t1 = performance.now();
    // What the job changes in the manifest (null: gone), for `commit` once Finalizing wrote it.
    const delta = new Map<string, ManifestEntry | null>();
    const result: DiscoveryResult = {
      delta,
      commit: files.commit,
      ref: files.ref,
      scanned: 0,
      changes: { added: 0, modified: 0, deleted: 0 },
      skipped: newWalkStats().skipped,
    };
    const incremental = !options.full && !options.force && manifest.size > 0;

    // A remote repository at the commit it was indexed at has nothing to discover.
    if (incremental && repository.kind === 'remote' && files.commit && files.commit === repository.indexedCommit) {
      result.scanned = manifest.size;
      await report(manifest.size, manifest.size);
      return result;
    }
    let paths: string[] | undefined;
    const gone: string[] = [];
    // A local workspace's watcher may say which paths changed: only they are looked at.
    if (repository.kind === 'local') {
      const watched = this.watches.begin(repository.id, jobId, files.dir, incremental);
      paths = watched && changedFilesOnly(files.dir, watched, manifest);
    }
    if (incremental && repository.kind === 'remote' && repository.indexedCommit && files.commit) {
      const changes = await changedFiles(this.deps.git, files.dir, repository.indexedCommit, files.commit);
      if (changes) {
        paths = changes.filter((c) => c.status !== 'deleted').map((c) => c.path);
        gone.push(...changes.filter((c) => c.status === 'deleted' && manifest.has(c.path)).map((c) => c.path));
      }
    }

    const stats = newWalkStats();
    let writeMs = 0;
    const seen = new Set<string>();
    let binaries = this.binaries.get(repository.id);
    if (!binaries) this.binaries.set(repository.id, (binaries = new Map<string, { size: number; mtimeMs: number }>()));
    while (this.binaries.size > CACHED_MANIFESTS) this.binaries.delete(this.binaries.keys().next().value!);
    const knownBinaries = binaries;
    const known =
      incremental && repository.kind === 'local' ? (path: string) => manifest.get(path) ?? binaryEntry(knownBinaries.get(path)) : undefined;
    // Content the manifest already holds as text need not be read again where git vouches for it (also when forced).
    let texts: Set<string> | undefined;
    const knownText = (blob: string) => (texts ??= new Set(Array.from(manifest.values(), (e) => e.hash))).has(blob);
    const walk = walkFiles(
      this.deps.git,
      files.dir,
      {
        maxFileBytes: this.deps.maxFileBytes,
        includeUntracked: repository.kind === 'local',
        paths,
        pathsListedOnly: repository.kind === 'local',
        listedBefore: (path) => manifest.has(path),
        known,
        knownText: manifest.size > 0 ? knownText : undefined,
        onSkipped: (file) => {
          if (file.skipped === 'binary') knownBinaries.set(file.path, { size: file.size, mtimeMs: file.mtimeMs });
        },
        // A file as the manifest has it changes nothing: only that it is still there counts.
        onUnchanged: known && ((path) => void seen.add(path)),
        batchSize: 1_000,
      },
      stats,
    );
    for await (const batch of walk) {
      const changed: JobFile[] = [];
      for (const file of batch) {
        seen.add(file.path);
        knownBinaries.delete(file.path);
        const before = manifest.get(file.path);
        const change = classify(file, before, options.force);
        // What the manifest must learn: new content, or a new mtime for the same content (the next scan then need not read it).
        if (!before || before.hash !== file.hash || before.mtimeMs !== file.mtimeMs || before.size !== file.size) {
          delta.set(file.path, { size: file.size, hash: file.hash, mtimeMs: file.mtimeMs });
        }
        if (change) {
          changed.push({ path: file.path, change, size: file.size, hash: file.hash, language: file.language, mtimeMs: file.mtimeMs });
          result.changes[change]++;
        }
      }
      const w = performance.now();
      await store.writeJobFiles(jobId, changed);
      result.scanned += batch.length;
      await report(result.scanned + stats.unchanged, stats.listed);
      writeMs += performance.now() - w;
    }
    result.scanned += stats.unchanged;
    // Gone: deleted in git, or (a whole walk) no longer found; also a changed file that is now skipped (binary, too large).
    const candidates = paths
      ? [...gone, ...paths.filter((p) => !seen.has(p) && manifest.has(p))]
      : [...manifest.keys()].filter((p) => !seen.has(p));
    const deleted: JobFile[] = candidates.map((path) => ({
      path,
      change: 'deleted',
      size: null,
      hash: null,
      language: null,
      mtimeMs: null,
    }));
    for (let i = 0; i < deleted.length; i += 1_000) await store.writeJobFiles(jobId, deleted.slice(i, i + 1_000));
    result.changes.deleted += deleted.length;
    for (const path of candidates) delta.set(path, null);
    if (paths) result.scanned = manifest.size + result.changes.added - deleted.length;
    result.skipped = stats.skipped;
    if (repository.kind === 'local' && !paths) this.watches.walked(repository.id, files.dir);
    await report(result.scanned, Math.max(stats.listed, result.scanned));
    this.log.debug(
      `job ${jobId}: manifest ${(t1 - t0).toFixed(0)} ms (${manifest.size} files), ${paths ? `${paths.length} paths` : 'every file'}, walk and writes ${(performance.now() - t1).toFixed(0)} ms, of which writes ${writeMs.toFixed(0)} ms; ${stats.read} files read`,
    );
    return result;
  }
}

/**
 * The watcher's paths if each is a file, or a file gone that the manifest holds; undefined (walk every file) when one
 * is a directory (created, or moved in: its files are unknown), was a directory with files of the manifest under it
 * (gone, or now a file or a link), or is a `.gitignore` (which files git lists may have changed).
 */
function changedFilesOnly(dir: string, paths: readonly string[], manifest: ReadonlyMap<string, ManifestEntry>): string[] | undefined {
  let directories: Set<string> | undefined;
  for (const path of paths) {
    if (basename(path) === '.gitignore') return undefined;
    const info = lstatSync(join(dir, path), { throwIfNoEntry: false });
    if (info?.isDirectory()) return undefined;
    if (!manifest.has(path)) {
      // No file of the manifest: a directory that held some (gone, or now a file or a link), or a file never indexed.
      directories ??= directoriesOf(manifest.keys());
      if (directories.has(path)) return undefined;
    }
  }
  return [...paths];
}

function binaryEntry(entry: { size: number; mtimeMs: number } | undefined) {
  return entry && { ...entry, hash: null };
}

/** Manifests kept in memory (the most recently indexed repositories). */
const CACHED_MANIFESTS = 8;

/** What happened to a file since the manifest was written; undefined: nothing (unless `force`). */
function classify(file: WalkedFile, before: ManifestEntry | undefined, force: boolean): JobFile['change'] | undefined {
  if (!before) return 'added';
  if (force || before.hash !== file.hash) return 'modified';
  return undefined;
}
