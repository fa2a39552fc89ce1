import { MessagePattern } from '@nestjs/microservices';
import { accessRefusal, safeParseInput, type InternalContract, type ToolContract } from '@sextant/contracts';
import type { z } from 'zod';
import { currentPrincipal, ServiceError } from '@sextant/work';

/**
 * Marks a controller method as the handler of a tool: it answers the tool's
 * subject and receives the input already validated (aliases and defaults
 * applied) with the tool's schema; a bad payload leaves as `invalid_input`
 * naming each bad field, before the method runs.
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
      return handle.call(this, input.value);
    } as M;
    MessagePattern(subject)(target, key, descriptor);
  };
}
