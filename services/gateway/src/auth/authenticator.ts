import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { LOCAL_PRINCIPAL, VerifyApiKey, type Principal } from '@sextant/contracts';
import { BUS_CLIENT, type BusClient } from '@sextant/messaging';
import type { AuthSettings, GatewayConfig } from '../config.js';
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

/**
 * Why a request is not let in, as RFC 6750 says it: no credentials (no
 * `error`), a bad one (`invalid_token`), or the check itself could not be
 * made (`unavailable`: the identity provider's keys or the key store are
 * unreachable; the caller should retry, not sign in again).
 */
export interface AuthFailure {
  status: 401 | 503;
  error?: 'invalid_token';
  description: string;
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
  private readonly jwtSettings: Extract<AuthSettings, { mode: 'on' }>['jwt'];
  private readonly jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  private readonly keys = new Map<string, { principal: Principal; until: number }>();
  private readonly tokens = new Map<string, { principal: Principal; until: number }>();

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(BUS_CLIENT) private readonly bus: BusClient,
  ) {
    this.settings = config.auth;
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

  async authenticate(authorization: string | undefined): Promise<AuthOutcome> {
    if (this.settings.mode === 'off') return { principal: LOCAL_PRINCIPAL };
    const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i.exec(authorization ?? '');
    if (!authorization || !/^Bearer\b/i.test(authorization)) {
      return fail(401, undefined, 'Authentication required: send Authorization: Bearer <token or API key>.');
    }
    if (!match) return fail(401, 'invalid_token', 'The Authorization header is not a well-formed bearer token.');
    const token = match[1]!;
    if (token.startsWith(API_KEY_PREFIX)) return this.apiKey(token);
    if (!this.jwks || !this.jwtSettings) {
      return fail(401, 'invalid_token', 'Not an API key; this gateway accepts API keys only (no identity provider is configured).');
    }
    return this.jwt(token, this.jwks, this.jwtSettings);
  }

  private async apiKey(key: string): Promise<AuthOutcome> {
    const sha256 = createHash('sha256').update(key, 'utf8').digest('hex');
    const now = performance.now();
    const cached = this.keys.get(sha256);
    let principal = cached && cached.until > now ? cached.principal : undefined;
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
      if (principal) this.remember(sha256, principal, now);
    }
    return principal ? { principal } : fail(401, 'invalid_token', 'Unknown or revoked API key.');
  }

  private remember(sha256: string, principal: Principal, now: number): void {
    if (this.settings.mode !== 'on' || this.settings.keyCacheMs === 0) return;
    remember(this.keys, sha256, principal, now + this.settings.keyCacheMs);
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
    const groups = payload[jwt.groupsClaim];
    const name = [payload.preferred_username, payload.email, payload.sub].find((v): v is string => typeof v === 'string' && v.length > 0)!;
    const principal: Principal = {
      kind: 'user',
      id: payload.sub!,
      name,
      admin: false,
      projects: {},
      groups: Array.isArray(groups) ? groups.filter((g): g is string => typeof g === 'string') : [],
    };
    remember(this.tokens, token, principal, Math.min(payload.exp! * 1000, Date.now() + VERIFIED_TOKEN_MS));
    return { principal };
  }
}

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
