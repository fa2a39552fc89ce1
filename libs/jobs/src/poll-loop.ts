/** The least pause after a failed step. */
const ERROR_PAUSE_MS = 1_000;

/**
 * Runs `step` again and again, in `count` loops at once (default 1), until
 * stopped; a loop whose step found nothing to do (returned false) waits
 * `idleMs` first, or less if `wake()` is called; one whose step failed, at
 * least `ERROR_PAUSE_MS`, so that a short idle pause (a long-polling
 * worker's) never turns an outage into a busy loop of warnings. The loops of
 * job coordinators (jobs at once) and stage workers (batches at once) alike.
 */
export class PollLoop {
  private running: Promise<void> | undefined;
  private stopping = false;
  private readonly wakeUps = new Set<() => void>();
  private readonly count: number;

  constructor(
    private readonly step: () => Promise<boolean>,
    private readonly idleMs: number,
    private readonly onError: (error: Error) => void,
    count = 1,
  ) {
    this.count = Math.max(1, count);
  }

  get stopped(): boolean {
    return this.stopping;
  }

  start(): void {
    this.stopping = false;
    this.running ??= Promise.all(Array.from({ length: this.count }, () => this.loop())).then(() => {
      this.running = undefined;
    });
  }

  /** Stops every loop after its step in progress. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.running;
  }

  /** There is work now: no loop waits for the rest of its idle pause. */
  wake(): void {
    for (const wakeUp of [...this.wakeUps]) wakeUp();
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      let worked = false;
      let failed = false;
      try {
        worked = await this.step();
      } catch (error) {
        failed = true;
        this.onError(error as Error);
      }
      if (worked || this.stopping) continue;
      const pause = failed ? Math.max(this.idleMs, ERROR_PAUSE_MS) : this.idleMs;
      await new Promise<void>((resolve) => {
        const wakeUp = () => {
          clearTimeout(timer);
          this.wakeUps.delete(wakeUp);
          resolve();
        };
        const timer = setTimeout(wakeUp, pause);
        this.wakeUps.add(wakeUp);
      });
    }
  }
}
