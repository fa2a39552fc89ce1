import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { LauncherSpawner } from '@sextant/checkouts';
import { decodeScipIndex } from './scip-index.js';
import { runScipIndexer } from './scip-indexer.js';
import { scipPython } from './scip-python.js';
import { scipTypescript } from './scip-typescript.js';
import { workspacePaths } from './workspace-packages.js';

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** A checkout of an npm-workspaces monorepo as git gives it: sources, no node_modules, no builds. */
const MONOREPO: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'shop', private: true, workspaces: ['packages/*'] }),
  'packages/money/package.json': JSON.stringify({ name: '@shop/money', main: './dist/index.js', types: './dist/index.d.ts' }),
  'packages/money/src/index.ts': 'export function price(cents: number): string {\n  return (cents / 100).toFixed(2);\n}\n',
  'packages/money/src/round.ts': 'export const roundUp = (n: number) => Math.ceil(n);\n',
  'packages/web/package.json': JSON.stringify({ name: '@shop/web', dependencies: { '@shop/money': '*' } }),
  'packages/web/src/checkout.ts': [
    "import { price } from '@shop/money';",
    "import { roundUp } from '@shop/money/round';",
    'export const total = price(roundUp(1234.5));',
  ].join('\n'),
};

describe('scip-typescript on a checkout', () => {
  const roots: string[] = [];
  const spawner = new LauncherSpawner();
  after(async () => {
    await spawner.close();
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });
  const checkout = (files: Record<string, string>) => {
    const root = mkdtempSync(join(tmpdir(), 'sextant-scip-ts-'));
    roots.push(root);
    write(root, files);
    return root;
  };

  it(
    "links a monorepo's imports of its own packages (bare and subpath) to their sources, without node_modules",
    { timeout: 120_000 },
    async () => {
      const root = checkout(MONOREPO);
      const run = await runScipIndexer(spawner, scipTypescript(false), root, {
        env: process.env,
        limits: { timeoutMs: 100_000, maxMemoryMb: 1_024, maxIndexBytes: 1 << 24 },
        signal: new AbortController().signal,
      });
      assert.ok(run.ok, run.ok ? '' : run.reason);
      const index = decodeScipIndex(run.bytes, { maxBytes: 1 << 24, maxDocuments: 100, maxOccurrences: 10_000 });
      const definedIn = (path: string, name: string) =>
        index.documents
          .find((d) => d.path === path)
          ?.occurrences.find((o) => (o.roles & 1) === 1 && o.symbol.includes(`${name}`) && !o.symbol.startsWith('local'))?.symbol;
      const price = definedIn('packages/money/src/index.ts', 'price().');
      const roundUp = definedIn('packages/money/src/round.ts', 'roundUp.');
      assert.ok(price && roundUp, JSON.stringify(index.documents.map((d) => [d.path, d.occurrences.map((o) => o.symbol)])));
      const used = new Set(index.documents.find((d) => d.path === 'packages/web/src/checkout.ts')?.occurrences.map((o) => o.symbol));
      assert.ok(used.has(price), `checkout.ts uses ${price}: ${JSON.stringify([...used])}`);
      assert.ok(used.has(roundUp), `checkout.ts uses ${roundUp}: ${JSON.stringify([...used])}`);
    },
  );

  it('maps workspace packages from npm, Yarn and pnpm declarations; entries from types, exports and main; nothing outside the checkout', async () => {
    const npm = checkout(MONOREPO);
    assert.deepEqual(await workspacePaths(npm), {
      '@shop/money': ['src/index', 'dist/index'].map((p) => join(npm, 'packages/money', p)).concat(join(npm, 'packages/money/index')),
      '@shop/money/*': [join(npm, 'packages/money/src/*'), join(npm, 'packages/money/*')],
      '@shop/web': [join(npm, 'packages/web/src/index'), join(npm, 'packages/web/index')],
      '@shop/web/*': [join(npm, 'packages/web/src/*'), join(npm, 'packages/web/*')],
    });
    const yarn = checkout({
      'package.json': JSON.stringify({ workspaces: { packages: ['libs/**', '!libs/ignored'] } }),
      'libs/a/deep/package.json': JSON.stringify({ name: 'deep', exports: { '.': { import: './lib/main.mjs' } } }),
      'libs/b/package.json': JSON.stringify({ name: 'evil', main: '../../../etc/passwd' }),
      'libs/node_modules/x/package.json': JSON.stringify({ name: 'vendored' }),
    });
    const mapped = await workspacePaths(yarn);
    assert.deepEqual(Object.keys(mapped).sort(), ['deep', 'deep/*', 'evil', 'evil/*']);
    assert.deepEqual(
      mapped.deep,
      ['src/main', 'lib/main', 'src/index', 'index'].map((p) => join(yarn, 'libs/a/deep', p)),
    );
    assert.deepEqual(
      mapped.evil,
      ['src/index', 'index'].map((p) => join(yarn, 'libs/b', p)),
    );
    const pnpm = checkout({
      'pnpm-workspace.yaml': "packages:\n  - 'apps/*' # the apps\n  - \"../outside\"\ncatalog:\n  - 'not/a/package'\n",
      'apps/site/package.json': JSON.stringify({ name: 'site', types: 'types.d.ts' }),
      'not/a/package/package.json': JSON.stringify({ name: 'nope' }),
    });
    assert.deepEqual(await workspacePaths(pnpm), {
      site: ['types', 'src/index', 'index'].map((p) => join(pnpm, 'apps/site', p)),
      'site/*': [join(pnpm, 'apps/site/src/*'), join(pnpm, 'apps/site/*')],
    });
    assert.deepEqual(await workspacePaths(checkout({ 'package.json': '{ not json' })), {});
  });
});

/** A Python src layout whose own configuration narrows what pyright sees: tests outside `include`, a pyrightconfig that excludes all. */
const SRC_LAYOUT: Record<string, string> = {
  'pyproject.toml': '[project]\nname = "shop"\n\n[tool.pyright]\ninclude = ["src"]\n',
  'pyrightconfig.json': JSON.stringify({ exclude: ['**'] }),
  'src/shop/__init__.py': '',
  'src/shop/money.py': 'def price(cents: int) -> str:\n    return f"{cents / 100:.2f}"\n',
  'tests/test_money.py': 'from shop.money import price\n\n\ndef test_price():\n    assert price(1234) == "12.34"\n',
  'node_modules/left/over.py': 'def price():\n    pass\n',
};

describe('scip-python on a checkout', () => {
  const spawner = new LauncherSpawner();
  const root = mkdtempSync(join(tmpdir(), 'sextant-scip-py-'));
  after(async () => {
    await spawner.close();
    rmSync(root, { recursive: true, force: true });
  });

  it(
    "indexes every Python file with the project's src/ as an import root, whatever the repository configures, writing nothing into the checkout",
    { timeout: 120_000 },
    async () => {
      write(root, SRC_LAYOUT);
      const before = readdirSync(root).sort();
      const run = await runScipIndexer(spawner, scipPython('shop repo', 'abc123'), root, {
        env: process.env,
        limits: { timeoutMs: 100_000, maxMemoryMb: 1_024, maxIndexBytes: 1 << 24 },
        signal: new AbortController().signal,
      });
      assert.ok(run.ok, run.ok ? '' : run.reason);
      assert.deepEqual(readdirSync(root).sort(), before, 'nothing written into the checkout');
      const index = decodeScipIndex(run.bytes, { maxBytes: 1 << 24, maxDocuments: 100, maxOccurrences: 10_000 });
      assert.match(index.tool, /^scip-python /);
      assert.deepEqual(index.documents.map((d) => d.path).sort(), ['src/shop/__init__.py', 'src/shop/money.py', 'tests/test_money.py']);
      const price = index.documents
        .find((d) => d.path === 'src/shop/money.py')
        ?.occurrences.find((o) => (o.roles & 1) === 1 && o.symbol.endsWith('/price().'))?.symbol;
      assert.ok(price, 'price is defined in src/shop/money.py');
      assert.match(price, / shop_repo abc123 /, 'the project name (made a symbol-safe word) and version are in the symbol');
      const uses = index.documents.find((d) => d.path === 'tests/test_money.py')?.occurrences.filter((o) => o.symbol === price);
      assert.equal(uses?.length, 2, 'the import and the call in the test resolve to the definition in src/');
    },
  );
});
