import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { GetProject, LOCAL_PRINCIPAL, servicePrincipal, VerifyApiKey, type Principal, type ProjectRole } from '@sextant/contracts';
import { BUS_CLIENT, BusRequestError, type BusClient } from '@sextant/messaging';
import { withPrincipal } from '@sextant/work';
import type { AuthSettings, GatewayConfig, GroupRoles } from '../config.js';
import { GATEWAY_CONFIG } from '../tokens.js';

/** API keys start with this (projects' api-keys.ts makes them); anything else presented is read as a JWT. */
const API_KEY_PREFIX = 'sxt_';
const JWKS_TIMEOUT_MS = 5_000;
/** Verified keys, and verified tokens, remembered at most each (the oldest dropped first). */
const CACHE_ENTRIES = 10_000;
/**
 * A verified token is believed again without verifying its signature for
 * this long (never past its `exp`): the signature check is most of the cost
 * of a call's authentication, and an agent sends the same token on every call.
 */
const VERIFIED_TOKEN_MS = 60_000;
/** How long a project name of SEXTANT_AUTH_GROUP_ROLES is believed to name the id it was found under. */
const PROJECT_IDS_MS = 60_000;

/**
 * Why a request is not let in, as RFC 6750 says it: 401 without `error` (no
 * credentials), 401 `invalid_token` (a bad one), or 503 when the check
 * itself could not be made (the identity provider's keys, the key store or
 * the projects of a user's groups are unreachable: retry, do not sign in again).
 */
export interface AuthFailure {
  status: 401 | 429 | 503;
  error?: 'invalid_token';
  description: string;
  /** Seconds to wait (429: the client address's budget of refused credentials is spent). */
  retryAfter?: number;
}

export type AuthOutcome = { principal: Principal } | { failure: AuthFailure };

/**
 * Authenticates an HTTP caller from its `Authorization` header: a bearer JWT
 * of the organization's identity provider, verified against its JWKS (issuer,
 * audience, expiry and not-before with clock skew, an allow-list of
 * asymmetric algorithms, so `alg: none` and HMAC tokens never verify), or an
 * API key, verified by the projects service (which keeps only hashes) and
 * remembered for SEXTANT_AUTH_KEY_CACHE_MS.
 *
 * JWKS: fetched on first use and kept for SEXTANT_AUTH_JWKS_CACHE_MS; a
 * token whose `kid` is unknown makes one refetch (at most one per
 * SEXTANT_AUTH_JWKS_COOLDOWN_MS), so
 * a rotation at the identity provider is picked up; while the JWKS endpoint
 * is down, the keys already fetched keep working until their time is up.
 */
@Injectable()
export class Authenticator {
  private readonly log = new Logger('Authenticator');
  private readonly settings: AuthSettings;
  /** SEXTANT_AUTH_KEY_CACHE_MS (0: every call asks). */
  private readonly keyCacheMs: number;
  private readonly jwtSettings: Extract<AuthSettings, { mode: 'on' }>['jwt'];
  private readonly jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  private readonly keys = new Map<string, { principal: Principal; until: number }>();
  private readonly tokens = new Map<string, { principal: Principal; until: number }>();
  private readonly projectIds = new Map<string, { id: string | undefined; until: number }>();
  /** Refused credentials per client address (SEXTANT_AUTH_FAILURES_PER_MINUTE). */
  private readonly failures: FailureBudget;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(BUS_CLIENT) private readonly bus: BusClient,
  ) {
    this.settings = config.auth;
    this.failures = new FailureBudget(config.http.authFailuresPerMinute);
    this.keyCacheMs = config.auth.mode === 'on' ? config.auth.keyCacheMs : 0;
    const jwt = this.settings.mode === 'on' ? this.settings.jwt : undefined;
    this.jwtSettings = jwt;
    this.jwks = jwt
      ? createRemoteJWKSet(new URL(jwt.jwksUrl), {
          cacheMaxAge: jwt.jwksCacheMs,
          // Between two fetches at least this long: a flood of unknown kids cannot hammer the identity provider.
          cooldownDuration: jwt.jwksCooldownMs,
          timeoutDuration: JWKS_TIMEOUT_MS,
        })
      : undefined;
  }

  get enabled(): boolean {
    return this.settings.mode === 'on';
  }

  /** The identity provider callers get their tokens from, if any (protected resource metadata). */
  get issuer(): string | undefined {
    return this.settings.mode === 'on' ? this.settings.jwt?.issuer : undefined;
  }

  /**
   * `client`: the caller's address. Each address may be refused for its
   * credentials SEXTANT_AUTH_FAILURES_PER_MINUTE times a minute (a burst of
   * as many); past that, its requests are refused (429) without checking
   * their credentials (no key lookup over the bus, no signature check),
   * unless those were verified recently (in the caches), so callers with
   * valid credentials behind the same address are still let in.
   */
  async authenticate(authorization: string | undefined, client?: string): Promise<AuthOutcome> {
    if (this.settings.mode === 'off') return { principal: LOCAL_PRINCIPAL };
    if (client === undefined) return this.check(authorization);
    const known = this.remembered(authorization);
    if (known) return { principal: known };
    const wait = this.failures.wait(client);
    if (wait > 0) {
      return {
        failure: {
          status: 429,
          description: `Too many requests with missing or refused credentials from this address (SEXTANT_AUTH_FAILURES_PER_MINUTE); retry in ${wait} s.`,
          retryAfter: wait,
        },
      };
    }
    const outcome = await this.check(authorization);
    if ('failure' in outcome && outcome.failure.status === 401) this.failures.spend(client);
    return outcome;
  }

  /** The principal of credentials verified recently (the caches only: nothing is asked or verified). */
  private remembered(authorization: string | undefined): Principal | undefined {
    const token = authorization && /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i.exec(authorization)?.[1];
    if (!token) return undefined;
    const cached = token.startsWith(API_KEY_PREFIX)
      ? this.keys.get(createHash('sha256').update(token, 'utf8').digest('hex'))
      : this.tokens.get(token);
    return cached && cached.until > Date.now() ? cached.principal : undefined;
  }

  private async check(authorization: string | undefined): Promise<AuthOutcome> {
    if (!authorization || !/^Bearer\b/i.test(authorization)) {
      return fail(401, undefined, 'Authentication required: send Authorization: Bearer <token or API key>.');
    }
    const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i.exec(authorization);
    if (!match) return fail(401, 'invalid_token', 'The Authorization header is not a well-formed bearer token.');
    const token = match[1];
    if (token.startsWith(API_KEY_PREFIX)) return this.apiKey(token);
    if (!this.jwks || !this.jwtSettings) {
      return fail(401, 'invalid_token', 'Not an API key; this gateway accepts API keys only (no identity provider is configured).');
    }
    return this.jwt(token, this.jwks, this.jwtSettings);
  }

  private async apiKey(key: string): Promise<AuthOutcome> {
    const sha256 = createHash('sha256').update(key, 'utf8').digest('hex');
    const cached = this.keys.get(sha256);
    let principal = cached && cached.until > Date.now() ? cached.principal : undefined;
    if (principal === undefined) {
      try {
        const { key: grant } = await this.bus.request<VerifyApiKey.Response>(VerifyApiKey.SUBJECT, { sha256 });
        principal = grant
          ? { kind: 'key', id: grant.id, name: grant.name, admin: grant.admin, projects: grant.projects, groups: [] }
          : undefined;
      } catch (error) {
        this.log.warn(`could not verify an API key: ${(error as Error).message}`);
        return fail(503, undefined, 'API keys cannot be checked right now (the projects service is unreachable); try again shortly.');
      }
      // Unknown keys are not remembered: creating a key takes effect at once.
      if (principal && this.keyCacheMs > 0) remember(this.keys, sha256, principal, Date.now() + this.keyCacheMs);
    }
    return principal ? { principal } : fail(401, 'invalid_token', 'Unknown or revoked API key.');
  }

  /**
   * A user's roles from its groups (SEXTANT_AUTH_GROUP_ROLES): admin if one
   * of them is an admin group; per project, the highest role a group gives.
   * Projects are named by name or id in the setting; their ids are asked of
   * the projects service and kept a minute (a missing project gives nothing).
   */
  private async groupRoles(groups: readonly string[], config: GroupRoles): Promise<Pick<Principal, 'admin' | 'projects'>> {
    const admin = groups.some((g) => config.admins.includes(g));
    const projects: Record<string, ProjectRole> = {};
    if (admin) return { admin, projects };
    for (const grant of config.grants.filter((g) => groups.includes(g.group))) {
      const id = await this.projectId(grant.project);
      if (id && RANK[grant.role] > (projects[id] ? RANK[projects[id]] : 0)) projects[id] = grant.role;
    }
    return { admin, projects };
  }

  private async projectId(reference: string): Promise<string | undefined> {
    const cached = this.projectIds.get(reference);
    if (cached && cached.until > Date.now()) return cached.id;
    let id: string | undefined;
    try {
      // As the gateway itself (a service, which sees every project), not as the user.
      id = (
        await withPrincipal(servicePrincipal('gateway'), () =>
          this.bus.request<GetProject.Response>(GetProject.SUBJECT, { project: reference }),
        )
      ).project.id;
    } catch (error) {
      if (!(error instanceof BusRequestError) || error.error.code !== 'not_found') throw error;
    }
    this.projectIds.set(reference, { id, until: Date.now() + PROJECT_IDS_MS });
    return id;
  }

  private async jwt(
    token: string,
    jwks: ReturnType<typeof createRemoteJWKSet>,
    jwt: NonNullable<Extract<AuthSettings, { mode: 'on' }>['jwt']>,
  ): Promise<AuthOutcome> {
    const cached = this.tokens.get(token);
    if (cached && cached.until > Date.now()) return { principal: cached.principal };
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, jwks, {
        issuer: jwt.issuer,
        audience: jwt.audience,
        algorithms: jwt.algorithms,
        clockTolerance: jwt.clockSkewS,
        requiredClaims: ['sub', 'exp'],
      }));
    } catch (error) {
      return tokenFailure(error, this.log);
    }
    const claimed = payload[jwt.groupsClaim];
    const groups = Array.isArray(claimed) ? claimed.filter((g): g is string => typeof g === 'string') : [];
    const name = [payload.preferred_username, payload.email, payload.sub].find((v): v is string => typeof v === 'string' && v.length > 0)!;
    let roles: Pick<Principal, 'admin' | 'projects'>;
    try {
      roles = await this.groupRoles(groups, jwt.groupRoles);
    } catch (error) {
      this.log.warn(`could not resolve the projects of a user's groups: ${(error as Error).message}`);
      return fail(
        503,
        undefined,
        "The user's project roles cannot be resolved right now (the projects service is unreachable); try again shortly.",
      );
    }
    const principal: Principal = { kind: 'user', id: payload.sub!, name, ...roles, groups };
    remember(this.tokens, token, principal, Math.min(payload.exp! * 1000, Date.now() + VERIFIED_TOKEN_MS));
    return { principal };
  }
}

/**
 * Per client address, a bucket of `perMinute` refusals, refilled
 * continuously; at most CACHE_ENTRIES addresses are followed (the oldest
 * dropped first), and a full bucket is not kept.
 */
class FailureBudget {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Seconds until this address may be refused again; 0 when it may now. */
  wait(client: string): number {
    const tokens = this.tokens(client);
    return tokens >= 1 ? 0 : Math.ceil(((1 - tokens) * 60) / this.perMinute);
  }

  spend(client: string): void {
    const tokens = this.tokens(client) - 1;
    this.buckets.delete(client);
    if (this.buckets.size >= CACHE_ENTRIES) this.buckets.delete(this.buckets.keys().next().value!);
    this.buckets.set(client, { tokens, at: this.now() });
  }

  private tokens(client: string): number {
    const bucket = this.buckets.get(client);
    if (!bucket) return this.perMinute;
    const tokens = Math.min(this.perMinute, bucket.tokens + ((this.now() - bucket.at) * this.perMinute) / 60_000);
    if (tokens >= this.perMinute) this.buckets.delete(client);
    return tokens;
  }
}

/** How roles rank: a user whose groups give several roles in a project holds the highest. */
const RANK = { reader: 1, maintainer: 2 } as const;

/** Adds an entry that holds until `until`, dropping the oldest when the map is full. */
function remember(cache: Map<string, { principal: Principal; until: number }>, key: string, principal: Principal, until: number): void {
  cache.delete(key);
  if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(key, { principal, until });
}

function fail(status: 401 | 503, error: 'invalid_token' | undefined, description: string): AuthOutcome {
  return { failure: { status, ...(error ? { error } : {}), description } };
}

/** A rejected JWT in words a person can act on; a JWKS that could not be fetched is `unavailable`, not the caller's fault. */
function tokenFailure(error: unknown, log: Logger): AuthOutcome {
  if (error instanceof errors.JWTExpired) return fail(401, 'invalid_token', 'The token has expired.');
  if (error instanceof errors.JWTClaimValidationFailed) {
    const claim = error.claim;
    const why =
      claim === 'nbf'
        ? 'is not valid yet (nbf)'
        : claim === 'aud'
          ? 'is for another audience'
          : claim === 'iss'
            ? 'is from another issuer'
            : `has a bad "${claim}" claim (${error.reason})`;
    return fail(401, 'invalid_token', `The token ${why}.`);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return fail(401, 'invalid_token', 'The token signature does not verify.');
  if (error instanceof errors.JWKSNoMatchingKey)
    return fail(401, 'invalid_token', "No key of the identity provider matches the token's key id.");
  if (error instanceof errors.JOSEAlgNotAllowed)
    return fail(401, 'invalid_token', 'The token is signed with an algorithm this gateway does not accept.');
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid || error instanceof errors.JOSENotSupported) {
    return fail(401, 'invalid_token', 'The token is malformed.');
  }
  log.warn(`could not verify a token: ${(error as Error).message}`);
  return fail(503, undefined, "The identity provider's keys cannot be fetched right now; try again shortly.");
}
