/** Architecture rules that a reader relies on, checked rather than hoped for. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import semver from 'semver';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { GatewayEnv } from '@sextant/gateway';
import { EmbeddedEnv } from '@sextant/embedded';
import { ProjectsEnv } from '@sextant/projects';
import { GitCacheEnv } from '@sextant/git-cache';
import { SymbolIndexerEnv } from '@sextant/symbol-indexer';
import { VectorSearchEnv } from '@sextant/vector-search';
import { WorkspaceRegistryEnv } from '@sextant/workspace-registry';
import { repoPath } from '@sextant/testing';

const SERVICES = readdirSync(repoPath('services'));

function sources(dir: string, out: string[] = [], specs = false): string[] {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) sources(path, out, specs);
    else if (entry.endsWith('.ts') && (specs || !entry.endsWith('.spec.ts'))) out.push(path);
  }
  return out;
}

/** The code of a file without its comments (examples in doc comments are not code). */
function code(file: string): string {
  return readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:])\/\/.*$/gm, '$1');
}

/** The modules a file's code imports or re-exports (static, dynamic and type imports), as written. */
function importsOf(file: string): string[] {
  return [...code(file).matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);
}

/** A library's `@sextant/…` dependencies (dev ones included: a spec's import is the package's too). */
function sextantDependencies(lib: string): string[] {
  const pkg = JSON.parse(readFileSync(repoPath(`libs/${lib}/package.json`), 'utf8')) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  return Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((d) => d.startsWith('@sextant/'));
}

/**
 * Where a library (specs included) reaches past `allowed`, the libraries it may import (names without `@sextant/`):
 * a dependency or an import of another, or a relative import out of its own `src` (another package's internals).
 */
function importsOutside(lib: string, allowed: readonly string[]): string[] {
  const ok = new Set(allowed.map((a) => `@sextant/${a}`));
  const src = repoPath(`libs/${lib}/src`);
  const bad = sextantDependencies(lib)
    .filter((d) => !ok.has(d))
    .map((d) => `libs/${lib}/package.json → ${d}`);
  for (const file of sources(src, [], true)) {
    for (const module of importsOf(file)) {
      const outside = module.startsWith('.')
        ? relative(src, resolve(dirname(file), module)).startsWith('..')
        : module.startsWith('@sextant/') && !ok.has(module.split('/').slice(0, 2).join('/'));
      if (outside) bad.push(`${relative(repoPath('.'), file)} → ${module}`);
    }
  }
  return bad;
}

const LIBS = readdirSync(repoPath('libs'));

/**
 * The libraries above the bus (issue 41): runtime boots a service on it, registry-client asks other services over it.
 * Every other library is below it and never imports `@sextant/messaging`: what work needs whatever carries it
 * (ServiceError, the request scope, work budgets) is `@sextant/work`'s.
 */
const ABOVE_THE_BUS = ['runtime', 'registry-client'];

const productionSources = [
  ...readdirSync(repoPath('libs'))
    .filter((l) => l !== 'testing')
    .flatMap((l) => sources(repoPath(`libs/${l}/src`))),
  ...SERVICES.flatMap((s) => sources(repoPath(`services/${s}/src`))),
  ...sources(repoPath('apps/sextant/src')),
];

describe('boundaries', () => {
  it('services import libraries, never another service', () => {
    for (const service of SERVICES) {
      const others = SERVICES.filter((s) => s !== service).map((s) => `@sextant/${s}`);
      const pkg = JSON.parse(readFileSync(repoPath(`services/${service}/package.json`), 'utf8')) as {
        dependencies: Record<string, string>;
      };
      for (const dep of Object.keys(pkg.dependencies)) assert.ok(!others.includes(dep), `${service} depends on ${dep}`);
      for (const file of sources(repoPath(`services/${service}/src`))) {
        for (const other of others)
          assert.ok(!readFileSync(file, 'utf8').includes(`'${other}`), `${relative(repoPath('.'), file)} imports ${other}`);
      }
    }
  });

  it('libraries below the bus never import @sextant/messaging', () => {
    const notTheBus = LIBS.filter((l) => l !== 'messaging');
    const bad = notTheBus.filter((l) => !ABOVE_THE_BUS.includes(l)).flatMap((lib) => importsOutside(lib, notTheBus));
    assert.deepEqual(bad, [], 'import @sextant/work (errors, request scope, budgets) instead, or name the library in ABOVE_THE_BUS');
  });

  it('messaging stands on contracts, telemetry and work only; work on contracts and telemetry', () => {
    // The buses, tracing of bus calls and @ToolHandler: nothing of the services' clients (registry-client) or storage.
    assert.deepEqual(importsOutside('messaging', ['contracts', 'telemetry', 'work']), []);
    // The bottom library every other may import: it imports no transport and no storage.
    assert.deepEqual(importsOutside('work', ['contracts', 'telemetry']), []);
  });

  it('only config.ts and main.ts read process.env', () => {
    for (const file of productionSources) {
      if (/\/(config|main)\.ts$/.test(file)) continue;
      assert.doesNotMatch(code(file), /process\.env/, relative(repoPath('.'), file));
    }
  });

  it('subjects are never written as literals outside the contracts', () => {
    for (const file of productionSources.filter((f) => !f.includes('/libs/contracts/'))) {
      assert.doesNotMatch(code(file), /['"`][a-z-]+\.[a-z-]+\.v\d+['"`]/, relative(repoPath('.'), file));
    }
  });

  it('docs/configuration.md documents every environment variable the code reads', () => {
    const reference = readFileSync(repoPath('docs/configuration.md'), 'utf8');
    const schemas = [GatewayEnv, EmbeddedEnv, ProjectsEnv, GitCacheEnv, SymbolIndexerEnv, VectorSearchEnv, WorkspaceRegistryEnv];
    for (const name of new Set(schemas.flatMap((s) => Object.keys(s.shape)))) {
      assert.ok(
        reference.includes(`| \`${name}\` |`),
        `docs/configuration.md has no row for ${name}: describe it in its config.ts, then npm run docs`,
      );
    }
  });

  it('every installed package supports the Node this runs on (no "unsupported engine" at install)', () => {
    const unsupported: string[] = [];
    const visit = (dir: string) => {
      let entries: string[];
      try {
        entries = readdirSync(dir);
      } catch {
        return;
      }
      for (const entry of entries) {
        if (entry.startsWith('.')) continue;
        const path = join(dir, entry);
        if (entry.startsWith('@')) {
          visit(path);
          continue;
        }
        try {
          const pkg = JSON.parse(readFileSync(join(path, 'package.json'), 'utf8')) as {
            name: string;
            version: string;
            engines?: { node?: string };
          };
          const range = pkg.engines?.node;
          if (range && semver.validRange(range) && !semver.satisfies(process.version, range)) {
            unsupported.push(`${pkg.name}@${pkg.version} (${range})`);
          }
        } catch {
          // not a package
        }
        visit(join(path, 'node_modules'));
      }
    };
    visit(repoPath('node_modules'));
    for (const top of ['libs', 'services', 'apps'])
      for (const pkg of readdirSync(repoPath(top))) visit(repoPath(`${top}/${pkg}/node_modules`));
    for (const pkg of ['tests', 'bench']) visit(repoPath(`${pkg}/node_modules`));
    const root = JSON.parse(readFileSync(repoPath('package.json'), 'utf8')) as { engines: { node: string } };
    assert.ok(
      semver.satisfies(process.version, root.engines.node),
      `package.json engines ${root.engines.node} excludes ${process.version}`,
    );
    assert.deepEqual(unsupported, [], `packages that do not support Node ${process.version}`);
  });
});
