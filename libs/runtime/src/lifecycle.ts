import type { OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
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
 */
export class ModuleLifecycle implements OnModuleInit, OnApplicationShutdown {
  private readonly locks: DataDirLock[] = [];

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

  async onApplicationShutdown(): Promise<void> {
    try {
      await this.parts.stop();
    } finally {
      for (const lock of this.locks.splice(0)) lock.release();
    }
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
