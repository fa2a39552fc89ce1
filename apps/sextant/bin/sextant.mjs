#!/usr/bin/env node
// `sextant [--stdio] [--workspace DIR] [--allowed-root DIR]` (`npx sextant …` inside the repository): embedded
// mode, building first when sources changed. Same as `npm start --silent -- …`. `sextant --help` and `--version`
// answer without starting anything; an unknown flag is an error naming the known ones (apps/sextant/src/cli.ts).
// `sextant keys …`: create, list and revoke API keys (apps/sextant/src/keys/main.ts; `sextant keys --help`).
if (process.argv[2] === 'keys') process.argv.splice(2, 1, 'apps/sextant/dist/keys/main.js');
// `sextant scip upload …`: send a SCIP index to a server's POST /scip (apps/sextant/src/scip/main.ts).
else if (process.argv[2] === 'scip') process.argv.splice(2, 1, 'apps/sextant/dist/scip/main.js');
await import('../../../scripts/start.mjs');
