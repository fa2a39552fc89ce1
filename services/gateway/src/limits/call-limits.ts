import type { Principal } from '@sextant/contracts';

/** A rate: so many calls a minute, with bursts of up to `burst`. */
export interface Rate {
  perMinute: number;
  burst: number;
}

export interface CallLimitSettings {
  /** Every tool together, per caller. */
  perCaller: Rate;
  /** One tool, per caller (SEXTANT_TOOL_RATE_LIMITS). */
  perTool: Readonly<Record<string, Rate>>;
  /** Calls one caller may have in flight at once. */
  inFlightPerCaller: number;
  /** Calls the gateway has in flight at once, all callers together. */
  inFlight: number;
}

/** A token bucket: `burst` tokens, refilled at `perMinute`. */
class Bucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly rate: Rate,
    now: number,
  ) {
    this.tokens = rate.burst;
    this.at = now;
  }

  /** Takes a token: 0, or the milliseconds until one is there (nothing taken). */
  take(now: number): number {
    this.refill(now);
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.tokens) * 60_000) / this.rate.perMinute);
  }

  /** Gives back a token taken for a call that was then refused by another limit. */
  putBack(): void {
    this.tokens = Math.min(this.rate.burst, this.tokens + 1);
  }

  /** Full again: nothing to remember. */
  idle(now: number): boolean {
    this.refill(now);
    return this.tokens >= this.rate.burst;
  }

  private refill(now: number): void {
    this.tokens = Math.min(this.rate.burst, this.tokens + ((now - this.at) * this.rate.perMinute) / 60_000);
    this.at = now;
  }
}

export type Admission = { release(): void } | { retryAfterMs: number; reason: string };

/** Buckets remembered before the full (idle) ones are dropped. */
const MAX_BUCKETS = 10_000;

/**
 * Per-caller limits on tool calls (issue #13): a token bucket per caller
 * over all tools and one per caller and tool, a cap on one caller's calls
 * in flight, and a gateway-wide cap, so one caller cannot starve the others.
 * The local user (stdio, or authentication off on loopback) is not limited.
 */
export class CallLimits {
  private readonly buckets = new Map<string, Bucket>();
  private readonly inFlight = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly settings: CallLimitSettings,
    private readonly now: () => number = () => performance.now(),
  ) {}

  admit(principal: Principal, tool: string): Admission {
    if (principal.kind === 'local' || principal.kind === 'service') return { release: () => undefined };
    const caller = `${principal.kind}:${principal.id}`;
    const now = this.now();
    const all = this.bucket(caller, this.settings.perCaller, now);
    const toolRate = this.settings.perTool[tool];
    const one = toolRate && this.bucket(`${caller}|${tool}`, toolRate, now);
    const waitAll = all.take(now);
    if (waitAll > 0) return { retryAfterMs: waitAll, reason: `more than ${this.settings.perCaller.perMinute} calls a minute` };
    const waitOne = one?.take(now) ?? 0;
    if (waitOne > 0) {
      all.putBack();
      return { retryAfterMs: waitOne, reason: `more than ${toolRate.perMinute} ${tool} calls a minute` };
    }
    const mine = this.inFlight.get(caller) ?? 0;
    const busy =
      mine >= this.settings.inFlightPerCaller
        ? `${mine} calls of this caller in flight (at most ${this.settings.inFlightPerCaller})`
        : this.total >= this.settings.inFlight
          ? `the gateway has ${this.total} calls in flight (at most ${this.settings.inFlight})`
          : undefined;
    if (busy) {
      all.putBack();
      one?.putBack();
      return { retryAfterMs: 1_000, reason: busy };
    }
    this.inFlight.set(caller, mine + 1);
    this.total++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.total--;
        const left = (this.inFlight.get(caller) ?? 1) - 1;
        if (left > 0) this.inFlight.set(caller, left);
        else this.inFlight.delete(caller);
      },
    };
  }

  private bucket(key: string, rate: Rate, now: number): Bucket {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= MAX_BUCKETS) {
        // Full (idle) buckets first; if none is, the oldest: the map never holds more than MAX_BUCKETS.
        for (const [k, b] of this.buckets) if (b.idle(now)) this.buckets.delete(k);
        if (this.buckets.size >= MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value!);
      }
      bucket = new Bucket(rate, now);
      this.buckets.set(key, bucket);
    }
    return bucket;
  }
}
