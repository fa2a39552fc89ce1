import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { messages, percentOf, stagesPercent } from './progress.js';

describe('job progress as a client sees it (ADR 0016)', () => {
  it('gives the indexing stages 10–95 % as one count of batches, so the percentage never goes back from one stage to the next', () => {
    assert.deepEqual([stagesPercent(0, 1, 0, 4), stagesPercent(0, 1, 2, 4), stagesPercent(0, 1, 4, 4)], [10, 52, 95]);
    // Two stages of 3 batches each: 6 batches in all.
    const two = [0, 1].flatMap((stage) => [0, 1, 2, 3].map((done) => stagesPercent(stage, 2, done, 3)));
    assert.deepEqual(two, [10, 24, 38, 52, 52, 66, 80, 95]);
    for (let i = 1; i < two.length; i++) assert.ok(two[i] >= two[i - 1], `${two[i]} after ${two[i - 1]}`);
    // A stage with nothing to do is done.
    assert.equal(stagesPercent(0, 2, 0, 0), 52);
  });

  it('keeps every percentage inside its part of the job', () => {
    assert.deepEqual(
      [percentOf('discovery', 0), percentOf('discovery', 2), percentOf('finalizing', 0), percentOf('finalizing', 1)],
      [0, 10, 95, 99],
    );
  });

  it('names the stage in its message and counts only what that stage counted', () => {
    assert.equal(messages.stage('symbols', 120, 539, { symbols_extracted: 345, files_parsed: 120 }), 'symbols: 120/539 files, 345 symbols');
    assert.equal(messages.stage('vectors', 0, 539), 'vectors: 0/539 files');
    assert.equal(messages.stage('vectors', 200, 539, { chunks_indexed: 812 }), 'vectors: 200/539 files, 812 chunks');
  });

  it("writes the seed's other message patterns exactly", () => {
    assert.equal(messages.discovery(1200), 'Scanning files: 1200 discovered');
    assert.equal(messages.finalizing(), 'Finalizing index...');
    assert.equal(messages.completed(3, 12, 1.234), 'Indexed 3 files, 12 symbols in 1.2s');
  });
});
