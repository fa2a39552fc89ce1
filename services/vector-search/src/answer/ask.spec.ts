import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HashingEmbedder } from '../embedding/hashing-embedder.js';
import { lexemes } from '../lexical/lexemes.js';
import { citeOnly, extractive } from './ask.service.js';

const evidences = [
  { n: 1, repo: 'shop', path: 'src/retry.ts', startLine: 4, endLine: 11, snippet: '\n/** Retries. */\nexport function retry() {}' },
  { n: 2, repo: 'shop', path: 'docs/guide.md', startLine: 1, endLine: 3, snippet: '## Retrying webhooks' },
];

describe('answers without a model, and the model checked', () => {
  it('builds an extractive answer from the evidence alone, citing each', () => {
    const answer = extractive('how are webhooks retried?', evidences);
    assert.match(answer, /^The code most relevant to "how are webhooks retried\?"/);
    assert.match(answer, /\n\[1\] shop:src\/retry\.ts:4-11: \/\*\* Retries\. \*\/\n\[2\] shop:docs\/guide\.md:1-3: ## Retrying webhooks$/);
  });

  it('drops citations of evidence the model was not given, and lists sources when none is left', () => {
    assert.equal(citeOnly('It retries [1][3], see [2].', evidences), 'It retries [1], see [2].');
    assert.equal(citeOnly('It retries [7].', evidences), 'It retries .\n\nSources: [1] src/retry.ts:4-11, [2] docs/guide.md:1-3');
  });
});

describe('the built-in embedder and lexemes', () => {
  it('gives unit vectors, the same for the same text, closer for a word in another form', async () => {
    const e = new HashingEmbedder(256);
    const [a, b, c, d] = await e.embed(['retryFailedWebhooks', 'retryFailedWebhooks', 'retrying webhook deliveries', 'invoice tax totals']);
    const dot = (x: Float32Array, y: Float32Array) => x.reduce((s, v, i) => s + v * y[i], 0);
    assert.ok(Math.abs(dot(a, a) - 1) < 1e-5);
    assert.deepEqual(Array.from(a), Array.from(b));
    assert.ok(dot(a, c) > dot(a, d) + 0.1, `${dot(a, c)} vs ${dot(a, d)}`);
  });

  it('weights the header (path words, symbol) A and the body D, with positions', () => {
    assert.equal(
      lexemes('src/retry.ts', 'Queue.retryAll', 'retry(a)'),
      "'src':1A 'retry':2A,6A,8D 'ts':3A 'queue':4A 'retryall':5A 'all':7A",
    );
  });
});
