import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
import { rgPath } from '@vscode/ripgrep';
import { callTool, GitDaemon, httpClient, infrastructure, memory, startEmbedded, startGateway, startService } from '@sextant/testing';
const root = join(tmpdir(), 'sextant-bench-corpus');
const daemon = await GitDaemon.start(root);
const env = () => ({ GIT_ALLOWED_HOSTS: daemon.host, GIT_CACHE_DIR: mkdtempSync(join(tmpdir(), 'diag-')) });
const emb = await startEmbedded(env());
const infra = await infrastructure();
const gc = await startService('git-cache', { NATS_URL: infra.natsUrl, SEXTANT_NATS_PREFIX: 'diag', ...env() });
const gw = await startGateway(infra.natsUrl, { SEXTANT_NATS_PREFIX: 'diag' });
const clients = { emb: await httpClient(emb.url), nats: await httpClient(gw.url) };
const rg = (dir, p) => new Promise((r) => { const c = spawn(rgPath, ['--json','--no-config','--hidden','--no-ignore','--glob','!.git','--ignore-case','--fixed-strings','--regexp',p,'--','.'], { cwd: dir, stdio: ['ignore','pipe','ignore'] }); c.stdout.on('data', () => {}); c.on('close', r); });
for (const name of (process.argv[2] ?? 'lodash,typescript').split(',')) {
  const url = daemon.url('npm/' + name).replace(/\.git$/, '');
  for (const c of Object.values(clients)) await callTool(c, 'grep_repository', { repository: url, pattern: 'x' });
  for (const p of ['TODO', 'addEventListener', 'JSON.stringify', 'TODO', 'addEventListener']) {
    const row = [name.padEnd(12), p.padEnd(16)];
    let t = performance.now(); await rg(join(root, 'npm', name), p); row.push('rg ' + (performance.now() - t).toFixed(1));
    for (const [k, c] of Object.entries(clients)) {
      t = performance.now(); const r = await callTool(c, 'grep_repository', { repository: url, pattern: p, use_regex: false, max_matches: 10000 });
      row.push(`${k} ${(performance.now() - t).toFixed(1)} (engine ${r.body.stats.execution_time_ms}, svc ${r.body.metadata.execution_time_ms}, n=${r.body.stats.total_matches})`);
    }
    console.log(row.join('  '));
  }
}
console.log('emb mem', await memory(emb.process.pid), 'gc mem', await memory(gc.pid));
for (const c of Object.values(clients)) await c.close();
await gw.process.stop(); await gc.stop(); await emb.stop(); await daemon.stop();
