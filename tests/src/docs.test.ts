/**
 * The documents generated from the code (docs/configuration.md, docs/tools.md) are the ones committed, and the
 * hand-written ones keep no tool list of their own (the catalog's is docs/tools.md).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { TOOLS_BY_SERVICE } from '@sextant/contracts';
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

/** Pages written from the code, not by hand: the generated documents, and docs/vocabulary.md (UPDATE_TOOLSNAPS=1 writes it). */
const WRITTEN_FROM_CODE = new Set([...GENERATED_DOCUMENTS.map((d) => d.path), 'docs/vocabulary.md']);

describe('hand-written documents', () => {
  it("list no service's tools in full: a tool list is derived from the catalog (docs/tools.md), not kept by hand", () => {
    // ADRs record a decision as it was made; they are not kept current.
    const pages = [
      'README.md',
      'AGENTS.md',
      ...readdirSync(repoPath('docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const lists: string[] = [];
    for (const page of pages.filter((p) => !WRITTEN_FROM_CODE.has(p))) {
      const paragraphs = readFileSync(repoPath(page), 'utf8').split(/\n\s*\n/);
      for (const [service, tools] of Object.entries(TOOLS_BY_SERVICE)) {
        if (tools.length < 3) continue;
        const names = tools.map((t) => new RegExp(`\\b${t.name}\\b`));
        const at = paragraphs.findIndex((paragraph) => names.every((name) => name.test(paragraph)));
        if (at !== -1) lists.push(`${page} (paragraph ${at + 1}) lists every tool of ${service}`);
      }
    }
    assert.deepEqual(lists, [], 'point to docs/tools.md (or name a few tools as examples) instead');
  });
});
