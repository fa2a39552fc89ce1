#!/usr/bin/env node
// Runs every test of the repository with Node's test runner, on the compiled
// output (`npm test` builds first):
//   - unit specs beside the code:   libs/*/dist/**/*.spec.js, services/*/dist/**/*.spec.js, apps/*/dist/**/*.spec.js
//   - integration and end-to-end:    tests/dist/**/*.test.js
//   - a full run then runs the suites that take NATS and Postgres from the
//     environment once more against containers Testcontainers starts
//     (CONTAINER_SUITES, SEXTANT_TEST_INFRA=containers), where a container
//     engine answers; in CI (CI=true) also where none does, so that it fails.
// Options: --only unit | --only integration, or file-name filters (substrings).
// Ends with one line: "N passed, N failed, N skipped" (over both passes).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const filters = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--only');

function walk(dir, suffix, out = []) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const entry of entries) {
    if (entry === 'node_modules') continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path, suffix, out);
    else if (entry.endsWith(suffix)) out.push(path);
  }
  return out;
}

const unit = ['libs', 'services', 'apps'].flatMap((top) =>
  readdirSync(join(root, top)).flatMap((pkg) => walk(join(root, top, pkg, 'dist'), '.spec.js')),
);
const integration = walk(join(root, 'tests', 'dist'), '.test.js');
let files = only === 'unit' ? unit : only === 'integration' ? integration : [...unit, ...integration];
if (filters.length > 0) files = files.filter((f) => filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
console.log(`running ${files.length} test files`);

/** The suites run a second time against containers (issue 37): the distributed mode, its faults, its shards. */
const CONTAINER_SUITES = ['distributed.test.js', 'faults.test.js', 'shards.test.js'];

/** Runs `files` with Node's test runner; resolves with its exit code and its counts. */
function runPass(label, passFiles, env = {}) {
  const summaryDir = mkdtempSync(join(tmpdir(), 'sextant-summary-'));
  const summaryFile = join(summaryDir, 'summary.json');
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--test',
        // Files run one at a time: integration suites start processes and share NATS and Postgres.
        '--test-concurrency=1',
        // A test that hangs fails after 20 minutes instead of holding CI to its 90-minute limit. The runner counts a
        // whole file as one test too: the image suite's two builds took 285 s from a cold layer cache, and its file
        // went past the 5 minutes this was before.
        '--test-timeout=1200000',
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        `--test-reporter=${join(root, 'scripts', 'summary-reporter.mjs')}`,
        '--test-reporter-destination=stdout',
        ...passFiles.map((f) => relative(root, f)),
      ],
      { cwd: root, stdio: 'inherit', env: { ...process.env, ...env, SEXTANT_TEST_SUMMARY_FILE: summaryFile, SEXTANT_TEST_PASS: label } },
    );
    child.on('exit', (code, signal) => {
      let counts = { passed: 0, failed: 1, skipped: 0 };
      try {
        counts = JSON.parse(readFileSync(summaryFile, 'utf8'));
      } catch {
        console.error(`${label}: the test runner ended without a summary (${signal ?? `exit ${code}`})`);
      }
      rmSync(summaryDir, { recursive: true, force: true });
      resolve({ code: code ?? (signal ? 1 : 0), counts });
    });
  });
}

const passes = [await runPass('all', files)];
const containerFiles = files.filter((f) => CONTAINER_SUITES.some((suite) => f.endsWith(suite)));
if (filters.length === 0 && only !== 'unit' && containerFiles.length > 0) {
  const docker = ['/usr/bin/docker', 'docker'].find((bin) => spawnSync(bin, ['info'], { stdio: 'ignore', timeout: 10_000 }).status === 0);
  if (docker || process.env.CI) {
    console.log(`\nrunning ${containerFiles.length} test files again against NATS and Postgres in containers (Testcontainers)`);
    passes.push(await runPass('containers', containerFiles, { SEXTANT_TEST_INFRA: 'containers' }));
  } else {
    console.log('\nno container engine answers: the suites against NATS and Postgres in containers did not run');
  }
}
const total = { passed: 0, failed: 0, skipped: 0 };
for (const { counts } of passes) for (const key of Object.keys(total)) total[key] += counts[key];
console.log(`\n${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(passes.some((p) => p.code !== 0) || total.failed > 0 ? 1 : 0);
