import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { defineTool } from '@sextant/contracts';
import { z } from 'zod';
import { BusRequestError } from './errors.js';
import { BusExceptionFilter } from './exception-filter.js';
import { InProcessBus } from './in-process-bus.js';
import { checkReplies, ToolHandler } from './tool-handler.js';

const Input = z.strictObject({ reply: z.enum(['good', 'wrong', 'missing', 'date']) });
const Output = z.object({ items: z.array(z.object({ name: z.string(), at: z.string() })) });
const Probe = {
  tool: defineTool({
    name: 'probe_reply',
    title: 'Probe',
    description: 'A tool whose reply is checked, for the spec.',
    service: 'projects',
    subject: 'probe.reply.v1',
    input: Input,
    output: Output,
  }),
};

function replyOf(kind: z.output<typeof Input>['reply']): unknown {
  if (kind === 'wrong')
    return {
      items: [
        { name: 'a', at: 'now' },
        { name: 7, at: 'now' },
      ],
    };
  if (kind === 'missing') return { items: [{ name: 'a' }] };
  // A Date becomes the string the contract names on its way over the bus.
  if (kind === 'date') return { items: [{ name: 'a', at: new Date(0) }] };
  return { items: [{ name: 'a', at: 'now' }] };
}

@Controller()
class ProbeController {
  @ToolHandler(Probe)
  reply(input: z.output<typeof Input>) {
    return replyOf(input.reply);
  }
}

@Controller()
class AsyncProbeController {
  @ToolHandler({ tool: { ...Probe.tool, subject: 'probe.reply-async.v1' } })
  async reply(input: z.output<typeof Input>) {
    await new Promise((resolve) => setImmediate(resolve));
    return replyOf(input.reply);
  }
}

@Module({ controllers: [ProbeController, AsyncProbeController] })
class ProbeModule {}

describe('@ToolHandler reply check (SEXTANT_CHECK_REPLIES)', () => {
  const bus = new InProcessBus({ timeoutMs: 1_000 });
  let app: INestMicroservice;
  const failure = async (subject: string, reply: string) => {
    const error = await bus.request(subject, { reply }).catch((e: unknown) => e);
    assert.ok(error instanceof BusRequestError, `expected a BusRequestError, got ${JSON.stringify(error)}`);
    return error.error;
  };

  before(async () => {
    app = await NestFactory.createMicroservice(ProbeModule, { strategy: bus, logger: false });
    app.useGlobalFilters(new BusExceptionFilter());
    await app.listen();
  });
  after(() => app.close());
  afterEach(() => checkReplies(false));

  for (const subject of ['probe.reply.v1', 'probe.reply-async.v1']) {
    it(`${subject}: on, a reply off its contract answers internal_error naming the path; a good one passes`, async () => {
      checkReplies(true);
      assert.deepEqual(await bus.request(subject, { reply: 'good' }), { items: [{ name: 'a', at: 'now' }] });
      assert.deepEqual(await bus.request(subject, { reply: 'date' }), { items: [{ name: 'a', at: '1970-01-01T00:00:00.000Z' }] });
      const wrong = await failure(subject, 'wrong');
      assert.equal(wrong.code, 'internal_error');
      assert.equal(wrong.details?.path, 'items.1.name');
      assert.match(wrong.message, /probe_reply .* does not match its contract at items\.1\.name/);
      const missing = await failure(subject, 'missing');
      assert.deepEqual([missing.code, missing.details?.path, missing.details?.problem], ['internal_error', 'items.0.at', 'missing']);
    });

    it(`${subject}: off (production's default), the reply leaves as the handler made it`, async () => {
      checkReplies(false);
      assert.deepEqual(await bus.request(subject, { reply: 'wrong' }), {
        items: [
          { name: 'a', at: 'now' },
          { name: 7, at: 'now' },
        ],
      });
    });
  }
});
