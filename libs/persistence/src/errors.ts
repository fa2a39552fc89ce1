import { busError, type BusError } from '@sextant/contracts';

// SQLSTATE classes/codes meaning "the database is not usable right now".
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '53400', '40001', '40P01']);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);
const NETWORK_MESSAGES = [
  'Connection terminated',
  'connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection ended unexpectedly',
  'not queryable',
];

function codeOf(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { driverError?: unknown; cause?: unknown }).driverError ?? (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** True when the error means the database could not be reached or dropped the connection. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = codeOf(error);
  if (code && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08'))) return true;
  const message = error instanceof Error ? error.message : '';
  return NETWORK_MESSAGES.some((m) => message.includes(m));
}

/** Error classifier for the bus: database outages become `unavailable` (retryable). */
export function classifyDatabaseError(error: unknown): BusError | undefined {
  if (!isDatabaseUnavailable(error)) return undefined;
  return busError('unavailable', 'The database is not reachable right now; nothing was changed. Try again shortly.');
}

/** SQLSTATE of a unique-constraint violation, and the constraint it names. */
export function uniqueViolation(error: unknown): string | undefined {
  if (codeOf(error) !== '23505') return undefined;
  const e = error as { constraint?: string; driverError?: { constraint?: string } };
  return e.constraint ?? e.driverError?.constraint ?? 'unique';
}
