import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, MessagePattern, NatsContext, Payload } from '@nestjs/microservices';
import { startTelemetry, trace, tracer } from '@sextant/telemetry';
import { z } from 'zod';
import { ServiceError } from '@sextant/work';
import { BusRequestError } from './errors.js';
import { BusExceptionFilter } from './exception-filter.js';
import { InProcessBus } from './in-process-bus.js';
import { defineTool } from '@sextant/contracts';
import { ToolHandler } from './tool-handler.js';

startTelemetry({ serviceName: 'messaging-spec', env: {} });

const Input = z.strictObject({ name: z.string().min(1) });
const Validate = {
  tool: defineTool({
    name: 'probe_validate',
    title: 'Probe',
    description: 'A tool of the probe service, for the spec.',
    service: 'projects',
    subject: 'probe.validate.v1',
    input: Input,
    output: z.object({ hello: z.string() }),
  }),
};

@Controller()
class ProbeController {
  @MessagePattern('probe.echo.v1')
  echo(@Payload() data: unknown) {
    return { got: data, at: new Date(0), skipped: undefined };
  }

  @ToolHandler(Validate)
  validate(input: z.output<typeof Input>) {
    return { hello: input.name };
  }

  @MessagePattern('probe.not-found.v1')
  notFound() {
    throw ServiceError.of('not_found', 'No such thing.', { id: 7 });
  }

  @MessagePattern('probe.huge.v1')
  huge(@Payload() data: { bytes: number }) {
    return { blob: 'x'.repeat(data.bytes) };
  }

  @MessagePattern('probe.crash.v1')
  crash() {
    throw new Error('password=hunter2 at /srv/secret.ts:12');
  }

  @MessagePattern('probe.slow.v1')
  async slow() {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return 'late';
  }

  @MessagePattern('probe.trace.v1')
  traced(@Ctx() ctx: NatsContext) {
    return { traceparent: ctx.getHeaders()?.get('traceparent'), traceId: trace.getActiveSpan()?.spanContext().traceId };
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof BusRequestError, `expected a BusRequestError, got ${String(error)}`);
    return error.error;
  }
  assert.fail('the request should have failed');
}

describe('InProcessBus', () => {
  const bus = new InProcessBus({ timeoutMs: 1_000 });
  let app: INestMicroservice;

  before(async () => {
    app = await NestFactory.createMicroservice(ProbeModule, { strategy: bus, logger: false });
    app.useGlobalFilters(new BusExceptionFilter());
    await app.listen();
  });
  after(() => app.close());

  it('round-trips payload and reply through JSON, as NATS would', async () => {
    const payload = { n: 1, nested: { list: [1, 'two'] }, gone: undefined };
    const reply = await bus.request<Record<string, unknown>>('probe.echo.v1', payload);
    assert.deepEqual(reply, { got: { n: 1, nested: { list: [1, 'two'] } }, at: '1970-01-01T00:00:00.000Z' });
  });

  it('validates payloads with the contract schema and names the bad field', async () => {
    assert.deepEqual(await bus.request('probe.validate.v1', { name: 'ada' }), { hello: 'ada' });
    const error = await failure(bus.request('probe.validate.v1', { name: '', extra: true }));
    assert.equal(error.code, 'invalid_input');
    assert.deepEqual(Object.keys(error.details?.fields as object).sort(), ['extra', 'name']);
  });

  it('carries a ServiceError as data', async () => {
    const error = await failure(bus.request('probe.not-found.v1', {}));
    assert.deepEqual(error, { code: 'not_found', message: 'No such thing.', details: { id: 7 }, retryable: false });
  });

  it('turns an unexpected error into internal_error without leaking its message', async () => {
    const error = await failure(bus.request('probe.crash.v1', {}));
    assert.equal(error.code, 'internal_error');
    assert.doesNotMatch(error.message, /hunter2|secret\.ts/);
    assert.match(error.message, /ref [a-z0-9]+/);
  });

  it('refuses a reply larger than NATS would carry (1 MiB), as an error instead of a timeout', async () => {
    assert.equal((await bus.request<{ blob: string }>('probe.huge.v1', { bytes: 1_000_000 })).blob.length, 1_000_000);
    const error = await bus.request('probe.huge.v1', { bytes: 1_100_000 }).catch((e: unknown) => e);
    assert.ok(error instanceof BusRequestError);
    assert.equal(error.error.code, 'internal_error');
    assert.match(error.error.message, /probe service's answer \(\d+ bytes\) is larger than the message bus carries \(1048576 bytes\)/);
    assert.equal((error.error.details as { limit_bytes: number }).limit_bytes, 1_048_576);
  });

  it('times out with the timeout code', async () => {
    const started = performance.now();
    const error = await failure(bus.request('probe.slow.v1', {}, { timeoutMs: 50 }));
    assert.equal(error.code, 'timeout');
    assert.equal(error.retryable, true);
    assert.ok(performance.now() - started < 250, 'the caller is released at the timeout');
  });

  it('answers unavailable for a subject nobody handles', async () => {
    const error = await failure(bus.request('nobody.home.v1', {}));
    assert.equal(error.code, 'unavailable');
  });

  it('propagates the caller trace in the traceparent header', async () => {
    await tracer.startActiveSpan('caller', async (span) => {
      const reply = await bus.request<{ traceparent: string; traceId: string }>('probe.trace.v1', {});
      span.end();
      assert.equal(reply.traceId, span.spanContext().traceId);
      assert.match(reply.traceparent, new RegExp(`^00-${span.spanContext().traceId}-[0-9a-f]{16}-01$`));
    });
  });
});
