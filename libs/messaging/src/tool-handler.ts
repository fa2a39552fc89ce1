import { Logger } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { accessRefusal, busError, replyMismatch, safeParseInput, type InternalContract, type ToolContract } from '@sextant/contracts';
import type { z } from 'zod';
import { currentPrincipal, ServiceError } from '@sextant/work';

let checkingReplies = false;
const logger = new Logger('ToolHandler');

/**
 * Whether every `@ToolHandler` checks its reply against the contract's `Response` before it leaves
 * (SEXTANT_CHECK_REPLIES: the process's bootstrap sets it; the test helpers turn it on). Off, a reply leaves as
 * the handler made it.
 */
export function checkReplies(on: boolean): void {
  checkingReplies = on;
}

/** `reply` if it matches `schema`; else the logged `internal_error` naming where it departs (a defect of the service). */
function checked(name: string, subject: string, schema: z.ZodType, reply: unknown): unknown {
  const mismatch = replyMismatch(schema, reply);
  if (!mismatch) return reply;
  const message = `The reply of ${name} (${subject}) does not match its contract at ${mismatch.path}: ${mismatch.problem}`;
  logger.error(message);
  throw new ServiceError(busError('internal_error', `${message}.`, { path: mismatch.path, problem: mismatch.problem }));
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/**
 * Marks a controller method as the handler of a tool: it answers the tool's
 * subject and receives the input already validated (aliases and defaults
 * applied) with the tool's schema; a bad payload leaves as `invalid_input`
 * naming each bad field, before the method runs. With `checkReplies(true)` its
 * reply is checked against the contract's `Response` too.
 *
 * ```ts
 * @ToolHandler(GrepRepository)
 * grep(input: GrepRepository.Request) { return this.service.grep(input); }
 * ```
 *
 * An internal request between services (`{request}` contracts, e.g.
 * `ResolveRepositories`) is handled the same way.
 */
export function ToolHandler<I extends z.ZodType>(contract: { tool: ToolContract<I> } | { request: InternalContract<I> }) {
  const tool = 'tool' in contract ? contract.tool : contract.request;
  const subject = tool.subject;
  if (subject === null) throw new Error(`${tool.name} is answered by the gateway; no service handles it`);
  return <M extends (input: z.output<I>) => unknown>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<M>,
  ): void => {
    const handle = descriptor.value!;
    const access = 'tool' in contract ? contract.tool.access : undefined;
    descriptor.value = function (this: unknown, payload: unknown) {
      // A tool's caller is checked here, in the service, whatever the gateway did; internal requests carry the
      // principal of the call they serve and are checked by the data they touch.
      if (access) {
        const refusal = accessRefusal(tool.name, access, currentPrincipal());
        if (refusal) throw new ServiceError(refusal);
      }
      const input = safeParseInput(tool.input, payload);
      if (!input.ok) throw new ServiceError(input.error);
      const reply = handle.call(this, input.value);
      if (!checkingReplies) return reply;
      return isThenable(reply)
        ? reply.then((value) => checked(tool.name, subject, tool.output, value))
        : checked(tool.name, subject, tool.output, reply);
    } as M;
    MessagePattern(subject)(target, key, descriptor);
  };
}
