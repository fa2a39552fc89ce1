#!/usr/bin/env node
// The container image's entry point: SERVICE picks what this process runs,
// from the built tree (no build step, no npm): one of the services, or
// `embedded` for the whole product in one process. Arguments are passed on
// (`SERVICE=embedded … --stdio`).
//
// A process that keeps data checks first that it may write SEXTANT_DATA_DIR.
// When it may not (a volume owned by another user), it says so once and
// waits, unhealthy, until it is stopped: exiting would have a restart policy
// (compose's `unless-stopped`) start it again and again, with the same message.
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ENTRIES = {
  embedded: 'apps/sextant',
  gateway: 'services/gateway',
  projects: 'services/projects',
  'git-cache': 'services/git-cache',
  'workspace-registry': 'services/workspace-registry',
  'symbol-indexer': 'services/symbol-indexer',
  'vector-search': 'services/vector-search',
};

const root = fileURLToPath(new URL('..', import.meta.url));
const service = process.env.SERVICE ?? 'gateway';
const entry = Object.hasOwn(ENTRIES, service) ? join(root, ENTRIES[service], 'dist/main.js') : undefined;
if (!entry || !existsSync(entry)) {
  const msg = entry
    ? `SERVICE=${service}: ${entry} is missing (this tree was not built)`
    : `SERVICE=${JSON.stringify(service)} is not one of: ${Object.keys(ENTRIES).join(', ')}`;
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'fatal', context: 'Bootstrap', msg })}\n`);
  process.exit(2);
}
/** The services that keep data in SEXTANT_DATA_DIR (the others never write it). */
const KEEPS_DATA = new Set(['embedded', 'git-cache', 'workspace-registry', 'symbol-indexer', 'vector-search']);
const dataDir = process.env.SEXTANT_DATA_DIR;
let writable = true;
if (KEEPS_DATA.has(service) && dataDir && existsSync(dataDir)) {
  try {
    accessSync(dataDir, constants.W_OK | constants.X_OK);
  } catch {
    writable = false;
    const owner = statSync(dataDir).uid;
    const msg =
      `SEXTANT_DATA_DIR ${dataDir} is owned by uid ${owner} and this process (uid ${process.getuid?.()}) may not write it: ` +
      `give the volume to uid ${process.getuid?.()} (chown), or mount one it may write. Waiting until stopped, instead of restarting.`;
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'fatal', context: 'Bootstrap', msg })}\n`);
    const stop = () => process.exit(2);
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    setInterval(() => undefined, 2 ** 31 - 1);
  }
}
if (writable) {
  process.argv = [process.argv[0], entry, ...process.argv.slice(2)];
  await import(pathToFileURL(entry).href);
}
