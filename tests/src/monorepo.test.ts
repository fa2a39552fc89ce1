/**
 * A monorepo of npm workspaces, end to end (embedded, over MCP): packages import each other by name (`@acme/errors`),
 * whose `package.json` sends them to a build's output (`dist/`) that is not in the repository; a barrel passes a
 * module on as a namespace (`export * as Greet`); a name is declared as a value and as a type in one file. The symbol
 * tools follow all of it to the sources, as the TypeScript language service does.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool, git, httpClient, startEmbedded, writeTree, type Sextant } from '@sextant/testing';

const json = (value: object) => JSON.stringify(value, null, 2);

const FILES: Record<string, string> = {
  'package.json': json({ name: 'acme', private: true, workspaces: ['packages/*'] }),
  'packages/errors/package.json': json({
    name: '@acme/errors',
    exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } },
  }),
  'packages/errors/tsconfig.json': json({ compilerOptions: { rootDir: 'src', outDir: 'dist' } }),
  'packages/errors/src/index.ts': ["export * from './failure.js';", "export * from './contracts.js';"].join('\n'),
  'packages/errors/src/failure.ts': [
    'export class Failure extends Error {}',
    'export function fail(message: string): never { throw new Failure(message); }',
  ].join('\n'),
  'packages/errors/src/contracts.ts': "export * as Greet from './greet.js';",
  'packages/errors/src/greet.ts': [
    'export const Request = { parse(x: unknown) { return x as Request; } };',
    'export type Request = { who: string };',
  ].join('\n'),
  'packages/api/package.json': json({ name: '@acme/api', main: 'src/server.ts' }),
  'packages/api/src/server.ts': [
    "import { Failure, fail, Greet } from '@acme/errors';",
    'export function handle(r: Greet.Request): string {',
    "  if (!r.who) fail('no one');",
    '  return Greet.Request.parse(r).who;',
    '}',
    'export const isFailure = (e: unknown) => e instanceof Failure;',
  ].join('\n'),
  'packages/api/test/server.test.ts': ["import { handle } from '../src/server.js';", "handle({ who: 'a' });"].join('\n'),
  'packages/cli/package.json': json({ name: 'acme-cli', dependencies: { '@acme/errors': '*', '@acme/api': '*' } }),
  'packages/cli/src/main.ts': [
    "import { Failure } from '@acme/errors';",
    "import { isFailure } from '@acme/api';",
    "if (!isFailure(1)) throw new Failure('x');",
  ].join('\n'),
};

interface Refs {
  definitions: Array<{ path: string; line: number }>;
  references: Array<{ path: string; line: number; kind: string }>;
}

const sites = (body: Refs) => body.references.map((r) => `${r.path}:${r.line} ${r.kind}`);

describe('a monorepo of npm workspaces (embedded)', () => {
  let base: string;
  let sextant: Sextant;
  let client: Client;

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'sextant-monorepo-'));
    writeTree(base, FILES);
    git(base, 'init', '-q', '--initial-branch=main');
    git(base, 'add', '-A');
    git(base, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init');
    sextant = await startEmbedded({ SEXTANT_WORKSPACE: base, SEXTANT_INDEXING_STAGES: 'symbols' });
    client = await httpClient(sextant.url);
    // With a progress token, index_repo answers when the job ends.
    const job = await client.callTool({ name: 'index_repo', arguments: {} }, undefined, { onprogress: () => undefined });
    assert.equal((job.structuredContent as { status: string }).status, 'completed', JSON.stringify(job.structuredContent));
  });
  after(async () => {
    await client?.close();
    await sextant?.stop();
    rmSync(base, { recursive: true, force: true });
  });

  it('finds the uses of a package’s export in the packages that import it by name', async () => {
    const found = await callTool<Refs>(client, 'find_references', { name: 'Failure' });
    assert.equal(found.isError, false, JSON.stringify(found.body));
    assert.deepEqual(sites(found.body), [
      'packages/api/src/server.ts:1 import',
      'packages/api/src/server.ts:6 read',
      'packages/cli/src/main.ts:1 import',
      'packages/cli/src/main.ts:3 call',
      'packages/errors/src/failure.ts:2 call',
    ]);
  });

  it('follows a namespace a barrel passes on by name, and tells the type of a merged name from its value', async () => {
    const type = await callTool<Refs>(client, 'find_references', { path: 'packages/errors/src/greet.ts', line: 2 });
    assert.equal(type.isError, false, JSON.stringify(type.body));
    assert.deepEqual(sites(type.body), ['packages/api/src/server.ts:2 type', 'packages/errors/src/greet.ts:1 type']);
    const value = await callTool<Refs>(client, 'find_references', { path: 'packages/errors/src/greet.ts', line: 1 });
    assert.deepEqual(sites(value.body), ['packages/api/src/server.ts:4 read']);
    // Go to definition from `Greet.Request` in another package.
    const located = await callTool<{ definitions: Array<{ path: string }> }>(client, 'locate_symbol', {
      name: 'Request',
      path: 'packages/api/src/server.ts',
      line: 4,
    });
    assert.equal(located.body.definitions[0]?.path, 'packages/errors/src/greet.ts', JSON.stringify(located.body));
  });

  it('answers search_dependencies and analyze_change_impact across packages', async () => {
    const deps = await callTool<{ dependents: Array<{ path: string; depth: number }> }>(client, 'search_dependencies', {
      file_path: 'packages/errors/src/failure.ts',
      direction: 'dependents',
      depth: 3,
    });
    assert.equal(deps.isError, false, JSON.stringify(deps.body));
    assert.deepEqual(deps.body.dependents.map((d) => `${d.depth} ${d.path}`).sort(), [
      '1 packages/errors/src/index.ts',
      '2 packages/api/src/server.ts',
      '2 packages/cli/src/main.ts',
      '3 packages/api/test/server.test.ts',
    ]);
    // The package's index only passes failure.ts on: its importers use the change as directly as it does.
    const impact = await callTool<{ dependents: Array<{ path: string; depth: number }>; affected_tests: string[] }>(
      client,
      'analyze_change_impact',
      { files: ['packages/errors/src/failure.ts'] },
    );
    assert.deepEqual(
      impact.body.dependents.map((d) => `${d.depth} ${d.path}`),
      ['1 packages/api/src/server.ts', '1 packages/cli/src/main.ts', '1 packages/errors/src/index.ts', '2 packages/api/test/server.test.ts'],
    );
    assert.deepEqual(impact.body.affected_tests, ['packages/api/test/server.test.ts'], JSON.stringify(impact.body));
  });
});
