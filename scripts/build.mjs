#!/usr/bin/env node
// `npm install`'s `prepare`: the TypeScript build (`tsc -b`, incremental), saying so on stderr first, since a first
// build takes a while and npm shows nothing meanwhile, and how long it took at the end.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const started = performance.now();
process.stderr.write('sextant: building (tsc -b) …\n');
const build = spawnSync(process.execPath, [tsc, '-b', join(root, 'tsconfig.json')], { stdio: 'inherit' });
const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (build.status !== 0) {
  process.stderr.write(`sextant: build failed after ${seconds} s (the TypeScript errors are above)\n`);
  process.exit(build.status ?? 1);
}
process.stderr.write(`sextant: built in ${seconds} s\n`);
