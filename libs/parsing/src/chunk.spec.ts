import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkParsed, chunkText, type ChunkLimits } from './chunk.js';
import { Grammars, type Grammar } from './grammars.js';

const grammars = new Grammars();
async function grammar(language: string): Promise<Grammar> {
  const loaded = await grammars.get(language);
  assert.ok(loaded && !('error' in loaded));
  return loaded;
}
const brief = (chunks: ReturnType<typeof chunkText>) => chunks.map((c) => [c.startLine, c.endLine, c.symbol]);

describe('chunking for search', () => {
  it('cuts a parsed file at its definitions, merges small neighbours, and splits a long definition on its statements with overlap', async () => {
    const long = [
      'export function big(x: number) {',
      ...Array.from({ length: 90 }, (_, i) => `  const v${i} = x + ${i}; // step ${i} of a long computation`),
      '  return x;',
      '}',
    ];
    const source = [
      "import { a } from './a';",
      '',
      'export class Cart {',
      '  total = 0;',
      '  add(p: number) { this.total += p; return this; }',
      '}',
      '',
      ...long,
      '',
      'export const tail = 1;',
    ].join('\n');
    const chunks = chunkParsed(await grammar('typescript'), source, 2_000);
    assert.deepEqual(chunks[0].symbol, 'Cart', 'the import line is merged into the small class after it');
    assert.deepEqual([chunks[0].startLine, chunks[0].endLine], [1, 6]);
    const big = chunks.filter((c) => c.symbol === 'big');
    assert.ok(big.length >= 2, JSON.stringify(brief(chunks)));
    assert.equal(big[0].startLine, 8, 'the first piece starts with the signature');
    assert.equal(big.at(-1)!.endLine, 8 + long.length - 1, 'the last piece ends with the body');
    for (let i = 1; i < big.length; i++) {
      assert.ok(big[i].startLine <= big[i - 1].endLine, 'pieces overlap by a few lines');
      assert.ok(big[i].startLine > big[i - 1].startLine);
      assert.ok(big[i].endLine - big[i].startLine + 1 <= 60);
    }
    assert.deepEqual(brief([chunks.at(-1)!]), [[8 + long.length + 1, 8 + long.length + 1, 'tail']]);
    assert.match(big[0].text, /^export function big\(x: number\) \{/);
  });

  it('keeps a class too big for one chunk as its members, and a method keeps its class in its name', async () => {
    const methods = Array.from({ length: 8 }, (_, i) => [
      `  m${i}() {`,
      ...Array.from({ length: 8 }, (_, j) => `    this.v${j} = ${i * j}; // member ${i} line ${j}`),
      '  }',
    ]).flat();
    const source = ['class Service {', ...methods, '}'].join('\n');
    const limits: ChunkLimits = { maxLines: 30, maxChars: 1_200, minChars: 0, overlapLines: 2 };
    const chunks = chunkParsed(await grammar('typescript'), source, 2_000, limits);
    assert.deepEqual(
      chunks.map((c) => c.symbol),
      ['Service', ...Array.from({ length: 8 }, (_, i) => `Service.m${i}`), 'Service'],
    );
  });

  it('cuts Markdown at headings (not inside code fences), YAML at top-level keys, other text by windows', () => {
    const limits: ChunkLimits = { maxLines: 60, maxChars: 2_400, minChars: 0, overlapLines: 2 };
    assert.deepEqual(
      brief(chunkText('README.md', '# Title\nintro\n\n## Install\nnpm i\n```\n# not a heading\n```\n## Use\ncall it\n', limits)),
      [
        [1, 2, 'Title'],
        [4, 8, 'Install'],
        [9, 10, 'Use'],
      ],
    );
    assert.deepEqual(brief(chunkText('c.yaml', 'name: x\nservices:\n  a: 1\nvolumes:\n  - v\n', limits)), [
      [1, 1, 'name'],
      [2, 3, 'services'],
      [4, 5, 'volumes'],
    ]);
    const text = Array.from({ length: 150 }, (_, i) => `line ${i}`).join('\n');
    const windows = chunkText('notes.txt', text, limits);
    assert.deepEqual(
      windows.map((c) => [c.startLine, c.endLine]),
      [
        [1, 60],
        [59, 118],
        [117, 150],
      ],
    );
    assert.ok(windows.every((c) => c.symbol === null));
  });

  it('keeps at most a piece of a minified line', () => {
    const [chunk] = chunkText('app.min.js', `var a=${'1+'.repeat(100_000)}1;`);
    assert.ok(chunk.text.length < 1_000, String(chunk.text.length));
  });
});
