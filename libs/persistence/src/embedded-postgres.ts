import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { StartupError } from '@sextant/runtime';

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

/** What the lock file says about the process holding the directory. */
interface LockHolder {
  pid: number;
  started_at?: string;
  command?: string;
}

/**
 * PGlite files must have one writer: a second Sextant on the same data
 * directory would corrupt them. A lock file naming our process guards it; a
 * lock left by a dead process is taken over. A live holder is reported in
 * one line: which process, and what to do.
 */
function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const lockFile = join(dir, 'sextant.lock');
  const self: LockHolder = { pid: process.pid, started_at: new Date().toISOString(), command: process.argv.slice(1).join(' ') };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx', 0o600);
      writeFileSync(fd, JSON.stringify(self));
      closeSync(fd);
      return () => rmSync(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(lockFile);
      if (holder && isAlive(holder.pid)) {
        const about = [`pid ${holder.pid}`, holder.command && `"${holder.command}"`, holder.started_at && `started ${holder.started_at}`]
          .filter(Boolean)
          .join(', ');
        throw new StartupError(
          `The data directory ${dir} is in use by another Sextant process (${about}). ` +
            'Stop that process, connect your MCP client to it instead, or set SEXTANT_DATA_DIR to another directory.',
        );
      }
      rmSync(lockFile, { force: true });
    }
  }
  throw new StartupError(`Could not lock the data directory ${dir}; check that this user may write to it, or set SEXTANT_DATA_DIR.`);
}

/** The holder named by a lock file: JSON, or a bare pid (older versions); undefined when unreadable. */
function readHolder(lockFile: string): LockHolder | undefined {
  let text: string;
  try {
    text = readFileSync(lockFile, 'utf8').trim();
  } catch {
    return undefined;
  }
  let holder: Partial<LockHolder>;
  try {
    holder = /^\d+$/.test(text) ? { pid: Number(text) } : (JSON.parse(text) as Partial<LockHolder>);
  } catch {
    return undefined;
  }
  return Number.isInteger(holder.pid) && holder.pid! > 0 ? (holder as LockHolder) : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
