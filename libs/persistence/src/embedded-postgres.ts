import { mkdirSync, rmSync } from 'node:fs';
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
 * PGlite files take one writer: the caller holds the data directory's lock
 * (embedded mode takes it with `lockDataDir` of @sextant/runtime).
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const inMemory = options.dataDir === 'memory://';
  const dir = inMemory ? undefined : resolve(options.dataDir);
  if (dir) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const db = await PGlite.create({ dataDir: dir ? join(dir, 'pgdata') : 'memory://', extensions: { vector } });
  await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
  const socketPath = dir && join(dir, '.s.PGSQL.5432').length <= MAX_SOCKET_PATH ? join(dir, '.s.PGSQL.5432') : undefined;
  if (socketPath) rmSync(socketPath, { force: true });
  const server = new PGLiteSocketServer({
    db,
    ...(socketPath ? { path: socketPath } : { host: '127.0.0.1', port: 0 }),
    maxConnections: options.maxConnections ?? 64,
  });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw error;
  }
  const url = socketPath
    ? `postgres://postgres@localhost/postgres?host=${encodeURIComponent(dir!)}`
    : `postgres://postgres@${server.getServerConn()}/postgres`;
  return {
    url,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
