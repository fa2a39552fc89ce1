import { z } from 'zod';

/**
 * The one error-code registry. Every service and the gateway use these codes;
 * clients switch on them, so a code is never renamed or reused.
 */
export const ERROR_CODES = [
  'invalid_input',
  'not_found',
  'forbidden',
  'rate_limited',
  'api_error',
  'timeout',
  'unavailable',
  'internal_error',
  'workspace_not_registered',
  'workspace_not_allowed',
  'workspace_limit_exceeded',
  'index_incompatible',
] as const;

export const ErrorCode = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** What each code means and whether retrying the same call can succeed. */
export const ERROR_CATALOG: Record<ErrorCode, { retryable: boolean; meaning: string }> = {
  invalid_input: { retryable: false, meaning: 'The arguments are wrong; `details.fields` names each bad field.' },
  not_found: { retryable: false, meaning: 'The named thing (project, repository, file, ref, job) does not exist.' },
  forbidden: {
    retryable: false,
    meaning: 'The request is understood but not allowed (scope, path outside the repository, host not allowed).',
  },
  rate_limited: {
    retryable: true,
    meaning:
      "A limit was reached: an upstream API's (`details.rate_limit_reset` says when it resets) or this endpoint's per caller (`details.retry_after`, seconds).",
  },
  api_error: { retryable: true, meaning: 'An upstream API (GitHub, embeddings, LLM) failed.' },
  timeout: { retryable: true, meaning: 'The operation exceeded its time budget.' },
  unavailable: { retryable: true, meaning: 'A service, the message bus or the database is not reachable right now.' },
  internal_error: { retryable: false, meaning: 'A bug: the error was logged with the request id.' },
  workspace_not_registered: { retryable: false, meaning: 'The workspace is unknown and auto-discovery is off.' },
  workspace_not_allowed: { retryable: false, meaning: 'The workspace lies outside every allowed root.' },
  workspace_limit_exceeded: { retryable: false, meaning: 'The cap on auto-discovered workspaces was reached.' },
  index_incompatible: { retryable: false, meaning: 'The index was written by an incompatible version; re-index.' },
};

/**
 * How an error crosses a process boundary (NATS reply or in-process bus):
 * plain data, never an Error instance.
 */
export const BusError = z.object({
  code: ErrorCode,
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
  retryable: z.boolean(),
});
export type BusError = z.infer<typeof BusError>;

export function busError(code: ErrorCode, message: string, details?: Record<string, unknown>): BusError {
  return details === undefined
    ? { code, message, retryable: ERROR_CATALOG[code].retryable }
    : { code, message, details, retryable: ERROR_CATALOG[code].retryable };
}

export function isBusError(value: unknown): value is BusError {
  return BusError.safeParse(value).success;
}
