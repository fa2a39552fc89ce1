import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Principal } from '@sextant/contracts';

/** The caller's principal with its subject, expiry and nonce, as base64url JSON. */
export const PRINCIPAL_HEADER = 'sextant-principal';
/** HMAC-SHA256 of `PRINCIPAL_HEADER`'s value under the installation's bus secret, base64url. */
export const PRINCIPAL_SIGNATURE_HEADER = 'sextant-principal-sig';

/** The least a bus secret may hold: 32 bytes' worth (e.g. `openssl rand -hex 32`, 64 characters). */
export const MIN_SECRET_LENGTH = 32;

interface Sealed {
  /** The principal. */
  p: Principal;
  /** The subject it is for (without a shard suffix): a seal is not good on another service's subject. */
  s: string;
  /** Expiry, epoch ms: the caller's timeout. */
  e: number;
  /**
   * A nonce: a seal is accepted once per process. A random UUID (122 random bits) from Node's buffered entropy: one
   * `getrandom` call per 128 seals, where `randomBytes` made one per seal (~50 µs each in a CPU profile of the
   * gateway under bench:gateway).
   */
  n: string;
}

/**
 * Who a bus request is for, carried in two headers and signed with a secret
 * every process of the installation shares (SEXTANT_BUS_SECRET): the gateway
 * seals the authenticated caller, a service seals the caller it is working
 * for (or itself), and a service opens the seal of every request before its
 * handler runs. A pod that reaches NATS without the secret cannot forge one;
 * a seal is bound to its subject, expires with the caller's timeout, and is
 * accepted once by each process (its nonce is remembered until it expires),
 * so a captured header cannot be replayed on another subject, later, or to
 * the same process. Another replica of the same service could still take a
 * replay within the timeout; NATS credentials and TLS are the fence for that.
 */
export class PrincipalSeal {
  private readonly seen = new Map<string, number>();
  private sweptAt = 0;

  constructor(private readonly secret: Buffer) {
    if (secret.length < MIN_SECRET_LENGTH) throw new RangeError(`a bus secret needs at least ${MIN_SECRET_LENGTH} bytes`);
  }

  /** The headers that carry `principal` on a request to `subject` whose caller waits `timeoutMs`. */
  seal(principal: Principal, subject: string, timeoutMs: number): Record<string, string> {
    const sealed: Sealed = { p: principal, s: subject, e: Date.now() + timeoutMs, n: randomUUID() };
    const value = Buffer.from(JSON.stringify(sealed)).toString('base64url');
    return { [PRINCIPAL_HEADER]: value, [PRINCIPAL_SIGNATURE_HEADER]: this.mac(value) };
  }

  /** The principal of a request to `subject`, or why it is refused. */
  open(value: string | undefined, signature: string | undefined, subject: string): { principal: Principal } | { refused: string } {
    if (!value || !signature) return { refused: 'it carries no principal' };
    const expected = Buffer.from(this.mac(value));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return { refused: 'its principal is not signed with the bus secret' };
    let sealed: Sealed;
    try {
      sealed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Sealed;
    } catch {
      return { refused: 'its principal is malformed' };
    }
    if (sealed.s !== subject) return { refused: 'its principal was sealed for another subject' };
    const now = Date.now();
    if (!(sealed.e > now)) return { refused: 'its principal has expired' };
    if (this.seen.has(sealed.n)) return { refused: 'its principal was already used (a replay)' };
    this.remember(sealed.n, sealed.e, now);
    return { principal: sealed.p };
  }

  private mac(value: string): string {
    return createHmac('sha256', this.secret).update(value).digest('base64url');
  }

  /** Keeps a nonce until its seal expires; the expired ones are dropped at most once a second. */
  private remember(nonce: string, expires: number, now: number): void {
    if (now - this.sweptAt > 1_000) {
      this.sweptAt = now;
      for (const [n, e] of this.seen) if (e <= now) this.seen.delete(n);
    }
    this.seen.set(nonce, expires);
  }
}
