import { isIP } from 'node:net';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { AUDIT_LIMITS, SERVICE_NAMES, TOOLS_BY_NAME, type ServiceName } from '@sextant/contracts';
import type { CallLimitSettings } from './limits/call-limits.js';
import { CommonEnv, commonSettings, ConfigError, env, parseEnv, type CommonSettings } from '@sextant/runtime';

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
  SEXTANT_HTTP_MAX_CONNECTIONS_PER_IP: env.int(1, 1_000_000).default(256),
  SEXTANT_HTTP_BODY_TIMEOUT_MS: env.int(100, 3_600_000).default(10_000),
  SEXTANT_AUTH_FAILURES_PER_MINUTE: env.int(1, 1_000_000).default(60),
  SEXTANT_HTTP_KEEP_ALIVE_TIMEOUT_MS: env.int(1_000, 3_600_000).default(65_000),
  SEXTANT_SERVICES: serviceList.optional(),
  SEXTANT_PROGRESS_POLL_MS: env.int(50, 60_000).default(250),
  SEXTANT_PROGRESS_WAIT_MS: env.int(1_000, 24 * 3_600_000).default(600_000),
  SEXTANT_PUBLIC_URL: env.url(['http', 'https']).optional(),
  SEXTANT_AUTH: z.enum(['on', 'off']).default('on'),
  SEXTANT_AUTH_ISSUER: env.url(['https', 'http']).optional(),
  SEXTANT_AUTH_AUDIENCE: z.string().min(1).optional(),
  SEXTANT_AUTH_JWKS_URL: env.url(['https', 'http']).optional(),
  SEXTANT_AUTH_ALGORITHMS: z
    .string()
    .default('RS256,PS256,ES256,EdDSA')
    .transform((v) =>
      v
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
    )
    .refine((algs) => algs.length > 0 && algs.every((a) => /^(RS|PS|ES)(256|384|512)$|^EdDSA$|^Ed25519$/.test(a)), {
      message: 'must be a comma-separated list of asymmetric JWS algorithms (RS256, PS256, ES256, EdDSA …)',
    }),
  SEXTANT_AUTH_CLOCK_SKEW_S: env.int(0, 600).default(60),
  SEXTANT_AUTH_JWKS_CACHE_MS: env.int(1_000, 7 * 86_400_000).default(600_000),
  SEXTANT_AUTH_JWKS_COOLDOWN_MS: env.int(0, 3_600_000).default(30_000),
  SEXTANT_AUTH_GROUPS_CLAIM: z.string().min(1).default('groups'),
  SEXTANT_AUTH_GROUP_ROLES: z
    .string()
    .transform((v, ctx) => {
      const roles: GroupRoles = { admins: [], grants: [] };
      for (const entry of v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        const admin = /^([^=:,\s]+)=admin$/.exec(entry);
        const grant = /^([^=:,\s]+)=([^=:,]+):(reader|maintainer)$/.exec(entry);
        if (admin) roles.admins.push(admin[1]!);
        else if (grant) roles.grants.push({ group: grant[1]!, project: grant[2]!.trim(), role: grant[3] as 'reader' | 'maintainer' });
        else {
          ctx.addIssue({ code: 'custom', message: `"${entry}" is not group=admin or group=project:reader|maintainer` });
          return z.NEVER;
        }
      }
      return roles;
    })
    .default({ admins: [], grants: [] }),
  SEXTANT_AUTH_KEY_CACHE_MS: env.int(0, 3_600_000).default(30_000),
  SEXTANT_RATE_LIMIT_PER_MINUTE: env.int(1, 1_000_000).default(600),
  SEXTANT_RATE_LIMIT_BURST: env.int(1, 1_000_000).default(100),
  SEXTANT_TOOL_RATE_LIMITS: env
    .counts((name) => TOOLS_BY_NAME.has(name), 1, 1_000_000, 'tool=calls-per-minute with a tool of the catalog (e.g. ask_code=30)')
    // Bursts of up to ten seconds' worth.
    .transform((counts) =>
      Object.fromEntries(
        Object.entries(counts).map(([tool, perMinute]) => [tool, { perMinute, burst: Math.max(1, Math.ceil(perMinute / 6)) }]),
      ),
    )
    .default({}),
  SEXTANT_MAX_CALLS_IN_FLIGHT: env.int(1, 1_000_000).default(512),
  SEXTANT_MAX_CALLS_IN_FLIGHT_PER_CALLER: env.int(1, 1_000_000).default(32),
  SEXTANT_AUDIT_BACKLOG_BYTES: env.int(AUDIT_LIMITS.recordBytes * 2, 1024 * 1024 * 1024).default(16 * 1024 * 1024),
  SEXTANT_AUDIT_BATCH_BYTES: env.int(AUDIT_LIMITS.recordBytes, 64 * 1024 * 1024).default(256 * 1024),
});

/** Roles the identity provider's groups give. */
export interface GroupRoles {
  admins: string[];
  grants: Array<{ group: string; project: string; role: 'reader' | 'maintainer' }>;
}

/** How the gateway authenticates HTTP callers (stdio is local and trusted). */
export type AuthSettings =
  | { mode: 'off' }
  | {
      mode: 'on';
      /** Bearer JWTs of the organization's identity provider; absent: API keys only. */
      jwt?: {
        issuer: string;
        audience: string;
        jwksUrl: string;
        algorithms: string[];
        clockSkewS: number;
        jwksCacheMs: number;
        /** After a JWKS fetch, none for this long (an unknown `kid` then fails at once). */
        jwksCooldownMs: number;
        groupsClaim: string;
        /** What the identity provider's groups give (SEXTANT_AUTH_GROUP_ROLES): org-wide admin, or a role in a project (by name or id). */
        groupRoles: GroupRoles;
      };
      /** How long a verified API key is believed without asking again (so a revocation takes up to this long). */
      keyCacheMs: number;
    };

export interface GatewayConfig extends CommonSettings {
  host: string;
  port: number;
  /** Accepted `Host` header values (`host` matches any port, `host:port` only that one); `null` accepts any. */
  allowedHosts: string[] | null;
  /** Accepted `Origin`s (without a port: any port); `null` accepts any. Requests without `Origin` are always accepted. */
  allowedOrigins: string[] | null;
  maxBodyBytes: number;
  /** Limits against slow and too many clients (see http-adapter.ts). */
  http: {
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    /** An authenticated request's body must be all in within this of its headers. */
    bodyTimeoutMs: number;
    maxConnections: number;
    maxConnectionsPerIp: number;
    keepAliveTimeoutMs: number;
    /** Requests refused for their credentials, per client address and minute, before the next ones are refused (429) without checking. */
    authFailuresPerMinute: number;
  };
  healthTimeoutMs: number;
  /** The services this installation runs: their tools are listed, readiness waits for them. */
  services: readonly ServiceName[];
  /** A call that asked for progress follows its job: polled this often, for at most `waitMs`, then it returns the job as it is. */
  progress: { pollMs: number; waitMs: number };
  docsDir: string;
  /** The gateway's URL as clients reach it (behind a proxy or ingress); without it, each request's Host is used. */
  publicUrl: string | undefined;
  auth: AuthSettings;
  /** Per-caller rate limits and in-flight caps on tool calls (authenticated callers only). */
  limits: CallLimitSettings;
  /**
   * The audit trail's hand-over to the projects service (ADR 0046): records held while it cannot take them, at most
   * `backlogBytes` (as JSON; oldest dropped first); a batch at most `batchBytes` (under NATS max_payload).
   */
  audit: { backlogBytes: number; batchBytes: number };
}

function list(value: string | undefined): string[] | null | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  return items.includes('*') ? null : items;
}

/**
 * True when `host` (SEXTANT_HOST) is a loopback address: `localhost`, an IPv4
 * address of 127.0.0.0/8, `::1` or an IPv4-mapped `::ffff:127.x.y.z` (with or
 * without brackets). A name that merely starts with `127.` (`127.evil.com`)
 * is a DNS name like any other, not loopback.
 */
export function isLoopback(host: string): boolean {
  const name = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (name === 'localhost') return true;
  const version = isIP(name);
  if (version === 4) return name.split('.', 1)[0] === '127';
  if (version !== 6) return false;
  if (name === '::1' || /^(0{0,4}:){7}0{0,3}1$/.test(name)) return true;
  const mapped = /^(?:0{0,4}:){5}ffff:(.+)$/.exec(name) ?? /^::ffff:(.+)$/.exec(name);
  if (!mapped) return false;
  const tail = mapped[1]!;
  if (isIP(tail) === 4) return tail.split('.', 1)[0] === '127';
  // ::ffff:7f00:1 — the same address written in hexadecimal groups.
  const hex = /^([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(tail);
  return hex !== null && parseInt(hex[1]!, 16) >> 8 === 0x7f;
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
      bodyTimeoutMs: e.SEXTANT_HTTP_BODY_TIMEOUT_MS,
      maxConnections: e.SEXTANT_HTTP_MAX_CONNECTIONS,
      maxConnectionsPerIp: e.SEXTANT_HTTP_MAX_CONNECTIONS_PER_IP,
      keepAliveTimeoutMs: e.SEXTANT_HTTP_KEEP_ALIVE_TIMEOUT_MS,
      authFailuresPerMinute: e.SEXTANT_AUTH_FAILURES_PER_MINUTE,
    },
    healthTimeoutMs: e.SEXTANT_HEALTH_TIMEOUT_MS,
    services: e.SEXTANT_SERVICES ?? DEFAULT_SERVICES,
    progress: { pollMs: e.SEXTANT_PROGRESS_POLL_MS, waitMs: e.SEXTANT_PROGRESS_WAIT_MS },
    docsDir: e.SEXTANT_DOCS_DIR,
    publicUrl: e.SEXTANT_PUBLIC_URL?.replace(/\/+$/, ''),
    auth: authSettings(e),
    limits: {
      perCaller: { perMinute: e.SEXTANT_RATE_LIMIT_PER_MINUTE, burst: e.SEXTANT_RATE_LIMIT_BURST },
      perTool: e.SEXTANT_TOOL_RATE_LIMITS,
      inFlightPerCaller: e.SEXTANT_MAX_CALLS_IN_FLIGHT_PER_CALLER,
      inFlight: e.SEXTANT_MAX_CALLS_IN_FLIGHT,
    },
    audit: { backlogBytes: e.SEXTANT_AUDIT_BACKLOG_BYTES, batchBytes: e.SEXTANT_AUDIT_BATCH_BYTES },
    ...commonSettings(e),
  };
}

/**
 * Authentication is on unless SEXTANT_AUTH=off, which only a gateway bound
 * to loopback may say (local development): anything that can reach a routable
 * address must present a key or a token.
 */
function authSettings(e: z.output<typeof GatewayEnv>): AuthSettings {
  if (e.SEXTANT_AUTH === 'off') {
    if (!isLoopback(e.SEXTANT_HOST)) {
      throw new ConfigError({
        SEXTANT_AUTH: `is off, which only a gateway listening on loopback may be; SEXTANT_HOST is ${e.SEXTANT_HOST}. Configure SEXTANT_AUTH_ISSUER (JWTs) or use API keys`,
      });
    }
    return { mode: 'off' };
  }
  if (!e.SEXTANT_AUTH_ISSUER) {
    const stray = (['SEXTANT_AUTH_AUDIENCE', 'SEXTANT_AUTH_JWKS_URL'] as const).filter((name) => e[name] !== undefined);
    if (stray.length > 0) throw new ConfigError(Object.fromEntries(stray.map((name) => [name, 'needs SEXTANT_AUTH_ISSUER'])));
    return { mode: 'on', keyCacheMs: e.SEXTANT_AUTH_KEY_CACHE_MS };
  }
  const issuer = e.SEXTANT_AUTH_ISSUER;
  const audience = e.SEXTANT_AUTH_AUDIENCE ?? (e.SEXTANT_PUBLIC_URL ? `${e.SEXTANT_PUBLIC_URL.replace(/\/+$/, '')}/mcp` : undefined);
  if (!audience) {
    throw new ConfigError({
      SEXTANT_AUTH_AUDIENCE: 'is required with SEXTANT_AUTH_ISSUER (or set SEXTANT_PUBLIC_URL: the audience is then its /mcp)',
    });
  }
  return {
    mode: 'on',
    jwt: {
      issuer,
      audience,
      jwksUrl: e.SEXTANT_AUTH_JWKS_URL ?? `${issuer.replace(/\/+$/, '')}/.well-known/jwks.json`,
      algorithms: e.SEXTANT_AUTH_ALGORITHMS,
      clockSkewS: e.SEXTANT_AUTH_CLOCK_SKEW_S,
      jwksCacheMs: e.SEXTANT_AUTH_JWKS_CACHE_MS,
      jwksCooldownMs: e.SEXTANT_AUTH_JWKS_COOLDOWN_MS,
      groupsClaim: e.SEXTANT_AUTH_GROUPS_CLAIM,
      groupRoles: e.SEXTANT_AUTH_GROUP_ROLES,
    },
    keyCacheMs: e.SEXTANT_AUTH_KEY_CACHE_MS,
  };
}
