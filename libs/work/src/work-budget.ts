import { availableParallelism } from 'node:os';
import { workRunning, workWaiting } from '@sextant/telemetry';
import { callerGone, callerSignal, currentLane, type Lane } from './request-scope.js';

interface Waiter {
  lane: Lane;
  grant(): void;
}

/**
 * A process-wide limit on one kind of costly work (children that clone or
 * grep, files being parsed): at most `slots` at once; the rest wait, the
 * interactive lane (a caller is waiting) ahead of the background one
 * (indexing), each in arrival order. A waiter whose caller's deadline
 * passes leaves the queue (`callerGone`). In the one-process mode every
 * service shares the same budgets, so an indexing job's clones cannot keep
 * a caller's grep waiting behind them.
 */
export class WorkBudget {
  private running = 0;
  private readonly waiting: Record<Lane, Waiter[]> = { interactive: [], background: [] };

  constructor(
    readonly name: string,
    private slots: number,
  ) {
    this.report();
  }

  /** Changes the limit (configuration at start); waiters get the slots it adds. */
  resize(slots: number): void {
    if (!Number.isInteger(slots) || slots < 1) throw new RangeError(`budget ${this.name}: slots must be a positive integer`);
    this.slots = slots;
    while (this.running < this.slots && this.handOver()) this.running++;
    this.report();
  }

  /**
   * Waits for a slot, then runs `work` in it. `signal` (default: the
   * caller's) ends the wait early with `callerGone()`; `lane` defaults to the
   * lane of the work running now.
   */
  async run<T>(work: () => Promise<T>, signal = callerSignal(), lane = currentLane()): Promise<T> {
    const release = await this.acquire(signal, lane);
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** Waits for a slot and returns the function that gives it back (idempotent). */
  async acquire(signal = callerSignal(), lane = currentLane()): Promise<() => void> {
    if (signal?.aborted) throw callerGone();
    if (this.running < this.slots) {
      this.running++;
      this.report();
    } else {
      await new Promise<void>((resolve, reject) => {
        const waiter: Waiter = {
          lane,
          grant: () => {
            signal?.removeEventListener('abort', leave);
            resolve();
          },
        };
        const leave = () => {
          const queue = this.waiting[lane];
          const at = queue.indexOf(waiter);
          if (at >= 0) queue.splice(at, 1);
          this.report();
          reject(callerGone());
        };
        signal?.addEventListener('abort', leave, { once: true });
        this.waiting[lane].push(waiter);
        this.report();
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes straight to the next waiter, or is freed.
      if (this.running > this.slots || !this.handOver()) this.running--;
      this.report();
    };
  }

  /** Grants a slot to the first waiter, interactive lane first; false when nobody waits. */
  private handOver(): boolean {
    const next = this.waiting.interactive.shift() ?? this.waiting.background.shift();
    next?.grant();
    return next !== undefined;
  }

  private report(): void {
    workRunning.set({ budget: this.name }, this.running);
    workWaiting.set({ budget: this.name, lane: 'interactive' }, this.waiting.interactive.length);
    workWaiting.set({ budget: this.name, lane: 'background' }, this.waiting.background.length);
  }
}

/**
 * The process's budgets (sizes from SEXTANT_MAX_CLONES, SEXTANT_MAX_GREPS and
 * SEXTANT_MAX_PARSES, applied by `runMain`):
 * - `clones`: git children that talk to a remote (clone, fetch, ls-remote);
 * - `greps`: ripgrep and git grep children;
 * - `parses`: files handed to the parse workers at once, over every parse pool of the process;
 * - `indexers`: compiler-grade indexers (scip-typescript, scip-python) at once: each takes a core and up to gigabytes.
 */
export const workBudgets = {
  clones: new WorkBudget('clones', 4),
  greps: new WorkBudget('greps', 8),
  parses: new WorkBudget('parses', availableParallelism() * 2),
  indexers: new WorkBudget('indexers', 1),
} as const;
