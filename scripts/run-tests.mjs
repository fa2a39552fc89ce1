#!/usr/bin/env node
// Runs every test of the repository with Node's test runner, on the compiled
// output (`npm test` builds first):
//   - unit specs beside the code:   libs/*/dist/**/*.spec.js, services/*/dist/**/*.spec.js, apps/*/dist/**/*.spec.js
//   - integration and end-to-end:    tests/dist/**/*.test.js
// Options: --only unit | --only integration, or file-name filters (substrings).
// Ends with one line: "N passed, N failed, N skipped".
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
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

const child = spawn(
  process.execPath,
  [
    '--test',
    // Files run one at a time: integration suites start processes and share NATS and Postgres.
    '--test-concurrency=1',
    // A test that hangs fails after 5 minutes instead of holding CI to its 90-minute limit.
    '--test-timeout=300000',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${join(root, 'scripts', 'summary-reporter.mjs')}`,
    '--test-reporter-destination=stdout',
    ...files.map((f) => relative(root, f)),
  ],
  { cwd: root, stdio: 'inherit' },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
