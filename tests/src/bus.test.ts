/** The NATS adapter against the real NATS: prefixes isolate installations, failures map to the error codes. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { BusExceptionFilter, BusRequestError, NatsBusClient, natsServer, ServiceError } from '@sextant/messaging';
import { infrastructure, type Infrastructure } from '@sextant/testing';

@Controller()
class ProbeController {
  @MessagePattern('projects.probe.v1')
  probe(@Payload() data: { n: number }) {
    return { doubled: data.n * 2 };
  }

  @MessagePattern('projects.refuse.v1')
  refuse() {
    throw ServiceError.of('forbidden', 'Not for you.');
  }

  @MessagePattern('projects.huge.v1')
  huge(@Payload() data: { bytes: number }) {
    return { blob: 'x'.repeat(data.bytes) };
  }

  @MessagePattern('projects.sleep.v1')
  async sleep() {
    await new Promise((r) => setTimeout(r, 1_000));
    return 'awake';
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof BusRequestError);
    return error.error.code;
  }
  return 'no error';
}

describe('NATS bus', () => {
  let infra: Infrastructure;
  let app: INestMicroservice;
  let bus: NatsBusClient;
  let otherPrefix: NatsBusClient;
  const prefix = `bus${process.pid}`;

  before(async () => {
    infra = await infrastructure();
    app = await NestFactory.createMicroservice(ProbeModule, {
      strategy: natsServer({ servers: infra.natsUrl, service: 'projects', prefix }),
      logger: false,
    });
    app.useGlobalFilters(new BusExceptionFilter());
    await app.listen();
    bus = new NatsBusClient({ servers: infra.natsUrl, prefix, timeoutMs: 300, name: 'bus-test' });
    otherPrefix = new NatsBusClient({ servers: infra.natsUrl, prefix: `${prefix}other`, timeoutMs: 300, name: 'bus-test-2' });
    await Promise.all([bus.whenConnected(), otherPrefix.whenConnected()]);
  });
  after(async () => {
    await bus?.close();
    await otherPrefix?.close();
    await app?.close();
    await infra?.stop();
  });

  it('round-trips a request in Nest packet format', async () => {
    assert.deepEqual(await bus.request('projects.probe.v1', { n: 21 }), { doubled: 42 });
  });

  it('carries service errors as data', async () => {
    assert.equal(await code(bus.request('projects.refuse.v1', {})), 'forbidden');
  });

  it('answers unavailable at once when nothing listens under this prefix', async () => {
    const started = performance.now();
    assert.equal(await code(otherPrefix.request('projects.probe.v1', { n: 1 })), 'unavailable');
    assert.ok(performance.now() - started < 250, 'no-responders arrives before the timeout');
  });

  it('answers a reply larger than max_payload with an error at once, not a timeout', async () => {
    const started = performance.now();
    const error = await bus.request('projects.huge.v1', { bytes: 2_000_000 }).catch((e: unknown) => e);
    assert.ok(error instanceof BusRequestError);
    assert.equal(error.error.code, 'internal_error');
    assert.match(error.error.message, /projects service's answer \(\d+ bytes\) is larger than the message bus carries/);
    assert.ok(performance.now() - started < 300, 'before the 300 ms timeout');
  });

  it('answers timeout when the service is slower than the timeout', async () => {
    assert.equal(await code(bus.request('projects.sleep.v1', {})), 'timeout');
  });

  it('answers unavailable when NATS itself is unreachable', async () => {
    const nowhere = new NatsBusClient({ servers: 'nats://127.0.0.1:9', timeoutMs: 300, name: 'nowhere' });
    try {
      assert.equal(await code(nowhere.request('projects.probe.v1', {})), 'unavailable');
    } finally {
      await nowhere.close();
    }
  });
});
