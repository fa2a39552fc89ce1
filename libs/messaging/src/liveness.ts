/**
 * Liveness of requests on the NATS bus, both ends.
 *
 * A caller waiting on a reply cannot tell a slow service from a dead one:
 * without help it waits for its whole timeout. So a caller that wants to know
 * names a heartbeat subject in two headers; the service publishes an empty
 * message there every `interval` while it works on the request (until the
 * reply, or the caller's deadline). The caller gives up on a request that
 * has been silent for `HEARTBEAT_MISSES` intervals: the service died with it.
 */

/** Where the service sends heartbeats for this request. */
export const HEARTBEAT_TO_HEADER = 'sextant-heartbeat-to';
/** How often, in milliseconds. */
export const HEARTBEAT_MS_HEADER = 'sextant-heartbeat-ms';
/** The caller's timeout for this request, in milliseconds: no one waits for the answer after it. */
export const TIMEOUT_MS_HEADER = 'sextant-timeout-ms';

/** A request silent for this many heartbeat intervals is given up as lost. */
const HEARTBEAT_MISSES = 2.5;
/** Services never beat faster than this, whatever a caller asks. */
const MIN_INTERVAL_MS = 100;

interface Active {
  heartbeat?: NodeJS.Timeout;
  deadline?: NodeJS.Timeout;
}

/**
 * The requests a service process is answering: sends their heartbeats, and
 * tells shutdown when the last one was answered.
 */
export class ActiveRequests {
  private readonly active = new Map<object, Active>();
  private readonly waiters = new Set<() => void>();

  /** `onSize` hears the number of active requests after each change (the in-flight gauge). */
  constructor(private readonly onSize: (size: number) => void = () => undefined) {}

  get size(): number {
    return this.active.size;
  }

  /**
   * Starts tracking request `key`. With `beat`, `beat.send()` runs every
   * `beat.intervalMs` until `end(key)`; with a deadline, the request stops
   * counting once it passes (nobody waits for its answer any more).
   */
  begin(key: object, beat?: { send(): void; intervalMs: number }, deadlineMs?: number): void {
    const entry: Active = {};
    if (beat) {
      entry.heartbeat = setInterval(() => beat.send(), Math.max(MIN_INTERVAL_MS, beat.intervalMs));
      entry.heartbeat.unref();
    }
    if (deadlineMs !== undefined && deadlineMs > 0) {
      entry.deadline = setTimeout(() => this.end(key), deadlineMs);
      entry.deadline.unref();
    }
    this.active.set(key, entry);
    this.onSize(this.active.size);
  }

  /** The request was answered (or failed); idempotent. */
  end(key: object): void {
    const entry = this.active.get(key);
    if (!entry) return;
    clearInterval(entry.heartbeat);
    clearTimeout(entry.deadline);
    this.active.delete(key);
    this.onSize(this.active.size);
    if (this.active.size === 0) for (const wake of this.waiters) wake();
  }

  /** Resolves true once no request is active, or false when `timeoutMs` passes first. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.active.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (result: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(result);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.waiters.add(wake);
    });
  }
}

/**
 * The caller's side: requests waiting for a reply, each with the time it was
 * last heard of. `sweep` fails those silent for too long; `failAll` fails
 * every one at once (the connection to the bus is lost).
 */
export class PendingRequests<E> {
  private readonly pending = new Map<string, { lastHeard: number; fail(error: E): void }>();
  private sweeper: NodeJS.Timeout | undefined;

  /** `intervalMs`: the heartbeat interval asked of services (0: no heartbeats, nothing is swept). */
  constructor(
    private readonly intervalMs: number,
    private readonly lost: (silentMs: number) => E,
  ) {}

  add(key: string, fail: (error: E) => void): void {
    this.pending.set(key, { lastHeard: performance.now(), fail });
    if (this.intervalMs > 0 && !this.sweeper) {
      this.sweeper = setInterval(() => this.sweep(), Math.max(25, this.intervalMs / 4));
      this.sweeper.unref();
    }
  }

  heard(key: string): void {
    const entry = this.pending.get(key);
    if (entry) entry.lastHeard = performance.now();
  }

  delete(key: string): void {
    this.pending.delete(key);
    if (this.pending.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  failAll(error: E): void {
    for (const [key, entry] of this.pending) {
      this.delete(key);
      entry.fail(error);
    }
  }

  private sweep(): void {
    const now = performance.now();
    const limit = this.intervalMs * HEARTBEAT_MISSES;
    for (const [key, entry] of this.pending) {
      const silent = now - entry.lastHeard;
      if (silent <= limit) continue;
      this.delete(key);
      entry.fail(this.lost(silent));
    }
  }
}
