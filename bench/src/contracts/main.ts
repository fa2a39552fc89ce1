/**
 * What checking a reply against its contract costs (SEXTANT_CHECK_REPLIES): `npm run bench:contracts`.
 *
 * Real replies first: the one-process mode indexes a copy of `libs/contracts` (a git working tree of ~100
 * TypeScript files) and answers one call of each tool below; each answer, without the `metadata` the gateway
 * adds, is what its service replied. Then, in this process, the check of each reply (`replyMismatch` with the
 * tool's `Response`, what `@ToolHandler` runs per reply when the setting is on), timed over many runs: µs per
 * reply, beside the reply's size and its `JSON.stringify` (which the bus pays on every reply anyway).
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replyMismatch, TOOLS_BY_NAME } from '@sextant/contracts';
import { callTool, git, httpClient, repoPath, startEmbedded } from '@sextant/testing';
import { summarize } from '../stats.js';

/** One call of each tool measured, with its arguments (the workspace is added where it names one). */
const CALLS: Array<[string, Record<string, unknown>]> = [
  ['list_projects', {}],
  ['list_repositories', {}],
  ['health_check', {}],
  ['index_status', { workspace: true }],
  ['grep_repository', { workspace: true, pattern: 'defineTool', max_matches: 200 }],
  ['open_file', { workspace: true, path: 'catalog.ts' }],
  ['search_code', { workspace: true, query: 'tool contract schema', mode: 'lexical', limit: 20 }],
  ['locate_symbol', { workspace: true, name: 'defineTool' }],
  ['get_file_outline', { workspace: true, path: 'vocabulary.ts' }],
  ['find_references', { workspace: true, name: 'defineTool', limit: 200 }],
  ['get_code_context', { workspace: true, name: 'safeParseInput' }],
  ['list_recent_files', { workspace: true }],
];

const RUNS = 2_000;

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'sextant-bench-contracts-'));
  const workspace = join(root, 'contracts');
  cpSync(repoPath('libs/contracts/src'), workspace, { recursive: true });
  git(workspace, 'init', '-q', '--initial-branch=main');
  git(workspace, 'add', '-A');
  git(workspace, 'commit', '-q', '-m', 'contracts');
  // The check is measured here, in this process: the server runs without it (production's default).
  const sextant = await startEmbedded({ SEXTANT_CHECK_REPLIES: 'false', SEXTANT_ALLOWED_ROOTS: root });
  const client = await httpClient(sextant.url);
  try {
    const indexed = await client.callTool(
      { name: 'index_repository', arguments: { repository: 'contracts', localPath: workspace } },
      undefined,
      {
        onprogress: () => undefined,
        timeout: 300_000,
      },
    );
    if ((indexed.structuredContent as { status?: string }).status !== 'completed')
      throw new Error(`indexing: ${JSON.stringify(indexed.structuredContent)}`);

    console.log(`reply check (replyMismatch with the tool's Response), ${RUNS} runs per reply, after a warm-up:`);
    console.log('  tool                    bytes   check p50   check p99   JSON.stringify p50   mismatch');
    const all: number[] = [];
    for (const [name, given] of CALLS) {
      const args = { ...given, ...(given.workspace ? { workspace } : {}) };
      const answer = await callTool<Record<string, unknown>>(client, name, args);
      if (answer.isError) throw new Error(`${name}: ${JSON.stringify(answer.body)}`);
      const { metadata: _metadata, ...reply } = answer.body;
      const schema = TOOLS_BY_NAME.get(name)!.output;
      const mismatch = replyMismatch(schema, reply);
      for (let i = 0; i < 200; i++) replyMismatch(schema, reply);
      const checks: number[] = [];
      const serializations: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        let start = performance.now();
        replyMismatch(schema, reply);
        checks.push((performance.now() - start) * 1000);
        start = performance.now();
        JSON.stringify(reply);
        serializations.push((performance.now() - start) * 1000);
      }
      all.push(...checks);
      const check = summarize(checks);
      const json = summarize(serializations);
      const bytes = Buffer.byteLength(JSON.stringify(reply));
      console.log(
        `  ${name.padEnd(22)} ${String(bytes).padStart(7)}  ${check.p50.toFixed(1).padStart(7)} µs  ${check.p99.toFixed(1).padStart(7)} µs  ${json.p50.toFixed(1).padStart(14)} µs     ${mismatch ? `${mismatch.path}: ${mismatch.problem}` : 'none'}`,
      );
    }
    const overall = summarize(all);
    console.log(`  all replies: p50 ${overall.p50.toFixed(1)} µs, p99 ${overall.p99.toFixed(1)} µs per reply`);
  } finally {
    await client.close();
    await sextant.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
