import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pathTokens, stem, tokenize } from './tokenizer.js';

describe('code-aware tokenizer', () => {
  it('keeps identifiers whole and splits them into their words, any case style', () => {
    assert.deepEqual(tokenize('parseHTTPResponse2'), ['parsehttpresponse2', 'parse', 'http', 'response', '2']);
    assert.deepEqual(tokenize('retry_failed_webhooks'), ['retry_failed_webhooks', 'retry', 'fail', 'webhook']);
    assert.deepEqual(tokenize('XMLHttpRequest'), ['xmlhttprequest', 'xml', 'http', 'request']);
  });

  it('stems plurals and verb forms, and drops stop words of questions', () => {
    assert.deepEqual(tokenize('Where do we retry failed webhooks?'), ['retry', 'fail', 'webhook']);
    assert.deepEqual(['retries', 'handlers', 'classes', 'status', 'parsing', 'called', 'is'].map(stem), [
      'retry',
      'handler',
      'class',
      'status',
      'pars',
      'call',
      'is',
    ]);
  });

  it('reads paths and non-Latin text', () => {
    assert.deepEqual(pathTokens('src/http/retryPolicy.ts'), ['src', 'http', 'retrypolicy', 'retry', 'policy', 'ts']);
    assert.deepEqual(tokenize('поиск 検索 données'), ['поиск', '検索', 'donnée']);
  });
});
