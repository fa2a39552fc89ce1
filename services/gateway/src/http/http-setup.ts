import type { IncomingHttpHeaders } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { GatewayConfig } from '../config.js';
import { jsonRpcError } from './json-rpc-error.js';

/**
 * Express, which serves every route but the MCP POSTs (see McpEndpoint):
 * DNS-rebinding protection (Host and Origin allowlists) in front of every
 * route, no ETag hashing of bodies, no X-Powered-By. No route of Express takes
 * a body, so there is no body parser.
 */
export function configureHttp(app: INestApplication, config: GatewayConfig): void {
  const server = app.getHttpAdapter().getInstance() as express.Express;
  server.set('etag', false);
  server.disable('x-powered-by');
  app.use(hostAndOriginGuard(config));
}

function hostAndOriginGuard(config: GatewayConfig) {
  return (req: Request, res: Response, next: NextFunction) => {
    const refusal = hostOrOriginRefusal(req.headers, config);
    if (refusal) return jsonRpcError(res, 403, -32000, refusal);
    next();
  };
}

/** DNS-rebinding protection: why a request's `Host` or `Origin` is refused, or undefined when both are allowed. */
export function hostOrOriginRefusal(
  headers: IncomingHttpHeaders,
  config: Pick<GatewayConfig, 'allowedHosts' | 'allowedOrigins'>,
): string | undefined {
  const host = headers.host?.toLowerCase();
  if (config.allowedHosts && (!host || !hostAllowed(host, config.allowedHosts))) {
    return `Host "${host ?? ''}" is not allowed (SEXTANT_ALLOWED_HOSTS).`;
  }
  const origin = headers.origin?.toLowerCase();
  if (origin && config.allowedOrigins && !originAllowed(origin, config.allowedOrigins)) {
    return `Origin "${origin}" is not allowed (SEXTANT_ALLOWED_ORIGINS).`;
  }
  return undefined;
}

/** `host` entries match any port; `host:port` entries only that port. */
function hostAllowed(header: string, allowed: readonly string[]): boolean {
  const name = header.startsWith('[') ? header.slice(0, header.indexOf(']') + 1) : header.split(':')[0];
  return allowed.includes(header) || allowed.includes(name);
}

/** Origin entries without a port match any port of that scheme and host. */
function originAllowed(origin: string, allowed: readonly string[]): boolean {
  if (allowed.includes(origin)) return true;
  try {
    const url = new URL(origin);
    return allowed.includes(`${url.protocol}//${url.hostname}`);
  } catch {
    return false;
  }
}
