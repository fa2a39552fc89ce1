/**
 * Replicas of a service share the load through their NATS queue group, and
 * the survivors carry on when one stops.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HEALTH_SUBJECTS, servicePrincipal, type ServiceHealth } from '@sextant/contracts';
import { NatsBusClient, PrincipalSeal } from '@sextant/messaging';
import { callTool, httpClient, TEST_BUS_SECRET } from '@sextant/testing';
import { distributedStack, type Stack } from './stack.js';

describe('replicas in a queue group', () => {
  let stack: Stack;
  let bus: NatsBusClient;

  before(async () => {
    stack = await distributedStack();
    await stack.startService('projects');
    await stack.startService('projects');
    await stack.startGateway();
    bus = new NatsBusClient({
      servers: stack.infra.natsUrl,
      prefix: stack.prefix,
      timeoutMs: 3_000,
      name: 'replicas-test',
      seal: new PrincipalSeal(Buffer.from(TEST_BUS_SECRET)),
      identity: servicePrincipal('gateway'),
    });
    await bus.whenConnected();
  });
  after(async () => {
    await bus?.close();
    await stack?.stop();
  });

  it('spreads requests over both replicas', async () => {
    const instances = new Set<string>();
    for (let i = 0; i < 60; i++) instances.add((await bus.request<ServiceHealth>(HEALTH_SUBJECTS.projects, {})).instance);
    assert.equal(instances.size, 2, `answers came from ${[...instances].join(', ')}`);
  });

  it('keeps serving when one replica stops', async () => {
    const [first] = [...stack.services.values()];
    const replicas = (await Promise.all(Array.from({ length: 20 }, () => bus.request<ServiceHealth>(HEALTH_SUBJECTS.projects, {})))).map(
      (h) => h.instance,
    );
    assert.ok(replicas.length === 20);
    await first.stop();
    const client = await httpClient(stack.gateway!.url);
    for (let i = 0; i < 20; i++) assert.equal((await callTool(client, 'create_project', { name: `after stop ${i}` })).isError, false);
    await client.close();
  });
});
