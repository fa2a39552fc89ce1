/** No module of a package imports itself back, through any path (type imports included): checked with madge over each package's source. */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import madge from 'madge';
import { repoPath } from '@sextant/testing';

/**
 * Circles known and not yet broken, each with the reason, as its files in madge's order. One only: contracts' roles
 * (`ProjectRole` lives in projects/verify-api-key.ts, which defines its tool with tool.ts, whose `ToolAccess` comes
 * from access.ts, which reads roles): it breaks in the follow-up, once `ProjectRole` moves to a module of its own;
 * tool.ts is being edited elsewhere meanwhile.
 */
const KNOWN: Record<string, readonly string[][]> = {
  'libs/contracts': [['access.ts', 'principal.ts', 'projects/verify-api-key.ts', 'tool.ts']],
};

/** Every workspace package with TypeScript sources (package.json's workspaces: libs/*, services/*, apps/*, tests, bench). */
const PACKAGES = [
  ...['libs', 'services', 'apps'].flatMap((top) => readdirSync(repoPath(top)).map((name) => `${top}/${name}`)),
  'tests',
  'bench',
].filter((pkg) => existsSync(repoPath(`${pkg}/src`)));

describe('import circles', () => {
  for (const pkg of PACKAGES) {
    it(`${pkg} has none${KNOWN[pkg] ? ' but its known ones' : ''}`, async () => {
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
      const known = (KNOWN[pkg] ?? []).map((files) => files.join(' → '));
      assert.deepEqual(circles, known, `circular imports in ${pkg}/src (break each by moving what both sides need to a module of its own)`);
    });
  }
});
