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

// A directory runs its dist/main.js; a .js file (a second entry point, such as the keys CLI) runs as it is.
const entry = target.endsWith('.js') ? join(root, target) : join(root, target, 'dist/main.js');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
if (!existsSync(entry)) log('info', 'Building Sextant (TypeScript, once; about a minute)');
const build = spawnSync(process.execPath, [tsc, '-b', join(root, 'tsconfig.json')], { stdio: ['ignore', 2, 2] });
if (build.status !== 0) {
  log('fatal', 'Build failed; see the TypeScript errors above.');
  process.exit(build.status ?? 1);
}
// Local development: an HTTP endpoint on loopback runs without authentication unless SEXTANT_AUTH says otherwise (the
// image's entry point, scripts/serve.mjs, never does this). Anything else the gateway refuses to start without it.
// Not over stdio (no HTTP, so no HTTP authentication to speak of), nor for a command line that serves nothing
// (`--help`, `--version`, a mistyped flag: the entry point answers those itself, without starting anything).
const app = target.replace(/\/+$/, '');
const serves = app === 'apps/sextant' ? await servesHttp(rest) : app === 'services/gateway' && !rest.includes('--stdio');
const host = process.env.SEXTANT_HOST ?? '127.0.0.1';
if (serves && process.env.SEXTANT_AUTH === undefined && (['localhost', '::1', '[::1]'].includes(host) || host.startsWith('127.'))) {
  process.env.SEXTANT_AUTH = 'off';
  log('info', 'Authentication is off: local development on loopback (set SEXTANT_AUTH=on to require API keys or tokens)');
}
process.argv = [process.argv[0], entry, ...rest];
await import(pathToFileURL(entry).href);

/** Whether embedded mode's command line (apps/sextant/src/cli.ts, just built) asks to serve MCP over HTTP. */
async function servesHttp(args) {
  const { readCommandLine } = await import(pathToFileURL(join(root, 'apps/sextant/dist/cli.js')).href);
  const line = readCommandLine(args);
  return line.command === 'serve' && !line.stdio;
}
