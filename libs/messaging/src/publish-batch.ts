import { Logger } from '@nestjs/common';

/**
 * Publishes made in one turn of the event loop: the first goes out at once, the others together at the turn's end
 * (`setImmediate`). nats.js writes what is published in one synchronous run as one socket write (it flushes in a
 * microtask), so the requests a gateway takes in one turn, or the replies a service finishes in one, cost two writes
 * (more past nats.js's 32 KiB flush threshold) and two wake-ups of NATS instead of one each. One call at a time is
 * not delayed: its publish is its turn's first. (A turn opened in a `setImmediate` callback lasts to the next check
 * phase: a publish of the next poll phase then waits for it.) See docs/adr/0065.
 */
export class PublishBatch {
  private readonly logger = new Logger('NatsBus');
  private queued: Array<() => void> = [];
  private immediate: NodeJS.Immediate | undefined;

  /** `publish` runs now if it is the turn's first, else at the end of this turn; it settles its own failures (a closed connection, say). */
  add(publish: () => void): void {
    if (this.immediate) {
      this.queued.push(publish);
      return;
    }
    // The turn's first: the end of the turn flushes what comes after it.
    this.immediate = setImmediate(() => this.flush());
    this.run(publish);
  }

  /**
   * Runs what is queued, in order; one that throws does not keep the others from going out. The turn stays open
   * while they run: a publish one of them makes goes after the rest, not ahead of them.
   */
  flush(): void {
    while (this.queued.length > 0) {
      const queued = this.queued;
      this.queued = [];
      for (const publish of queued) this.run(publish);
    }
    clearImmediate(this.immediate);
    this.immediate = undefined;
  }

  private run(publish: () => void): void {
    try {
      publish();
    } catch (error) {
      this.logger.warn(`a publish failed: ${String(error)}`);
    }
  }
}
