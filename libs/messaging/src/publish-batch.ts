import { Logger } from '@nestjs/common';

/**
 * Publishes made in one turn of the event loop, sent together at its end (`setImmediate`). nats.js writes what is
 * published in one synchronous run as one socket write (it flushes in a microtask), so the requests a gateway takes
 * in one turn, or the replies a service finishes in one, cost one write and one wake-up of NATS instead of one
 * each. A publish alone waits only for the rest of its turn's I/O callbacks. See docs/adr/0065.
 */
export class PublishBatch {
  private readonly logger = new Logger('NatsBus');
  private queued: Array<() => void> = [];
  private immediate: NodeJS.Immediate | undefined;

  /** `publish` runs at the end of this turn; it settles its own failures (a closed connection, say). */
  add(publish: () => void): void {
    this.queued.push(publish);
    this.immediate ??= setImmediate(() => this.flush());
  }

  /** Runs what is queued, in order; one that throws does not keep the others from going out. */
  flush(): void {
    clearImmediate(this.immediate);
    this.immediate = undefined;
    const queued = this.queued;
    this.queued = [];
    for (const publish of queued) {
      try {
        publish();
      } catch (error) {
        this.logger.warn(`a queued publish failed: ${String(error)}`);
      }
    }
  }
}
