import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Duplex } from 'node:stream';
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

// Unix socket paths are limited to ~107 bytes (104 on macOS).
const MAX_SOCKET_PATH = 100;
const SOCKET_NAME = '.s.PGSQL.5432';

/**
 * Postgres for embedded mode: PGlite (Postgres compiled to WASM, with
 * pgvector) in this process, served on the Postgres wire protocol so the
 * services use the same `pg` driver, TypeORM config, migrations and SQL as
 * against a real server. PGlite takes any user and password, so it is never
 * served on TCP: only on a Unix socket in a directory of mode 0700 (the
 * `socket` directory inside the data directory, or, when that path is too
 * long for a socket or the database is in memory, a directory of its own
 * made with mkdtemp under the temporary directory, removed on stop), which
 * only this user can enter. See docs/adr/0004 and 0045.
 * PGlite files take one writer: the caller holds the data directory's lock
 * (embedded mode takes it with `lockDataDir` of @sextant/runtime).
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const inMemory = options.dataDir === 'memory://';
  const dir = inMemory ? undefined : resolve(options.dataDir);
  if (dir) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const db = await PGlite.create({ dataDir: dir ? join(dir, 'pgdata') : 'memory://', extensions: { vector } });
  await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
  const socket = socketDirectory(dir);
  const server = new PGLiteSocketServer({
    db: wholeSequences(db),
    path: join(socket.path, SOCKET_NAME),
    maxConnections: options.maxConnections ?? 64,
  });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    socket.remove();
    throw error;
  }
  const url = `postgres://postgres@localhost/postgres?host=${encodeURIComponent(socket.path)}`;
  const accept = (server as unknown as { handleConnection?: (socket: Duplex) => Promise<void> }).handleConnection?.bind(server);
  if (accept) inProcess.set(url, () => connectInProcess(accept));
  return {
    url,
    async stop() {
      inProcess.delete(url);
      await server.stop();
      await db.close();
      socket.remove();
    },
  };
}

/** Per embedded database of this process (by its URL): a new in-process connection to it. */
const inProcess = new Map<string, () => Duplex>();

/**
 * For a `pg` client of this process (its `stream` option), a connection to the embedded database at `url` that
 * never leaves the process; undefined when `url` is no embedded database of this process (another process's, a
 * server's). The socket stays for everything else (`sextant keys`, `psql`).
 *
 * Why: every query through the Unix socket costs four system calls (a write and a read each way) and the event
 * loop's turns to serve them, and pglite-socket joins a big message's socket reads with one `Buffer.concat` per read
 * (quadratic in its size). In memory a message arrives whole, as `pg` wrote it.
 */
export function inProcessStream(url: string): (() => Duplex) | undefined {
  return inProcess.get(url);
}

/**
 * Two ends of an in-memory connection: what one writes the other reads. The ends are half-close free (ending one
 * ends both, as a socket `pg` ends), and carry the few `net.Socket` methods `pg` and pglite-socket call.
 */
class End extends Duplex {
  peer!: End;
  /** For the client's end: hands the server's end to the socket server once `pg` connects. */
  onConnect?: () => void;
  readonly remoteAddress = 'in-process';
  readonly remotePort = 0;

  constructor() {
    super({ allowHalfOpen: false });
  }

  override _read(): void {
    // Data is pushed by the peer's writes.
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.peer.push(chunk);
    done();
  }

  /** Messages `pg` wrote together (a query's Parse, Bind, Execute, Sync) cross as one chunk, as one socket read would. */
  override _writev(chunks: Array<{ chunk: Buffer }>, done: (error?: Error | null) => void): void {
    this.peer.push(chunks.length === 1 ? chunks[0].chunk : Buffer.concat(chunks.map((c) => c.chunk)));
    done();
  }

  override _final(done: (error?: Error | null) => void): void {
    this.peer.push(null);
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    if (!this.peer.destroyed) this.peer.destroy();
    done(error);
  }

  /**
   * `pg` connects its stream itself (it makes the stream when it makes the client, which may never connect): only now
   * does the server take the other end, on the next turn of the event loop as an accepted socket is (so a connection
   * just ended has left the server's count), and the client hears it is connected.
   */
  connect(): this {
    const accept = this.onConnect;
    this.onConnect = undefined;
    setImmediate(() => {
      accept?.();
      this.emit('connect');
    });
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }
}

/** A new connection: one end handed to the socket server as if it had accepted it, the other returned to `pg`. */
function connectInProcess(accept: (socket: Duplex) => Promise<void>): Duplex {
  const client = new End();
  const server = new End();
  client.peer = server;
  server.peer = client;
  client.onConnect = () => void accept(server);
  return client;
}

/**
 * A fresh directory of mode 0700 for the socket: `<data dir>/socket` (made
 * anew, so a directory or link left there by anyone else is not used), or a
 * mkdtemp directory (0700 by construction) when that path is too long or
 * there is no data directory.
 */
function socketDirectory(dir: string | undefined): { path: string; remove(): void } {
  const inside = dir && join(dir, 'socket');
  if (dir) rmSync(join(dir, SOCKET_NAME), { force: true }); // where earlier versions put it
  if (inside && join(inside, SOCKET_NAME).length <= MAX_SOCKET_PATH) {
    rmSync(inside, { recursive: true, force: true });
    mkdirSync(inside, { mode: 0o700 });
    return { path: inside, remove: () => rmSync(join(inside, SOCKET_NAME), { force: true }) };
  }
  const base = join(tmpdir(), 'sextant-pg-XXXXXX', SOCKET_NAME).length <= MAX_SOCKET_PATH ? tmpdir() : '/tmp';
  const own = mkdtempSync(join(base, 'sextant-pg-'));
  return { path: own, remove: () => rmSync(own, { recursive: true, force: true }) };
}

/**
 * PGlite is one session; pglite-socket serves several connections by queuing
 * their protocol messages and only keeps one connection's messages together
 * while an explicit transaction is open (`isInTransaction`). An
 * extended-protocol statement (Parse, Bind, Describe, Execute … Sync) is not
 * a transaction block, so another connection's messages could land between
 * its Bind and Execute and run on its portal — seen with big Bind messages
 * that arrive in several reads (electric-sql/pglite#1046). This view of the
 * database also reports "in a transaction" from the first message of such a
 * sequence until its Sync, so the queue serves that connection alone until then.
 */
function wholeSequences(db: PGlite): PGlite {
  let open = false;
  return new Proxy(db, {
    get(target, property) {
      if (property === 'isInTransaction') return () => open || target.isInTransaction();
      if (property === 'execProtocolRawStream') {
        return async (message: Uint8Array, options: Parameters<PGlite['execProtocolRawStream']>[1]) => {
          try {
            return await target.execProtocolRawStream(message, options);
          } finally {
            open = sequenceOpenAfter(message[0], open);
          }
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value.bind(target) as unknown) : value;
    },
  });
}

/** Parse, Bind, Describe, Execute, Close, Flush open (or continue) a sequence; Sync and a simple Query end it. */
function sequenceOpenAfter(type: number, open: boolean): boolean {
  const c = String.fromCharCode(type);
  if ('PBDECH'.includes(c)) return true;
  if (c === 'S' || c === 'Q' || c === 'X') return false;
  return open; // startup and other messages (no type byte, COPY data) leave it as it was
}
