import { Logger } from '@nestjs/common';
import { workerId, type Batch, type JobStore } from './store.js';

/**
 * One stage of an indexing job as a workload: a batch of items (file paths)
 * in, counters out (`{files_indexed: 200, symbols_extracted: 1830}`), summed
 * into the job's progress and stats. The symbol and vector indexers are
 * stages; adding one is implementing this and running a `StageWorker` for it.
 */
export interface IndexingStage {
  /** The stage name batches are queued under (`symbols`, `vectors`). */
  readonly name: string;
  process(batch: Batch): Promise<Record<string, number>>;
}

/** Where a worker takes batches from: the job store itself, or (in another service) a client of it over the bus. */
export type BatchSource = Pick<JobStore, 'claimBatch' | 'renewBatch' | 'completeBatch' | 'failBatch'>;

export interface StageWorkerOptions {
  /** How long a claimed batch is this worker's without renewal; renewed every third of it. */
  leaseMs?: number;
  /** Pause between polls when there is no batch. */
  idleMs?: number;
  /** A batch that failed this many times fails its job. */
  maxAttempts?: number;
}

/**
 * Runs a stage: claims batches (several workers, in any processes, share a
 * job's batches), processes them under a renewed lease, records the result.
 * A worker that dies keeps no batch: its lease runs out and another worker
 * claims the batch again.
 */
export class StageWorker {
  readonly owner = workerId();
  private readonly log: Logger;
  private readonly leaseMs: number;
  private readonly idleMs: number;
  private readonly maxAttempts: number;
  private running: Promise<void> | undefined;
  private stopping = false;

  constructor(
    private readonly source: BatchSource,
    private readonly stage: IndexingStage,
    options: StageWorkerOptions = {},
  ) {
    this.log = new Logger(`Stage:${stage.name}`);
    this.leaseMs = options.leaseMs ?? 15_000;
    this.idleMs = options.idleMs ?? 250;
    this.maxAttempts = options.maxAttempts ?? 3;
  }

  start(): void {
    this.stopping = false;
    this.running ??= this.loop().finally(() => (this.running = undefined));
  }

  /** Stops claiming; resolves once the batch in hand is done. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  /** Processes batches until none is free; returns how many it did. */
  async drain(): Promise<number> {
    let done = 0;
    while (!this.stopping && (await this.runOne())) done++;
    return done;
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      let worked = false;
      try {
        worked = await this.runOne();
      } catch (error) {
        this.log.warn(`could not take a batch (${(error as Error).message}); trying again`);
      }
      if (!worked && !this.stopping) await new Promise((r) => setTimeout(r, this.idleMs));
    }
  }

  private async runOne(): Promise<boolean> {
    const batch = await this.source.claimBatch(this.stage.name, this.owner, this.leaseMs);
    if (!batch) return false;
    const renewal = setInterval(() => {
      this.source.renewBatch(batch.id, this.owner, this.leaseMs).catch(() => undefined);
    }, this.leaseMs / 3);
    renewal.unref();
    try {
      const result = await this.stage.process(batch);
      await this.source.completeBatch(batch.id, this.owner, result);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const status = await this.source.failBatch(batch.id, this.owner, message, this.maxAttempts).catch(() => undefined);
      this.log.warn(
        `batch ${batch.id} of job ${batch.jobId} failed (attempt ${batch.attempts}${status === 'failed' ? ', the last' : ''}): ${message}`,
      );
    } finally {
      clearInterval(renewal);
    }
    return true;
  }
}
