import { Logger } from '@nestjs/common';
import { PollLoop, workerId, type Job, type JobStore } from '@sextant/jobs';
import { ServiceError } from '@sextant/work';
import { isDatabaseUnavailable } from '@sextant/persistence';
import type { RegistryStore, Repository } from '../registry/registry.store.js';
import type { Discovery } from './discovery.js';
import { messages, percentOf, stagesPercent } from './progress.js';

export interface CoordinatorOptions {
  /** Indexing stages run after Discovery, in order (`symbols`, `vectors`); each is served by its own workers. */
  stages: readonly string[];
  /** Files per stage batch. */
  batchFiles: number;
  /** Progress is written at most this often. */
  progressIntervalMs: number;
  /** A job's lease; renewed every third of it while it runs. */
  leaseMs?: number;
  /** Poll for pending jobs this often when idle. */
  idleMs?: number;
  /** A stage that finishes no batch for this long fails the job (no worker runs it); default 5 minutes. */
  stageStallMs?: number;
  /** Jobs run at once (default 1): each takes its own pending job, so a job's waits (clone, stages) overlap another's work. */
  jobsAtOnce?: number;
}

/** How often a running stage's batches are counted. */
const STAGE_POLL_MS = 25;

/** A job the database dropped is started over this many times at most. */
const DATABASE_RETRIES = 3;
/** How long a job waits for its database to come back. */
const DATABASE_WAIT_MS = 300_000;

const INTERRUPTED = 'interrupted: the process running the job stopped; run index_repo or sync_repo again';

/**
 * Thrown out of a running job when its coordinator stops: the job is left as it is, running under an owner that is
 * gone, and reported interrupted like that of a process that died (at this service's next start, or by a replica
 * once its lease runs out). Waiting for its stages instead held a stop for up to `stageStallMs` (5 minutes): in one
 * process, the stage workers cannot reach the registry once the bus is closed.
 */
class Stopping extends Error {
  constructor() {
    super('the coordinator is stopping');
  }
}

/**
 * Runs indexing jobs, `jobsAtOnce` at a time per coordinator (replicas of the
 * workspace registry run one each; a repository has one job running at most): Discovery, then each configured stage's
 * batches (done by that stage's workers, anywhere), then Finalizing, which
 * makes the job's changes the repository's manifest at once. Progress goes to
 * the job row, from which `index_status`, `get_index_job_status` and the
 * gateway's progress notifications read it.
 */
export class Coordinator {
  readonly owner = workerId();
  private readonly log = new Logger('Coordinator');
  private readonly leaseMs: number;
  private readonly stageStallMs: number;
  /** One loop per job run at once; each claims its own job. */
  private readonly loops: PollLoop;
  private lastSweep = 0;

  constructor(
    private readonly jobs: JobStore,
    private readonly store: RegistryStore,
    private readonly discovery: Discovery,
    private readonly options: CoordinatorOptions,
  ) {
    this.leaseMs = options.leaseMs ?? 15_000;
    this.stageStallMs = options.stageStallMs ?? 300_000;
    // The database may be unreachable: the job (if any) keeps its lease or is reported interrupted later.
    this.loops = new PollLoop(
      () => this.step(),
      options.idleMs ?? 500,
      (error) => this.log.warn(`job loop: ${error.message}`),
      options.jobsAtOnce,
    );
  }

  /** Reports jobs a stopped process left running as interrupted, then runs jobs until `stop()`. */
  start(): void {
    this.loops.start();
  }

  private get stopping(): boolean {
    return this.loops.stopped;
  }

  /** Stops taking jobs; a job in hand stops at its next progress step and is left to be reported interrupted. */
  async stop(): Promise<void> {
    await this.loops.stop();
    this.discovery.close();
  }

  private readonly batchWaiters = new Set<() => void>();

  /** Resolves true when this coordinator next queues stage batches, false after `timeoutMs`. */
  batchesQueued(timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (queued: boolean) => {
        clearTimeout(timer);
        this.batchWaiters.delete(wake);
        resolve(queued);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.batchWaiters.add(wake);
    });
  }

  /** A job was just queued: look now rather than at the next poll. */
  wake(): void {
    this.loops.wake();
  }

  /** Sweeps for abandoned jobs now and then; runs the next pending job, if any. */
  private async step(): Promise<boolean> {
    if (Date.now() - this.lastSweep >= this.leaseMs / 3) {
      this.lastSweep = Date.now();
      for (const job of await this.jobs.interruptAbandoned(INTERRUPTED)) {
        this.log.warn(`job ${job.id} was interrupted (its process stopped)`);
        await this.store.setStatus(job.key, 'failed');
      }
    }
    const job = await this.jobs.claim(this.owner, this.leaseMs);
    if (!job) return false;
    await this.runJob(job);
    return true;
  }

  /**
   * Runs a job to its end. When the database goes away in the middle, the
   * job is not lost: this coordinator waits for it to come back (up to
   * `DATABASE_WAIT_MS`), counts a retry and starts the job over — its changes
   * are staged per job and applied at Finalizing only, so a restart leaves
   * nothing half done.
   */
  private async runJob(job: Job): Promise<void> {
    const renewal = setInterval(() => void this.jobs.renew(job.id, this.owner, this.leaseMs).catch(() => undefined), this.leaseMs / 3);
    renewal.unref();
    let repository: Repository | undefined;
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          repository = await this.store.find(job.key);
          return await this.attempt(job, repository);
        } catch (error) {
          if (error instanceof Stopping) {
            this.log.log(`job ${job.id} stopped with this process; it is reported interrupted (run sync_repo again)`);
            return;
          }
          if (isDatabaseUnavailable(error) && attempt <= DATABASE_RETRIES) {
            this.log.warn(`job ${job.id}: the database is unreachable; the job starts over once it is back (retry ${attempt})`);
            if (await this.waitForDatabase(job)) continue;
            return; // no longer ours: reported as interrupted by whoever sees its lease run out
          }
          const message = error instanceof ServiceError ? error.busError.message : (error as Error).message;
          this.log.warn(`job ${job.id} failed: ${message}`);
          await this.jobs
            .finish(job.id, this.owner, 'failed', { error: message, message: messages.failed(message) })
            .catch(() => undefined);
          if (repository) await this.store.setStatus(repository.id, 'failed').catch(() => undefined);
          return;
        }
      }
    } finally {
      clearInterval(renewal);
      this.lastWrite.delete(job.id);
    }
  }

  /** Waits for the database; true once it answers and the job is still this coordinator's (one retry counted). */
  private async waitForDatabase(job: Job): Promise<boolean> {
    const deadline = Date.now() + DATABASE_WAIT_MS;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1_000));
      try {
        return await this.jobs.retried(job.id, this.owner, this.leaseMs);
      } catch {
        // still unreachable
      }
    }
    return false;
  }

  private async attempt(job: Job, repository: Repository | undefined): Promise<void> {
    const started = performance.now();
    if (!repository) throw ServiceError.of('not_found', 'The repository of this job was removed.');
    await this.store.setStatus(repository.id, 'indexing');
    const timings: Record<string, number> = {};
    const symbols = await this.discovery.withFiles(repository, async (files) => {
      const discoveryStarted = performance.now();
      const discovered = await this.discovery.run(
        job.id,
        repository,
        files,
        { full: job.mode === 'full', force: job.params.force === true },
        this.reporter(job),
      );
      timings.discovery_ms = Math.round(performance.now() - discoveryStarted);
      const done = {
        files_scanned: discovered.scanned,
        files_changed: discovered.changes.added + discovered.changes.modified,
        files_deleted: discovered.changes.deleted,
      };
      const stages = this.options.stages.length > 0;
      if (stages) {
        // What the stage workers check out (they take it with each batch).
        await this.jobs.setParams(job.id, this.owner, { commit: discovered.commit, ref: discovered.ref });
        const end = {
          stage: 'discovery',
          percent: percentOf('discovery', 1),
          message: messages.discovery(discovered.scanned),
          stats: done,
        };
        await this.progress(job, end, true);
      }
      const counted = stages ? await this.runStages(job) : null;
      // Without stages, the files Finalizing writes into the manifest are the ones indexed.
      const stats: Record<string, number> = stages ? {} : { ...done, files_indexed: done.files_changed };
      await this.progress(job, { stage: 'finalizing', percent: percentOf('finalizing', 0), message: messages.finalizing(), stats }, true);
      return { discovered, symbols: counted };
    });
    const finalizing = performance.now();
    const { changes, scanned } = symbols.discovered;
    // A job that staged every file counts the symbols itself; otherwise its stages' delta moves the count.
    const everyFile = changes.added + changes.modified === scanned;
    const symbolCount =
      symbols.symbols === null
        ? null
        : everyFile && symbols.symbols.extracted !== null
          ? symbols.symbols.extracted
          : Math.max(0, repository.symbolCount + symbols.symbols.delta);
    const fileCount = await this.store.finalize(repository.id, job.id, symbols.discovered.commit, symbols.discovered.ref, symbolCount);
    this.discovery.commit(repository, job.id, symbols.discovered.delta);
    const seconds = (performance.now() - started) / 1000;
    timings.finalizing_ms = Math.round(performance.now() - finalizing);
    await this.jobs.finish(job.id, this.owner, 'completed', {
      message: messages.completed(fileCount, symbolCount ?? repository.symbolCount, seconds),
      stats: timings,
    });
  }

  /** Discovery's progress, written at most every `progressIntervalMs` (and always at the end). */
  private reporter(job: Job): (scanned: number, listed: number) => Promise<void> {
    return (scanned, listed) => {
      if (this.stopping) throw new Stopping();
      return this.progress(job, {
        stage: 'discovery',
        percent: percentOf('discovery', listed === 0 ? 1 : scanned / listed),
        message: messages.discovery(scanned),
        stats: { files_scanned: scanned },
      });
    };
  }

  /**
   * Hands the changed files to each configured stage in batches and waits for
   * its workers; returns by how much the stages moved the repository's symbol
   * count and how many symbols they found in the job's files (null: no stage
   * counts symbols).
   */
  private async runStages(job: Job): Promise<{ delta: number; extracted: number | null } | null> {
    const changed = await this.store.jobFiles(job.id);
    // Deleted files go to the stages too (their rows go), but are not files indexed.
    const total = changed.filter((c) => c.change !== 'deleted').length;
    let symbols: { delta: number; extracted: number | null } | null = null;
    for (const [index, stage] of this.options.stages.entries()) {
      const groups: Array<typeof changed> = [];
      for (let i = 0; i < changed.length; i += this.options.batchFiles) groups.push(changed.slice(i, i + this.options.batchFiles));
      await this.jobs.addBatches(job.id, stage, groups);
      for (const wake of [...this.batchWaiters]) wake();
      let lastDone = -1;
      let lastMove = Date.now();
      for (;;) {
        if (this.stopping) throw new Stopping();
        const counts = await this.jobs.stageCounts(job.id, stage);
        if (counts.failed > 0) throw new Error(`the ${stage} stage failed on ${counts.failed} batch(es) of files: ${counts.error}`);
        const files = counts.done === counts.total ? total : Math.min(total, counts.done * this.options.batchFiles);
        // Monotonic across stages (see stagesPercent); the message names the stage and counts only its own work.
        const percent = stagesPercent(index, this.options.stages.length, counts.done, counts.total);
        const message = messages.stage(stage, files, total, counts.result);
        const stats = { files_indexed: files, ...counts.result };
        if (counts.done === counts.total) {
          await this.progress(job, { stage, percent, message, stats }, true);
          if (counts.result.symbols_delta !== undefined) {
            const extracted = counts.result.symbols_extracted;
            symbols = { delta: Number(counts.result.symbols_delta), extracted: extracted === undefined ? null : Number(extracted) };
          }
          break;
        }
        await this.progress(job, { stage, percent, message, stats });
        if (counts.done !== lastDone) {
          lastDone = counts.done;
          lastMove = Date.now();
        } else if (Date.now() - lastMove > this.stageStallMs) {
          throw new Error(
            `no ${stage} worker finished a batch for ${Math.round(this.stageStallMs / 1000)} s; is the ${stage} stage running?`,
          );
        }
        // Checked often (a one-file sync is done in a few ms); progress is written at most every progressIntervalMs anyway.
        await new Promise((r) => setTimeout(r, STAGE_POLL_MS));
      }
    }
    return symbols;
  }

  private lastWrite = new Map<string, number>();

  private async progress(
    job: Job,
    update: { stage: string; percent: number; message: string; stats?: Record<string, number> },
    force = false,
  ): Promise<void> {
    const now = Date.now();
    if (!force && now - (this.lastWrite.get(job.id) ?? 0) < this.options.progressIntervalMs) return;
    this.lastWrite.set(job.id, now);
    if (!(await this.jobs.progress(job.id, this.owner, update))) {
      throw new Error('the job was taken away from this process (interrupted or its repository removed)');
    }
  }
}
