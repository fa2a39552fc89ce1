/**
 * Nothing costly before authentication (issue 35, docs/adr/0045): a request
 * without valid credentials is refused from its headers, its body never read
 * and its connection closed; 1,100 slow sockets (headers that never end,
 * bodies sent a byte every 5 s) keep neither /livez nor an authenticated
 * caller from being answered.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { probe as timed, startSlowloris } from '@sextant/testing';
import { authenticatedSextant, runKeys, type Authenticated } from './auth-fixture.js';

function summarize(samples: number[]): { n: number; p50: number; p99: number; max: number } {
  const sorted = samples.filter((ms) => !Number.isNaN(ms)).sort((a, b) => a - b);
  const at = (q: number) => Number(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1));
  return { n: sorted.length, p50: at(0.5), p99: at(0.99), max: at(1) };
}

for (const [label, env] of [
  ['per-address cap at its default', {}],
  // Behind a proxy every caller has one address: no per-address cap helps; the global one (lowered below the
  // 550 sockets that never finish their headers) must make room by closing idle connections.
  ['one address for everyone, global cap 512', { SEXTANT_HTTP_MAX_CONNECTIONS_PER_IP: '1000000', SEXTANT_HTTP_MAX_CONNECTIONS: '512' }],
] as const)
  describe(`slow clients and callers without credentials (slowloris), ${label}`, () => {
    let fixture: Authenticated;
    let key: string;
    let base: string;

    before(async () => {
      fixture = await authenticatedSextant({ SEXTANT_HTTP_BODY_TIMEOUT_MS: '1500', ...env });
      const created = runKeys(fixture.database.url, 'create', '--name', 'probe', '--admin');
      assert.equal(created.status, 0, created.stderr);
      key = created.stdout.trim();
      base = new URL(fixture.sextant.url).origin;
    });
    after(() => fixture?.stop());

    const call = () =>
      timed(`${base}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_projects', arguments: {} } }),
      });

    /** A POST to /mcp whose headers (`extra` among them) arrive at once and whose body then comes a byte every `everyMs`. */
    const trickledPost = async (extra: string, length: number, everyMs: number): Promise<{ answer: string; closedAfter: number }> => {
      const { hostname, port } = new URL(base);
      const socket = connect({ host: hostname, port: Number(port) });
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
      const start = performance.now();
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${extra}Content-Type: application/json\r\n` +
          `Accept: application/json, text/event-stream\r\nContent-Length: ${length}\r\n\r\n`,
      );
      const trickle = setInterval(() => socket.write(' '), everyMs);
      const closedAfter = await new Promise<number>((resolve) => socket.on('close', () => resolve(performance.now() - start)));
      clearInterval(trickle);
      return { answer, closedAfter };
    };

    it('refuses a request without credentials from its headers (401 and its challenge) and closes the connection while its body trickles in', async () => {
      const { answer, closedAfter } = await trickledPost('', 100_000, 100);
      assert.match(answer, /^HTTP\/1\.1 401 /, answer);
      assert.match(answer, /\r\nwww-authenticate: Bearer realm="sextant", resource_metadata="[^"]+"/i);
      assert.match(answer, /\r\nconnection: close\r\n/i);
      // The answer from the headers, then the connection closed within the linger (1 s), the body still coming.
      assert.ok(closedAfter < 3_000, `the connection stayed open ${closedAfter.toFixed(0)} ms`);
    });

    it('answers an authenticated body sent a byte at a time 408 once SEXTANT_HTTP_BODY_TIMEOUT_MS passes, and closes its connection', async () => {
      const { answer, closedAfter } = await trickledPost(`Authorization: Bearer ${key}\r\n`, 1_000, 200);
      assert.match(answer, /^HTTP\/1\.1 408 /, answer);
      assert.match(answer, /SEXTANT_HTTP_BODY_TIMEOUT_MS/);
      assert.ok(closedAfter >= 1_400 && closedAfter < 4_000, `closed after ${closedAfter.toFixed(0)} ms`);
    });

    it('answers /livez and an authenticated MCP call while 1,100 slow sockets are open: none fails, p50 < 100 ms, none held 3 s', async () => {
      /** Both probes side by side, every 50 ms for `ms`: their latencies and any that failed. */
      const sample = async (ms: number) => {
        const livez: number[] = [];
        const calls: number[] = [];
        const failures: string[] = [];
        const until = performance.now() + ms;
        while (performance.now() < until) {
          const [live, mcp] = await Promise.all([
            timed(`${base}/livez`).catch((e: Error) => ({ status: e.message, ms: NaN })),
            call().catch((e: Error) => ({ status: e.message, ms: NaN })),
          ]);
          if (live.status !== 200) failures.push(`/livez ${live.status}`);
          if (mcp.status !== 200) failures.push(`MCP ${mcp.status}`);
          livez.push(live.ms);
          calls.push(mcp.ms);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return { livez: summarize(livez), mcp: summarize(calls), failures };
      };
      // Warm (the key verified once, then remembered; the code paths compiled), then what this machine gives with no attack.
      await sample(1_000);
      const quiet = await sample(3_000);
      const attack = startSlowloris({ url: fixture.sextant.url, sockets: 1_100, durationMs: 12_000, rampMs: 1_000, byteEveryMs: 5_000 });
      try {
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        const loaded = await sample(8_000);
        const report = await attack.done;
        console.log(JSON.stringify({ quiet, loaded, attack: report }));
        assert.deepEqual(loaded.failures, []);
        assert.ok(report.opened >= 1_100, `the attack opened only ${report.opened} sockets`);
        // Without the fix most probes fail outright (refused, or silent for the probe's 5 s). The median is asserted, and
        // the slowest probe only loosely: with some 60 samples p99 is the slowest one, and on this shared two-core
        // machine other suites' load alone has put a quiet p99 at 100 ms, and a CI run's p99 under the attack at 272
        // and 475 ms while its p50 stayed at 18 and 37 ms. Tails under the attack are `npm run bench:slowloris`'s to
        // measure (docs/adr/0045); a probe held for seconds is a stall, whatever the load.
        for (const name of ['livez', 'mcp'] as const) {
          const under = loaded[name];
          assert.ok(under.p50 < 100 && under.max < 3_000, `${name}: ${JSON.stringify({ quiet: quiet[name], loaded: under })}`);
        }
      } finally {
        attack.kill();
      }
    });
  });
