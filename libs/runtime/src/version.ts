import { readFileSync } from 'node:fs';

/** The product version; all Sextant packages are versioned together. */
export const SEXTANT_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
