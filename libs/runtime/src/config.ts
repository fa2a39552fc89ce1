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
        if (!match || !known(match[1]) || count < min || count > max) {
          ctx.addIssue({ code: 'custom', message: `"${entry}" is not ${form}` });
          return z.NEVER;
        }
        counts[match[1]] = count;
      }
      return counts;
    }),
};

/** Variables every service reads (each `.describe()`d for docs/configuration.md: `npm run docs`). */
export const CommonEnv = z.object({
  NATS_URL: env
    .url(['nats', 'tls', 'ws', 'wss'])
    // nats.js reads only a URL's host and port: a user, password or token written into it would not authenticate,
    // and would be written to the logs with the URL.
    .refine((value) => !value.includes('@'), {
      message:
        'must not carry a user, password or token (the NATS client ignores them): set NATS_USER/NATS_PASSWORD, NATS_TOKEN or NATS_CREDS',
    })
    .optional()
    .meta({
      description:
        'NATS server(s), comma-separated; required when a service runs as its own process. No credentials in it: NATS_USER/NATS_PASSWORD, NATS_TOKEN or NATS_CREDS',
      default: 'unset (embedded: the in-process bus)',
    }),
  SEXTANT_NATS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be dot-separated tokens of letters, digits, _ or -')
    .optional()
    .meta({
      description: 'prefix of every subject (`staging` → `staging.projects.get.v1`), so installations can share a NATS',
      default: 'none',
    }),
  LOG_LEVEL: env.logLevel().describe('`fatal`, `error`, `warn`, `info`, `debug`, `verbose` (JSON lines; stderr with `--stdio`)'),
  SEXTANT_BUS_TIMEOUT_MS: env.int(100, 600_000).default(30_000).describe('per-request timeout on the bus; past it → `timeout`'),
  SEXTANT_BUS_HEARTBEAT_MS: env.int(0, 60_000).default(1_000).meta({
    description: 'how often a service working on a bus request sends its caller a heartbeat (`0`: none)',
    details:
      'each process asks this of the services its bus requests go to (the gateway, in practice); a request silent for 2.5 intervals fails as `unavailable` (its service died) instead of waiting for the timeout.',
  }),
  SEXTANT_CHECK_REPLIES: env.bool().default(false).meta({
    description: "check every service reply against its tool's output schema; a mismatch answers `internal_error` naming the field, logged",
    default: '`false`; the test helpers set `true`',
    details:
      'a reply that departs from its contract (`Response`) is a defect of the service: on, the service answers `internal_error` with the path of the first mismatch (`details.path`) and logs it, instead of handing the caller an answer its schema does not describe. It costs a schema check per reply: `npm run bench:contracts` measured 1–11 µs (p50; p99 under 90 µs) on real replies of 40 B to 18 KB, about what the bus already spends serializing them; the tests run with it on.',
  }),
  SEXTANT_SHUTDOWN_GRACE_MS: env.int(0, 600_000).default(10_000).meta({
    description: 'on SIGTERM/SIGINT, how long requests in hand are answered before exit',
    details:
      'on SIGTERM/SIGINT a process stops taking requests (the gateway closes its listener, so `/readyz` is refused), answers those it holds for up to this long, drains NATS, flushes buffered spans and exits 0.',
  }),
  SEXTANT_HEALTH_PORT: env.int(1, 65_535).optional().meta({
    description:
      'port of a small HTTP server for probes and scrapes (`/livez`, `/readyz`, `/metrics`); not the gateway (its own port serves them)',
    default: 'unset (no server); the image sets `9101`',
    details:
      '`GET /livez` (200 while the process runs), `GET /readyz` (200 when NATS answers a ping within 1 s and the service is not shutting down, else 503 with the reason), `GET /metrics` (Prometheus). See [operations](operations.md).',
  }),
  SEXTANT_HEALTH_HOST: z
    .string()
    .default('127.0.0.1')
    .meta({ description: 'the address the health server binds', default: '`127.0.0.1`; the image sets `0.0.0.0`' }),
  NATS_USER: z.string().min(1).optional().describe('NATS user (set with `NATS_PASSWORD`)'),
  NATS_PASSWORD: z.string().min(1).optional().describe('NATS password (set with `NATS_USER`)'),
  NATS_TOKEN: z.string().min(1).optional().describe('NATS token authentication (instead of a user or a creds file)'),
  NATS_CREDS: z
    .string()
    .min(1)
    .optional()
    .describe('path of a NATS `.creds` file (user JWT and nkey seed, as `nsc` writes it), read at start'),
  NATS_TLS_CA: z.string().min(1).optional().meta({
    description: "path of the PEM CA that signed the NATS server's certificate; the connection then requires TLS (use `tls://` URLs)",
    default: 'unset (system CAs when the URL is `tls://`)',
  }),
  SEXTANT_BUS_SECRET: z.string().min(32, 'must be at least 32 characters (e.g. openssl rand -hex 32)').optional().meta({
    description: 'shared secret (32+ characters, `openssl rand -hex 32`) signing who each bus request is for; required on NATS',
    details:
      'every process signs who each bus request is for (the authenticated caller, or itself) and refuses requests not signed with it, so a pod that reaches NATS cannot bypass the gateway ([ADR 0030](adr/0030-signed-principal-on-the-bus.md)). Not used in the one-process mode (its bus never leaves the process).',
  }),
  SEXTANT_SHARDS: env
    .counts(() => true, 1, 256, 'service=count with a count from 1 to 256 (e.g. git-cache=4)')
    .default({})
    .meta({
      description: 'services run as several shards, e.g. `git-cache=4`; read by the gateway and the sharded services',
      default: 'unset (nothing sharded)',
      details:
        "a call that names a repository by URL (`repository`) goes to that repository's shard (jump consistent hash of the URL), so one shard clones it; a call naming it by registry id or name goes to the shard of that string, one by `workspace` to any shard. A sharded git-cache keeps its clones (stable names) over restarts. A shard of `symbol-indexer` or `vector-search` (e.g. `symbol-indexer=2`) claims only the indexing batches of repositories that hash to it, so one shard clones each; their tools are answered by any shard. Only git-cache's repository tools are routed by shard ([ADR 0027](adr/0027-repository-affinity.md)). Embedded mode ignores it.",
    }),
  SEXTANT_SHARD: z
    .string()
    .regex(
      /^(\d{1,3}|auto)$/,
      'must be a shard number (0, 1, …) or "auto" (the ordinal at the end of HOSTNAME, as a StatefulSet names its pods)',
    )
    .optional()
    .describe(
      "this process's shard, `0` to N−1, or `auto`: the ordinal at the end of `HOSTNAME` (StatefulSet pod `git-cache-2` is shard 2); required when `SEXTANT_SHARDS` names the service",
    ),
  HOSTNAME: z.string().optional().describe('read for `SEXTANT_SHARD=auto` (set by the container runtime)'),
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
  /** Check each reply against its contract's `Response` (SEXTANT_CHECK_REPLIES; `checkReplies` of messaging). */
  checkReplies: boolean;
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
    checkReplies: e.SEXTANT_CHECK_REPLIES,
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
  DATABASE_URL: env
    .url(['postgres', 'postgresql'])
    .optional()
    .meta({ description: 'Postgres URL; in embedded mode, set → used instead of PGlite', default: 'unset (embedded: PGlite)' }),
  DATABASE_POOL_SIZE: env.int(1, 200).default(10).describe('connections per service process'),
  DATABASE_CONNECT_TIMEOUT_MS: env
    .int(100, 120_000)
    .default(5_000)
    .describe('connection timeout; an unreachable database answers `unavailable`'),
});

/** Variables of a service that reads repositories to index them (workspace-registry, symbol-indexer). */
export const IndexerEnv = z.object({
  INDEX_MAX_FILE_BYTES: env
    .int(1_024, 256 * 1024 ** 2)
    .default(1024 ** 2)
    .describe('files larger than this are left out of the index (and not parsed)'),
  GIT_ALLOWED_HOSTS: env
    .hosts()
    .default(['github.com'])
    .describe('hosts (`host` or `host:port`) repositories may be cloned from, comma-separated'),
  GIT_ALLOW_FILE_URLS: env.bool().default(false).describe('`true` accepts `file:///abs/path` repositories (mirrors, tests)'),
  GIT_CASE_INSENSITIVE_HOSTS: env
    .hosts()
    .default([])
    .describe(
      'hosts besides github.com whose owner and repository names are case-insensitive, so `O/R` and `o/r` are one repository there (ADR 0044); set it alike on every service',
    ),
  GIT_CLONE_TIMEOUT_MS: env.int(1_000, 3_600_000).default(120_000).describe('budget of one clone or fetch; past it → `timeout`'),
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
