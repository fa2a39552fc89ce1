/**
 * bench/grep — grep_repository against bare ripgrep, in one run:
 *   corpus      22 npm packages (≈ 330 MB of source), each its own git repository, served by `git daemon`
 *   cold        first grep of each repository (shallow clone + grep) vs `git clone --depth 1` + bare rg
 *   warm        20 literal and 10 regex patterns × every repository: bare rg over the same checkout,
 *               grep_repository through the gateway in embedded mode, and gateway → NATS → git-cache
 *               (and, for information, the same through the MCP SDK client)
 *   memory      peak RSS of the git-cache process (distributed) after all of it and three 10,000-match stress greps
 *   refresh     a cached, unchanged repository refreshed on every call (GIT_CACHE_REFRESH_AFTER_MS=0) vs not
 * Bare rg gets the very arguments the service passes (`--json`, case-insensitive, `.git` excluded) and its
 * whole output is read; the service is called with max_matches = 10,000 so both do the same work, except
 * where an answer reaches GREP_MAX_RESULT_BYTES (counted in the output). Tool calls are bare JSON-RPC
 * POSTs, so the figures are the server's, not a client library's.
 * Usage: npm run bench:grep [-- --quick]   (corpus cached in $SEXTANT_BENCH_CORPUS, default <tmp>/sextant-bench-corpus)
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rgPath } from '@vscode/ripgrep';
import { DEFAULT_MAX_RESULT_BYTES, ripgrepArgs } from '@sextant/git-cache';
import {
  GitDaemon,
  httpClient,
  infrastructure,
  leanCaller,
  memory,
  sdkCaller,
  startEmbedded,
  startGateway,
  startService,
  type RunningProcess,
  type Sextant,
  type ToolCaller,
} from '@sextant/testing';
import { summarize, timed, verdict } from '../stats.js';
import { buildCorpus, type CorpusRepository } from './corpus.js';

const quick = process.argv.includes('--quick');
const MAX_MATCHES = 10_000;
const MB = 2 ** 20;

const LITERALS = [
  'addEventListener',
  'JSON.stringify',
  'new Error(',
  'TODO',
  'hasOwnProperty',
  'deprecated',
  'Promise.resolve',
  'setTimeout',
  'Object.keys',
  'console.warn',
  'Symbol.iterator',
  'Math.floor',
  'encodeURIComponent',
  'instanceof Array',
  'Uint8Array',
  'XMLHttpRequest',
  'localStorage',
  'Number.isNaN',
  'FIXME',
  'prototype.toString',
];
const REGEXES = [
  String.raw`function\s+\w+Async\(`,
  String.raw`import \{[^}]*\} from`,
  String.raw`https?://[a-z0-9.-]+\.(com|org)`,
  String.raw`\b(let|const)\s+[A-Z_]{8,}\s*=`,
  String.raw`throw new \w+Error`,
  String.raw`catch \(\w+\) \{`,
  String.raw`\.then\(function`,
  String.raw`\b0x[0-9a-fA-F]{8}\b`,
  String.raw`TODO|FIXME|XXX`,
  String.raw`@(param|returns) \{Promise`,
];

interface Pattern {
  pattern: string;
  regex: boolean;
}

interface Mode {
  label: string;
  call: ToolCaller;
}

/** The arguments the git-cache service hands ripgrep for this query (its own function, so they cannot drift apart). */
function rgArgs({ pattern, regex }: Pattern): string[] {
  return ripgrepArgs({
    pattern,
    useRegex: regex,
    caseSensitive: false,
    fileExtensions: [],
    excludeDirs: [],
    contextLines: 0,
    maxMatches: MAX_MATCHES,
    maxResultBytes: DEFAULT_MAX_RESULT_BYTES,
    timeoutMs: 60_000,
  });
}

/** Bare ripgrep from this process: spawn, read all of stdout, wait for exit. Returns the number of matching lines. */
function bareRipgrep(dir: string, pattern: Pattern): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath, rgArgs(pattern), { cwd: dir, stdio: ['ignore', 'pipe', 'ignore'] });
    let matches = 0;
    const marker = '{"type":"match"';
    let tail = ''; // too short to hold a whole marker, so none is counted twice
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const text = tail + chunk;
      for (let at = text.indexOf(marker); at !== -1; at = text.indexOf(marker, at + 1)) matches++;
      tail = text.slice(-(marker.length - 1));
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 || code === 1 ? resolve(matches) : reject(new Error(`rg exited with ${code}`))));
  });
}

async function grep(call: ToolCaller, url: string, pattern: Pattern): Promise<{ matches: number; truncated: boolean }> {
  const result = await call<{ stats: { total_matches: number }; truncated: boolean }>('grep_repository', {
    repository: url,
    pattern: pattern.pattern,
    use_regex: pattern.regex,
    max_matches: MAX_MATCHES,
  });
  if (result.isError) throw new Error(`grep_repository ${url} /${pattern.pattern}/ failed: ${JSON.stringify(result.body)}`);
  return { matches: result.body.stats.total_matches, truncated: result.body.truncated };
}

async function openManifest(call: ToolCaller, url: string): Promise<void> {
  const result = await call('open_file', { repo: url, path: 'package.json', endLine: 5 });
  if (result.isError) throw new Error(`open_file failed: ${JSON.stringify(result.body)}`);
}

const ms = (v: number) => `${v.toFixed(1).padStart(7)} ms`;

/** Cold: the first grep of each repository (clone + grep) in each mode, against git clone --depth 1 + bare rg. */
async function cold(repos: CorpusRepository[], daemon: GitDaemon, modes: Mode[]): Promise<number[]> {
  const probe: Pattern = { pattern: 'TODO', regex: false };
  const totals = [0, ...modes.map(() => 0)];
  for (const repo of repos) {
    const url = daemon.url(repo.path).replace(/\.git$/, '');
    const scratch = mkdtempSync(join(tmpdir(), 'sextant-bench-clone-'));
    const baseline =
      (await timed(async () =>
        execFileSync('git', ['clone', '-q', '--depth=1', '--single-branch', '--no-tags', url, join(scratch, 'c')]),
      )) + (await timed(() => bareRipgrep(join(scratch, 'c'), probe)));
    rmSync(scratch, { recursive: true, force: true });
    totals[0] += baseline;
    const line = [`  ${repo.name.padEnd(14)} ${(repo.bytes / MB).toFixed(0).padStart(4)} MB  clone+rg ${ms(baseline)}`];
    for (const [i, mode] of modes.entries()) {
      const t = await timed(() => grep(mode.call, url, probe));
      totals[i + 1] += t;
      line.push(`${mode.label} ${ms(t)}`);
    }
    console.log(line.join('   '));
  }
  return totals;
}

/** Warm: every pattern over every repository, the three ways interleaved query by query. */
async function warm(repos: CorpusRepository[], daemon: GitDaemon, patterns: Pattern[], modes: Mode[]) {
  const samples = { rg: [] as number[], modes: modes.map(() => [] as number[]), overhead: modes.map(() => [] as number[]) };
  let truncated = 0;
  let mismatched = 0;
  for (const pattern of patterns) {
    for (const repo of repos) {
      const url = daemon.url(repo.path).replace(/\.git$/, '');
      let expected = 0;
      const rg = await timed(async () => (expected = await bareRipgrep(repo.dir, pattern)));
      samples.rg.push(rg);
      for (const [i, mode] of modes.entries()) {
        let answer = { matches: 0, truncated: false };
        const t = await timed(async () => (answer = await grep(mode.call, url, pattern)));
        samples.modes[i].push(t);
        samples.overhead[i].push(t - rg);
        if (answer.truncated) truncated++;
        else if (answer.matches !== expected) mismatched++;
      }
    }
  }
  return { samples, truncated, mismatched };
}

/** Refresh: open_file on a cached repository where every call fetches again, minus the same call without the fetch. */
async function refresh(repos: CorpusRepository[], daemon: GitDaemon, steady: ToolCaller, refreshing: ToolCaller) {
  const withRefresh: number[] = [];
  const without: number[] = [];
  const rounds = quick ? 3 : 5;
  for (const repo of repos) {
    const url = daemon.url(repo.path).replace(/\.git$/, '');
    await openManifest(refreshing, url); // the clone
    for (let i = 0; i < rounds; i++) {
      withRefresh.push(await timed(() => openManifest(refreshing, url)));
      without.push(await timed(() => openManifest(steady, url)));
    }
  }
  return { with: summarize(withRefresh).p50, without: summarize(without).p50 };
}

/** What the remote itself costs: p50 of bare `git ls-remote` and of `git fetch --depth 1` into an up-to-date clone. */
function bareRemote(daemon: GitDaemon, repo: CorpusRepository): { lsRemote: number; fetch: number } {
  const url = daemon.url(repo.path).replace(/\.git$/, '');
  const scratch = mkdtempSync(join(tmpdir(), 'sextant-bench-remote-'));
  try {
    execFileSync('git', ['clone', '-q', '--depth=1', '--single-branch', '--no-tags', url, scratch]);
    const time = (args: string[]) => {
      const samples = Array.from({ length: 7 }, () => {
        const start = performance.now();
        execFileSync('git', args, { cwd: scratch, stdio: 'ignore' });
        return performance.now() - start;
      });
      return summarize(samples).p50;
    };
    return { lsRemote: time(['ls-remote', 'origin', 'HEAD']), fetch: time(['fetch', '-q', '--depth=1', '--no-tags', 'origin', 'HEAD']) };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const corpusRoot = process.env.SEXTANT_BENCH_CORPUS ?? join(tmpdir(), 'sextant-bench-corpus');
  const all = buildCorpus(corpusRoot);
  // --quick: the smaller half of the corpus and a third of the patterns, for a smoke run.
  const repos = quick ? all.slice(-8) : all;
  const patterns: Pattern[] = [
    ...LITERALS.filter((_, i) => !quick || i % 3 === 0).map((pattern) => ({ pattern, regex: false })),
    ...REGEXES.filter((_, i) => !quick || i % 3 === 0).map((pattern) => ({ pattern, regex: true })),
  ];
  const totalMb = repos.reduce((n, r) => n + r.bytes, 0) / MB;
  console.log(
    `bench/grep: ${repos.length} repositories, ${totalMb.toFixed(0)} MB of source (${corpusRoot}); ` +
      `${patterns.filter((p) => !p.regex).length} literal + ${patterns.filter((p) => p.regex).length} regex patterns; ` +
      `ripgrep ${execFileSync(rgPath, ['--version'], { encoding: 'utf8' }).split('\n')[0]}`,
  );

  const daemon = await GitDaemon.start(corpusRoot);
  const stops: Array<() => Promise<unknown>> = [() => daemon.stop()];
  const caches: string[] = [];
  const gitEnv = (extra: Record<string, string> = {}) => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-bench-cache-'));
    caches.push(dir);
    return { GIT_ALLOWED_HOSTS: daemon.host, GIT_CACHE_DIR: dir, ...extra };
  };
  try {
    const embedded: Sextant = await startEmbedded(gitEnv());
    stops.push(() => embedded.stop());
    const infra = await infrastructure();
    stops.push(() => infra.stop());
    const prefix = `bench${process.pid}`;
    const gitCache: RunningProcess = await startService('git-cache', { NATS_URL: infra.natsUrl, SEXTANT_NATS_PREFIX: prefix, ...gitEnv() });
    stops.push(() => gitCache.stop());
    const gateway = await startGateway(infra.natsUrl, { SEXTANT_NATS_PREFIX: prefix });
    stops.push(() => gateway.process.stop());
    const refreshing = await startEmbedded(gitEnv({ GIT_CACHE_REFRESH_AFTER_MS: '0' }));
    stops.push(() => refreshing.stop());

    // Calls go out as bare JSON-RPC POSTs, so the figures are the server's; the last way shows what the MCP SDK client adds.
    const lean = [leanCaller(embedded.url), leanCaller(gateway.url), leanCaller(refreshing.url)];
    const sdkClient = await httpClient(gateway.url);
    const modes: Mode[] = [
      { label: 'embedded', call: lean[0] },
      { label: 'NATS', call: lean[1] },
      { label: 'NATS, SDK client', call: sdkCaller(sdkClient) },
    ];
    const refreshCaller = lean[2];
    // The targets are for the two deployments; the SDK row (same deployment as NATS) is for information.
    const targeted = modes.slice(0, 2);

    console.log('\ncold: first grep of each repository (shallow clone + grep "TODO")');
    const coldTotals = await cold(repos, daemon, targeted);

    console.log('\nwarm: every pattern over every repository');
    const { samples, truncated, mismatched } = await warm(repos, daemon, patterns, modes);
    const rg = summarize(samples.rg);
    console.log(`  ${'bare rg'.padEnd(34)} p50 ${ms(rg.p50)}   p99 ${ms(rg.p99)}`);
    for (const [i, mode] of modes.entries()) {
      const s = summarize(samples.modes[i]);
      const o = summarize(samples.overhead[i]);
      console.log(
        `  ${`grep_repository, ${mode.label}`.padEnd(34)} p50 ${ms(s.p50)}   p99 ${ms(s.p99)}   over rg: p50 ${ms(o.p50)}  p99 ${ms(o.p99)}`,
      );
    }
    console.log(
      `  ${samples.rg.length} queries per way; ${truncated} answers hit max_matches; ${mismatched} match counts differed from bare rg`,
    );

    const stress = [...repos].sort((a, b) => b.bytes - a.bytes).slice(0, 3);
    for (const repo of stress) {
      const result = await modes[1].call('grep_repository', {
        repository: daemon.url(repo.path).replace(/\.git$/, ''),
        pattern: 'e',
        max_matches: MAX_MATCHES,
        context_lines: 2,
      });
      if (result.isError) throw new Error(`stress grep failed: ${JSON.stringify(result.body)}`);
    }
    const mem = await memory(gitCache.pid);
    console.log(`\nmemory: git-cache process (distributed) RSS ${(mem.rss / MB).toFixed(0)} MB, peak ${(mem.peak / MB).toFixed(0)} MB`);

    console.log('\nrefresh: open_file on a cached, unchanged repository');
    const fetched = await refresh(repos, daemon, modes[0].call, refreshCaller);
    const refreshCost = fetched.with - fetched.without;
    console.log(`  p50 refreshing on every call ${ms(fetched.with)}, without ${ms(fetched.without)} → refresh ${ms(refreshCost)}`);
    const remote = bareRemote(daemon, repos[0]);
    console.log(
      `  the same remote, bare git: ls-remote ${ms(remote.lsRemote)}, fetch --depth 1 of the unchanged branch ${ms(remote.fetch)}`,
    );

    console.log('\ntargets:');
    for (const [i, mode] of targeted.entries()) {
      const p50 = summarize(samples.modes[i]).p50;
      const bound = 1.2 * rg.p50 + 2;
      console.log(verdict(p50 <= bound, `warm p50 ${mode.label} ≤ 1.2 × bare rg + 2 ms`, `${p50.toFixed(1)} ms vs ${bound.toFixed(1)} ms`));
    }
    console.log(verdict(refreshCost <= 50, 'refresh of an unchanged cached repository ≤ 50 ms', `${refreshCost.toFixed(1)} ms`));
    for (const [i, mode] of targeted.entries()) {
      const ratio = coldTotals[i + 1] / coldTotals[0];
      console.log(
        verdict(
          ratio <= 1.3,
          `cold clone + first grep ${mode.label} ≤ 1.3 × git clone --depth 1 + rg`,
          `ratio ${ratio.toFixed(3)} over the corpus`,
        ),
      );
    }
    console.log(verdict(mem.peak < 300 * MB, 'git-cache peak RSS < 300 MB', `${(mem.peak / MB).toFixed(0)} MB`));
    for (const caller of lean) caller.close();
    await sdkClient.close();
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    for (const dir of caches) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
