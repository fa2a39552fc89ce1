#!/usr/bin/env node
// `sextant [--stdio]` (`npx sextant --stdio` inside the repository): embedded
// mode, building first when sources changed. Same as `npm start --silent -- --stdio`.
// `sextant keys …`: create, list and revoke API keys (apps/sextant/src/keys/main.ts).
if (process.argv[2] === 'keys') process.argv.splice(2, 1, 'apps/sextant/dist/keys/main.js');
await import('../../../scripts/start.mjs');
