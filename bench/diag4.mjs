import { mkdtempSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
import { callTool, GitDaemon, httpClient, infrastructure, startGateway, startService } from '@sextant/testing';
const root = join(tmpdir(), 'sextant-bench-corpus');
const daemon = await GitDaemon.start(root);
const infra = await infrastructure();
const gc = await startService('git-cache', { NATS_URL: infra.natsUrl, SEXTANT_NATS_PREFIX: 'diag4', GIT_ALLOWED_HOSTS: daemon.host, GIT_CACHE_DIR: mkdtempSync(join(tmpdir(), 'diag-')) });
const gw = await startGateway(infra.natsUrl, { SEXTANT_NATS_PREFIX: 'diag4', SEXTANT_BUS_TIMEOUT_MS: '120000' });
const c = await httpClient(gw.url);
const repos = ['aws-sdk','echarts','pdfjs-dist','three','date-fns','typescript','typeorm','angular-core','prettier','webpack','rxjs','react-dom','moment','chart.js','eslint','vue','sequelize','mongoose','axios','lodash','jquery','graphql'];
for (const p of (process.argv[2] ?? 'addEventListener').split(',')) for (const r of repos) {
  const url = daemon.url('npm/' + r).replace(/\.git$/, '');
  const t = performance.now();
  const res = await callTool(c, 'grep_repository', { repository: url, pattern: p, use_regex: false, max_matches: 10000 });
  const ms = performance.now() - t;
  if (ms > 2000 || res.isError) console.log(p, r, ms.toFixed(0), res.isError ? res.body.error : res.body.stats);
}
console.log('done');
await c.close(); await gw.process.stop(); await gc.stop(); await daemon.stop();
