/**
 * Runs `step` again and again until stopped; when a step found nothing to
 * do (returned false) or failed, waits `idleMs` first, or less if `wake()` is
 * called. The loop of job coordinators and stage workers alike.
 */
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
      try {
        worked = await this.step();
      } catch (error) {
        this.onError(error as Error);
      }
      if (worked || this.stopping) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.idleMs);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
    }
  }
}
