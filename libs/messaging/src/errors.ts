import { Logger } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import { busError, isBusError, invalidInput, type BusError } from '@sextant/contracts';
import { ServiceError } from '@sextant/work';
import { z } from 'zod';
import { serviceOf } from './bus-client.js';

/** Thrown by a `BusClient` when a request fails: the error object the service (or the bus) produced. */
export class BusRequestError extends Error {
  constructor(readonly error: BusError) {
    super(error.message);
    this.name = 'BusRequestError';
  }
}

/**
 * Recognizes infrastructure failures (e.g. "database unreachable") in errors a
 * service did not anticipate; returns the error to report, or undefined.
 */
export type ErrorClassifier = (error: unknown) => BusError | undefined;

const logger = new Logger('ServiceError');

/**
 * Normalizes anything a handler threw into a `BusError`. Unknown errors become
 * `internal_error` with a reference; their stack goes to the log, never to the client.
 */
export function toBusError(error: unknown, classifiers: readonly ErrorClassifier[] = []): BusError {
  if (error instanceof ServiceError) return error.busError;
  // A request this service made to another one failed: its error is the answer (e.g. the registry's `workspace_not_registered`).
  if (error instanceof BusRequestError) return error.error;
  if (error instanceof RpcException && isBusError(error.getError())) return error.getError() as BusError;
  if (error instanceof z.ZodError) return invalidInput(error);
  for (const classify of classifiers) {
    const classified = classify(error);
    if (classified) return classified;
  }
  const reference = Math.random().toString(36).slice(2, 10);
  logger.error(`unexpected error (ref ${reference}): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return busError('internal_error', `Internal error (ref ${reference}); the details were logged.`);
}

/** Reads the error a reply carried: a `BusError`, or whatever Nest produced for an unknown pattern. */
export function replyError(err: unknown, subject: string): BusError {
  if (isBusError(err)) return err;
  // Nest answers an unknown pattern with a plain string; a service of another version is the usual cause.
  return busError('unavailable', `The service behind ${subject} could not handle the request (${describe(err)}).`);
}

function describe(err: unknown): string {
  if (typeof err === 'string') return err;
  if (err && typeof err === 'object' && 'message' in err) return String(err.message);
  return 'unknown error';
}

/**
 * What a service sends instead of a reply larger than the bus carries (NATS
 * `max_payload`, 1 MiB by default; the in-process bus applies the same limit).
 * Tools bound their answers below it, so reaching this is a service defect,
 * reported as one instead of a silent timeout. Returns undefined when the
 * serialized reply `json` fits.
 */
export function oversizedReply(subject: string, json: string, limitBytes: number | undefined): BusError | undefined {
  if (!limitBytes || json.length <= limitBytes / 3) return undefined; // cannot be over: at most 3 UTF-8 bytes per UTF-16 unit
  const bytes = Buffer.byteLength(json);
  if (bytes <= limitBytes) return undefined;
  return busError(
    'internal_error',
    `The ${serviceOf(subject)} service's answer (${bytes} bytes) is larger than the message bus carries (${limitBytes} bytes); narrow the request.`,
    { reply_bytes: bytes, limit_bytes: limitBytes },
  );
}
