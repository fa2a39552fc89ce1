#!/usr/bin/env node
// The container image's entry point: SERVICE picks what this process runs,
// from the built tree (no build step, no npm): one of the services, or
// `embedded` for the whole product in one process. Arguments are passed on
// (`SERVICE=embedded … --stdio`).
import { existsSync } from 'node:fs';
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
process.argv = [process.argv[0], entry, ...process.argv.slice(2)];
await import(pathToFileURL(entry).href);
