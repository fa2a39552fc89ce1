/**
 * The precise tier (ADR 0053) in the distributed pipeline: a remote repository of TypeScript indexed by the symbols
 * stage, then the precise stage (the real scip-typescript and, once Python files come, scip-python, in child processes), over real NATS, Postgres and git;
 * find_references and go to definition answer from it, labelled, and from the search tier where it does not cover;
 * an indexer whose index is refused, or that runs past its budget, leaves the job completed with a warning.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { BareRepository, callTool, GitDaemon, httpClient } from '@sextant/testing';
import { distributedStack, type Stack } from './stack.js';

const FILES: Record<string, string> = {
  'src/cart.ts': [
    'export class Cart {',
    '  private items = 0;',
    '  get count() { return this.items; }',
    '  set count(v: number) { this.items = v; }',
    '  add(n: number) { this.items += n; return this; }',
    '}',
    'export class Wallet {',
    '  add(n: number) { return n; }',
    '}',
  ].join('\n'),
  'src/use.ts': [
    "import { Cart, Wallet } from './cart';",
    'const c = new Cart();',
    'c.add(1).add(2);',
    'new Wallet().add(3);',
    'c.count = c.count + 1;',
    'export function total(x: Cart): number { return x.count; }',
  ].join('\n'),
  'src/make.ts': ["import { Cart } from './cart';", 'export const make = () => new Cart();'].join('\n'),
  // The search tier cannot tell whose `add` this is (the receiver's type is a function's inferred return); the compiler can.
  'src/more.ts': ["import { make } from './make';", 'export const more = make().add(5);'].join('\n'),
  // A type hierarchy the compiler links: implementations of an interface, and a subclass through an aliased import
  // (its extends clause names no `Square`: the search tier cannot tell).
  'src/shape.ts': [
    'export interface Shape { area(): number; }',
    'export class Square implements Shape { area() { return 4; } }',
    'export class Circle implements Shape { area() { return 3; } }',
    'export function measure(s: Shape): number { return s.area(); }',
    // An interface extending another (scip-typescript records no relationship for it), and a class implementing it.
    'export interface Solid extends Shape { volume(): number; }',
    'export class Ball implements Solid { area() { return 5; } volume() { return 6; } }',
    'export function paint(c: Circle): number { return c.area(); }',
  ].join('\n'),
  'src/far.ts': ["import { Square as Box } from './shape';", 'export class Cube extends Box { area() { return 24; } }'].join('\n'),
};

interface Reference {
  path: string;
  line: number;
  column: number;
  precision?: string;
}

interface Freshness {
  repo: string;
  commit: string | null;
  precise_commit?: string | null;
}

interface JobStatus {
  status: string;
  error_message: string | null;
  warnings?: string[];
}

const site = (r: Reference) => `${r.path}:${r.line}:${r.column}:${r.precision}`;

describe('precise tier (scip-typescript, scip-python) in the distributed pipeline', () => {
  let base: string;
  let stack: Stack;
  let client: Client;
  let daemon: GitDaemon;
  let remote: BareRepository;
  let repo: string;
  let first: string;

  const symbolIndexer = (env: Record<string, string> = {}) =>
    stack.startService('symbol-indexer', { GIT_ALLOWED_HOSTS: daemon.host, SEXTANT_DATA_DIR: join(base, 'symbols-data'), ...env });

  async function index(): Promise<JobStatus> {
    const started = await callTool<{ runId: string }>(client, 'index_repository', { repository: daemon.url('shop') });
    assert.equal(started.isError, false, JSON.stringify(started.body));
    const deadline = Date.now() + 120_000;
    for (;;) {
      const status = await callTool<JobStatus>(client, 'get_index_job_status', { runId: started.body.runId });
      assert.equal(status.isError, false, JSON.stringify(status.body));
      if (['completed', 'failed', 'skipped'].includes(status.body.status)) return status.body;
      if (Date.now() > deadline) assert.fail(`job still ${status.body.status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function references(args: Record<string, unknown>): Promise<string[]> {
    const found = await callTool<{ references: Reference[] }>(client, 'find_references', { repo, ...args });
    assert.equal(found.isError, false, JSON.stringify(found.body));
    return found.body.references.map(site);
  }

  /** The definitions `locate_symbol` finds by name, as `path:line:precision`, and the answer's freshness. */
  async function locate(name: string): Promise<{ found: string[]; freshness: Freshness[] }> {
    const located = await callTool<{ definitions: Array<{ path: string; line: number; precision?: string }>; freshness: Freshness[] }>(
      client,
      'locate_symbol',
      { repo, name },
    );
    assert.equal(located.isError, false, JSON.stringify(located.body));
    return { found: located.body.definitions.map((d) => `${d.path}:${d.line}:${d.precision}`), freshness: located.body.freshness };
  }

  /** The dependents of `file` (depth 1) by search_dependencies and by analyze_change_impact, as `path:precision`. */
  async function dependents(file: string): Promise<{ graph: string[]; impact: string[]; freshness: Freshness[] }> {
    const graph = await callTool<{ dependents: Array<{ path: string; depth: number; precision?: string }>; freshness: Freshness[] }>(
      client,
      'search_dependencies',
      { repository: repo, file_path: file, direction: 'dependents' },
    );
    assert.equal(graph.isError, false, JSON.stringify(graph.body));
    const impact = await callTool<{ dependents: Array<{ path: string; depth: number; precision?: string }> }>(
      client,
      'analyze_change_impact',
      {
        repository: repo,
        files: [file],
      },
    );
    assert.equal(impact.isError, false, JSON.stringify(impact.body));
    const show = (ds: Array<{ path: string; depth: number; precision?: string }>) =>
      ds.map((d) => `${d.path}:${d.depth}:${d.precision}`).sort();
    return { graph: show(graph.body.dependents), impact: show(impact.body.dependents), freshness: graph.body.freshness };
  }

  async function restartSymbolIndexer(env: Record<string, string>): Promise<void> {
    await stack.services.get('symbol-indexer')!.stop();
    await symbolIndexer(env);
  }

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'sextant-precise-'));
    mkdirSync(join(base, 'remotes'));
    remote = new BareRepository(join(base, 'remotes'), 'shop');
    first = remote.commit('main', FILES);
    daemon = await GitDaemon.start(join(base, 'remotes'));
    stack = await distributedStack();
    await stack.startService('workspace-registry', {
      GIT_ALLOWED_HOSTS: daemon.host,
      SEXTANT_DATA_DIR: join(base, 'data'),
      SEXTANT_HEAD_CACHE_MS: '100',
      SEXTANT_INDEXING_STAGES: 'symbols,precise',
    });
    await symbolIndexer();
    client = await httpClient((await stack.startGateway()).url);
  });
  after(async () => {
    await client?.close();
    await stack?.stop();
    await daemon?.stop();
    remote?.dispose();
    rmSync(base, { recursive: true, force: true });
  });

  it('runs scip-typescript after the symbols stage and answers references and go to definition from it, labelled', async () => {
    const job = await index();
    assert.equal(job.status, 'completed', job.error_message ?? '');
    assert.equal(job.warnings, undefined);
    const listed = await callTool<{ repositories: Array<{ name: string }> }>(client, 'list_repositories', {});
    repo = listed.body.repositories[0].name;

    // Cart.add at its definition: the two chained calls on a Cart and the call on make()'s result; not Wallet's add.
    assert.deepEqual(await references({ path: 'src/cart.ts', line: 5, column: 2 }), [
      'src/more.ts:2:27:precise',
      'src/use.ts:3:2:precise',
      'src/use.ts:3:9:precise',
    ]);
    // A getter's references include the setter's (one property to an editor).
    assert.deepEqual(await references({ path: 'src/cart.ts', line: 3, column: 6 }), [
      'src/use.ts:5:2:precise',
      'src/use.ts:5:12:precise',
      'src/use.ts:6:50:precise',
    ]);
    // A class: its type uses, its import and `new` sites.
    const cart = await references({ path: 'src/cart.ts', line: 1, column: 13 });
    for (const expected of ['src/make.ts:1:9:precise', 'src/make.ts:2:30:precise', 'src/use.ts:2:14:precise', 'src/use.ts:6:25:precise']) {
      assert.ok(cart.includes(expected), `${expected} in ${cart.join(' ')}`);
    }

    // Go to definition at `add` of `make().add(5)`: Cart's, from the precise tier.
    const located = await callTool<{ definitions: Array<{ path: string; line: number; name: string; precision?: string }> }>(
      client,
      'locate_symbol',
      { repo, name: 'add', path: 'src/more.ts', line: 2, column: 27 },
    );
    assert.equal(located.isError, false, JSON.stringify(located.body));
    assert.deepEqual(located.body.definitions[0], { ...located.body.definitions[0], path: 'src/cart.ts', line: 5, precision: 'precise' });
    // The other `add` by name, Wallet's: a definition the compiler has at that name too.
    assert.deepEqual(
      located.body.definitions.slice(1).map((d) => `${d.path}:${d.line}:${d.precision}`),
      ['src/cart.ts:8:precise'],
    );
  });

  it('labels locate_symbol, search_dependencies and analyze_change_impact precise where the tier covers, and names its commit', async () => {
    const cart = await locate('Cart');
    assert.deepEqual(cart.found, ['src/cart.ts:1:precise']);
    assert.deepEqual(cart.freshness, [{ ...cart.freshness[0], commit: first, precise_commit: first }]);
    // more.ts imports nothing from cart.ts but calls Cart's add (on make()'s result): only the precise tier shows it.
    const { graph, impact, freshness } = await dependents('src/cart.ts');
    const expected = ['src/make.ts:1:precise', 'src/more.ts:1:precise', 'src/use.ts:1:precise'];
    assert.deepEqual(graph, expected);
    assert.deepEqual(impact, expected);
    assert.equal(freshness[0].precise_commit, first);
  });

  it('answers a member with the members it implements, overrides or shares an interface with, and the type hierarchy, as the compiler links them', async () => {
    // Square's area: the interface's member it implements, the other implementations, the override in a subclass
    // (declarations an editor lists as references of one another), the call through the interface and the call of a
    // sibling implementation.
    assert.deepEqual(await references({ path: 'src/shape.ts', line: 2, column: 39 }), [
      'src/far.ts:2:32:precise',
      'src/shape.ts:1:25:precise',
      'src/shape.ts:3:39:precise',
      'src/shape.ts:4:53:precise',
      'src/shape.ts:6:37:precise',
      'src/shape.ts:7:52:precise',
    ]);
    // A type's references are its own, not its subtypes' or members' declarations.
    assert.deepEqual(await references({ path: 'src/shape.ts', line: 1, column: 17 }), [
      'src/shape.ts:2:31:precise',
      'src/shape.ts:3:31:precise',
      'src/shape.ts:4:27:precise',
      'src/shape.ts:5:31:precise',
    ]);
    type Def = { path: string; line: number; name: string; precision?: string };
    const show = (ds: Def[]) => ds.map((d) => `${d.path}:${d.line}:${d.name}:${d.precision}`);
    const hierarchy = async (name: string) => {
      const found = await callTool<{ subtypes: Def[]; freshness: Freshness[] }>(client, 'get_symbol_hierarchy', { repo, name });
      assert.equal(found.isError, false, JSON.stringify(found.body));
      return found.body;
    };
    // The direct subtypes: Cube extends Square through an alias, Ball implements Solid, which extends Shape (from its
    // extends clause: the compiler's index has no link there).
    assert.deepEqual(show((await hierarchy('Shape')).subtypes), [
      'src/shape.ts:2:Square:precise',
      'src/shape.ts:3:Circle:precise',
      'src/shape.ts:5:Solid:search',
    ]);
    assert.deepEqual(show((await hierarchy('Solid')).subtypes), ['src/shape.ts:6:Ball:precise']);
    const square = await hierarchy('Square');
    assert.deepEqual(show(square.subtypes), ['src/far.ts:2:Cube:precise']);
    assert.equal(square.freshness[0].precise_commit, first);
    // Who calls Square's area: `measure`, through the interface, not `paint`, which calls Circle's; what `measure`
    // calls: the interface's member.
    const related = async (name: string) => {
      const found = await callTool<{ callers: Def[]; callees: Def[] }>(client, 'find_related_symbols', { repo, name });
      assert.equal(found.isError, false, JSON.stringify(found.body));
      return found.body;
    };
    assert.deepEqual(show((await related('Square.area')).callers), ['src/shape.ts:4:measure:precise']);
    assert.deepEqual(show((await related('measure')).callees), ['src/shape.ts:1:area:precise']);
  });

  it('keeps the previous precise index when a new one is refused: the job warns, a changed file is answered from the search tier', async () => {
    await restartSymbolIndexer({ SYMBOLS_PRECISE_MAX_OCCURRENCES: '5' });
    // use.ts moves down a line; more.ts and the definitions do not change.
    remote.commit('main', { 'src/use.ts': `// moved\n${FILES['src/use.ts']}` });
    const job = await index();
    assert.equal(job.status, 'completed', job.error_message ?? '');
    assert.equal(job.warnings?.length, 1, JSON.stringify(job.warnings));
    assert.match(job.warnings[0], /No precise .* index was made .*malformed or over a limit.*\(invalid_index\)/);
    const found = await references({ path: 'src/cart.ts', line: 5, column: 2 });
    assert.ok(found.includes('src/more.ts:2:27:precise'), found.join(' '));
    // The search tier's answer for the changed file, at its new lines.
    assert.ok(found.includes('src/use.ts:4:2:search'), found.join(' '));
    assert.ok(!found.some((f) => f.startsWith('src/use.ts:3:')), found.join(' '));

    // The edited file is the search tier's in every tool; the others stay precise, and freshness names both commits.
    const total = await locate('total');
    assert.deepEqual(total.found, ['src/use.ts:7:search']);
    assert.equal(total.freshness[0].precise_commit, first);
    assert.notEqual(total.freshness[0].commit, first);
    assert.deepEqual((await locate('Cart')).found, ['src/cart.ts:1:precise']);
    const { graph, impact } = await dependents('src/cart.ts');
    const expected = ['src/make.ts:1:precise', 'src/more.ts:1:precise', 'src/use.ts:1:search'];
    assert.deepEqual(graph, expected);
    assert.deepEqual(impact, expected);
  });

  it('does not run an indexer on a repository with more files of its languages than the bound: the job says why at once', async () => {
    await restartSymbolIndexer({ SYMBOLS_PRECISE_MAX_FILES: '3' });
    remote.commit('main', { 'src/more.ts': `${FILES['src/more.ts']}\nexport const three = 3;` });
    const job = await index();
    assert.equal(job.status, 'completed', job.error_message ?? '');
    assert.equal(job.warnings?.length, 1, JSON.stringify(job.warnings));
    assert.match(job.warnings[0], /more files of the indexer's languages than SYMBOLS_PRECISE_MAX_FILES.*\(too_large\)/);
    // The changed file is not the precise tier's any more; the previous index answers for the files unchanged since.
    const found = await references({ path: 'src/cart.ts', line: 5, column: 2 });
    assert.ok(!found.includes('src/more.ts:2:27:precise'), found.join(' '));
    assert.ok((await references({ path: 'src/shape.ts', line: 2, column: 39 })).includes('src/shape.ts:1:25:precise'));
  });

  it('stops an indexer past its time budget: the job completes with the search tier and says why', async () => {
    await restartSymbolIndexer({ SYMBOLS_PRECISE_TIMEOUT_MS: '100' });
    remote.commit('main', { 'src/make.ts': `${FILES['src/make.ts']}\nexport const two = 2;` });
    const job = await index();
    assert.equal(job.status, 'completed', job.error_message ?? '');
    assert.match(job.warnings?.join(' ') ?? '', /ran past its time budget .*\(time_budget\)/);
    await restartSymbolIndexer({});
  });

  it('runs scip-python beside scip-typescript on a repository of both: a src layout whose own pyright configuration leaves its tests out', async () => {
    remote.commit('main', {
      'py/pyproject.toml': '[project]\nname = "shop"\n\n[tool.pyright]\ninclude = ["src"]\n',
      'py/src/shop/__init__.py': '',
      'py/src/shop/money.py': 'def price(cents: int) -> str:\n    return f"{cents / 100:.2f}"\n\n__doc__ = f"Prices, e.g. {price(1)}"\n',
      'py/tests/test_money.py': 'from shop.money import price\n\n\ndef test_price():\n    assert price(1234) == "12.34"\n',
    });
    const job = await index();
    assert.equal(job.status, 'completed', job.error_message ?? '');
    assert.equal(job.warnings, undefined);
    const price = await references({ path: 'py/src/shop/money.py', line: 1, column: 4 });
    assert.ok(price.includes('py/tests/test_money.py:5:11:precise'), price.join(' '));
    assert.ok(price.includes('py/src/shop/money.py:4:26:precise'), price.join(' '));
    // `__doc__ = …` assigns what typeshed defines: the compiler calls it a write, not a definition; it is not its own reference.
    assert.deepEqual(await references({ path: 'py/src/shop/money.py', line: 4, column: 0 }), []);
    assert.ok(
      price.every((r) => r.endsWith(':precise')),
      price.join(' '),
    );
    // The TypeScript files keep their precise answers in the same index.
    assert.ok((await references({ path: 'src/cart.ts', line: 5, column: 2 })).includes('src/more.ts:2:27:precise'));
  });
});
