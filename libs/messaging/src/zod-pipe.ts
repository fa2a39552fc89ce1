import type { PipeTransform } from '@nestjs/common';
import { safeParseInput } from '@sextant/contracts';
import type { z } from 'zod';
import { ServiceError } from './errors.js';

/**
 * Validates a message payload with its contract schema:
 * `@Payload(new ZodPipe(GetProject.Request)) input: GetProject.Request`.
 * A bad payload becomes `invalid_input` naming each bad field.
 */
export class ZodPipe<S extends z.ZodType> implements PipeTransform<unknown, z.output<S>> {
  constructor(private readonly schema: S) {}

  transform(value: unknown): z.output<S> {
    const result = safeParseInput(this.schema, value);
    if (!result.ok) throw new ServiceError(result.error);
    return result.value;
  }
}
