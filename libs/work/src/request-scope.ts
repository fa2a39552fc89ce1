import { AsyncLocalStorage } from 'node:async_hooks';
import type { Principal } from '@sextant/contracts';
import { ServiceError } from './errors.js';

/**
 * Whose work this is: `interactive` when a caller waits for it (a bus
 * request is being answered), `background` otherwise (an indexing job's
 * stages). Budgets serve the interactive lane first (work-budget.ts).
 */
export type Lane = 'interactive' | 'background';

interface RequestScope {
  /** Aborts when the caller's deadline passes: nobody waits for the answer any more. */
  readonly signal: AbortSignal | undefined;
  /** Who the work is for: requests it makes to other services carry it (principal-seal.ts). */
  principal: Principal | undefined;
  /** False for a scope that only names a principal (the gateway's tool call): its work is not a bus request's. */
  interactive: boolean;
}

const scopes = new AsyncLocalStorage<RequestScope>();

/**
 * Runs `handle` as the answer to a caller's request (the bus servers call
 * this for every request they receive): what it starts is interactive work,
 * and work that looks at `callerSignal()` (children in spawner.ts, waits for
 * a budget's slot) stops once `deadlineMs` has passed, the caller's own
 * timeout as the request's `sextant-timeout-ms` header carries it.
 */
export function inRequestScope<T>(deadlineMs: number | undefined, handle: () => T, principal?: Principal): T {
  const scope = deadlineMs !== undefined && deadlineMs > 0 ? new DeadlineScope(performance.now() + deadlineMs, principal) : undefined;
  return scopes.run(scope ?? { signal: undefined, principal, interactive: true }, handle);
}

/**
 * The scope of a request with a deadline. Its signal is made when first asked for (most requests never ask: a
 * database read does not), aborting at the same moment `AbortSignal.timeout(deadlineMs)` made at the start would
 * have, with the same reason: the timer and the signal are not a cost of every request.
 */
class DeadlineScope implements RequestScope {
  readonly interactive = true;
  private made: AbortSignal | undefined;

  constructor(
    private readonly deadline: number,
    readonly principal: Principal | undefined,
  ) {}

  get signal(): AbortSignal {
    if (this.made) return this.made;
    const left = this.deadline - performance.now();
    this.made =
      left > 0
        ? AbortSignal.timeout(Math.ceil(left))
        : AbortSignal.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    return this.made;
  }
}

/** Runs `work` for `principal`: the bus requests it makes carry it (the gateway runs each tool call so). */
export function withPrincipal<T>(principal: Principal, work: () => T): T {
  const outer = scopes.getStore();
  return scopes.run({ signal: outer?.signal, principal, interactive: outer?.interactive ?? false }, work);
}

/** Whom the work running now is for, when a request or a tool call says so. */
export function currentPrincipal(): Principal | undefined {
  return scopes.getStore()?.principal;
}

/** The signal of the request being answered, if any: it aborts when its caller stops waiting. */
export function callerSignal(): AbortSignal | undefined {
  return scopes.getStore()?.signal;
}

/** The lane of the work running now. */
export function currentLane(): Lane {
  return scopes.getStore()?.interactive ? 'interactive' : 'background';
}

/** The error of work stopped because its caller's deadline passed (no one reads it; it names the cause in logs). */
export function callerGone(): ServiceError {
  return ServiceError.of('timeout', "The caller's deadline passed before this work finished; it was stopped.");
}
