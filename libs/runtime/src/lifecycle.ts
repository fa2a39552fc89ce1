import type { BeforeApplicationShutdown, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { lockDataDir, type DataDirLock } from './data-dir.js';

/** What a module starts once its providers exist (the database is up) and stops at shutdown. */
export interface Lifecycle {
  /** Directories only this process may use meanwhile (persistent clones, index files): a second process is told who holds them. */
  lockDirs?: readonly string[];
  start(): Promise<void> | void;
  stop(): Promise<void>;
}

/**
 * The one lifecycle provider of the service modules that run background
 * work (a job coordinator, a stage worker and its parse pool, a clone
 * cache): takes the directory's lock, starts; at shutdown stops, then lets
 * the lock go whatever stopping did.
 *
 * It stops before the application's servers close (Nest's
 * `beforeApplicationShutdown`), not after them: in one process, a stage
 * worker reaches the registry over the in-process bus, which closes with the
 * servers, and its claims failed — a warning a second per worker — until its
 * module's turn came. Databases still close after it (`onApplicationShutdown`).
 */
export class ModuleLifecycle implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly locks: DataDirLock[] = [];
  private stopped: Promise<void> | undefined;

  constructor(private readonly parts: Lifecycle) {}

  async onModuleInit(): Promise<void> {
    try {
      for (const dir of this.parts.lockDirs ?? []) this.locks.push(lockDataDir(dir));
    } catch (error) {
      for (const lock of this.locks.splice(0)) lock.release();
      throw error;
    }
    await this.parts.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    this.stopped ??= (async () => {
      try {
        await this.parts.stop();
      } finally {
        for (const lock of this.locks.splice(0)) lock.release();
      }
    })();
    return this.stopped;
  }

  /** Stopped already, unless a caller of the hooks skipped the one before (then now). */
  onApplicationShutdown(): Promise<void> {
    return this.beforeApplicationShutdown();
  }
}

/**
 * The lifecycle of an indexing stage's service (symbol-indexer,
 * vector-search): its persistent clones locked and started before the stage
 * worker, then `started` (e.g. search indexes loaded in the background); at
 * shutdown the worker finishes the batch in hand, then the parse pool, the
 * clones and the launcher close, then `closing` (e.g. index files saved).
 */
export function stageLifecycle(parts: {
  lockDirs: readonly string[];
  worker: { start(): void; stop(): Promise<unknown> };
  pool: { close(): Promise<unknown> };
  clones: { start(): Promise<unknown>; stop(): Promise<unknown> };
  spawner: { close(): Promise<unknown> };
  started?: () => void;
  closing?: () => Promise<unknown>;
}): ModuleLifecycle {
  const { worker, pool, clones, spawner } = parts;
  return new ModuleLifecycle({
    lockDirs: parts.lockDirs,
    start: async () => {
      await clones.start();
      worker.start();
      parts.started?.();
    },
    stop: async () => {
      await worker.stop();
      await pool.close();
      await clones.stop();
      await spawner.close();
      await parts.closing?.();
    },
  });
}
