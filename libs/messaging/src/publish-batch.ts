import { Logger } from '@nestjs/common';

/**
 * Publishes made in one turn of the event loop: the first goes out at once, the others together at the turn's end
 * (`setImmediate`). nats.js writes what is published in one synchronous run as one socket write (it flushes in a
 * microtask), so the requests a gateway takes in one turn, or the replies a service finishes in one, cost two writes
 * and two wake-ups of NATS instead of one each, and a publish alone (one call at a time) is not delayed at all.
 * See docs/adr/0065.
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

  /** Runs what is queued, in order; one that throws does not keep the others from going out. */
  flush(): void {
    clearImmediate(this.immediate);
    this.immediate = undefined;
    const queued = this.queued;
    this.queued = [];
    for (const publish of queued) this.run(publish);
  }

  private run(publish: () => void): void {
    try {
      publish();
    } catch (error) {
      this.logger.warn(`a publish failed: ${String(error)}`);
    }
  }
}
