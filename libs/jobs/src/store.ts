import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { sql, type Database, type Statement } from '@sextant/persistence';
import { processAlive } from '@sextant/runtime';

export type JobStatus = 'pending' | 'running' | 'completed' | 'failed' | 'skipped';
export type JobMode = 'full' | 'incremental';

/** A job as stored. `stats` holds the counters its stages report. */
export interface Job {
  id: string;
  key: string;
  kind: string;
  mode: JobMode;
  status: JobStatus;
  params: Record<string, unknown>;
  stage: string | null;
  percent: number;
  message: string | null;
  stats: Record<string, number>;
  retryCount: number;
  errorMessage: string | null;
  owner: string | null;
  interruptedAt: Date | null;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
}

/** A share of one stage's work on a job (e.g. 200 changed files for the symbol indexer); items are JSON. */
export interface Batch<T = unknown> {
  id: number;
  jobId: string;
  stage: string;
  items: T[];
  attempts: number;
}

export interface StageCounts {
  total: number;
  done: number;
  failed: number;
  /** The error of a failed batch (the first), if any. */
  error: string | null;
  /** The `result` of every done batch, summed key by key. */
  result: Record<string, number>;
}

/** The columns of a `Job`, named as its fields. */
const JOB_COLUMNS = `id, key, kind, mode, status, params, stage, percent, message, stats, retry_count AS "retryCount",
  error_message AS "errorMessage", owner, interrupted_at AS "interruptedAt", created_at AS "createdAt",
  started_at AS "startedAt", completed_at AS "completedAt"`;

/** Who holds a lease: host, pid and a random tag, so a restart on the same host can tell its predecessor is gone. */
export function workerId(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Durable jobs and their batches in Postgres, the same SQL on PGlite and on a
 * server. Every change is one statement (claims are `UPDATE … WHERE id = (SELECT
 * … FOR UPDATE SKIP LOCKED) RETURNING`), never a transaction held across work:
 * PGlite serves one transaction at a time, and a job runs for minutes. A
 * worker holds a job or a batch by a lease it renews; a lease that runs out
 * means its worker died: the batch goes to another worker, the job is
 * reported interrupted.
 */
export class JobStore {
  private readonly sql: Record<string, Statement>;

  constructor(
    private readonly db: Database,
    schema: string,
  ) {
    const jobs = `"${schema}"."jobs"`;
    const batches = `"${schema}"."job_batches"`;
    const lease = (param: string) => `now() + ${param} * interval '1 millisecond'`;
    this.sql = {
      insert: sql(
        'jobs.insert',
        `INSERT INTO ${jobs} (id, key, kind, mode, status, params, stage, message) VALUES ($1, $2, $3, $4, 'pending', $5, $6, $7)
         ON CONFLICT (key) WHERE status IN ('pending', 'running') DO NOTHING RETURNING ${JOB_COLUMNS}`,
      ),
      active: sql('jobs.active', `SELECT ${JOB_COLUMNS} FROM ${jobs} WHERE key = $1 AND status IN ('pending', 'running')`),
      byId: sql('jobs.by-id', `SELECT ${JOB_COLUMNS} FROM ${jobs} WHERE id = $1`),
      latest: sql('jobs.latest', `SELECT ${JOB_COLUMNS} FROM ${jobs} WHERE key = $1 ORDER BY created_at DESC LIMIT $2`),
      claim: sql(
        'jobs.claim',
        `UPDATE ${jobs} SET status = 'running', owner = $1, lease_until = ${lease('$2')}, started_at = coalesce(started_at, now())
         WHERE id = (SELECT id FROM ${jobs} WHERE status = 'pending' ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING ${JOB_COLUMNS}`,
      ),
      renew: sql(
        'jobs.renew',
        `UPDATE ${jobs} SET lease_until = ${lease('$3')} WHERE id = $1 AND owner = $2 AND status = 'running' RETURNING id`,
      ),
      progress: sql(
        'jobs.progress',
        `UPDATE ${jobs} SET stage = $3, percent = $4, message = $5, stats = stats || $6::jsonb, params = params || $7::jsonb
         WHERE id = $1 AND owner = $2 AND status = 'running' RETURNING id`,
      ),
      finish: sql(
        'jobs.finish',
        `UPDATE ${jobs} SET status = $3, error_message = $4, percent = CASE WHEN $3 = 'completed' THEN 100 ELSE percent END,
           message = coalesce($5, message), stats = stats || $6::jsonb, completed_at = now(), owner = NULL, lease_until = NULL
         WHERE id = $1 AND owner = $2 AND status = 'running' RETURNING ${JOB_COLUMNS}`,
      ),
      retried: sql(
        'jobs.retried',
        `UPDATE ${jobs} SET retry_count = retry_count + 1, lease_until = ${lease('$3')} WHERE id = $1 AND owner = $2 AND status = 'running' RETURNING id`,
      ),
      interruptExpired: sql(
        'jobs.interrupt-expired',
        `UPDATE ${jobs} SET status = 'failed', interrupted_at = now(), completed_at = now(), error_message = $2, owner = NULL, lease_until = NULL
         WHERE status = 'running' AND (lease_until < now() OR owner = ANY($1::text[])) RETURNING ${JOB_COLUMNS}`,
      ),
      running: sql('jobs.running', `SELECT id, owner FROM ${jobs} WHERE status = 'running'`),
      counts: sql('jobs.counts', `SELECT status, count(*)::int AS n FROM ${jobs} WHERE status IN ('pending', 'running') GROUP BY status`),
      cancel: sql(
        'jobs.cancel',
        `UPDATE ${jobs} SET status = 'skipped', error_message = $2, completed_at = now(), owner = NULL, lease_until = NULL
         WHERE key = $1 AND status IN ('pending', 'running') RETURNING ${JOB_COLUMNS}`,
      ),
      interrupted: sql(
        'jobs.interrupted',
        `SELECT count(*)::int AS count, max(j.interrupted_at) AS last FROM ${jobs} j
         WHERE j.interrupted_at IS NOT NULL AND ($1::text IS NULL OR j.key = $1)
           AND NOT EXISTS (SELECT 1 FROM ${jobs} later WHERE later.key = j.key AND later.created_at > j.created_at AND later.status = 'completed')`,
      ),
      setParams: sql(
        'jobs.set-params',
        `UPDATE ${jobs} SET params = params || $3::jsonb WHERE id = $1 AND owner = $2 AND status = 'running' RETURNING id`,
      ),
      addBatches: sql(
        'jobs.add-batches',
        `INSERT INTO ${batches} (job_id, stage, items) SELECT $1, $2, value FROM jsonb_array_elements($3::jsonb)`,
      ),
      claimBatch: sql(
        'jobs.claim-batch',
        `UPDATE ${batches} SET status = 'claimed', owner = $2, lease_until = ${lease('$3')}, attempts = attempts + 1
         WHERE id = (
           SELECT b.id FROM ${batches} b JOIN ${jobs} j ON j.id = b.job_id AND j.status = 'running'
           WHERE b.stage = $1 AND (b.status = 'ready' OR (b.status = 'claimed' AND b.lease_until < now()))
             AND ($4::uuid[] IS NULL OR b.job_id = ANY($4::uuid[]))
           ORDER BY b.id LIMIT 1 FOR UPDATE OF b SKIP LOCKED)
         RETURNING id, job_id, stage, items, attempts`,
      ),
      claimableJobs: sql(
        'jobs.claimable-jobs',
        `SELECT DISTINCT j.id, j.key FROM ${batches} b JOIN ${jobs} j ON j.id = b.job_id AND j.status = 'running'
         WHERE b.stage = $1 AND (b.status = 'ready' OR (b.status = 'claimed' AND b.lease_until < now()))`,
      ),
      renewBatch: sql(
        'jobs.renew-batch',
        `UPDATE ${batches} SET lease_until = ${lease('$3')} WHERE id = $1 AND owner = $2 AND status = 'claimed' RETURNING id`,
      ),
      completeBatch: sql(
        'jobs.complete-batch',
        `UPDATE ${batches} SET status = 'done', result = $3, owner = NULL, lease_until = NULL WHERE id = $1 AND owner = $2 AND status = 'claimed' RETURNING id`,
      ),
      failBatch: sql(
        'jobs.fail-batch',
        `UPDATE ${batches} SET status = CASE WHEN attempts >= $4 THEN 'failed' ELSE 'ready' END, error = $3, owner = NULL, lease_until = NULL
         WHERE id = $1 AND owner = $2 AND status = 'claimed' RETURNING status`,
      ),
      stageCounts: sql(
        'jobs.stage-counts',
        `SELECT count(*)::int AS total, count(*) FILTER (WHERE status = 'done')::int AS done, count(*) FILTER (WHERE status = 'failed')::int AS failed,
           coalesce((SELECT jsonb_object_agg(k, s) FROM (SELECT key AS k, sum(value::numeric) AS s FROM ${batches} b2, jsonb_each_text(b2.result)
             WHERE b2.job_id = $1 AND b2.stage = $2 AND b2.status = 'done' GROUP BY key) sums), '{}'::jsonb) AS result,
           (SELECT error FROM ${batches} b3 WHERE b3.job_id = $1 AND b3.stage = $2 AND b3.status = 'failed' ORDER BY b3.id LIMIT 1) AS error
         FROM ${batches} WHERE job_id = $1 AND stage = $2`,
      ),
      deleteBatches: sql('jobs.delete-batches', `DELETE FROM ${batches} WHERE job_id = $1`),
    };
  }

  /** The key's active job if there is one (`created: false`), else a new pending one (with its first stage and message, if given). */
  async create(
    key: string,
    spec: { kind: string; mode: JobMode; params?: Record<string, unknown>; stage?: string; message?: string },
  ): Promise<{ job: Job; created: boolean }> {
    for (;;) {
      const values = [randomUUID(), key, spec.kind, spec.mode, spec.params ?? {}, spec.stage ?? null, spec.message ?? null];
      const inserted = await this.db.run<Job>(this.sql.insert, values);
      if (inserted.rows[0]) return { job: inserted.rows[0], created: true };
      const active = await this.db.run<Job>(this.sql.active, [key]);
      // The active job may have ended between the two statements: try again.
      if (active.rows[0]) return { job: active.rows[0], created: false };
    }
  }

  async get(id: string): Promise<Job | undefined> {
    if (!UUID.test(id)) return undefined;
    const { rows } = await this.db.run<Job>(this.sql.byId, [id]);
    return rows[0];
  }

  async active(key: string): Promise<Job | undefined> {
    const { rows } = await this.db.run<Job>(this.sql.active, [key]);
    return rows[0];
  }

  async latest(key: string, limit = 1): Promise<Job[]> {
    return (await this.db.run<Job>(this.sql.latest, [key, limit])).rows;
  }

  /** Takes the oldest pending job, leased to `owner` for `leaseMs`. */
  async claim(owner: string, leaseMs: number): Promise<Job | undefined> {
    const { rows } = await this.db.run<Job>(this.sql.claim, [owner, leaseMs]);
    return rows[0];
  }

  /** Extends the lease; false when the job is no longer this owner's (interrupted, cancelled). */
  async renew(id: string, owner: string, leaseMs: number): Promise<boolean> {
    return (await this.db.run(this.sql.renew, [id, owner, leaseMs])).rowCount === 1;
  }

  /** Records where the job is; `stats` and `params` are merged into what is stored. False when the job is no longer this owner's. */
  async progress(
    id: string,
    owner: string,
    update: { stage: string; percent: number; message: string; stats?: Record<string, number>; params?: Record<string, unknown> },
  ): Promise<boolean> {
    const values = [id, owner, update.stage, Math.round(update.percent), update.message, update.stats ?? {}, update.params ?? {}];
    return (await this.db.run(this.sql.progress, values)).rowCount === 1;
  }

  /** Ends the job; `stats` are merged into its counters. */
  async finish(
    id: string,
    owner: string,
    status: 'completed' | 'failed' | 'skipped',
    detail: { error?: string; message?: string; stats?: Record<string, number> } = {},
  ) {
    const values = [id, owner, status, detail.error ?? null, detail.message ?? null, detail.stats ?? {}];
    const { rows } = await this.db.run<Job>(this.sql.finish, values);
    await this.db.run(this.sql.deleteBatches, [id]);
    return rows[0];
  }

  /** Counts another attempt of a running job (its worker starts it over); false when the job is no longer this owner's. */
  async retried(id: string, owner: string, leaseMs: number): Promise<boolean> {
    return (await this.db.run(this.sql.retried, [id, owner, leaseMs])).rowCount === 1;
  }

  /**
   * Marks as interrupted (failed, `interruptedAt` set) the running jobs whose
   * worker is gone: its lease ran out, or it was a process of this host that
   * no longer exists (a restart sees that at once, without waiting for the lease).
   */
  async interruptAbandoned(reason: string): Promise<Job[]> {
    const here = `${hostname()}:`;
    const dead = (await this.db.run<{ owner: string | null }>(this.sql.running, [])).rows
      .map((r) => r.owner)
      .filter((owner): owner is string => owner !== null && owner.startsWith(here) && !processAlive(Number(owner.split(':')[1])));
    return (await this.db.run<Job>(this.sql.interruptExpired, [dead, reason])).rows;
  }

  /** Jobs waiting (`queued`: the queue depth) and running, for the `sextant_index_jobs` gauge. */
  async queue(): Promise<{ queued: number; running: number }> {
    const { rows } = await this.db.run<{ status: string; n: number }>(this.sql.counts, []);
    const count = (status: string) => rows.find((r) => r.status === status)?.n ?? 0;
    return { queued: count('pending'), running: count('running') };
  }

  /** Ends the key's active job as skipped (its repository was removed). */
  async cancel(key: string, reason: string): Promise<Job | undefined> {
    const { rows } = await this.db.run<Job>(this.sql.cancel, [key, reason]);
    return rows[0];
  }

  /** Interrupted jobs not yet followed by a completed one (of `key`, or of every key). */
  async interrupted(key?: string): Promise<{ count: number; last: Date | null }> {
    const { rows } = await this.db.run<{ count: number; last: Date | null }>(this.sql.interrupted, [key ?? null]);
    return rows[0] ?? { count: 0, last: null };
  }

  /** Splits a stage's work on a job into batches, one per element of `groups`. */
  /** Merges `params` into a running job's parameters (e.g. the commit Discovery pinned, for its stages); false when not this owner's. */
  async setParams(id: string, owner: string, params: Record<string, unknown>): Promise<boolean> {
    return (await this.db.run(this.sql.setParams, [id, owner, params])).rowCount === 1;
  }

  async addBatches(jobId: string, stage: string, groups: unknown[][]): Promise<void> {
    if (groups.length > 0) await this.db.run(this.sql.addBatches, [jobId, stage, JSON.stringify(groups)]);
  }

  /** The next batch of `stage` that is free or whose worker's lease ran out, of a running job. */
  /** Claims the stage's next batch (only of the jobs `jobIds`, when given). */
  async claimBatch(stage: string, owner: string, leaseMs: number, jobIds?: readonly string[]): Promise<Batch | undefined> {
    if (jobIds?.length === 0) return undefined;
    const { rows } = await this.db.run<{ id: string; job_id: string; stage: string; items: unknown[]; attempts: number }>(
      this.sql.claimBatch,
      [stage, owner, leaseMs, jobIds ?? null],
    );
    const row = rows[0];
    return row ? { id: Number(row.id), jobId: row.job_id, stage: row.stage, items: row.items, attempts: row.attempts } : undefined;
  }

  /** The running jobs (id and key) with a batch of `stage` to claim. */
  async claimableJobs(stage: string): Promise<Array<{ id: string; key: string }>> {
    return (await this.db.run<{ id: string; key: string }>(this.sql.claimableJobs, [stage])).rows;
  }

  async renewBatch(id: number, owner: string, leaseMs: number): Promise<boolean> {
    return (await this.db.run(this.sql.renewBatch, [id, owner, leaseMs])).rowCount === 1;
  }

  /** False when the batch was taken over meanwhile (this worker's lease ran out): its result is not counted twice. */
  async completeBatch(id: number, owner: string, result: Record<string, number>): Promise<boolean> {
    return (await this.db.run(this.sql.completeBatch, [id, owner, result])).rowCount === 1;
  }

  /** Gives the batch back for another attempt, or fails it after `maxAttempts`. */
  async failBatch(id: number, owner: string, error: string, maxAttempts: number): Promise<'ready' | 'failed' | undefined> {
    const { rows } = await this.db.run<{ status: 'ready' | 'failed' }>(this.sql.failBatch, [id, owner, error.slice(0, 2000), maxAttempts]);
    return rows[0]?.status;
  }

  async stageCounts(jobId: string, stage: string): Promise<StageCounts> {
    const { rows } = await this.db.run<{
      total: number;
      done: number;
      failed: number;
      error: string | null;
      result: Record<string, string | number>;
    }>(this.sql.stageCounts, [jobId, stage]);
    const row = rows[0];
    const result = Object.fromEntries(Object.entries(row.result).map(([k, v]) => [k, Number(v)]));
    return { total: row.total, done: row.done, failed: row.failed, error: row.error, result };
  }
}
