import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CommonEnv, env, parseEnv } from '@sextant/runtime';

const DEFAULT_DOCS_DIR = fileURLToPath(new URL('../../../docs', import.meta.url));
const LOOPBACK = ['127.0.0.1', 'localhost', '::1', '[::1]'];

/** Every environment variable of the gateway (documented in the README table). */
export const GatewayEnv = CommonEnv.extend({
  SEXTANT_HOST: z.string().min(1).default('127.0.0.1'),
  SEXTANT_PORT: env.int(0, 65_535).default(9100),
  SEXTANT_ALLOWED_HOSTS: z.string().optional(),
  SEXTANT_ALLOWED_ORIGINS: z.string().optional(),
  SEXTANT_MAX_BODY_BYTES: env.int(1_024, 64 * 1024 * 1024).default(1024 * 1024),
  SEXTANT_HEALTH_TIMEOUT_MS: env.int(50, 60_000).default(2_000),
  SEXTANT_DOCS_DIR: z.string().min(1).default(DEFAULT_DOCS_DIR),
});

export interface GatewayConfig {
  host: string;
  port: number;
  /** Accepted `Host` header values (`host` matches any port, `host:port` only that one); `null` accepts any. */
  allowedHosts: string[] | null;
  /** Accepted `Origin`s (without a port: any port); `null` accepts any. Requests without `Origin` are always accepted. */
  allowedOrigins: string[] | null;
  maxBodyBytes: number;
  busTimeoutMs: number;
  healthTimeoutMs: number;
  docsDir: string;
  natsUrl: string | undefined;
  natsPrefix: string | undefined;
  logLevel: string;
}

function list(value: string | undefined): string[] | null | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  return items.includes('*') ? null : items;
}

function isLoopback(host: string): boolean {
  return LOOPBACK.includes(host) || host.startsWith('127.');
}

export function loadConfig(processEnv: NodeJS.ProcessEnv): GatewayConfig {
  const e = parseEnv(GatewayEnv, processEnv);
  // Bound to loopback, only loopback names may reach us (DNS-rebinding protection).
  // Bound to a routable address, the operator decides; by default any Host is accepted.
  const allowedHosts = list(e.SEXTANT_ALLOWED_HOSTS) ?? (isLoopback(e.SEXTANT_HOST) ? LOOPBACK : null);
  const allowedOrigins = list(e.SEXTANT_ALLOWED_ORIGINS) ?? ['http://localhost', 'http://127.0.0.1', 'http://[::1]'];
  return {
    host: e.SEXTANT_HOST,
    port: e.SEXTANT_PORT,
    allowedHosts,
    allowedOrigins,
    maxBodyBytes: e.SEXTANT_MAX_BODY_BYTES,
    busTimeoutMs: e.SEXTANT_BUS_TIMEOUT_MS,
    healthTimeoutMs: e.SEXTANT_HEALTH_TIMEOUT_MS,
    docsDir: e.SEXTANT_DOCS_DIR,
    natsUrl: e.NATS_URL,
    natsPrefix: e.SEXTANT_NATS_PREFIX,
    logLevel: e.LOG_LEVEL,
  };
}
