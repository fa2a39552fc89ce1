#!/usr/bin/env node
// Writes the runtime tree the container image ships, from a built checkout:
//   node deploy/runtime-tree.mjs <out-dir>
// - the workspaces the entry points need (apps/sextant and services/*, and the
//   @sextant libraries they import, transitively): each package's package.json
//   (without devDependencies) and everything but its sources (dist, query
//   files, bin), without specs;
// - a root package.json listing only those workspaces, with no scripts and no
//   dev dependencies, the lock file, docs/ (served as MCP resources) and
//   scripts/serve.mjs and healthcheck.mjs (the image's entry and HEALTHCHECK);
// - `npm install --omit=dev --ignore-scripts` there, so test and bench
//   packages (tests, bench, libs/testing, Nx, Prettier) stay out. TypeScript
//   does not: @qdrant/js-client-rest declares it a required peer dependency.
// deploy/Dockerfile runs it; tests/src/image.test.ts runs it too and starts
// the result as a non-root user with only its data directory writable.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = process.argv[2] && resolve(process.argv[2]);
if (!out) {
  process.stderr.write('usage: node deploy/runtime-tree.mjs <out-dir>\n');
  process.exit(2);
}
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
const rootPackage = readJson(join(root, 'package.json'));

// Every workspace by package name.
const workspaces = new Map();
for (const pattern of rootPackage.workspaces) {
  const dirs = pattern.endsWith('/*')
    ? readdirSync(join(root, pattern.slice(0, -2)), { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => `${pattern.slice(0, -2)}/${d.name}`)
    : [pattern];
  for (const dir of dirs) {
    if (!existsSync(join(root, dir, 'package.json'))) continue;
    workspaces.set(readJson(join(root, dir, 'package.json')).name, dir);
  }
}

// The entry points' workspaces and the workspaces they depend on, transitively (runtime dependencies only).
const entries = [...workspaces.values()].filter((dir) => dir === 'apps/sextant' || dir.startsWith('services/'));
const needed = new Set();
const visit = (dir) => {
  if (needed.has(dir)) return;
  needed.add(dir);
  const pkg = readJson(join(root, dir, 'package.json'));
  for (const name of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) {
    if (workspaces.has(name)) visit(workspaces.get(name));
  }
};
entries.forEach(visit);
const runtime = [...needed].sort();

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const SOURCES = new Set(['src', 'node_modules', 'tsconfig.json', 'tsconfig.tsbuildinfo']);
for (const dir of runtime) {
  if (!existsSync(join(root, dir, 'dist'))) throw new Error(`${dir} is not built: run npm run build first`);
  for (const entry of readdirSync(join(root, dir))) {
    if (SOURCES.has(entry) || entry.startsWith('__') || entry === 'package.json') continue;
    cpSync(join(root, dir, entry), join(out, dir, entry), {
      recursive: true,
      filter: (path) => !/\.(spec|test)\.(js|d\.ts)(\.map)?$/.test(path) && !path.endsWith('.tsbuildinfo'),
    });
  }
}
for (const dir of runtime) {
  // Dev dependencies name workspaces that are not in this tree (@sextant/testing): npm would look them up in the registry.
  const { devDependencies: _devDependencies, ...pkg } = readJson(join(root, dir, 'package.json'));
  writeFileSync(join(out, dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
}
cpSync(join(root, 'docs'), join(out, 'docs'), { recursive: true });
mkdirSync(join(out, 'scripts'));
for (const script of ['serve.mjs', 'healthcheck.mjs']) cpSync(join(root, 'scripts', script), join(out, 'scripts', script));
cpSync(join(root, 'package-lock.json'), join(out, 'package-lock.json'));
cpSync(join(root, '.npmrc'), join(out, '.npmrc'));
const { scripts: _scripts, devDependencies: _dev, ...kept } = rootPackage;
writeFileSync(join(out, 'package.json'), `${JSON.stringify({ ...kept, workspaces: runtime }, null, 2)}\n`);

// The locked versions of the runtime packages' production dependencies; no install scripts run (the repository's
// allowScripts policy: every package the product uses ships what it needs, prebuilt binaries and .wasm grammars).
execFileSync('npm', ['install', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline'], {
  cwd: out,
  stdio: ['ignore', 2, 2],
  env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip', ONNXRUNTIME_NODE_INSTALL_CUDA: 'skip' },
});
process.stderr.write(`runtime tree in ${relative(process.cwd(), out) || '.'}: ${runtime.join(', ')}\n`);
