import { Logger } from '@nestjs/common';

/** What a sync attempt found: a job started (or one already queued that will see the change), or a job still running. */
export type SyncOutcome = 'started' | 'busy' | 'gone';

/**
 * Syncs a watched workspace by itself a moment after it is edited: each change
 * a watcher sees (re)arms a timer of `debounceMs` for its repository, so a
 * burst of saves makes one job. A job still running when the timer fires (its
 * discovery may have begun before the change) is waited for: the timer is
 * armed again until a sync can start after the last change.
 */
export class AutoSync {
  private readonly log = new Logger('AutoSync');
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private sync: ((repositoryId: string) => Promise<SyncOutcome>) | undefined;

  /** `debounceMs` 0: off (a workspace is synced when a tool asks, as before). */
  constructor(private readonly debounceMs: number) {}

  /** From here on, changes start syncs through `sync`. */
  start(sync: (repositoryId: string) => Promise<SyncOutcome>): void {
    this.sync = sync;
  }

  stop(): void {
    this.sync = undefined;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  /** A watcher saw a change in the workspace of `repositoryId`. */
  changed(repositoryId: string): void {
    if (this.debounceMs === 0 || !this.sync) return;
    clearTimeout(this.timers.get(repositoryId));
    const timer = setTimeout(() => void this.fire(repositoryId), this.debounceMs);
    timer.unref();
    this.timers.set(repositoryId, timer);
  }

  private async fire(repositoryId: string): Promise<void> {
    this.timers.delete(repositoryId);
    const sync = this.sync;
    if (!sync) return;
    try {
      const outcome = await sync(repositoryId);
      if (outcome === 'busy') this.changed(repositoryId);
    } catch (error) {
      // The next change arms it again; a tool's own sync_repo still works.
      this.log.warn(`could not sync workspace ${repositoryId} after a change: ${(error as Error).message}`);
    }
  }
}
