import { stat } from 'node:fs/promises';
import {
  changedFiles,
  newWalkStats,
  parseRepository,
  walkFiles,
  type CloneCache,
  type GitRunner,
  type LocatorPolicy,
  type WalkedFile,
  type WalkStats,
} from '@sextant/checkouts';
import { ServiceError } from '@sextant/messaging';
import type { JobFile, ManifestEntry, RegistryStore, Repository } from '../registry/registry.store.js';

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
}

export interface DiscoveryDeps {
  git: GitRunner;
  clones: CloneCache;
  store: RegistryStore;
  policy: LocatorPolicy;
  maxFileBytes: number;
}

/**
 * The first stage of every job: pins the commit, walks the files, compares
 * them with the manifest and writes what changed (`job_files`), in batches.
 * Full: every file is read. Incremental: a remote repository reads only the
 * files git says changed since the indexed commit; a local workspace reads
 * only files whose size or mtime moved since the last scan.
 */
export class Discovery {
  constructor(private readonly deps: DiscoveryDeps) {}

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
    const commit = await this.deps.git.run(['rev-parse', '--verify', '-q', 'HEAD'], { cwd: dir }).then(
      (out) => out.trim() || null,
      () => null,
    );
    const ref = await this.deps.git.run(['symbolic-ref', '--short', '-q', 'HEAD'], { cwd: dir }).then(
      (out) => out.trim() || null,
      () => null,
    );
    return work({ dir, commit, ref });
  }

  async run(
    jobId: string,
    repository: Repository,
    files: PinnedFiles,
    options: { full: boolean; force: boolean },
    report: (scanned: number, listed: number) => Promise<void>,
  ): Promise<DiscoveryResult> {
    const { store } = this.deps;
    await store.clearJobFiles(jobId);
    const manifest = await store.manifest(repository.id);
    const result: DiscoveryResult = {
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
    if (incremental && repository.kind === 'remote' && repository.indexedCommit && files.commit) {
      const changes = await changedFiles(this.deps.git, files.dir, repository.indexedCommit, files.commit);
      if (changes) {
        paths = changes.filter((c) => c.status !== 'deleted').map((c) => c.path);
        gone.push(...changes.filter((c) => c.status === 'deleted' && manifest.has(c.path)).map((c) => c.path));
      }
    }

    const stats = newWalkStats();
    const seen = new Set<string>();
    const known = incremental && repository.kind === 'local' ? (path: string) => manifest.get(path) : undefined;
    const walk = walkFiles(
      this.deps.git,
      files.dir,
      { maxFileBytes: this.deps.maxFileBytes, includeUntracked: repository.kind === 'local', paths, known, batchSize: 1_000 },
      stats,
    );
    for await (const batch of walk) {
      const changed: JobFile[] = [];
      for (const file of batch) {
        seen.add(file.path);
        const change = classify(file, manifest.get(file.path), options.force);
        if (change) {
          changed.push({ path: file.path, change, size: file.size, hash: file.hash, language: file.language, mtimeMs: file.mtimeMs });
          result.changes[change]++;
        }
      }
      await store.writeJobFiles(jobId, changed);
      result.scanned += batch.length;
      await report(result.scanned, stats.listed);
    }
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
    if (paths) result.scanned = manifest.size + result.changes.added - deleted.length;
    result.skipped = stats.skipped;
    await report(result.scanned, Math.max(stats.listed, result.scanned));
    return result;
  }
}

/** What happened to a file since the manifest was written; undefined: nothing (unless `force`). */
function classify(file: WalkedFile, before: ManifestEntry | undefined, force: boolean): JobFile['change'] | undefined {
  if (!before) return 'added';
  if (force || before.hash !== file.hash) return 'modified';
  return undefined;
}
