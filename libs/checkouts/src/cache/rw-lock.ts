/**
 * A per-repository readers/writer lock. Greps read a checkout concurrently;
 * a clone or refresh (which moves the checkout) waits for them and runs
 * alone. Waiting writers block new readers, so a refresh is never starved.
 */
export class ReadWriteLock {
  private readers = 0;
  private writer = false;
  private readonly queue: Array<{ write: boolean; grant: () => void }> = [];

  get idle(): boolean {
    return this.readers === 0 && !this.writer && this.queue.length === 0;
  }

  async read<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire(false);
    try {
      return await fn();
    } finally {
      this.readers--;
      this.drain();
    }
  }

  async write<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire(true);
    try {
      return await fn();
    } finally {
      this.writer = false;
      this.drain();
    }
  }

  private acquire(write: boolean): Promise<void> {
    if (this.queue.length === 0 && this.canGrant(write)) {
      this.take(write);
      return Promise.resolve();
    }
    return new Promise((grant) => this.queue.push({ write, grant }));
  }

  private canGrant(write: boolean): boolean {
    return write ? !this.writer && this.readers === 0 : !this.writer;
  }

  private take(write: boolean): void {
    if (write) this.writer = true;
    else this.readers++;
  }

  private drain(): void {
    while (this.queue.length > 0 && this.canGrant(this.queue[0].write)) {
      const next = this.queue.shift()!;
      this.take(next.write);
      next.grant();
      if (next.write) return;
    }
  }
}
