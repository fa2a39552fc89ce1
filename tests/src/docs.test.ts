/** The documents generated from the code (docs/configuration.md, docs/tools.md) are the ones committed. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { GENERATED_DOCUMENTS } from '@sextant/embedded';
import { repoPath } from '@sextant/testing';

/** The first line where two texts differ, 1-based, with both versions of it. */
function firstDifference(committed: string, generated: string): string {
  const a = committed.split('\n');
  const b = generated.split('\n');
  const line = a.findIndex((text, i) => text !== b[i]);
  const at = line === -1 ? a.length : line;
  return `line ${at + 1}: committed ${JSON.stringify(a[at] ?? '(end of file)')}, generated ${JSON.stringify(b[at] ?? '(end of file)')}`;
}

describe('generated documents', () => {
  for (const { path, render } of GENERATED_DOCUMENTS) {
    it(`${path} is what \`npm run docs\` writes`, () => {
      const generated = render();
      let committed: string;
      try {
        committed = readFileSync(repoPath(path), 'utf8');
      } catch {
        assert.fail(`${path} is missing: run \`npm run docs\` and commit it`);
      }
      assert.ok(committed === generated, `${path} is stale (${firstDifference(committed, generated)}): run \`npm run docs\` and commit it`);
    });
  }
});
