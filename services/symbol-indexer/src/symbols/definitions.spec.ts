import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { takesArguments } from './definitions.js';

describe('takesArguments (overloads by the number of arguments)', () => {
  it('counts required, optional, defaulted and rest parameters, and no `this`', () => {
    const sig = 'pipe<A, B>(op1: OperatorFunction<T, A>, op2?: (x: A) => B, mode = "x"): Observable<B>';
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((n) => takesArguments(sig, n)),
      [false, true, true, true, false],
    );
    assert.deepEqual(
      [0, 1, 5].map((n) => takesArguments('combineLatest<T>(this: Ctx, first: T, ...rest: T[]): R', n)),
      [false, true, true],
    );
    assert.equal(takesArguments('pipe(): Observable<T>', 0), true);
    assert.equal(takesArguments('pipe(): Observable<T>', 1), false);
    assert.equal(takesArguments('onEvent(cb: (e: Event) => void)', 1), true);
    assert.equal(takesArguments('onEvent(cb: (e: Event) => void)', 0), false);
  });

  it('says nothing of a signature cut short or without parameters', () => {
    assert.equal(takesArguments('compile<T = unknown>(schema: Schema, _meta?: boolean, options: { a: st…', 1), undefined);
    assert.equal(takesArguments('readonly kind = "for"', 0), undefined);
  });
});
