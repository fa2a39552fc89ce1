#!/usr/bin/env node
// Writes the runtime tree the container image ships, from a built checkout:
//   node deploy/runtime-tree.mjs <out-dir> [--onnx]
// - the workspaces the entry points need (apps/sextant and services/*, and the
//   @sextant libraries they import, transitively): each package's package.json
//   (without devDependencies) and everything but its sources (dist, query
//   files, bin), without specs;
// - a root package.json listing only those workspaces, with no scripts and no
//   dev dependencies, the lock file, docs/ (served as MCP resources) and
//   scripts/serve.mjs and healthcheck.mjs (the image's entry and HEALTHCHECK);
// - `npm install --omit=dev --ignore-scripts` there, so test and bench
//   packages (tests, bench, libs/testing, Nx, Prettier) stay out;
// - then only what runs on linux-x64 is kept (prune()): a grammar package's
//   .wasm (not its C sources, bindings and prebuilds for every platform),
//   TypeScript's compiler library and standard declarations only (what
//   scip-typescript runs on), no source maps, other declaration files or
//   browser builds. The optional ONNX embedder
//   (EMBEDDINGS_MODEL_DIR: @huggingface/transformers on onnxruntime-node and
//   sharp) is left out unless --onnx, and then with linux-x64 binaries only.
// deploy/Dockerfile runs it; tests/src/image.test.ts runs it too and starts
// the result as a non-root user with only its data directory writable.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = process.argv[2] && resolve(process.argv[2]);
const withOnnx = process.argv.includes('--onnx');
if (!out || process.argv.slice(3).some((a) => a !== '--onnx')) {
  process.stderr.write('usage: node deploy/runtime-tree.mjs <out-dir> [--onnx]\n');
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
for (const modules of nodeModulesUnder(out)) prune(modules);
process.stderr.write(
  `runtime tree in ${relative(process.cwd(), out) || '.'}${withOnnx ? ' (with the ONNX embedder)' : ''}: ${runtime.join(', ')}\n`,
);

/** The root node_modules and those npm nested in a workspace (a version differing from the root's). */
function nodeModulesUnder(dir, found = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    if (entry.name === 'node_modules') found.push(join(dir, entry.name));
    else if (!dir.includes('node_modules')) nodeModulesUnder(join(dir, entry.name), found);
  }
  return found;
}

/** Removes from the installed packages what never runs in the image (see the head of this file). */
function prune(modules) {
  /** TypeScript's own declarations of the standard library: the compiler reads them (the walk below keeps them). */
  const STANDARD_LIB = /[\\/]typescript[\\/]lib[\\/]lib\.[^\\/]*\.d\.ts$/;
  const remove = (...paths) => paths.forEach((p) => rmSync(join(modules, p), { recursive: true, force: true }));
  const keepOnly = (dir, keep) => {
    if (!existsSync(join(modules, dir))) return;
    for (const entry of readdirSync(join(modules, dir))) if (!keep(entry)) remove(join(dir, entry));
  };
  // Grammars: web-tree-sitter loads each package's .wasm; nothing else of them is read.
  for (const name of readdirSync(modules).filter((n) => n.startsWith('tree-sitter-'))) {
    keepOnly(name, (entry) => entry.endsWith('.wasm') || entry === 'package.json' || entry.startsWith('LICENSE'));
  }
  remove('typeorm/browser', 'onnxruntime-web');
  // TypeScript is scip-typescript's compiler (the precise stage, ADR 0053): its library and the standard declarations
  // (lib.*.d.ts) it type-checks against; not tsc, tsserver or the diagnostics' translations.
  keepOnly('typescript', (entry) => entry === 'lib' || entry === 'package.json' || entry.startsWith('LICENSE'));
  keepOnly('typescript/lib', (entry) => entry === 'typescript.js' || /^lib\..*\.d\.ts$/.test(entry));
  // usearch (the local vector index) loads its linux-x64 prebuild; its C++ sources and kernels are for builds.
  keepOnly('usearch/prebuilds', (entry) => entry === 'linux-x64');
  remove('usearch/numkong', 'usearch/cpp', 'usearch/include', 'usearch/c', 'usearch/binding.gyp');
  if (!withOnnx) {
    remove('@huggingface', 'onnxruntime-node', 'onnxruntime-common', 'sharp', '@img');
  } else {
    // The CPU runtime for linux-x64 only (the package ships darwin, win32 and linux-arm64 too); sharp's likewise.
    keepOnly('onnxruntime-node/bin/napi-v3', (entry) => entry === 'linux');
    keepOnly('onnxruntime-node/bin/napi-v3/linux', (entry) => entry === 'x64');
    keepOnly('@img', (entry) => !entry.startsWith('sharp-') || /^sharp-(libvips-)?linux-x64$/.test(entry));
    keepOnly('@huggingface/transformers/dist', (entry) => entry.startsWith('transformers.node.') && !entry.endsWith('.map'));
    remove('@huggingface/transformers/src', '@huggingface/transformers/types');
  }
  // gpt-tokenizer (get_code_context's token counts) runs from its ES modules: its CommonJS copy, TypeScript sources and
  // raw .tiktoken rank files (21 MB) are not read.
  remove('gpt-tokenizer/cjs', 'gpt-tokenizer/src', 'gpt-tokenizer/data');
  // Packages that ship their TypeScript sources or tests beside what Node loads (their exports name only dist builds).
  remove('zod/src', 'rxjs/src', 'bintrees/test');
  // scip-python (the precise stage, ADR 0060) runs dist/scip-python.js with an empty environment: its test entry and
  // the third-party packages' stubs typeshed bundles (17 MB) are not read for a repository's own symbols; the
  // standard library's stubs stay.
  remove('@sourcegraph/scip-python/dist/scip-python-test.js', '@sourcegraph/scip-python/dist/typeshed-fallback/stubs');
  // Source maps and declarations are for debuggers and compilers; docs for people.
  const walk = (dir) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      const info = lstatSync(path);
      if (info.isDirectory()) walk(path);
      else if (/\.(map|d\.ts|d\.mts|d\.cts|md|markdown)$/i.test(entry) && !/^license/i.test(entry) && !STANDARD_LIB.test(path))
        rmSync(path);
    }
  };
  walk(modules);
}
