import { mkdtempSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
import http from 'node:http';
import { GitDaemon, infrastructure, startGateway, startService } from '@sextant/testing';
const root = join(tmpdir(), 'sextant-bench-corpus');
const daemon = await GitDaemon.start(root);
const infra = await infrastructure();
const gc = await startService('git-cache', { NATS_URL: infra.natsUrl, SEXTANT_NATS_PREFIX: 'diag6', GIT_ALLOWED_HOSTS: daemon.host, GIT_CACHE_DIR: mkdtempSync(join(tmpdir(), 'diag-')) });
const gw = await startGateway(infra.natsUrl, { SEXTANT_NATS_PREFIX: 'diag6' });
const agent = new http.Agent({ keepAlive: true });
const u = new URL(gw.url);
const raw = (body) => new Promise((resolve) => { const req = http.request({ host: u.hostname, port: u.port, path: '/mcp', method: 'POST', agent, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => { let d = ''; res.on('data', (x) => (d += x)); res.on('end', () => resolve(JSON.parse(d))); }); req.end(body); });
const mk = (args) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'grep_repository', arguments: args } });
const url = daemon.url('npm/tiny').replace(/\.git$/, '');
await raw(mk({ repository: url, pattern: 'x' }));
for (const [label, args] of [['bad', { repository: 'nope', pattern: 'x' }], ['tiny', { repository: url, pattern: 'TODO' }], ['bad', { repository: 'nope', pattern: 'x' }], ['tiny', { repository: url, pattern: 'TODO' }]]) {
  const tot = [], svc = [], eng = [];
  for (let i = 0; i < 100; i++) { const t = performance.now(); const r = await raw(mk(args)); tot.push(performance.now() - t); const b = r.result.structuredContent; svc.push(b.metadata.execution_time_ms); eng.push(b.stats?.execution_time_ms ?? 0); }
  const p = (a) => { a.sort((x, y) => x - y); return a[50].toFixed(2); };
  console.log(label, 'total', p(tot), 'svc', p(svc), 'engine', p(eng));
}
await gw.process.stop(); await gc.stop(); await daemon.stop();
