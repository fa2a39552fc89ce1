import { Catch, type ArgumentsHost, type HttpServer } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { markSpanError, trace } from '@sextant/telemetry';
import { throwError, type Observable } from 'rxjs';
import type { BusError } from '@sextant/contracts';
import { toBusError, type ErrorClassifier } from './errors.js';

/**
 * The last stop of every failed message handler: whatever was thrown leaves
 * the service as a `BusError` (data), never as a stack trace. Registered
 * application-wide; HTTP errors (embedded mode hosts the gateway in the same
 * application) keep Nest's default handling.
 */
@Catch()
export class BusExceptionFilter extends BaseExceptionFilter {
  constructor(
    private readonly classifiers: readonly ErrorClassifier[] = [],
    httpAdapter?: HttpServer,
  ) {
    super(httpAdapter);
  }

  override catch(exception: unknown, host: ArgumentsHost): Observable<BusError> | void {
    if (host.getType() !== 'rpc') return super.catch(exception, host);
    const error = toBusError(exception, this.classifiers);
    markSpanError(trace.getActiveSpan(), error.code, error.message);
    return throwError(() => error);
  }
}
