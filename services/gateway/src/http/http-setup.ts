import type { INestApplication } from '@nestjs/common';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { GatewayConfig } from '../config.js';
import { jsonRpcError } from './json-rpc-error.js';

/**
 * Express middleware in front of every route: DNS-rebinding protection
 * (Host and Origin allowlists), the JSON body parser with its size limit,
 * and parse failures answered as JSON-RPC errors (400, 413) instead of crashes.
 * No ETag: every MCP response is a fresh POST answer, and hashing each body
 * (a grep result runs to megabytes) would be work for nothing.
 */
export function configureHttp(app: INestApplication, config: GatewayConfig): void {
  const server = app.getHttpAdapter().getInstance() as express.Express;
  server.set('etag', false);
  server.disable('x-powered-by');
  app.use(hostAndOriginGuard(config));
  app.use(express.json({ limit: config.maxBodyBytes, type: ['application/json', 'application/*+json'] }));
  app.use((error: Error & { type?: string; status?: number }, _req: Request, res: Response, next: NextFunction) => {
    if (error.type === 'entity.too.large') {
      return jsonRpcError(res, 413, -32600, `Request body larger than ${config.maxBodyBytes} bytes (SEXTANT_MAX_BODY_BYTES).`, {
        error: 'invalid_input',
        limit_bytes: config.maxBodyBytes,
      });
    }
    if (error.type === 'entity.parse.failed') return jsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON.');
    if (error.status && error.status >= 400 && error.status < 500) return jsonRpcError(res, error.status, -32600, error.message);
    next(error);
  });
}

function hostAndOriginGuard(config: GatewayConfig) {
  return (req: Request, res: Response, next: NextFunction) => {
    const host = req.headers.host?.toLowerCase();
    if (config.allowedHosts && (!host || !hostAllowed(host, config.allowedHosts))) {
      return jsonRpcError(res, 403, -32000, `Host "${host ?? ''}" is not allowed (SEXTANT_ALLOWED_HOSTS).`);
    }
    const origin = req.headers.origin?.toLowerCase();
    if (origin && config.allowedOrigins && !originAllowed(origin, config.allowedOrigins)) {
      return jsonRpcError(res, 403, -32000, `Origin "${origin}" is not allowed (SEXTANT_ALLOWED_ORIGINS).`);
    }
    next();
  };
}

/** `host` entries match any port; `host:port` entries only that port. */
export function hostAllowed(header: string, allowed: readonly string[]): boolean {
  const name = header.startsWith('[') ? header.slice(0, header.indexOf(']') + 1) : header.split(':')[0];
  return allowed.includes(header) || allowed.includes(name);
}

/** Origin entries without a port match any port of that scheme and host. */
export function originAllowed(origin: string, allowed: readonly string[]): boolean {
  if (allowed.includes(origin)) return true;
  try {
    const url = new URL(origin);
    return allowed.includes(`${url.protocol}//${url.hostname}`);
  } catch {
    return false;
  }
}
