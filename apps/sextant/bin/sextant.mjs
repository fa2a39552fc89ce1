#!/usr/bin/env node
// `sextant [--stdio]` (`npx sextant --stdio` inside the repository): embedded
// mode, building first when sources changed. Same as `npm start --silent -- --stdio`.
await import('../../../scripts/start.mjs');
