import type { Server } from 'node:http';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { GatewayConfig } from './config.js';
import { configureHttp } from './http/http-setup.js';
import { McpEndpoint } from './mcp/mcp-endpoint.js';
import { McpServerFactory } from './mcp/mcp-server.factory.js';

/** Serves MCP over Streamable HTTP at `POST /mcp` and `POST /`; resolves with the bound URL. */
export async function serveHttp(app: INestApplication, config: GatewayConfig): Promise<string> {
  configureHttp(app, config);
  app.get(McpEndpoint).install(app.getHttpServer() as Server);
  await app.listen(config.port, config.host);
  const address = (app.getHttpServer() as Server).address() as { port: number };
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${address.port}/mcp`;
}

/**
 * The HTTP side of a graceful stop: readiness turns false, the listener
 * closes, MCP calls in hand are answered (up to `graceMs`), then the
 * remaining (idle keep-alive) connections are closed. The caller then closes
 * the application, the bus and telemetry.
 */
export async function drainHttp(app: INestApplication, graceMs: number): Promise<void> {
  const server = app.getHttpServer() as Server;
  server.close();
  await app.get(McpEndpoint).drain(graceMs);
  server.closeAllConnections();
}

/**
 * Serves MCP over stdin/stdout for a local client. stdout carries only
 * protocol messages (logs go to stderr); the process ends when stdin closes.
 */
export async function serveStdio(app: INestApplicationContext): Promise<void> {
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  const server = await app.get(McpServerFactory).connect(transport, { stdio: true });
  await closed;
  await server.close();
}
