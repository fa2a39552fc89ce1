/**
 * One trace from the MCP call through NATS into the service and its database
 * statement, exported over real OTLP/HTTP from separate processes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callTool, httpClient, OtlpReceiver } from '@sextant/testing';
import { distributedStack, type Stack } from './stack.js';

describe('tracing across processes', () => {
  const receiver = new OtlpReceiver();
  let stack: Stack;

  before(async () => {
    await receiver.start();
    const otel = receiver.exportEnv(100);
    stack = await distributedStack();
    await stack.startService('projects', otel);
    await stack.startGateway({ ...otel, LOG_LEVEL: 'debug' });
  });
  after(async () => {
    await stack?.stop();
    await receiver.stop();
  });

  it('shares one trace id between the gateway, the service and its SQL, parent to child', async () => {
    const client = await httpClient(stack.gateway!.url);
    await callTool(client, 'create_project', { name: 'traced' });
    const result = await callTool<{ project: { name: string } }>(client, 'get_project', { project: 'traced' });
    await client.close();
    const traceId = result.body.metadata.trace_id;

    const spans = await receiver.waitFor((all) => all.filter((s) => s.traceId === traceId).length >= 4);
    const trace = spans.filter((s) => s.traceId === traceId);
    const find = (service: string, name: string) => {
      const span = trace.find((s) => s.service === service && s.name === name);
      assert.ok(span, `no span ${service} "${name}" in ${JSON.stringify(trace.map((s) => `${s.service}:${s.name}`))}`);
      return span;
    };
    const call = find('sextant-gateway', 'tools/call get_project');
    const send = find('sextant-gateway', 'projects.get.v1 send');
    const process = find('sextant-projects', 'projects.get.v1 process');
    const db = find('sextant-projects', 'db projects.by-name');
    assert.equal(send.parentSpanId, call.spanId);
    assert.equal(process.parentSpanId, send.spanId, 'the service continued the trace from the NATS headers');
    assert.equal(db.parentSpanId, process.spanId);

    // The gateway's log line of the call is JSON and carries the same trace id.
    const line = await stack.gateway!.process.waitFor(/"msg":"tools\/call get_project ok in/);
    const entry = JSON.parse(line.input!) as { level: string; trace_id?: string };
    assert.deepEqual([entry.level, entry.trace_id], ['debug', traceId]);
  });
});
