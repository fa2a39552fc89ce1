import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import protobuf from 'protobufjs';
import { ServiceError } from '@sextant/work';
import { decodeScipIndex, type ScipLimits } from './scip-index.js';

const LIMITS: ScipLimits = { maxBytes: 1 << 20, maxDocuments: 100, maxOccurrences: 1_000 };

// Indexes are built with the same vendored schema through protobufjs's encoder (the decoder reads documents one by one).
const { root } = protobuf.parse(readFileSync(new URL('../../../proto/scip.proto', import.meta.url), 'utf8'), { keepCase: true });
const Index = root.lookupType('scip.Index');

function encode(index: Record<string, unknown>): Uint8Array {
  return Index.encode(Index.fromObject(index)).finish();
}

const GOOD = {
  metadata: { version: 0, tool_info: { name: 'scip-typescript', version: '0.4.0' }, project_root: 'file:///repo' },
  documents: [
    {
      relative_path: 'src/a.ts',
      language: 'TypeScript',
      occurrences: [
        { range: [0, 16, 19], symbol: 'scip-typescript npm pkg 1.0.0 src/`a.ts`/foo().', symbol_roles: 1 },
        { range: [1, 2, 3], symbol: 'local 0', symbol_roles: 1 },
        { range: [2, 0, 4, 1], symbol: 'scip-typescript npm pkg 1.0.0 src/`a.ts`/foo().', symbol_roles: 8 },
      ],
      symbols: [
        {
          symbol: 'scip-typescript npm pkg 1.0.0 src/`a.ts`/foo().',
          kind: 17,
          display_name: 'foo',
          relationships: [
            { symbol: 'scip-typescript npm pkg 1.0.0 src/`i.ts`/I#foo().', is_reference: true, is_implementation: true },
            { symbol: 'scip-typescript npm pkg 1.0.0 src/`i.ts`/I#', is_implementation: true },
          ],
        },
      ],
    },
    { relative_path: './src/b.ts', occurrences: [{ range: [3, 4, 7], symbol: 'scip-typescript npm pkg 1.0.0 src/`a.ts`/foo().' }] },
  ],
};

function refusal(bytes: Uint8Array, limits: ScipLimits = LIMITS): string {
  try {
    decodeScipIndex(bytes, limits);
  } catch (error) {
    assert.ok(error instanceof ServiceError, `not a ServiceError: ${String(error)}`);
    assert.equal(error.busError.code, 'invalid_input');
    return error.busError.message;
  }
  assert.fail('the index was accepted');
}

describe('decodeScipIndex', () => {
  it("reads documents, occurrences with their ranges and roles, the symbols and their is_reference and is_implementation relationships; a local is named with its document's path", () => {
    const index = decodeScipIndex(encode(GOOD), LIMITS);
    assert.equal(index.tool, 'scip-typescript 0.4.0');
    assert.deepEqual(
      index.documents.map((d) => d.path),
      ['src/a.ts', 'src/b.ts'],
    );
    assert.deepEqual(index.documents[0].occurrences, [
      { symbol: 'scip-typescript npm pkg 1.0.0 src/`a.ts`/foo().', line: 0, column: 16, endLine: 0, endColumn: 19, roles: 1 },
      { symbol: 'local 0 src/a.ts', line: 1, column: 2, endLine: 1, endColumn: 3, roles: 1 },
      { symbol: 'scip-typescript npm pkg 1.0.0 src/`a.ts`/foo().', line: 2, column: 0, endLine: 4, endColumn: 1, roles: 8 },
    ]);
    assert.equal(index.occurrenceCount, 4);
    assert.deepEqual(index.symbols, [
      {
        symbol: 'scip-typescript npm pkg 1.0.0 src/`a.ts`/foo().',
        kind: 17,
        displayName: 'foo',
        references: ['scip-typescript npm pkg 1.0.0 src/`i.ts`/I#foo().'],
        implementations: ['scip-typescript npm pkg 1.0.0 src/`i.ts`/I#foo().', 'scip-typescript npm pkg 1.0.0 src/`i.ts`/I#'],
      },
      { symbol: 'local 0 src/a.ts', kind: 0, displayName: '', references: [], implementations: [] },
    ]);
  });

  it('refuses an index over the size cap before decoding it', () => {
    const bytes = encode(GOOD);
    assert.match(refusal(bytes, { ...LIMITS, maxBytes: bytes.length - 1 }), /over the limit of/);
  });

  it('refuses a truncated index, garbage and an empty file', () => {
    const bytes = encode(GOOD);
    assert.match(refusal(bytes.subarray(0, bytes.length - 5)), /not a well-formed SCIP protobuf/);
    assert.match(refusal(Uint8Array.from([0x12, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2])), /not a well-formed SCIP protobuf/);
    assert.match(refusal(Uint8Array.from([0x07, 1, 2, 3])), /not a well-formed SCIP protobuf/);
    assert.match(refusal(new Uint8Array()), /it is empty/);
  });

  it('refuses documents outside the repository, and duplicates', () => {
    for (const path of ['../etc/passwd', 'src/../../x.ts', '/etc/passwd', 'C:/x.ts', 'a\\..\\..\\b', '.']) {
      const bytes = encode({ documents: [{ relative_path: path }] });
      assert.match(refusal(bytes), /outside the repository|no usable relative_path/, path);
    }
    assert.match(refusal(encode({ documents: [{ relative_path: 'a.ts' }, { relative_path: './a.ts' }] })), /appears twice/);
    assert.match(refusal(encode({ documents: [{ relative_path: '' }] })), /no usable relative_path/);
  });

  it('refuses absurd counts and malformed ranges with a message that says which', () => {
    const many = { relative_path: 'a.ts', occurrences: Array.from({ length: 1_001 }, () => ({ range: [0, 0, 1], symbol: 's' })) };
    assert.match(refusal(encode({ documents: [many] })), /more than 1000 occurrences/);
    const docs = Array.from({ length: 3 }, (_, i) => ({ relative_path: `f${i}.ts` }));
    assert.match(refusal(encode({ documents: docs }), { ...LIMITS, maxDocuments: 2 }), /more than 2 documents/);
    for (const range of [
      [0, 1],
      [0, 5, 2],
      [3, 0, 2, 0],
      [0, 1, 2, 3, 4],
      [-1, 0, 1],
    ]) {
      assert.match(refusal(encode({ documents: [{ relative_path: 'a.ts', occurrences: [{ range, symbol: 's' }] }] })), /malformed range/);
    }
  });
});
