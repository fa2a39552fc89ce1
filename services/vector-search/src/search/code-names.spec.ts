import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { codeNames, rankDefinitions } from './code-names.js';

describe('the names of code a query spells as code', () => {
  it('takes qualified, backticked, snake_case and camelCase names, and the owner of a qualified one', () => {
    assert.deepEqual(codeNames('Add type annotation for `Request.hooks`'), { exact: ['Request.hooks', 'Request'], last: [] });
    assert.deepEqual(codeNames('Enhance `super_len` to count encoded bytes'), { exact: ['super_len'], last: ['super_len'] });
    assert.deepEqual(codeNames('fix onRequest hook order in ServeHTTP'), { exact: ['onRequest', 'ServeHTTP'], last: ['onRequest', 'ServeHTTP'] });
    assert.deepEqual(codeNames('`Context` should expose `Param`'), { exact: ['Context', 'Param'], last: ['Context', 'Param'] });
  });

  it('leaves prose alone: plain or capitalized words, versions, sentence dots', () => {
    assert.deepEqual(codeNames('Drop support for Python 3.9'), { exact: [], last: [] });
    assert.deepEqual(codeNames('Prevent Response self-reference in redirect history.'), { exact: [], last: [] });
    assert.deepEqual(codeNames('Bump version to 2.1.0'), { exact: [], last: [] });
    assert.deepEqual(codeNames('Update src/requests/models.py'), { exact: [], last: [] });
  });
});

describe('the definitions a query names, ranked', () => {
  const def = (path: string, symbol: string, ordinal = 0) => ({ path, symbol, ordinal });
  it('puts exact names first, rare names before common ones, and drops a name too many definitions carry (exact or not)', () => {
    const names = { exact: ['Request.hooks', 'Request', 'handle'], last: ['handle'] };
    const found = [
      def('a.py', 'Request'),
      ...['b', 'c', 'd', 'e', 'f', 'g'].map((p) => def(`${p}.py`, `${p.toUpperCase()}.handle`)),
      def('models.py', 'Request.hooks'),
      def('models.py', 'Request', 1),
      def('x.py', 'handle'),
    ];
    assert.deepEqual(
      rankDefinitions(found, names).map((h) => `${h.path}#${h.symbol}`),
      ['models.py#Request.hooks', 'a.py#Request', 'models.py#Request'],
    );
  });
});
