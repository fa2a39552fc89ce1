/**
 * bench/search quality — R@10 and MRR of search_code (built-in embedder, embedded), lexical alone, semantic alone and
 * hybrid, on two evaluations whose answers come from outside Sextant:
 *   commits  this repository's own history, as the release check measures: each commit's subject is the query, the
 *            files it changed (still present at HEAD) are the answer; a file counts when any returned chunk is in it
 *   docs     date-fns' function files: each file's `@summary` is the query, the file the answer; every doc comment is
 *            removed from the indexed copy, so the words of the query are not simply in the file
 * and hybrid again with `scope: all` over both repositories indexed together (it may lose at most 0.05);
 *   sets     with `--sets DIR`: the six retrieval sets of ../shared/eval/retrieval, each repository fetched and
 *            extracted at its snapshot as `DIR/<set>` (their README says how; this bench fetches nothing), measured as
 *            the release check measures, against the whole-file BM25 floor computed here, with and without the
 *            queries that spell a truth file's name, and hybrid again with `scope: all` over the six indexed together
 *            (the set's own files kept; it may lose at most 0.02 MRR); `--only-sets` leaves out the two evaluations above.
 *            Then symbols as a signal on their own: the same index served again with SEARCH_DEFINITION_WEIGHT=0, hybrid
 *            without the list of the definitions a query names beside hybrid with it.
 * `--store postgres` measures the Postgres store (embedded: PGlite, exact `real[]` scans, BM25 over term tables) instead of `local`.
 * Usage: npm run bench:search-quality [-- --sets DIR [--only-sets]] [--store local|postgres]
 *        (corpus under $SEXTANT_BENCH_CORPUS, default <tmp>/sextant-bench-corpus)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, leanCaller, repoPath, startEmbedded, type ToolCaller } from '@sextant/testing';
import { buildCorpus } from '../grep/corpus.js';
import { waitForJob } from '../jobs.js';
import { bm25Ranking, loadSets, score, SETS, searchRanking, type RetrievalSet, type Scores } from './retrieval-sets.js';

interface Case {
  query: string;
  /** Paths (in the repository) that answer it. */
  answers: string[];
}

/** Commits of this repository with 1–30 changed files still present: subject → those files. */
function commitCases(dir: string): Case[] {
  const log = execFileSync('git', ['log', '--no-merges', '--format=%x1e%s', '--name-only'], { cwd: dir, maxBuffer: 1 << 28 }).toString();
  const present = new Set(
    execFileSync('git', ['ls-files'], { cwd: dir, maxBuffer: 1 << 28 })
      .toString()
      .split('\n')
      .filter(Boolean),
  );
  const cases: Case[] = [];
  for (const entry of log.split('\x1e').slice(1)) {
    const [subject, ...files] = entry.split('\n').filter((l) => l.trim());
    const answers = files.filter((f) => present.has(f) && f !== 'package-lock.json');
    if (subject && answers.length >= 1 && answers.length <= 30) cases.push({ query: subject, answers });
  }
  return cases;
}

/** date-fns' function files without their doc comments, as a repository; each file's `@summary` → the file. */
function docsRepository(corpusRoot: string, dir: string): Case[] {
  const source = join(corpusRoot, 'npm', 'date-fns');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'src'), { recursive: true });
  const cases: Case[] = [];
  for (const name of readdirSync(source).filter((f) => f.endsWith('.mjs') && !f.endsWith('.d.mts'))) {
    const text = readFileSync(join(source, name), 'utf8');
    const summary = /@summary\s+(.+)/.exec(text)?.[1]?.trim();
    const path = `src/${name}`;
    writeFileSync(join(dir, path), text.replace(/\/\*\*[\s\S]*?\*\//g, ''));
    if (summary) cases.push({ query: summary, answers: [path] });
  }
  git(dir, 'init', '-q', '--initial-branch=main');
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.name=bench', '-c', 'user.email=bench@sextant.invalid', 'commit', '-q', '-m', 'date-fns without doc comments');
  return cases;
}

/**
 * R@10 (share of a case's answers among the top 10 results' files), hit@10 (a case with any answer among them) and
 * MRR (first answer's file rank), averaged.
 */
interface Measured {
  recall: number;
  hit: number;
  mrr: number;
}

async function measure(
  call: ToolCaller,
  repo: string,
  cases: readonly Case[],
  mode: string,
  scope: Record<string, unknown>,
): Promise<Measured> {
  let recall = 0;
  let hits = 0;
  let mrr = 0;
  for (const c of cases) {
    const found = await call<{ results: Array<{ repo: string; path: string }> }>('search_code', { query: c.query, scope, mode, topK: 10 });
    if (found.isError) throw new Error(`search_code ${JSON.stringify(c.query)}: ${JSON.stringify(found.body)}`);
    const files = [...new Set(found.body.results.filter((r) => r.repo === repo).map((r) => r.path))];
    const answers = new Set(c.answers);
    recall += files.filter((f) => answers.has(f)).length / answers.size;
    const first = files.findIndex((f) => answers.has(f));
    mrr += first < 0 ? 0 : 1 / (first + 1);
    if (first >= 0) hits++;
  }
  return { recall: recall / cases.length, hit: hits / cases.length, mrr: mrr / cases.length };
}

/** The options of the command line: `--sets DIR`, `--only-sets`, `--store local|postgres`. */
function options(args: readonly string[]): { setsRoot: string | undefined; onlySets: boolean; store: string } {
  const at = args.indexOf('--sets');
  const setsRoot = at >= 0 ? args[at + 1] : undefined;
  const storeAt = args.indexOf('--store');
  const store = storeAt >= 0 ? args[storeAt + 1] : 'local';
  const known = new Set(['--sets', '--only-sets', setsRoot, '--store', storeAt >= 0 ? store : '--store']);
  const unknown = args.filter((a) => !known.has(a));
  if (
    (at >= 0 && !setsRoot) ||
    unknown.length > 0 ||
    (args.includes('--only-sets') && !setsRoot) ||
    !['local', 'postgres'].includes(store ?? '')
  ) {
    console.error('usage: npm run bench:search-quality [-- --sets DIR [--only-sets]] [--store local|postgres]');
    process.exit(2);
  }
  return { setsRoot, onlySets: args.includes('--only-sets'), store: store };
}

const fmt = (s: Scores) => `${s.recall.toFixed(3)} ${s.mrr.toFixed(3)}`;

/**
 * Each set: its floor and each mode, on all its queries and on those that do not spell a truth file's name; returns
 * each set's hybrid ranking.
 */
async function measureSets(call: ToolCaller, sets: readonly RetrievalSet[]): Promise<Map<string, string[][]>> {
  const hybrids = new Map<string, string[][]>();
  console.log('\nretrieval sets (../shared/eval/retrieval): R@10 MRR; release-check ranking (topK 30, files by first chunk, cut at 10)');
  console.log('set       queries  floor(BM25)  lexical      semantic     hybrid       hybrid, scope all');
  const totals = { floor: [0, 0], lexical: [0, 0], semantic: [0, 0], hybrid: [0, 0], all: [0, 0] } as Record<string, [number, number]>;
  const below: string[] = [];
  let closest = Infinity;
  for (const set of sets) {
    const floor = bm25Ranking(set);
    const modes: Record<string, string[][]> = {};
    for (const mode of ['lexical', 'semantic', 'hybrid']) modes[mode] = await searchRanking(call, set, set.name, mode);
    modes.all = await searchRanking(call, set, set.name, 'hybrid', true);
    hybrids.set(set.name, modes.hybrid);
    for (const leaks of [true, false]) {
      const keep = set.queries.map((q) => leaks || !q.names_file);
      const pick = <T>(list: readonly T[]) => list.filter((_, i) => keep[i]);
      const queries = pick(set.queries);
      const row = {
        floor: score(queries, pick(floor), Infinity),
        ...Object.fromEntries(Object.entries(modes).map(([mode, ranked]) => [mode, score(queries, pick(ranked))])),
      } as Record<string, Scores>;
      if (leaks) for (const [k, v] of Object.entries(row)) totals[k] = [totals[k][0] + v.recall, totals[k][1] + v.mrr];
      for (const measure of ['recall', 'mrr'] as const) {
        const [ours, floor] = [row.hybrid[measure], row.floor[measure]];
        if (ours < floor)
          below.push(
            `${set.name}${leaks ? '' : ' (no leak)'} ${measure === 'recall' ? 'R@10' : 'MRR'} ${ours.toFixed(4)} < ${floor.toFixed(4)}`,
          );
        else closest = Math.min(closest, ours - floor);
      }
      console.log(
        `${(leaks ? set.name : `  no leak`).padEnd(9)} ${String(queries.length).padStart(7)}  ${fmt(row.floor)}  ${fmt(row.lexical)}  ${fmt(row.semantic)}  ${fmt(row.hybrid)}  ${fmt(row.all)}`,
      );
    }
  }
  const n = sets.length;
  const mean = (k: string) => ({ recall: totals[k][0] / n, mrr: totals[k][1] / n });
  console.log(
    `${'mean'.padEnd(9)} ${''.padStart(7)}  ${fmt(mean('floor'))}  ${fmt(mean('lexical'))}  ${fmt(mean('semantic'))}  ${fmt(mean('hybrid'))}  ${fmt(mean('all'))}`,
  );
  console.log(
    `hybrid / floor: R@10 ${(mean('hybrid').recall / mean('floor').recall).toFixed(2)}×, MRR ${(mean('hybrid').mrr / mean('floor').mrr).toFixed(2)}× (targets 1.1×, 1.25×); scope all loses ${(mean('hybrid').mrr - mean('all').mrr).toFixed(3)} MRR (at most 0.02)`,
  );
  console.log(
    below.length === 0
      ? `never below the floor: PASS (hybrid, every set, with and without leaks; closest margin ${closest.toFixed(4)})`
      : `never below the floor: MISS (${below.join('; ')})`,
  );
  return hybrids;
}

/**
 * Symbols as a signal, on its own: hybrid with the list of the definitions a query names (`withSymbols`, the default)
 * against hybrid without it (`call` a server with SEARCH_DEFINITION_WEIGHT=0 on the same index).
 */
async function compareSymbols(call: ToolCaller, sets: readonly RetrievalSet[], withSymbols: Map<string, string[][]>): Promise<void> {
  console.log('\nsymbols as a signal: hybrid without and with the definitions list (SEARCH_DEFINITION_WEIGHT 0 / default); R@10 MRR');
  console.log('set       queries  floor(BM25)  hybrid       hybrid + symbols');
  const totals = { floor: [0, 0], plain: [0, 0], symbols: [0, 0] } as Record<string, [number, number]>;
  for (const set of sets) {
    const [floor, plain, symbols] = [bm25Ranking(set), await searchRanking(call, set, set.name, 'hybrid'), withSymbols.get(set.name)!];
    for (const leaks of [true, false]) {
      const keep = set.queries.map((q) => leaks || !q.names_file);
      const pick = <T>(list: readonly T[]) => list.filter((_, i) => keep[i]);
      const queries = pick(set.queries);
      const row = { floor: score(queries, pick(floor), Infinity), plain: score(queries, pick(plain)), symbols: score(queries, pick(symbols)) };
      if (leaks) for (const [k, v] of Object.entries(row)) totals[k] = [totals[k][0] + v.recall, totals[k][1] + v.mrr];
      console.log(`${(leaks ? set.name : `  no leak`).padEnd(9)} ${String(queries.length).padStart(7)}  ${fmt(row.floor)}  ${fmt(row.plain)}  ${fmt(row.symbols)}`);
    }
  }
  const mean = (k: string) => ({ recall: totals[k][0] / sets.length, mrr: totals[k][1] / sets.length });
  console.log(`${'mean'.padEnd(9)} ${''.padStart(7)}  ${fmt(mean('floor'))}  ${fmt(mean('plain'))}  ${fmt(mean('symbols'))}`);
}

async function main(): Promise<void> {
  const { setsRoot, onlySets, store } = options(process.argv.slice(2));
  const loaded = setsRoot ? loadSets(repoPath('../shared/eval/retrieval'), setsRoot) : { sets: [], missing: [...SETS] };
  if (loaded.missing.length > 0) {
    console.log(
      `retrieval sets not measured (${loaded.missing.join(', ')}): fetch each repository and extract its snapshot as <DIR>/<set>, then --sets DIR`,
    );
  }
  const corpusRoot = process.env.SEXTANT_BENCH_CORPUS ?? join(tmpdir(), 'sextant-bench-corpus');
  if (!onlySets) buildCorpus(corpusRoot);
  const work = mkdtempSync(join(tmpdir(), 'sxq-'));
  const self = join(work, 'sextant');
  if (!onlySets) execFileSync('git', ['clone', '-q', '--no-local', repoPath('.'), self]);
  const evaluations = onlySets
    ? []
    : [
        { name: 'commits', repo: 'sextant', dir: self, cases: commitCases(self) },
        {
          name: 'docs',
          repo: 'date-fns-docs',
          dir: join(work, 'date-fns-docs'),
          cases: docsRepository(corpusRoot, join(work, 'date-fns-docs')),
        },
      ];
  const files = (dir: string) =>
    execFileSync('git', ['ls-files'], { cwd: dir, maxBuffer: 1 << 28 })
      .toString()
      .split('\n').length - 1;
  const server = { SEXTANT_DATA_DIR: join(work, 'data'), SEXTANT_INDEXING_STAGES: 'vectors', ALLOW_GLOBAL_SCOPE: 'true', VECTOR_STORE: store };
  let hybrids = new Map<string, string[][]>();
  const embedded = await startEmbedded(server);
  try {
    const call = leanCaller(embedded.url);
    for (const { repo, dir } of [...evaluations, ...loaded.sets.map((set) => ({ repo: set.name, dir: set.dir }))]) {
      const job = await call<{ job_id: string }>('index_repository', { repository: repo, local_path: dir });
      if (job.isError) throw new Error(JSON.stringify(job.body));
      await waitForJob(call, job.body.job_id, 100);
    }
    if (evaluations.length > 0) {
      console.log('bench/search quality (built-in embedder; a file counts when any of the top 10 chunks is in it)\n');
      console.log('evaluation  repository files  cases  mode       scope  R@10   hit@10 MRR');
    }
    for (const e of evaluations) {
      const rows: Array<[string, string, Measured]> = [];
      for (const mode of ['lexical', 'semantic', 'hybrid'])
        rows.push([mode, 'repo', await measure(call, e.repo, e.cases, mode, { type: 'repo', repo: e.repo })]);
      rows.push(['hybrid', 'all', await measure(call, e.repo, e.cases, 'hybrid', { type: 'all' })]);
      for (const [mode, scope, m] of rows) {
        console.log(
          `${e.name.padEnd(11)} ${String(files(e.dir)).padStart(16)}  ${String(e.cases.length).padStart(5)}  ${mode.padEnd(9)}  ${scope.padEnd(5)}  ${m.recall.toFixed(3)}  ${m.hit.toFixed(3)}  ${m.mrr.toFixed(3)}`,
        );
      }
    }
    if (loaded.sets.length > 0) hybrids = await measureSets(call, loaded.sets);
    call.close();
  } finally {
    await embedded.stop();
  }
  try {
    if (loaded.sets.length > 0) {
      // The same index, served again without the definitions list.
      const plain = await startEmbedded({ ...server, SEARCH_DEFINITION_WEIGHT: '0' });
      try {
        const call = leanCaller(plain.url);
        await compareSymbols(call, loaded.sets, hybrids);
        call.close();
      } finally {
        await plain.stop();
      }
    }
  } finally {
    if (existsSync(work)) rmSync(work, { recursive: true, force: true });
  }
}

await main();
