/**
 * The symbol tools end to end, embedded as a user runs it: a workspace of
 * TypeScript, Python and Go written so that names are ambiguous (two
 * functions `add`, methods `add` on two classes, a parameter `add`, an
 * alias through a re-export, namespace imports, Go package-qualified calls),
 * indexed with index_repo, then asked over MCP.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool, git, httpClient, startEmbedded, writeTree, type Sextant } from '@sextant/testing';
import { expectToolError } from './scenarios.js';

const FILES: Record<string, string> = {
  'src/util/math.ts': [
    'export function add(a: number, b: number) { return a + b; }',
    'export function twice(x: number) { return add(x, x); }',
  ].join('\n'),
  'src/util/index.ts': ["export { add as plus } from './math';", "export * from './math';"].join('\n'),
  'src/cart.ts': [
    "import { add } from './util/math';",
    "import * as m from './util/math';",
    "import { plus, twice } from './util';",
    'export class Cart {',
    '  total = 0;',
    '  add(price: number) { this.total = add(this.total, price); return this; }',
    '}',
    'export class Wallet {',
    '  add(coins: number) { return m.add(coins, 1) + plus(1, 2) + twice(coins); }',
    '}',
    'function shadow(add: number) { return add; }',
  ].join('\n'),
  'src/other.ts': ['export function add() { return 0; }', 'add();'].join('\n'),
  'src/checkout.ts': ["import { Cart } from './cart';", 'export function checkout(cart: Cart) { return cart.add(5); }'].join('\n'),
  'pkg/__init__.py': '',
  'pkg/models.py': [
    'class User:',
    '    def save(self):',
    '        return self.validate()',
    '    def validate(self):',
    '        return True',
  ].join('\n'),
  'pkg/service.py': [
    'from .models import User as U',
    'import pkg.models',
    '',
    'def create(name):',
    '    u = U()',
    '    u.save()',
    '    return pkg.models.User()',
  ].join('\n'),
  'go.mod': 'module example.com/shop\n\ngo 1.22\n',
  'store/store.go': [
    'package store',
    '',
    'type Store struct{}',
    '',
    'func New() *Store { return &Store{} }',
    '',
    'func (s *Store) Get(k string) string { return k }',
  ].join('\n'),
  'store/helpers.go': ['package store', '', 'func Default() *Store { return New() }'].join('\n'),
  'cmd/main.go': ['package main', '', 'import "example.com/shop/store"', '', 'func main() { s := store.New(); s.Get("a") }'].join('\n'),
};

interface Refs {
  definitions: Array<{ path: string; name: string; line: number; container: string | null }>;
  references: Array<{ repo: string; path: string; line: number; column: number; kind: string; snippet: string; enclosing: string | null }>;
  total: number;
  truncated: boolean;
}

const sites = (body: Refs) => body.references.map((r) => `${r.path}:${r.line} ${r.kind}`);

describe('symbol tools (embedded)', () => {
  let base: string;
  let workspace: string;
  let sextant: Sextant;
  let client: Client;

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'sextant-symbols-'));
    workspace = join(base, 'shop');
    writeTree(workspace, FILES);
    git(workspace, 'init', '-q', '--initial-branch=main');
    git(workspace, 'add', '-A');
    git(workspace, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init');
    sextant = await startEmbedded({ SEXTANT_WORKSPACE: workspace, SEXTANT_PROGRESS_POLL_MS: '50' });
    client = await httpClient(sextant.url);
    const job = await client.callTool({ name: 'index_repo', arguments: {} }, undefined, { onprogress: () => undefined });
    assert.equal((job.structuredContent as { status: string }).status, 'completed', JSON.stringify(job.structuredContent));
  });
  after(async () => {
    await client?.close();
    await sextant?.stop();
    rmSync(base, { recursive: true, force: true });
  });

  it('finds the references of one of several same-named functions: by import, alias through a re-export, namespace; not a parameter', async () => {
    const found = await callTool<Refs>(client, 'find_references', { path: 'src/util/math.ts', line: 1 });
    assert.equal(found.isError, false, JSON.stringify(found.body));
    assert.deepEqual(
      found.body.definitions.map((d) => [d.path, d.name, d.line]),
      [['src/util/math.ts', 'add', 1]],
    );
    assert.deepEqual(sites(found.body), [
      'src/cart.ts:1 import',
      'src/cart.ts:3 import', // `plus`: the re-exported alias
      'src/cart.ts:6 call',
      'src/cart.ts:9 call', // m.add
      'src/cart.ts:9 call', // plus(1, 2)
      'src/util/index.ts:1 import',
      'src/util/math.ts:2 call',
    ]);
    const call = found.body.references.find((r) => r.path === 'src/cart.ts' && r.line === 6)!;
    assert.equal(call.enclosing, 'Cart.add');
    assert.equal(call.snippet, 'add(price: number) { this.total = add(this.total, price); return this; }');
    assert.equal(call.column, 36);
    assert.equal(found.body.total, 7);

    const other = await callTool<Refs>(client, 'find_references', { path: 'src/other.ts', line: 1, include_definitions: true });
    assert.deepEqual(sites(other.body), ['src/other.ts:1 definition', 'src/other.ts:2 call']);
    const viaExportStar = await callTool<Refs>(client, 'find_references', { name: 'twice' });
    assert.deepEqual(sites(viaExportStar.body), ['src/cart.ts:3 import', 'src/cart.ts:9 call']);
  });

  it('tells same-named methods apart by the class a file mentions, and bounds the answer', async () => {
    const cart = await callTool<Refs>(client, 'find_references', { name: 'Cart.add' });
    assert.deepEqual(
      cart.body.definitions.map((d) => [d.container, d.name]),
      [['Cart', 'add']],
    );
    assert.deepEqual(sites(cart.body), ['src/checkout.ts:2 call']);
    const wallet = await callTool<Refs>(client, 'find_references', { path: 'src/cart.ts', line: 9, column: 2 });
    assert.deepEqual(sites(wallet.body), []);
    const limited = await callTool<Refs>(client, 'find_references', { path: 'src/util/math.ts', line: 1, limit: 2 });
    assert.equal(limited.body.references.length, 2);
    assert.equal(limited.body.total, 7);
    assert.equal(limited.body.truncated, true);
  });

  it('follows Python aliases and module imports, and Go package-qualified calls and same-package uses', async () => {
    const user = await callTool<Refs>(client, 'find_references', { name: 'User' });
    assert.deepEqual(sites(user.body), ['pkg/service.py:1 import', 'pkg/service.py:5 call', 'pkg/service.py:7 call']);
    const validate = await callTool<Refs>(client, 'find_references', { name: 'validate' });
    assert.deepEqual(
      validate.body.references.map((r) => [r.path, r.line, r.enclosing]),
      [['pkg/models.py', 3, 'User.save']],
    );
    const created = await callTool<Refs>(client, 'find_references', { name: 'New' });
    assert.deepEqual(sites(created.body), ['cmd/main.go:5 call', 'store/helpers.go:3 call']);
    const get = await callTool<Refs>(client, 'find_references', { name: 'Store.Get' });
    assert.deepEqual(sites(get.body), ['cmd/main.go:5 call']);
  });

  it('goes to the definition a name denotes where it is used (locate_symbol with path and line)', async () => {
    type Found = { definitions: Array<{ path: string; line: number; container: string | null }> };
    const first = async (args: Record<string, unknown>) => {
      const found = await callTool<Found>(client, 'locate_symbol', args);
      assert.equal(found.isError, false, JSON.stringify(found.body));
      const top = found.body.definitions[0];
      return top && `${top.path}:${top.line}${top.container ? ` ${top.container}` : ''}`;
    };
    // `add` on line 6 of cart.ts is the imported function, not the method it is called in, nor other.ts's.
    assert.equal(await first({ name: 'add', path: 'src/cart.ts', line: 6, column: 36 }), 'src/util/math.ts:1');
    assert.equal(await first({ name: 'add', path: 'src/cart.ts', line: 6, column: 2 }), 'src/cart.ts:6 Cart');
    assert.equal(await first({ name: 'add', path: 'src/other.ts', line: 2 }), 'src/other.ts:1');
    // `plus` → the alias's re-export → math.ts's add; `m.add` → the namespace's module.
    assert.equal(await first({ name: 'add', path: 'src/cart.ts', line: 9, column: 32 }), 'src/util/math.ts:1');
    assert.equal(await first({ name: 'validate', path: 'pkg/models.py', line: 3 }), 'pkg/models.py:4 User');
    assert.equal(await first({ name: 'New', path: 'cmd/main.go', line: 5 }), 'store/store.go:5');
    assert.equal(await first({ name: 'New', path: 'store/helpers.go', line: 3 }), 'store/store.go:5');
    await expectToolError(client, 'locate_symbol', { name: 'add', path: 'src/cart.ts' }, 'invalid_input', 'line');
  });

  it('lists every use of a name nothing in the workspace defines', async () => {
    const found = await callTool<Refs>(client, 'find_references', { name: 'Number' });
    const { definitions, references, total, truncated } = found.body;
    assert.deepEqual({ definitions, references, total, truncated }, { definitions: [], references: [], total: 0, truncated: false });
    const print = await callTool<Refs>(client, 'find_references', { name: 'u' });
    assert.deepEqual(sites(print.body), [], 'a local variable is no reference');
  });

  it('follows an edit: a new call appears after sync_repo', async () => {
    writeFileSync(join(workspace, 'src/other.ts'), ['export function add() { return 0; }', 'add();', 'add();'].join('\n'));
    const job = await client.callTool({ name: 'sync_repo', arguments: {} }, undefined, { onprogress: () => undefined });
    assert.equal((job.structuredContent as { status: string }).status, 'completed', JSON.stringify(job.structuredContent));
    const other = await callTool<Refs>(client, 'find_references', { path: 'src/other.ts', line: 1 });
    assert.deepEqual(sites(other.body), ['src/other.ts:2 call', 'src/other.ts:3 call']);
  });

  it('answers bad input clearly', async () => {
    await expectToolError(client, 'find_references', {}, 'invalid_input', 'name');
    await expectToolError(client, 'find_references', { path: 'src/cart.ts' }, 'invalid_input');
    await expectToolError(client, 'find_references', { path: 'src/cart.ts', line: 2 }, 'not_found');
    await expectToolError(client, 'find_references', { name: 'add', limit: 0 }, 'invalid_input', 'limit');
    await expectToolError(client, 'find_references', { name: 'add', repo: 'nope' }, 'not_found');
  });
});
