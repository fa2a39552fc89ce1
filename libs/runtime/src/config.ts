import type { NatsAuth } from '@sextant/messaging';
import { z } from 'zod';

/**
 * A start-up failure the operator can fix (a setting, a busy data directory):
 * reported as one line that says what to do, without a stack trace.
 */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** A bad or missing environment variable; the message names each one. */
export class ConfigError extends StartupError {
  constructor(readonly problems: Record<string, string>) {
    super(
      `Invalid configuration: ${Object.entries(problems)
        .map(([name, problem]) => `${name} ${problem}`)
        .join('; ')}`,
    );
  }

  override name = 'ConfigError';
}

/**
 * Parses environment variables with a zod object whose keys are the variable
 * names. Empty strings count as unset. Throws `ConfigError` naming every bad variable.
 */
export function parseEnv<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv): z.output<S> {
  const input = Object.fromEntries(Object.keys(schema.shape).map((name) => [name, env[name] === '' ? undefined : env[name]]));
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const name = String(issue.path[0] ?? '(env)');
    problems[name] ??= input[name] === undefined ? 'is required' : `is invalid: ${issue.message}`;
  }
  throw new ConfigError(problems);
}

/** Env value helpers: each documents its accepted form in its error message. */
export const env = {
  int: (min: number, max: number) =>
    z.coerce.number({ error: 'must be an integer' }).int('must be an integer').min(min, `must be >= ${min}`).max(max, `must be <= ${max}`),
  bool: () =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  url: (protocols: readonly string[]) =>
    z.string().refine((value) => value.split(',').every((one) => protocols.some((p) => one.trim().startsWith(`${p}://`))), {
      message: `must be a URL starting with ${protocols.map((p) => `${p}://`).join(' or ')}`,
    }),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'verbose']).default('info'),
  /** `host` or `host:port` entries, comma-separated, lower-cased (GIT_ALLOWED_HOSTS). */
  hosts: () =>
    z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((h) => h.trim().toLowerCase())
          .filter(Boolean),
      )
      .refine((hosts) => hosts.every((h) => /^[a-z0-9.-]+(:\d{1,5})?$/.test(h)), 'must be a comma-separated list of host or host:port'),
  /**
   * `name=count` entries, comma-separated (SEXTANT_SHARDS, SEXTANT_TOOL_RATE_LIMITS):
   * each name must pass `known`, each count lie in [min, max]; `form` says what an entry is, for the error.
   */
  counts: (known: (name: string) => boolean, min: number, max: number, form: string) =>
    z.string().transform((v, ctx) => {
      const counts: Record<string, number> = {};
      for (const entry of v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        const match = /^([a-z_-]+)=(\d{1,9})$/.exec(entry);
        const count = Number(match?.[2]);
        if (!match || !known(match[1]!) || count < min || count > max) {
          ctx.addIssue({ code: 'custom', message: `"${entry}" is not ${form}` });
          return z.NEVER;
        }
        counts[match[1]!] = count;
      }
      return counts;
    }),
};

/** Variables every service reads (see the README table). */
export const CommonEnv = z.object({
  NATS_URL: env.url(['nats', 'tls', 'ws', 'wss']).optional(),
  SEXTANT_NATS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be dot-separated tokens of letters, digits, _ or -')
    .optional(),
  LOG_LEVEL: env.logLevel(),
  SEXTANT_BUS_TIMEOUT_MS: env.int(100, 600_000).default(30_000),
  SEXTANT_BUS_HEARTBEAT_MS: env.int(0, 60_000).default(1_000),
  SEXTANT_SHUTDOWN_GRACE_MS: env.int(0, 600_000).default(10_000),
  SEXTANT_HEALTH_PORT: env.int(1, 65_535).optional(),
  SEXTANT_HEALTH_HOST: z.string().default('127.0.0.1'),
  NATS_USER: z.string().min(1).optional(),
  NATS_PASSWORD: z.string().min(1).optional(),
  NATS_TOKEN: z.string().min(1).optional(),
  NATS_CREDS: z.string().min(1).optional(),
  NATS_TLS_CA: z.string().min(1).optional(),
  SEXTANT_BUS_SECRET: z.string().min(32, 'must be at least 32 characters (e.g. openssl rand -hex 32)').optional(),
  SEXTANT_SHARDS: env.counts(() => true, 1, 256, 'service=count with a count from 1 to 256 (e.g. git-cache=4)').default({}),
  SEXTANT_SHARD: z
    .string()
    .regex(
      /^(\d{1,3}|auto)$/,
      'must be a shard number (0, 1, …) or "auto" (the ordinal at the end of HOSTNAME, as a StatefulSet names its pods)',
    )
    .optional(),
  HOSTNAME: z.string().optional(),
});

/** The settings of `CommonEnv`, as every service's config carries them. */
export interface CommonSettings {
  natsUrl: string | undefined;
  natsPrefix: string | undefined;
  logLevel: string;
  /** Per-request timeout on the bus. */
  busTimeoutMs: number;
  /** Heartbeat interval asked of services while they work on a request (0: none). */
  busHeartbeatMs: number;
  /** On SIGTERM, how long a service keeps answering the requests it holds before it exits. */
  shutdownGraceMs: number;
  /** A service's health port (/livez, /readyz) and the address it binds; no port, no health server. */
  health: { port: number | undefined; host: string };
  /** How this process authenticates to NATS (NATS_USER/NATS_PASSWORD, NATS_TOKEN or NATS_CREDS) and the CA it trusts (NATS_TLS_CA). */
  natsAuth: NatsAuth;
  /** How many shards each sharded service runs (SEXTANT_SHARDS; a service not named runs one). */
  shards: Readonly<Record<string, number>>;
  /** This process's shard (SEXTANT_SHARD, `auto` read from HOSTNAME's ordinal); undefined when not given. */
  shard: number | undefined;
  /** Signs and checks who each bus request is for (required in the distributed form; see `requireVariables`). */
  busSecret: string | undefined;
}

export function commonSettings(e: z.output<typeof CommonEnv>): CommonSettings {
  return {
    natsUrl: e.NATS_URL,
    natsPrefix: e.SEXTANT_NATS_PREFIX,
    logLevel: e.LOG_LEVEL,
    busTimeoutMs: e.SEXTANT_BUS_TIMEOUT_MS,
    busHeartbeatMs: e.SEXTANT_BUS_HEARTBEAT_MS,
    shutdownGraceMs: e.SEXTANT_SHUTDOWN_GRACE_MS,
    health: { port: e.SEXTANT_HEALTH_PORT, host: e.SEXTANT_HEALTH_HOST },
    natsAuth: natsAuth(e),
    shards: e.SEXTANT_SHARDS,
    shard: shardOrdinal(e.SEXTANT_SHARD, e.HOSTNAME),
    busSecret: e.SEXTANT_BUS_SECRET,
  };
}

function natsAuth(e: z.output<typeof CommonEnv>): NatsAuth {
  const problems: Record<string, string> = {};
  if ((e.NATS_USER === undefined) !== (e.NATS_PASSWORD === undefined)) {
    problems[e.NATS_USER ? 'NATS_PASSWORD' : 'NATS_USER'] = 'must be set together with ' + (e.NATS_USER ? 'NATS_USER' : 'NATS_PASSWORD');
  }
  const ways = [e.NATS_USER && 'NATS_USER', e.NATS_TOKEN && 'NATS_TOKEN', e.NATS_CREDS && 'NATS_CREDS'].filter(Boolean);
  if (ways.length > 1) problems[ways[1] as string] = `cannot be used with ${ways[0]}: give one way to authenticate to NATS`;
  if (Object.keys(problems).length > 0) throw new ConfigError(problems);
  const auth: NatsAuth = {};
  if (e.NATS_USER) Object.assign(auth, { user: e.NATS_USER, password: e.NATS_PASSWORD });
  if (e.NATS_TOKEN) auth.token = e.NATS_TOKEN;
  if (e.NATS_CREDS) auth.credsFile = e.NATS_CREDS;
  if (e.NATS_TLS_CA) auth.tlsCaFile = e.NATS_TLS_CA;
  return auth;
}

function shardOrdinal(value: string | undefined, hostname: string | undefined): number | undefined {
  if (value !== 'auto') return value === undefined ? undefined : Number(value);
  const ordinal = /-(\d+)$/.exec(hostname ?? '');
  if (!ordinal) {
    throw new ConfigError({
      SEXTANT_SHARD: `is "auto", which needs a HOSTNAME ending in -<ordinal> (a StatefulSet pod's name); HOSTNAME is "${hostname ?? ''}"`,
    });
  }
  return Number(ordinal[1]);
}

/** Variables of a service that owns tables. */
export const DatabaseEnv = z.object({
  DATABASE_URL: env.url(['postgres', 'postgresql']).optional(),
  DATABASE_POOL_SIZE: env.int(1, 200).default(10),
  DATABASE_CONNECT_TIMEOUT_MS: env.int(100, 120_000).default(5_000),
});

/** Variables of a service that reads repositories to index them (workspace-registry, symbol-indexer). */
export const IndexerEnv = z.object({
  INDEX_MAX_FILE_BYTES: env.int(1_024, 256 * 1024 ** 2).default(1024 ** 2),
  GIT_ALLOWED_HOSTS: env.hosts().default(['github.com']),
  GIT_ALLOW_FILE_URLS: env.bool().default(false),
  GIT_CASE_INSENSITIVE_HOSTS: env.hosts().default([]),
  GIT_CLONE_TIMEOUT_MS: env.int(1_000, 3_600_000).default(120_000),
});

export interface IndexerSettings {
  /** Larger files are left out of the index. */
  maxFileBytes: number;
  git: { allowedHosts: string[]; allowFileUrls: boolean; caseInsensitiveHosts: string[]; cloneTimeoutMs: number };
  /** What git children inherit of the environment. */
  childEnv: { PATH: string | undefined; HOME: string | undefined };
}

export function indexerSettings(e: z.output<typeof IndexerEnv>, environment: NodeJS.ProcessEnv): IndexerSettings {
  return {
    maxFileBytes: e.INDEX_MAX_FILE_BYTES,
    git: {
      allowedHosts: e.GIT_ALLOWED_HOSTS,
      allowFileUrls: e.GIT_ALLOW_FILE_URLS,
      caseInsensitiveHosts: e.GIT_CASE_INSENSITIVE_HOSTS,
      cloneTimeoutMs: e.GIT_CLONE_TIMEOUT_MS,
    },
    childEnv: { PATH: environment.PATH, HOME: environment.HOME },
  };
}

/** In distributed mode these must be set; `main.ts` of each service calls this. */
export function requireVariables(values: Record<string, unknown>, names: readonly string[]): void {
  const missing = Object.fromEntries(
    names.filter((n) => values[n] === undefined).map((n) => [n, 'is required when the service runs as its own process']),
  );
  if (Object.keys(missing).length > 0) throw new ConfigError(missing);
}
