/** The NATS adapter against the real NATS: prefixes isolate installations, failures map to the error codes. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { connect, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { servicePrincipal, type Principal } from '@sextant/contracts';
import {
  BusExceptionFilter,
  BusRequestError,
  NatsBusClient,
  natsServer,
  PRINCIPAL_HEADER,
  PRINCIPAL_SIGNATURE_HEADER,
  PrincipalSeal,
} from '@sextant/messaging';
import { currentPrincipal, ServiceError, withPrincipal } from '@sextant/work';
import { infrastructure, type Infrastructure } from '@sextant/testing';

const SECRET = Buffer.from('bus-test-secret-0123456789abcdef0123456789');
const seal = () => new PrincipalSeal(SECRET);
const ALICE: Principal = { kind: 'user', id: 'alice-sub', name: 'alice', admin: false, projects: { p1: 'reader' }, groups: ['team-a'] };

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

  @MessagePattern('projects.whoami.v1')
  whoami() {
    return currentPrincipal() ?? null;
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
      strategy: natsServer({ servers: infra.natsUrl, service: 'projects', prefix, seal: seal() }),
      logger: false,
    });
    app.useGlobalFilters(new BusExceptionFilter());
    await app.listen();
    const identity = servicePrincipal('gateway');
    bus = new NatsBusClient({ servers: infra.natsUrl, prefix, timeoutMs: 300, name: 'bus-test', seal: seal(), identity });
    otherPrefix = new NatsBusClient({
      servers: infra.natsUrl,
      prefix: `${prefix}other`,
      timeoutMs: 300,
      name: 'bus-test-2',
      seal: seal(),
      identity,
    });
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

  it('does not send a request failed before its turn ends: a caller told to retry must not see it run as well', async () => {
    const watcher = await connect({ servers: infra.natsUrl });
    try {
      let seen = 0;
      watcher.subscribe(`${prefix}.projects.unsent.v1`, { callback: () => void (seen += 1) });
      await watcher.flush();
      const leaving = new NatsBusClient({
        servers: infra.natsUrl,
        prefix,
        timeoutMs: 300,
        name: 'leaving',
        seal: seal(),
        identity: servicePrincipal('gateway'),
      });
      await leaving.whenConnected();
      // The turn's first request is published at once; the next waits for the end of the turn.
      const first = code(leaving.request('projects.unsent.v1', {}));
      const failed = code(leaving.request('projects.unsent.v1', {}));
      // In the same turn: close() fails the requests in flight, the waiting one among them, before it is published.
      const closed = leaving.close();
      assert.equal(await first, 'unavailable');
      assert.equal(await failed, 'unavailable');
      await closed;
      // What is sent reaches the watcher (it never answers: the request times out).
      assert.equal(await code(bus.request('projects.unsent.v1', {})), 'timeout');
      await watcher.flush();
      assert.equal(seen, 2, "only the turn's first and the request that was not failed were sent");
    } finally {
      await watcher.close();
    }
  });

  it('answers timeout when the service is slower than the timeout', async () => {
    assert.equal(await code(bus.request('projects.sleep.v1', {})), 'timeout');
  });

  it('answers unavailable when NATS itself is unreachable', async () => {
    const nowhere = new NatsBusClient({
      servers: 'nats://127.0.0.1:9',
      timeoutMs: 300,
      name: 'nowhere',
      seal: seal(),
      identity: servicePrincipal('gateway'),
    });
    try {
      assert.equal(await code(nowhere.request('projects.probe.v1', {})), 'unavailable');
    } finally {
      await nowhere.close();
    }
  });

  describe('who a request is for (the signed principal header)', () => {
    let raw: NatsConnection;
    before(async () => {
      raw = await connect({ servers: infra.natsUrl });
    });
    after(async () => {
      await raw?.close();
    });

    /** A request as a pod that reaches NATS directly would send it, with these headers. */
    const send = async (subject: string, headers: Record<string, string> = {}) => {
      const hdrs = natsHeaders();
      for (const [k, v] of Object.entries(headers)) hdrs.set(k, v);
      const reply = await raw.request(`${prefix}.${subject}`, JSON.stringify({ pattern: subject, data: {}, id: 'x1' }), {
        timeout: 2_000,
        headers: hdrs,
      });
      return reply.json<{ response?: unknown; err?: { code: string; message: string } }>();
    };

    it("carries the caller's principal to the handler, else the client's own identity", async () => {
      assert.deepEqual(await withPrincipal(ALICE, () => bus.request('projects.whoami.v1', {})), ALICE);
      assert.deepEqual(await bus.request('projects.whoami.v1', {}), servicePrincipal('gateway'));
    });

    it('refuses, without running the handler, a request with no principal, a forged, replayed, expired or misdirected one', async () => {
      const refused = async (headers: Record<string, string>, why: RegExp) => {
        const answer = await send('projects.whoami.v1', headers);
        assert.equal(answer.response, undefined);
        assert.equal(answer.err?.code, 'forbidden');
        assert.match(answer.err.message, why);
      };
      await refused({}, /carries no principal/);
      const forged = new PrincipalSeal(Buffer.from('not-the-installation-secret-0123456789'));
      await refused(forged.seal({ ...ALICE, admin: true }, 'projects.whoami.v1', 5_000), /not signed with the bus secret/);
      const good = seal().seal(ALICE, 'projects.whoami.v1', 5_000);
      // Tampering with the principal breaks the signature.
      const tampered = Buffer.from(
        Buffer.from(good[PRINCIPAL_HEADER], 'base64url').toString('utf8').replace('"admin":false', '"admin":true'),
      ).toString('base64url');
      await refused({ ...good, [PRINCIPAL_HEADER]: tampered }, /not signed with the bus secret/);
      assert.deepEqual((await send('projects.whoami.v1', good)).response, ALICE, 'the genuine header is accepted once');
      await refused(good, /already used \(a replay\)/);
      await refused(seal().seal(ALICE, 'projects.probe.v1', 5_000), /sealed for another subject/);
      await refused(seal().seal(ALICE, 'projects.whoami.v1', -1), /expired/);
      await refused({ [PRINCIPAL_HEADER]: 'e30', [PRINCIPAL_SIGNATURE_HEADER]: 'AAAA' }, /not signed/);
    });
  });
});
