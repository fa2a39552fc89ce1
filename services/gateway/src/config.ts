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
 * every service (each implements tools), in the order `/health` reports them.
 * A new service joins it with its name in `SERVICE_NAMES` (config.spec.ts
 * checks that the two name the same services).
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

/** Every environment variable of the gateway (described here; docs/configuration.md is generated: `npm run docs`). */
export const GatewayEnv = CommonEnv.extend({
  SEXTANT_HOST: z.string().min(1).default('127.0.0.1').describe('HTTP bind address'),
  SEXTANT_PORT: env.int(0, 65_535).default(9100).describe('HTTP port (`0`: any free port)'),
  SEXTANT_ALLOWED_HOSTS: z.string().optional().meta({
    description: 'accepted `Host` headers, comma-separated (`host` = any port, `host:port`, `*` = any)',
    default: 'loopback names when bound to loopback, else any',
  }),
  SEXTANT_ALLOWED_ORIGINS: z.string().optional().meta({
    description: 'accepted browser `Origin`s (`http://host` = any port, `*` = any); requests without `Origin` are accepted',
    default: '`http://localhost`, `http://127.0.0.1`, `http://[::1]`',
  }),
  SEXTANT_MAX_BODY_BYTES: env
    .int(1_024, 64 * 1024 * 1024)
    .default(1024 * 1024)
    .describe('largest request body; larger → 413'),
  SEXTANT_HEALTH_TIMEOUT_MS: env.int(50, 60_000).default(2_000).describe('how long `/health` waits for each service'),
  SEXTANT_DOCS_DIR: z
    .string()
    .min(1)
    .default(DEFAULT_DOCS_DIR)
    .meta({ description: 'where `docs/adr` and `docs/contracts` (MCP resources) are read', default: "the repository's `docs/`" }),
  SEXTANT_HTTP_HEADERS_TIMEOUT_MS: env
    .int(100, 600_000)
    .default(10_000)
    .describe("a connection must send a request's headers within this; slower (or silent) connections are closed"),
  SEXTANT_HTTP_REQUEST_TIMEOUT_MS: env
    .int(100, 3_600_000)
    .default(30_000)
    .describe('a whole request (headers and body) must arrive within this, else 408 and close; answering is not limited by it'),
  SEXTANT_HTTP_MAX_CONNECTIONS: env.int(1, 1_000_000).default(1_024).meta({
    description: 'open HTTP connections at most; past it the least recently active idle one is closed',
    details:
      'past it a new connection is taken and the least recently active idle one (no request in hand; never-authenticated ones first) is closed, or the new one when none is idle ([ADR 0045](adr/0045-nothing-before-authentication.md)).',
  }),
  SEXTANT_HTTP_MAX_CONNECTIONS_PER_IP: env
    .int(1, 1_000_000)
    .default(256)
    .describe('the same per client address (behind a proxy every caller has its address: raise it)'),
  SEXTANT_HTTP_BODY_TIMEOUT_MS: env
    .int(100, 3_600_000)
    .default(10_000)
    .describe(
      "an authenticated request's body must be all in within this of its headers, else 408 and close (a request without valid credentials is refused from its headers; its body is never read)",
    ),
  SEXTANT_AUTH_FAILURES_PER_MINUTE: env.int(1, 1_000_000).default(60).meta({
    description: 'requests refused for missing or bad credentials per client address and minute (a burst of as many)',
    details:
      "past it, that address's requests are answered `429` with `Retry-After` without checking their credentials, unless those were verified recently.",
  }),
  SEXTANT_HTTP_KEEP_ALIVE_TIMEOUT_MS: env.int(1_000, 3_600_000).default(65_000).meta({
    description: "how long an idle connection is kept open for the client's next request (`Keep-Alive: timeout=` says it)",
    details: "keep it longer than a client's or load balancer's own idle timeout, so none sends on a connection the gateway is closing.",
  }),
  SEXTANT_SERVICES: serviceList.optional().meta({
    description: 'the services this installation runs, comma-separated: their tools are listed and `/health` waits for them',
    default: `\`${DEFAULT_SERVICES.join(',')}\``,
    details: 'the list of tools does not change while the gateway runs ([ADR 0013](adr/0013-installation-services.md)).',
  }),
  SEXTANT_PROGRESS_POLL_MS: env.int(50, 60_000).default(250).meta({
    description: "how often a call that asked for progress polls its job's status",
    details:
      'a call of `index_repo`, `index_repository` or `sync_repo` with `_meta.progressToken` follows its job: status polled this often, `notifications/progress` sent (SSE over HTTP), and the call returns when the job ends or after `SEXTANT_PROGRESS_WAIT_MS` with the job as it is.',
  }),
  SEXTANT_PROGRESS_WAIT_MS: env
    .int(1_000, 24 * 3_600_000)
    .default(600_000)
    .describe('how long such a call follows its job at most before it returns the job as it is'),
  SEXTANT_PUBLIC_URL: env.url(['http', 'https']).optional().meta({
    description:
      "the gateway's URL as clients reach it (behind an ingress), e.g. `https://sextant.example.com`: the resource named in the protected resource metadata",
    default: "each request's `Host`",
  }),
  SEXTANT_AUTH: z
    .enum(['on', 'off'])
    .default('on')
    .describe('`on`, or `off` (only when `SEXTANT_HOST` is loopback; `npm start` sets it there)'),
  SEXTANT_AUTH_ISSUER: env
    .url(['https', 'http'])
    .optional()
    .meta({ description: 'the identity provider whose JWTs are accepted (their `iss`)', default: 'unset: API keys only' }),
  SEXTANT_AUTH_AUDIENCE: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'the `aud` tokens must carry (required with an issuer)', default: '`SEXTANT_PUBLIC_URL` + `/mcp`' }),
  SEXTANT_AUTH_JWKS_URL: env
    .url(['https', 'http'])
    .optional()
    .meta({ description: "the issuer's JWKS", default: 'issuer + `/.well-known/jwks.json`' }),
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
    })
    .describe('accepted JWS algorithms (asymmetric only)'),
  SEXTANT_AUTH_CLOCK_SKEW_S: env.int(0, 600).default(60).describe('tolerance on `exp` and `nbf`, seconds'),
  SEXTANT_AUTH_JWKS_CACHE_MS: env
    .int(1_000, 7 * 86_400_000)
    .default(600_000)
    .meta({
      description: 'how long fetched keys are used without fetching again',
      details:
        'while the JWKS is down the keys keep working until this time has passed since the last successful fetch; then a token needing them gets 503.',
    }),
  SEXTANT_AUTH_JWKS_COOLDOWN_MS: env
    .int(0, 3_600_000)
    .default(30_000)
    .describe('after a JWKS fetch, none for this long: a token with an unknown `kid` refetches once, then fails at once'),
  SEXTANT_AUTH_GROUPS_CLAIM: z.string().min(1).default('groups').describe("the claim that lists a user's groups"),
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
        if (admin) roles.admins.push(admin[1]);
        else if (grant) roles.grants.push({ group: grant[1], project: grant[2].trim(), role: grant[3] as 'reader' | 'maintainer' });
        else {
          ctx.addIssue({ code: 'custom', message: `"${entry}" is not group=admin or group=project:reader|maintainer` });
          return z.NEVER;
        }
      }
      return roles;
    })
    .default({ admins: [], grants: [] })
    .meta({
      description: "what a user's groups give, comma-separated: `group=admin` or `group=project:reader|maintainer`",
      default: 'none (users may only read, and see no project)',
      details:
        '`group=admin` is org-wide admin; `group=project:reader|maintainer` a role in a project (by name or id; the highest role wins), e.g. `platform=admin,team-web=web:maintainer`.',
    }),
  SEXTANT_AUTH_KEY_CACHE_MS: env
    .int(0, 3_600_000)
    .default(30_000)
    .describe('how long a verified API key is believed without asking again (`0`: every call asks)'),
  SEXTANT_RATE_LIMIT_PER_MINUTE: env.int(1, 1_000_000).default(600).meta({
    description: 'tool calls per minute per authenticated caller, all tools together',
    details:
      'past it a call answers `rate_limited` with `details.retry_after` (seconds). The local user (stdio, authentication off) is not limited ([ADR 0032](adr/0032-rate-limits-per-caller.md)).',
  }),
  SEXTANT_RATE_LIMIT_BURST: env.int(1, 1_000_000).default(100).describe('the burst allowed above that rate'),
  SEXTANT_TOOL_RATE_LIMITS: env
    .counts((name) => TOOLS_BY_NAME.has(name), 1, 1_000_000, 'tool=calls-per-minute with a tool of the catalog (e.g. ask_code=30)')
    // Bursts of up to ten seconds' worth.
    .transform((counts) =>
      Object.fromEntries(
        Object.entries(counts).map(([tool, perMinute]) => [tool, { perMinute, burst: Math.max(1, Math.ceil(perMinute / 6)) }]),
      ),
    )
    .default({})
    .describe(
      "per-tool limits per caller, `tool=calls-per-minute` comma-separated (e.g. `ask_code=30,search_code=300`); bursts of ten seconds' worth",
    ),
  SEXTANT_MAX_CALLS_IN_FLIGHT: env
    .int(1, 1_000_000)
    .default(512)
    .describe('tool calls all callers together may have in flight; past it a call answers `rate_limited` (retry after 1 s)'),
  SEXTANT_MAX_CALLS_IN_FLIGHT_PER_CALLER: env
    .int(1, 1_000_000)
    .default(32)
    .describe('the same for one caller, so one caller cannot starve the others'),
  SEXTANT_AUDIT_BACKLOG_BYTES: env
    .int(AUDIT_LIMITS.recordBytes * 2, 1024 * 1024 * 1024)
    .default(16 * 1024 * 1024)
    .meta({
      description: 'audit records held for Postgres while the projects service cannot take them; past it the oldest are dropped',
      details:
        'each record is bounded to 64 KiB as JSON ([ADR 0046](adr/0046-audit-trail-bounds.md)); dropped records stay in the log stream, are counted in `sextant_audit_records_dropped_total{reason="backlog"}` and logged at most once a minute.',
    }),
  SEXTANT_AUDIT_BATCH_BYTES: env
    .int(AUDIT_LIMITS.recordBytes, 64 * 1024 * 1024)
    .default(256 * 1024)
    .describe(
      'a batch of audit records handed to the projects service at most this large (keep it under NATS `max_payload`, 1 MiB by default)',
    ),
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
  const tail = mapped[1];
  if (isIP(tail) === 4) return tail.split('.', 1)[0] === '127';
  // ::ffff:7f00:1 — the same address written in hexadecimal groups.
  const hex = /^([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(tail);
  return hex !== null && parseInt(hex[1], 16) >> 8 === 0x7f;
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
