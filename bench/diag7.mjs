import { mkdtempSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
import { GitDaemon, infrastructure, leanCaller, startGateway, startService } from '@sextant/testing';
const root = join(tmpdir(), 'sextant-bench-corpus');
const daemon = await GitDaemon.start(root);
const infra = await infrastructure();
const prof = (d) => process.env.PROF ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=/tmp/prof/${d}` } : {};
const gc = await startService('git-cache', { NATS_URL: infra.natsUrl, SEXTANT_NATS_PREFIX: 'diag7', GIT_ALLOWED_HOSTS: daemon.host, GIT_CACHE_DIR: mkdtempSync(join(tmpdir(), 'diag-')), ...prof('gc') });
const gw = await startGateway(infra.natsUrl, { SEXTANT_NATS_PREFIX: 'diag7', ...prof('gw') });
const call = leanCaller(gw.url);
const [name, pattern, n] = [process.argv[2] ?? 'typescript', process.argv[3] ?? 'TODO', Number(process.argv[4] ?? 100)];
const url = daemon.url('npm/' + name).replace(/\.git$/, '');
await call('grep_repository', { repository: url, pattern: 'x' });
const tot = [], svc = [], eng = []; let r;
for (let i = 0; i < n; i++) { const t = performance.now(); r = await call('grep_repository', { repository: url, pattern, use_regex: false, max_matches: 10000 }); tot.push(performance.now() - t); svc.push(r.body.metadata.execution_time_ms); eng.push(r.body.stats.execution_time_ms); }
const p = (a) => { a.sort((x, y) => x - y); return a[a.length >> 1].toFixed(2); };
console.log(name, pattern, 'n', r.body.stats.total_matches, 'bytes', JSON.stringify(r.body).length, 'total', p(tot), 'svc', p(svc), 'engine', p(eng));
call.close(); await gw.process.stop(); await gc.stop(); await daemon.stop();
