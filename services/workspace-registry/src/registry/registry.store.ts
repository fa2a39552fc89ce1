import { randomUUID } from 'node:crypto';
import { Database, sql } from '@sextant/persistence';

export type RepositoryKind = 'local' | 'remote';
export type RepositoryOrigin = 'registered' | 'auto_discovered' | 'default';
export type IndexStatus = 'not_indexed' | 'indexing' | 'ready' | 'failed';

/** One registered repository: a local workspace root or a remote repository. */
export interface Repository {
  id: string;
  kind: RepositoryKind;
  /** Local: the real path of the workspace root. Remote: the canonical clone URL. */
  locator: string;
  /** The repository's one identity (ADR 0044): every spelling of it computes this; unique. */
  identity: string | null;
  /** For people: `github.com/owner/repo`, or the workspace directory's name. */
  name: string;
  /** Branch or tag to index (remote); null: the default branch. */
  ref: string | null;
  origin: RepositoryOrigin;
  status: IndexStatus;
  indexedCommit: string | null;
  indexedRef: string | null;
  lastIndexedAt: Date | null;
  /** The job that last wrote the manifest: a cached copy of this version is current. */
  manifestVersion: string | null;
  fileCount: number;
  symbolCount: number;
  lastUsedAt: Date;
}

/** A file as the manifest knows it. */
export interface ManifestEntry {
  size: number;
  hash: string;
  mtimeMs: number;
}

/** One line of a job's changes, written by Discovery and applied by Finalizing. */
export interface JobFile {
  path: string;
  change: 'added' | 'modified' | 'deleted';
  size: number | null;
  hash: string | null;
  language: string | null;
  mtimeMs: number | null;
}

/** The columns of a `Repository`, named as its fields. */
const REPOSITORY_COLUMNS = `id, kind, locator, identity, name, ref, origin, status, indexed_commit AS "indexedCommit", indexed_ref AS "indexedRef",
  last_indexed_at AS "lastIndexedAt", manifest_version AS "manifestVersion", file_count AS "fileCount",
  symbol_count AS "symbolCount", last_used_at AS "lastUsedAt"`;

const T = {
  repositories: '"workspace_registry"."repositories"',
  files: '"workspace_registry"."files"',
  jobFiles: '"workspace_registry"."job_files"',
  jobs: '"workspace_registry"."jobs"',
  merges: '"workspace_registry"."repository_merges"',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const SQL = {
  insert: sql(
    'repo-insert',
    `INSERT INTO ${T.repositories} (id, kind, locator, identity, name, name_key, ref, origin)
     VALUES ($1, $2, $3, $4, $5, lower($5), $6, $7)
     ON CONFLICT (identity) DO NOTHING RETURNING ${REPOSITORY_COLUMNS}`,
  ),
  byIdentity: sql('repo-by-identity', `SELECT ${REPOSITORY_COLUMNS} FROM ${T.repositories} WHERE identity = $1`),
  // An id merged into another (ADR 0044) still names the repository it was merged into.
  byId: sql(
    'repo-by-id',
    `SELECT ${REPOSITORY_COLUMNS} FROM ${T.repositories}
     WHERE id = coalesce((SELECT repository_id FROM ${T.merges} WHERE merged_id = $1), $1)`,
  ),
  // Many ids in one query: a search over a thousand repositories asks for the hundred its hits come from.
  byIds: sql(
    'repo-by-ids',
    `SELECT asked::text AS asked, ${REPOSITORY_COLUMNS} FROM unnest($1::uuid[]) AS a(asked)
     JOIN ${T.repositories} ON id = coalesce((SELECT repository_id FROM ${T.merges} WHERE merged_id = asked), asked)`,
  ),
  clearIdentities: sql('repo-clear-identities', `UPDATE ${T.repositories} SET identity = NULL WHERE id = ANY($1::uuid[])`),
  setIdentity: sql('repo-set-identity', `UPDATE ${T.repositories} SET identity = $2, locator = $3 WHERE id = $1`),
  recordMerge: sql(
    'repo-record-merge',
    `INSERT INTO ${T.merges} (merged_id, repository_id, locator) VALUES ($1, $2, $3)
     ON CONFLICT (merged_id) DO UPDATE SET repository_id = excluded.repository_id`,
  ),
  // Earlier merges into the one now merged away follow it to the survivor.
  forwardMerges: sql(
    'repo-forward-merges',
    `UPDATE ${T.merges} SET repository_id = $2, memberships_moved_at = NULL WHERE repository_id = $1`,
  ),
  pendingMerges: sql(
    'repo-pending-merges',
    `SELECT merged_id AS "from", repository_id AS "to" FROM ${T.merges} WHERE memberships_moved_at IS NULL ORDER BY merged_at`,
  ),
  mergesMoved: sql('repo-merges-moved', `UPDATE ${T.merges} SET memberships_moved_at = now() WHERE merged_id = ANY($1::uuid[])`),
  byName: sql(
    'repo-by-name',
    `SELECT ${REPOSITORY_COLUMNS} FROM ${T.repositories} WHERE name_key = lower($1) OR locator = $1 ORDER BY created_at LIMIT 2`,
  ),
  setRef: sql('repo-set-ref', `UPDATE ${T.repositories} SET ref = $2 WHERE id = $1`),
  // A minute's precision is enough for eviction, and spares a write per call of a busy workspace.
  touch: sql(
    'repo-touch',
    `UPDATE ${T.repositories} SET last_used_at = now() WHERE id = $1 AND last_used_at < now() - interval '1 minute'`,
  ),
  setStatus: sql('repo-set-status', `UPDATE ${T.repositories} SET status = $2 WHERE id = $1`),
  list: sql(
    'repo-list',
    `SELECT ${REPOSITORY_COLUMNS}, count(*) OVER () AS total FROM ${T.repositories}
     WHERE ($2::text[] IS NULL OR id::text = ANY($2::text[])) ORDER BY name_key, id LIMIT $1`,
  ),
  all: sql('repo-all', `SELECT ${REPOSITORY_COLUMNS} FROM ${T.repositories} ORDER BY name_key, id`),
  countAuto: sql('repo-count-auto', `SELECT count(*)::int AS n FROM ${T.repositories} WHERE origin = 'auto_discovered'`),
  lruAuto: sql(
    'repo-lru-auto',
    `SELECT ${REPOSITORY_COLUMNS} FROM ${T.repositories} r WHERE r.origin = 'auto_discovered'
       AND NOT EXISTS (SELECT 1 FROM ${T.jobs} j WHERE j.key = r.id::text AND j.status IN ('pending', 'running'))
     ORDER BY r.last_used_at LIMIT 1`,
  ),
  delete: sql('repo-delete', `DELETE FROM ${T.repositories} WHERE id = $1`),
  manifest: sql('manifest', `SELECT path, size, hash, mtime_ms FROM ${T.files} WHERE repository_id = $1`),
  writeJobFiles: sql(
    'job-files-write',
    `INSERT INTO ${T.jobFiles} (job_id, path, change, size, hash, language, mtime_ms)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::bigint[])
     ON CONFLICT (job_id, path) DO UPDATE SET change = excluded.change, size = excluded.size, hash = excluded.hash,
       language = excluded.language, mtime_ms = excluded.mtime_ms`,
  ),
  clearJobFiles: sql('job-files-clear', `DELETE FROM ${T.jobFiles} WHERE job_id = $1`),
  jobFilePaths: sql('job-files-paths', `SELECT path, change FROM ${T.jobFiles} WHERE job_id = $1 ORDER BY path`),
  applyDeleted: sql(
    'finalize-deleted',
    `DELETE FROM ${T.files} f USING ${T.jobFiles} c WHERE c.job_id = $2 AND c.change = 'deleted' AND f.repository_id = $1 AND f.path = c.path`,
  ),
  applyUpserts: sql(
    'finalize-upserts',
    `INSERT INTO ${T.files} (repository_id, path, size, hash, language, mtime_ms, indexed_at)
     SELECT $1, path, size, hash, language, mtime_ms, now() FROM ${T.jobFiles} WHERE job_id = $2 AND change <> 'deleted'
     ON CONFLICT (repository_id, path) DO UPDATE SET size = excluded.size, hash = excluded.hash, language = excluded.language,
       mtime_ms = excluded.mtime_ms, indexed_at = excluded.indexed_at`,
  ),
  markIndexed: sql(
    'finalize-repository',
    `UPDATE ${T.repositories} SET status = 'ready', indexed_commit = $2, indexed_ref = $3, last_indexed_at = now(), manifest_version = $5,
       file_count = (SELECT count(*) FROM ${T.files} WHERE repository_id = $1), symbol_count = coalesce($4, symbol_count)
     WHERE id = $1 RETURNING file_count`,
  ),
};

/** The registry's own tables: repositories, the file manifest, the files each job changes. */
export class RegistryStore {
  constructor(private readonly db: Database) {}

  /** The repository with this locator, registering it first if it is new (a concurrent registration wins once). */
  async register(spec: {
    kind: RepositoryKind;
    locator: string;
    identity: string;
    name: string;
    ref: string | null;
    origin: RepositoryOrigin;
  }): Promise<Repository> {
    const inserted = await this.db.run<Repository>(SQL.insert, [
      randomUUID(),
      spec.kind,
      spec.locator,
      spec.identity,
      spec.name,
      spec.ref,
      spec.origin,
    ]);
    if (inserted.rows[0]) return inserted.rows[0];
    return (await this.byIdentity(spec.identity))!;
  }

  async byIdentity(identity: string): Promise<Repository | undefined> {
    const { rows } = await this.db.run<Repository>(SQL.byIdentity, [identity]);
    return rows[0];
  }

  async clearIdentities(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.db.run(SQL.clearIdentities, [ids]);
  }

  /** Gives a repository its identity, and its locator as written now (a migration's rewrite). */
  async setIdentity(id: string, identity: string, locator: string): Promise<void> {
    await this.db.run(SQL.setIdentity, [id, identity, locator]);
  }

  /**
   * Merges repository `from` into `into` (they turned out to be one): `from`
   * leaves the registry with its manifest, and its id goes on naming `into`
   * (by id lookups, and once the projects service moved them, memberships).
   */
  async merge(from: Repository, into: Repository): Promise<void> {
    await this.db.transaction(async (manager) => {
      await this.db.run(SQL.forwardMerges, [from.id, into.id], manager);
      await this.db.run(SQL.recordMerge, [from.id, into.id, from.locator], manager);
      await this.db.run(SQL.delete, [from.id], manager);
    });
  }

  /** Merges whose memberships the projects service has not moved yet. */
  async pendingMerges(): Promise<Array<{ from: string; to: string }>> {
    return (await this.db.run<{ from: string; to: string }>(SQL.pendingMerges, [])).rows;
  }

  async mergesMoved(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.db.run(SQL.mergesMoved, [ids]);
  }

  /** By id, then by name (case-insensitive) or locator; undefined when unknown or when a name is ambiguous. */
  async find(idOrName: string): Promise<Repository | undefined> {
    if (UUID.test(idOrName)) {
      const { rows } = await this.db.run<Repository>(SQL.byId, [idOrName]);
      if (rows[0]) return rows[0];
    }
    return this.byName(idOrName);
  }

  /** By name (case-insensitive) or locator; undefined when unknown or ambiguous. */
  private async byName(nameOrLocator: string): Promise<Repository | undefined> {
    const { rows } = await this.db.run<Repository>(SQL.byName, [nameOrLocator]);
    return rows.length === 1 ? rows[0] : undefined;
  }

  /**
   * `find` of many references at once: those that are ids in one query (a merged id names the repository it was
   * merged into), the rest (names, locators, ids not found by id) by name one at a time.
   */
  async findMany(references: readonly string[]): Promise<Array<Repository | undefined>> {
    const ids = [...new Set(references.filter((r) => UUID.test(r)).map((r) => r.toLowerCase()))];
    const byId = new Map<string, Repository>();
    if (ids.length > 0) {
      const { rows } = await this.db.run<Repository & { asked: string }>(SQL.byIds, [ids]);
      for (const { asked, ...repository } of rows) byId.set(asked, repository);
    }
    return Promise.all(references.map(async (r) => byId.get(r.toLowerCase()) ?? (await this.byName(r))));
  }

  async setRef(id: string, ref: string | null): Promise<void> {
    await this.db.run(SQL.setRef, [id, ref]);
  }

  async touch(id: string): Promise<void> {
    await this.db.run(SQL.touch, [id]);
  }

  async setStatus(id: string, status: IndexStatus): Promise<void> {
    await this.db.run(SQL.setStatus, [id, status]);
  }

  /** The first `limit` repositories by name, of `only` when given (those a caller may read). */
  async list(limit: number, only?: readonly string[]): Promise<{ repositories: Repository[]; total: number }> {
    const { rows } = await this.db.run<Repository & { total: string }>(SQL.list, [limit, only ?? null]);
    return { repositories: rows.map(({ total: _total, ...repository }) => repository), total: rows[0] ? Number(rows[0].total) : 0 };
  }

  async all(): Promise<Repository[]> {
    return (await this.db.run<Repository>(SQL.all, [])).rows;
  }

  async countAutoDiscovered(): Promise<number> {
    return (await this.db.run<{ n: number }>(SQL.countAuto, [])).rows[0].n;
  }

  /** The least recently used auto-discovered repository without an active job, if any. */
  async leastRecentlyUsedAutoDiscovered(): Promise<Repository | undefined> {
    const { rows } = await this.db.run<Repository>(SQL.lruAuto, []);
    return rows[0];
  }

  /** Removes the repository with its manifest and jobs. */
  async delete(id: string): Promise<void> {
    await this.db.run(SQL.delete, [id]);
  }

  async manifest(repositoryId: string): Promise<Map<string, ManifestEntry>> {
    const { rows } = await this.db.run<{ path: string; size: string; hash: string; mtime_ms: string }>(SQL.manifest, [repositoryId]);
    return new Map(rows.map((r) => [r.path, { size: Number(r.size), hash: r.hash, mtimeMs: Number(r.mtime_ms) }]));
  }

  async writeJobFiles(jobId: string, files: readonly JobFile[]): Promise<void> {
    if (files.length === 0) return;
    await this.db.run(SQL.writeJobFiles, [
      jobId,
      files.map((f) => f.path),
      files.map((f) => f.change),
      files.map((f) => f.size),
      files.map((f) => f.hash),
      files.map((f) => f.language),
      files.map((f) => f.mtimeMs),
    ]);
  }

  /** Forgets what an earlier attempt of this job wrote (a re-run starts clean). */
  async clearJobFiles(jobId: string): Promise<void> {
    await this.db.run(SQL.clearJobFiles, [jobId]);
  }

  async jobFiles(jobId: string): Promise<Array<{ path: string; change: JobFile['change'] }>> {
    return (await this.db.run<{ path: string; change: JobFile['change'] }>(SQL.jobFilePaths, [jobId])).rows;
  }

  /**
   * Makes a job's changes the repository's manifest, all at once: a query
   * sees the manifest before the job or after it, never half of it.
   */
  async finalize(repositoryId: string, jobId: string, commit: string | null, ref: string | null, symbols: number | null): Promise<number> {
    return this.db.transaction(async (manager) => {
      await this.db.run(SQL.applyDeleted, [repositoryId, jobId], manager);
      await this.db.run(SQL.applyUpserts, [repositoryId, jobId], manager);
      const { rows } = await this.db.run<{ file_count: number }>(SQL.markIndexed, [repositoryId, commit, ref, symbols, jobId], manager);
      await this.db.run(SQL.clearJobFiles, [jobId], manager);
      return rows[0]?.file_count ?? 0;
    });
  }
}
