import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { SERVICE_NAMES, type ServiceName } from '@sextant/contracts';
import { CommonEnv, commonSettings, env, parseEnv, type CommonSettings } from '@sextant/runtime';

const DEFAULT_DOCS_DIR = fileURLToPath(new URL('../../../docs', import.meta.url));
const LOOPBACK = ['127.0.0.1', 'localhost', '::1', '[::1]'];

/**
 * The services an installation runs unless SEXTANT_SERVICES says otherwise:
 * those that implement tools in this release. A service joins this list in
 * the change that gives it its first tool.
 */
export const DEFAULT_SERVICES: readonly ServiceName[] = ['projects', 'git-cache', 'workspace-registry', 'symbol-indexer', 'vector-search'];

const serviceList = z
  .string()
  .transform((value) => [
    ...new Set(
      value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ])
  .refine((names) => names.every((n) => (SERVICE_NAMES as readonly string[]).includes(n)), {
    message: `must be a comma-separated list of ${SERVICE_NAMES.join(', ')}`,
  })
  .transform((names) => names as ServiceName[]);

/** Every environment variable of the gateway (documented in the README table). */
export const GatewayEnv = CommonEnv.extend({
  SEXTANT_HOST: z.string().min(1).default('127.0.0.1'),
  SEXTANT_PORT: env.int(0, 65_535).default(9100),
  SEXTANT_ALLOWED_HOSTS: z.string().optional(),
  SEXTANT_ALLOWED_ORIGINS: z.string().optional(),
  SEXTANT_MAX_BODY_BYTES: env.int(1_024, 64 * 1024 * 1024).default(1024 * 1024),
  SEXTANT_HEALTH_TIMEOUT_MS: env.int(50, 60_000).default(2_000),
  SEXTANT_DOCS_DIR: z.string().min(1).default(DEFAULT_DOCS_DIR),
  SEXTANT_HTTP_HEADERS_TIMEOUT_MS: env.int(100, 600_000).default(10_000),
  SEXTANT_HTTP_REQUEST_TIMEOUT_MS: env.int(100, 3_600_000).default(30_000),
  SEXTANT_HTTP_MAX_CONNECTIONS: env.int(1, 1_000_000).default(1_024),
  SEXTANT_SERVICES: serviceList.optional(),
  SEXTANT_PROGRESS_POLL_MS: env.int(50, 60_000).default(250),
  SEXTANT_PROGRESS_WAIT_MS: env.int(1_000, 24 * 3_600_000).default(600_000),
});

export interface GatewayConfig extends CommonSettings {
  host: string;
  port: number;
  /** Accepted `Host` header values (`host` matches any port, `host:port` only that one); `null` accepts any. */
  allowedHosts: string[] | null;
  /** Accepted `Origin`s (without a port: any port); `null` accepts any. Requests without `Origin` are always accepted. */
  allowedOrigins: string[] | null;
  maxBodyBytes: number;
  /** Limits against slow and too many clients (see http-adapter.ts). */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; maxConnections: number };
  healthTimeoutMs: number;
  /** The services this installation runs: their tools are listed, readiness waits for them. */
  services: readonly ServiceName[];
  /** A call that asked for progress follows its job: polled this often, for at most `waitMs`, then it returns the job as it is. */
  progress: { pollMs: number; waitMs: number };
  docsDir: string;
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
    http: {
      headersTimeoutMs: e.SEXTANT_HTTP_HEADERS_TIMEOUT_MS,
      // Node requires the request timeout to be at least the headers timeout.
      requestTimeoutMs: Math.max(e.SEXTANT_HTTP_REQUEST_TIMEOUT_MS, e.SEXTANT_HTTP_HEADERS_TIMEOUT_MS),
      maxConnections: e.SEXTANT_HTTP_MAX_CONNECTIONS,
    },
    healthTimeoutMs: e.SEXTANT_HEALTH_TIMEOUT_MS,
    services: e.SEXTANT_SERVICES ?? DEFAULT_SERVICES,
    progress: { pollMs: e.SEXTANT_PROGRESS_POLL_MS, waitMs: e.SEXTANT_PROGRESS_WAIT_MS },
    docsDir: e.SEXTANT_DOCS_DIR,
    ...commonSettings(e),
  };
}
