import { RpcException } from '@nestjs/microservices';
import { busError, invalidFields, type BusError, type ErrorCode } from '@sextant/contracts';

/**
 * Thrown by service code for an expected failure. It carries a `BusError`
 * (plain data) that crosses the bus unchanged and reaches the client as the
 * tool error `{error, message, details}`.
 */
export class ServiceError extends RpcException {
  constructor(readonly busError: BusError) {
    super(busError);
  }

  static of(code: ErrorCode, message: string, details?: Record<string, unknown>): ServiceError {
    return new ServiceError(busError(code, message, details));
  }

  /** `invalid_input` for checks a schema cannot express, in the same shape as schema failures: `details.fields` maps field → problem. */
  static invalid(fields: Record<string, string>): ServiceError {
    return new ServiceError(invalidFields(fields, 'input'));
  }
}
