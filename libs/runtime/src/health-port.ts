import { createServer, type Server } from 'node:http';
import { renderMetrics } from '@sextant/telemetry';

/** How long /readyz waits for NATS to answer its ping. */
const PING_TIMEOUT_MS = 1_000;

export interface HealthPortOptions {
  host: string;
  port: number;
  /** Why the process is not ready (NATS unreachable, shutting down), or undefined when it is. */
  notReady(timeoutMs: number): Promise<string | undefined>;
}

/**
 * A service's health port (SEXTANT_HEALTH_PORT), for container and
 * Kubernetes probes; services otherwise listen only on NATS:
 * - `GET /livez`: 200 while the process's event loop answers;
 * - `GET /readyz`: 200 when NATS answers a ping and the service is not
 *   shutting down, else 503 with the reason (JSON);
 * - `GET /metrics`: the process's Prometheus metrics (`@sextant/telemetry` metrics.ts).
 * Other paths are 404, other methods 405. Closed with the process.
 */
export async function startHealthPort(options: HealthPortOptions): Promise<Server> {
  const server = createServer((req, res) => {
    const reply = (status: number, body: Record<string, unknown>) => {
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(`${JSON.stringify(body)}\n`);
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return reply(405, { status: 'error', error: 'GET or HEAD only' });
    }
    if (path === '/livez') return reply(200, { status: 'ok' });
    if (path === '/metrics') {
      return void renderMetrics().then(
        ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(body),
        (error: Error) => reply(500, { status: 'error', error: `metrics: ${error.message}` }),
      );
    }
    if (path !== '/readyz') return reply(404, { status: 'error', error: 'not found: /livez, /readyz, /metrics' });
    options.notReady(PING_TIMEOUT_MS).then(
      (reason) => (reason ? reply(503, { status: 'not_ready', reason }) : reply(200, { status: 'ready' })),
      (error: Error) => reply(503, { status: 'not_ready', reason: error.message }),
    );
  });
  server.unref();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return server;
}
