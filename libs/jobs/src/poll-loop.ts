/**
 * Runs `step` again and again until stopped; when a step found nothing to
 * do (returned false), waits `idleMs` first, or less if `wake()` is called;
 * when it failed, at least `ERROR_PAUSE_MS`, so that a short idle pause (a
 * long-polling worker's) never turns an outage into a busy loop of warnings.
 * The loop of job coordinators and stage workers alike.
 */
/** The least pause after a failed step. */
const ERROR_PAUSE_MS = 1_000;

export class PollLoop {
  private running: Promise<void> | undefined;
  private stopping = false;
  private wakeUp: (() => void) | undefined;

  constructor(
    private readonly step: () => Promise<boolean>,
    private readonly idleMs: number,
    private readonly onError: (error: Error) => void,
  ) {}

  get stopped(): boolean {
    return this.stopping;
  }

  start(): void {
    this.stopping = false;
    this.running ??= this.loop().finally(() => (this.running = undefined));
  }

  /** Stops after the step in progress. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wakeUp?.();
    await this.running;
  }

  /** There is work now: do not wait for the rest of the idle pause. */
  wake(): void {
    this.wakeUp?.();
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
        const timer = setTimeout(resolve, pause);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
    }
  }
}
