/**
 * Every process of the distributed form, as an operator runs it: Prometheus
 * metrics on the gateway and on each service's health port, and a SIGTERM
 * that loses nothing (spans buffered for a minute still reach the OTLP
 * receiver, the process exits 0 within its grace period).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ServiceName } from '@sextant/contracts';
import { callTool, freePort, httpClient, OtlpReceiver, type RunningProcess } from '@sextant/testing';
import { distributedStack, type Stack } from './stack.js';

const SERVICES: ServiceName[] = ['projects', 'git-cache', 'workspace-registry', 'symbol-indexer', 'vector-search'];
const GRACE_MS = 10_000;

/** The value of one series in Prometheus text (`name{labels} value`), undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics and graceful shutdown of every process', () => {
  const receiver = new OtlpReceiver();
  let stack: Stack;
  const healthPorts = new Map<ServiceName, number>();
  let gatewayBase = '';

  before(async () => {
    await receiver.start();
    // Spans are buffered for ten minutes: only the flush at shutdown sends them.
    const otel = {
      ...receiver.exportEnv(600_000),
      SEXTANT_SHUTDOWN_GRACE_MS: String(GRACE_MS),
      LOG_LEVEL: 'info',
    };
    stack = await distributedStack();
    for (const name of SERVICES) {
      const port = await freePort();
      healthPorts.set(name, port);
      await stack.startService(name, { ...otel, SEXTANT_HEALTH_PORT: String(port) });
    }
    gatewayBase = (await stack.startGateway(otel)).url.replace(/\/mcp$/, '');
  });
  after(async () => {
    await stack?.stop();
    await receiver.stop();
  });

  it('serves per-tool counts, error codes and latencies on the gateway, and each service its own series', async () => {
    const client = await httpClient(`${gatewayBase}/mcp`);
    assert.equal((await callTool(client, 'health_check', {})).isError, false);
    assert.equal((await callTool(client, 'get_project', { project: 'nowhere' })).isError, true);
    await client.close();

    const response = await fetch(`${gatewayBase}/metrics`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    assert.equal(sample(text, 'sextant_tool_calls_total{tool="health_check",code="ok"}'), 1);
    assert.equal(sample(text, 'sextant_tool_calls_total{tool="get_project",code="not_found"}'), 1);
    assert.equal(sample(text, 'sextant_tool_call_duration_seconds_count{tool="health_check"}'), 1);
    assert.equal(sample(text, 'sextant_tool_call_duration_seconds_bucket{le="+Inf",tool="get_project"}'), 1);
    assert.equal(sample(text, 'sextant_requests_in_flight{component="gateway"}'), 0);
    assert.match(text, /^# TYPE sextant_bus_request_failures_total counter$/m);
    assert.ok((sample(text, 'process_resident_memory_bytes') ?? 0) > 0);

    const scrape = async (name: ServiceName) => {
      const res = await fetch(`http://127.0.0.1:${healthPorts.get(name)}/metrics`);
      assert.equal(res.status, 200, name);
      return res.text();
    };
    for (const name of SERVICES) {
      const inFlight = sample(await scrape(name), `sextant_requests_in_flight{component="${name}"}`);
      // The registry holds the stage workers' long polls for batches; the others answered everything they got.
      if (name === 'workspace-registry') assert.ok(inFlight !== undefined && inFlight >= 0, name);
      else assert.equal(inFlight, 0, name);
    }
    const gitCache = await scrape('git-cache');
    assert.equal(sample(gitCache, 'sextant_clone_cache_entries{cache="clones"}'), 0);
    // The work budgets (ADR 0028), idle.
    for (const budget of ['clones', 'greps', 'parses']) {
      assert.equal(sample(gitCache, `sextant_work_running{budget="${budget}"}`), 0, budget);
      assert.equal(sample(gitCache, `sextant_work_waiting{budget="${budget}",lane="interactive"}`), 0, budget);
    }
    const registry = await scrape('workspace-registry');
    assert.equal(sample(registry, 'sextant_index_jobs{state="queued"}'), 0);
    assert.equal(sample(registry, 'sextant_clone_cache_bytes{cache="checkouts"}'), 0);
  });

  it('on SIGTERM every process flushes its buffered spans and exits 0 within the grace period', async () => {
    const client = await httpClient(`${gatewayBase}/mcp`);
    const result = await callTool(client, 'health_check', {});
    await client.close();
    const traceId = result.body.metadata.trace_id;
    assert.equal(receiver.spans.filter((s) => s.traceId === traceId).length, 0, 'nothing exported before the shutdown');

    const processes: Array<[string, RunningProcess]> = [
      ['gateway', stack.gateway!.process],
      ...SERVICES.map((name) => [name, stack.services.get(name)!] as [string, RunningProcess]),
    ];
    const stoppedAt = performance.now();
    for (const [, process] of processes) process.child.kill('SIGTERM');
    const codes = await Promise.all(processes.map(([, process]) => process.exited));
    assert.deepEqual(
      codes,
      processes.map(() => 0),
      `exit codes of ${processes.map(([name]) => name).join(', ')}`,
    );
    assert.ok(performance.now() - stoppedAt < GRACE_MS, 'all exited within the grace period');

    const trace = receiver.spans.filter((s) => s.traceId === traceId);
    const services = new Set(trace.map((s) => s.service));
    for (const name of ['gateway', ...SERVICES])
      assert.ok(services.has(`sextant-${name}`), `spans of ${name}: ${[...services].join(', ')}`);
    assert.ok(trace.some((s) => s.service === 'sextant-gateway' && s.name === 'tools/call health_check'));
  });
});
