import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { messages, percentOf, phaseAt, stageRange } from './progress.js';

describe('job progress as a client sees it (seed 003)', () => {
  it('gives a lone stage Parsing then Indexing (10–95 %), and several stages Parsing first, then Indexing in turn', () => {
    const lone = stageRange(0, 1);
    assert.deepEqual([lone.from, lone.to], [10, 95]);
    assert.deepEqual(
      [phaseAt(lone, 10), phaseAt(lone, 69), phaseAt(lone, 70), phaseAt(lone, 95)],
      ['parsing', 'parsing', 'indexing', 'indexing'],
    );
    const [first, second, third] = [0, 1, 2].map((i) => stageRange(i, 3));
    assert.deepEqual(
      [first, second, third].map((r) => [r!.name, r!.from, r!.to]),
      [
        ['parsing', 10, 70],
        ['indexing', 70, 82],
        ['indexing', 82, 95],
      ],
    );
    assert.equal(phaseAt(first!, 69), 'parsing');
  });

  it('keeps every percentage inside its stage', () => {
    assert.deepEqual(
      [percentOf('discovery', 0), percentOf('discovery', 2), percentOf('finalizing', 0), percentOf('finalizing', 1)],
      [0, 10, 95, 99],
    );
  });

  it("writes the seed's message patterns exactly", () => {
    assert.equal(messages.discovery(1200), 'Scanning files: 1200 discovered');
    assert.equal(messages.parsing(1247, 3891), 'Parsing files: 1247/3891 (32%)');
    assert.equal(messages.parsing(0, 0), 'Parsing files: 0/0 (100%)');
    assert.equal(messages.indexing(10, 20, 345), 'Indexing: 10/20 files, 345 symbols');
    assert.equal(messages.finalizing(), 'Finalizing index...');
    assert.equal(messages.completed(3, 12, 1.234), 'Indexed 3 files, 12 symbols in 1.2s');
  });
});
