#!/usr/bin/env node
// `npm start [-- --stdio]` and `npm run start:<service>`: build what changed
// (incremental `tsc -b`, well under a second when nothing did; `npm install`
// already built everything), then run the entry point in this same process.
// Build output goes to stderr so that `--stdio` keeps stdout for MCP messages
// only. The npm scripts `exec` this file, so signals reach it directly.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const [first, ...rest] = process.argv.slice(2);
const target = first && !first.startsWith('-') ? first : 'apps/sextant';
if (target !== first) rest.unshift(...(first ? [first] : []));

/** A log line in the format of every other line Sextant writes (JSON). */
const log = (level, msg) => process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, context: 'Build', msg })}\n`);

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
if (!existsSync(join(root, target, 'dist/main.js'))) log('info', 'Building Sextant (TypeScript, once; about a minute)');
const build = spawnSync(process.execPath, [tsc, '-b', join(root, 'tsconfig.json')], { stdio: ['ignore', 2, 2] });
if (build.status !== 0) {
  log('fatal', 'Build failed; see the TypeScript errors above.');
  process.exit(build.status ?? 1);
}
process.argv = [process.argv[0], join(root, target, 'dist/main.js'), ...rest];
await import(pathToFileURL(join(root, target, 'dist/main.js')).href);
