/** No module of a package imports itself back, through any path (type imports included): checked with madge over each package's source. */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import madge from 'madge';
import { repoPath } from '@sextant/testing';

/** Every workspace package with TypeScript sources (package.json's workspaces: libs/*, services/*, apps/*, tests, bench). */
const PACKAGES = [
  ...['libs', 'services', 'apps'].flatMap((top) => readdirSync(repoPath(top)).map((name) => `${top}/${name}`)),
  'tests',
  'bench',
].filter((pkg) => existsSync(repoPath(`${pkg}/src`)));

describe('import circles', () => {
  for (const pkg of PACKAGES) {
    it(`${pkg} has none`, async () => {
      const graph = await madge(repoPath(`${pkg}/src`), {
        fileExtensions: ['ts'],
        tsConfig: repoPath(`${pkg}/tsconfig.json`),
        // Other packages are reached through their declarations: their own circles are theirs to report.
        excludeRegExp: [/\.d\.ts$/],
      });
      // A relative import madge could not resolve would hide the circles through it.
      const unresolved = graph.warnings().skipped.filter((name) => name.startsWith('.'));
      assert.deepEqual(unresolved, [], `imports of ${pkg}/src madge could not resolve`);
      const circles = graph.circular().map((files) => files.join(' → '));
      assert.deepEqual(circles, [], `circular imports in ${pkg}/src (break each by moving what both sides need to a module of its own)`);
    });
  }
});
