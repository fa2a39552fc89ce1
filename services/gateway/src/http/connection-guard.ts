import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How long a connection whose request was answered before its body arrived is
 * kept open after the answer (its write side closed), so the client reads the
 * answer before the connection is reset; then it is destroyed, however slowly
 * the client keeps sending.
 */
const LINGER_MS = 1_000;

export interface ConnectionLimits {
  /** Open connections at most; one more makes room by closing the least recently active idle one. */
  maxConnections: number;
  /** The same per client address. */
  maxConnectionsPerIp: number;
}

interface Tracked {
  ip: string;
  /** A request is being answered on it: it is never closed to make room. */
  busy: boolean;
  /** Some request on it carried valid credentials: closed to make room only when no other idle connection is left. */
  vouched: boolean;
}

/** Idle connections in the order they became idle (a Set keeps insertion order): the first is the one to close. */
class IdleQueue {
  readonly strangers = new Set<Socket>();
  readonly vouched = new Set<Socket>();

  add(socket: Socket, vouched: boolean): void {
    (vouched ? this.vouched : this.strangers).add(socket);
  }

  delete(socket: Socket): void {
    this.strangers.delete(socket);
    this.vouched.delete(socket);
  }

  /** The idle connection to close first: the least recently active stranger, else the least recently active vouched one. */
  first(): Socket | undefined {
    return this.strangers.values().next().value ?? this.vouched.values().next().value;
  }
}

const GUARDS = new WeakMap<Server, ConnectionGuard>();

/**
 * Keeps slow and idle connections from holding the HTTP server's connection
 * slots (docs/adr/0045). Node's `server.maxConnections` refuses the newest
 * connection when full, so 1,024 slow sockets shut out every probe and
 * caller; here the newest connection is always taken and, past the cap (in
 * all or from its address), the least recently active *idle* connection is
 * closed to make room: one that has not sent a whole request's headers yet or
 * waits between requests, those of strangers before those that carried valid
 * credentials. A connection whose request is being answered is never closed;
 * when every connection is busy, the new one is refused. A response that ends
 * before its request's body arrived (a refusal from the headers, a route that
 * takes no body) closes its connection after LINGER_MS, so a body sent a byte
 * at a time holds nothing.
 */
export class ConnectionGuard {
  private readonly tracked = new Map<Socket, Tracked>();
  private readonly idle = new IdleQueue();
  private readonly idleByIp = new Map<string, IdleQueue>();
  private readonly countByIp = new Map<string, number>();

  constructor(private readonly limits: ConnectionLimits) {}

  /** The guard installed on this server, if any. */
  static of(server: Server): ConnectionGuard | undefined {
    return GUARDS.get(server);
  }

  install(server: Server): void {
    GUARDS.set(server, this);
    server.on('connection', (socket: Socket) => this.admit(socket));
  }

  /** Open connections (for tests and the bench). */
  get size(): number {
    return this.tracked.size;
  }

  /** A request arrived on its connection (its headers are in): busy until its response is done. */
  request(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    const entry = this.tracked.get(socket);
    if (entry) {
      entry.busy = true;
      this.idle.delete(socket);
      this.idleByIp.get(entry.ip)?.delete(socket);
    }
    res.once('close', () => {
      if (!req.complete) closeAfterAnswer(req, res);
      if (!entry || socket.destroyed || !this.tracked.has(socket)) return;
      entry.busy = false;
      this.markIdle(socket, entry);
    });
  }

  /** The request on this connection carried valid credentials. */
  vouch(socket: Socket): void {
    const entry = this.tracked.get(socket);
    if (entry) entry.vouched = true;
  }

  private admit(socket: Socket): void {
    const ip = socket.remoteAddress ?? '';
    const fromIp = this.countByIp.get(ip) ?? 0;
    if (fromIp >= this.limits.maxConnectionsPerIp && !this.evict(this.idleByIp.get(ip))) return void socket.destroy();
    if (this.tracked.size >= this.limits.maxConnections && !this.evict(this.idle)) return void socket.destroy();
    const entry: Tracked = { ip, busy: false, vouched: false };
    this.tracked.set(socket, entry);
    this.countByIp.set(ip, (this.countByIp.get(ip) ?? 0) + 1);
    this.markIdle(socket, entry);
    socket.once('close', () => this.forget(socket, entry));
  }

  /** Closes the queue's first idle connection; false when it has none. */
  private evict(queue: IdleQueue | undefined): boolean {
    const victim = queue?.first();
    if (!victim) return false;
    const entry = this.tracked.get(victim);
    if (entry) this.forget(victim, entry);
    victim.destroy();
    return true;
  }

  private markIdle(socket: Socket, entry: Tracked): void {
    this.idle.add(socket, entry.vouched);
    let queue = this.idleByIp.get(entry.ip);
    if (!queue) this.idleByIp.set(entry.ip, (queue = new IdleQueue()));
    queue.add(socket, entry.vouched);
  }

  private forget(socket: Socket, entry: Tracked): void {
    if (!this.tracked.delete(socket)) return;
    this.idle.delete(socket);
    const queue = this.idleByIp.get(entry.ip);
    queue?.delete(socket);
    const left = (this.countByIp.get(entry.ip) ?? 1) - 1;
    if (left > 0) this.countByIp.set(entry.ip, left);
    else {
      this.countByIp.delete(entry.ip);
      this.idleByIp.delete(entry.ip);
    }
  }
}

/** True when the request announces a body (Content-Length above 0, or chunked). */
function hasBody(req: IncomingMessage): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

/**
 * For a response written before its request's body was read (a refusal from
 * the headers): says `Connection: close`, so the client does not send its
 * next request on this connection, which closes once this response is done.
 *
 * Node ends such a connection with `socket.destroySoon()`: it closes the
 * socket the moment the answer is written. The client is still sending the
 * body, so its data reaches a closed socket, the kernel answers with a reset,
 * and the client (whose write fails with EPIPE) often never reads the answer
 * that was already on its way: measured, 105 of 800 posts of 1.25 MiB refused with
 * 413 lost their answer. Here this connection's close lingers instead.
 */
export function refuseBody(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete || !hasBody(req) || res.headersSent) return;
  res.setHeader('connection', 'close');
  const socket = req.socket;
  socket.destroySoon = () => linger(socket);
}

/**
 * The response is done but its request's body is not all in: the client may
 * still be sending it, or sending it a byte at a time.
 */
function closeAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  if (res.writableFinished) linger(req.socket);
  else req.socket.destroy();
}

const LINGERING = new WeakSet<Socket>();

/**
 * A lingering close: the write side is closed now, what the client still
 * sends is read and dropped (Node's parser discards the rest of the body), and
 * the connection is destroyed after LINGER_MS however slowly the client sends.
 */
function linger(socket: Socket): void {
  if (socket.destroyed || LINGERING.has(socket)) return;
  LINGERING.add(socket);
  socket.end();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
