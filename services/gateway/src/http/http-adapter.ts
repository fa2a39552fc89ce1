import { createServer, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { ExpressAdapter } from '@nestjs/platform-express';
import express from 'express';
import type { GatewayConfig } from '../config.js';
import { ConnectionGuard } from './connection-guard.js';

/** How often Node checks open connections against the header and request timeouts (its default is 30 s). */
const CONNECTIONS_CHECK_MS = 1_000;

/**
 * The HTTP server of the gateway: Express under Nest, with routes matched
 * case-sensitively (`POST /MCP` is an unknown path, 404, not the MCP
 * endpoint's 405), and limits against slow or too many clients: a request's
 * headers must arrive within `headersTimeoutMs` and the whole request within
 * `requestTimeoutMs` (answering a slow tool call is not bounded by either),
 * and at most `maxConnections` sockets are open at once, `maxConnectionsPerIp`
 * from one address, the least recently active idle one closed to make room
 * for a new one (ConnectionGuard), so slow clients cannot starve the others. An idle
 * connection is kept `keepAliveTimeoutMs` (Node's default is 5 s: a client
 * that paused about that long could send its next request on a connection
 * the server was closing, and get ECONNRESET).
 */
export function httpAdapter(config: Pick<GatewayConfig, 'http'>): ExpressAdapter {
  const app = express();
  app.set('case sensitive routing', true);
  return new LimitedExpressAdapter(app, config.http);
}

class LimitedExpressAdapter extends ExpressAdapter {
  constructor(
    app: express.Express,
    private readonly limits: GatewayConfig['http'],
  ) {
    super(app);
  }

  override initHttpServer(): void {
    const server = createServer(
      {
        headersTimeout: this.limits.headersTimeoutMs,
        requestTimeout: this.limits.requestTimeoutMs,
        connectionsCheckingInterval: CONNECTIONS_CHECK_MS,
      },
      this.getInstance<RequestListener>(),
    );
    // Not server.maxConnections, which refuses the newest connection when full: the guard closes an idle one instead.
    new ConnectionGuard(this.limits).install(server);
    server.keepAliveTimeout = this.limits.keepAliveTimeoutMs;
    closeSilentConnections(server, this.limits.headersTimeoutMs);
    this.httpServer = server;
  }
}

/**
 * Node's headers timeout starts with a request's first byte; a connection
 * that never sends one would hold a slot of `maxConnections` for ever. Such a
 * connection is closed once the headers timeout passes without a byte read.
 */
function closeSilentConnections(server: Server, timeoutMs: number): void {
  server.on('connection', (socket: Socket) => {
    const timer = setTimeout(() => {
      // Checked after the loop's next I/O poll: after a long blocked spell (a big embedded write) the timer fires
      // before the bytes a client sent meanwhile are read, and the connection would be closed although it spoke in time.
      setImmediate(() => {
        if (socket.bytesRead === 0) socket.destroy();
      });
    }, timeoutMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });
}
