import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { invalidParams } from './request-params.js';

describe('invalidParams', () => {
  it('leaves methods it does not check to the SDK, __proto__, constructor and toString included', () => {
    for (const method of ['__proto__', 'constructor', 'toString', 'valueOf', 'no/such']) {
      assert.equal(invalidParams({ jsonrpc: '2.0', id: 1, method, params: {} }), undefined, method);
    }
  });

  it('names the bad params of a method it checks', () => {
    assert.match(
      invalidParams({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: [] } }) ?? '',
      /^Invalid params for tools\/call: params\.arguments: /,
    );
  });
});
