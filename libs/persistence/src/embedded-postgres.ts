import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  /** Connection URL for `pg`/TypeORM, exactly as for a real server. */
  readonly url: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Directory for the database files; `memory://` keeps everything in memory (tests). */
  dataDir: string;
  /** Most concurrent client connections (the pools of every service add up). */
  maxConnections?: number;
}

// Unix socket paths are limited to ~107 bytes; longer data dirs fall back to loopback TCP.
const MAX_SOCKET_PATH = 100;

/**
 * Postgres for embedded mode: PGlite (Postgres compiled to WASM, with
 * pgvector) in this process, served on the Postgres wire protocol so the
 * services use the same `pg` driver, TypeORM config, migrations and SQL as
 * against a real server. Served on a Unix socket inside the data directory
 * (owner-only), or on an ephemeral loopback port. See docs/adr/0004.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const inMemory = options.dataDir === 'memory://';
  const dir = inMemory ? undefined : resolve(options.dataDir);
  const releaseLock = dir ? lockDataDir(dir) : () => undefined;
  try {
    const db = await PGlite.create({ dataDir: dir ? join(dir, 'pgdata') : 'memory://', extensions: { vector } });
    await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
    const socketPath = dir && join(dir, '.s.PGSQL.5432').length <= MAX_SOCKET_PATH ? join(dir, '.s.PGSQL.5432') : undefined;
    if (socketPath) rmSync(socketPath, { force: true });
    const server = new PGLiteSocketServer({
      db,
      ...(socketPath ? { path: socketPath } : { host: '127.0.0.1', port: 0 }),
      maxConnections: options.maxConnections ?? 64,
    });
    await server.start();
    const url = socketPath
      ? `postgres://postgres@localhost/postgres?host=${encodeURIComponent(dir!)}`
      : `postgres://postgres@${server.getServerConn()}/postgres`;
    return {
      url,
      async stop() {
        await server.stop();
        await db.close();
        releaseLock();
      },
    };
  } catch (error) {
    releaseLock();
    throw error;
  }
}

/**
 * PGlite files must have one writer: a second Sextant on the same data
 * directory would corrupt them. A lock file holding our pid guards it; a lock
 * left by a dead process is taken over.
 */
function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const lockFile = join(dir, 'sextant.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx', 0o600);
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(lockFile, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
        throw new Error(
          `The data directory ${dir} is in use by another Sextant process (pid ${owner}). ` +
            'Stop it, or set SEXTANT_DATA_DIR to another directory.',
        );
      }
      rmSync(lockFile, { force: true });
    }
  }
  throw new Error(`Could not lock the data directory ${dir}.`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
