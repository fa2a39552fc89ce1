import { Logger } from '@nestjs/common';
import type { Repository } from './registry.store.js';

export interface HeadsOptions {
  /** The indexed repositories whose heads are read (every round). */
  repositories: () => Promise<readonly Repository[]>;
  /** A repository's branch head now (`git rev-parse` of a workspace, `git ls-remote` of a remote), null when unknown. */
  read: (repository: Repository) => Promise<string | null>;
  /** A round starts this long after the previous one ended. */
  intervalMs: number;
  /** Heads read at once in a round. */
  concurrency: number;
}

/**
 * The commit each indexed repository's branch points at, read in the
 * background — one round over every indexed repository every `intervalMs`,
 * `concurrency` reads at a time — and kept. A request reads what is kept and
 * never runs git: with 1,000 remote repositories, a `list_repositories` that
 * ran `git ls-remote` for each repository whose cached head had expired
 * waited on up to 1,000 of them (bench/org).
 * A head read before the repository's last index is older than what that
 * index saw (Discovery pinned the head it indexed): the indexed commit is
 * then the newest head known.
 */
export class Heads {
  private readonly log = new Logger('Heads');
  private readonly read = new Map<string, { commit: string | null; at: number }>();
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: HeadsOptions) {}

  /** Starts the rounds: the first at once. */
  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.round;
  }

  /**
   * The newest head known of the repository: the last background read, or its
   * indexed commit when it was indexed after that read (undefined: never read
   * and never indexed).
   */
  of(repository: Repository): string | null | undefined {
    const read = this.read.get(repository.id);
    const indexedAt = repository.lastIndexedAt?.getTime();
    if (repository.indexedCommit !== null && indexedAt !== undefined && (!read || read.at < indexedAt)) return repository.indexedCommit;
    return read?.commit;
  }

  /** One round over every indexed repository now (the timer's work; tests call it to see a round's effect). */
  async refresh(): Promise<void> {
    const repositories = (await this.options.repositories()).filter((r) => r.indexedCommit !== null);
    const known = new Set(repositories.map((r) => r.id));
    for (const id of this.read.keys()) if (!known.has(id)) this.read.delete(id);
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(this.options.concurrency, repositories.length) }, async () => {
        while (next < repositories.length && !this.stopped) {
          const repository = repositories[next++];
          const at = Date.now();
          const commit = await this.options.read(repository).catch(() => null);
          this.read.set(repository.id, { commit, at });
        }
      }),
    );
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.round = this.refresh()
        .catch((error: Error) => this.log.warn(`could not read the branch heads (${error.message}); trying again later`))
        .finally(() => {
          this.round = undefined;
          if (!this.stopped) this.schedule(this.options.intervalMs);
        });
    }, delayMs);
    this.timer.unref();
  }
}
