import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { byArity, mergedFirst, takesArguments } from './definitions.js';
import type { SymbolRow } from '../index/symbol.store.js';

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

describe('mergedFirst (declaration merging)', () => {
  const row = (ordinal: number, line: number, kind: string, parent = -1, path = 'a.ts'): SymbolRow => ({
    repositoryId: 'r',
    path,
    ordinal,
    name: 'ZodNaN',
    kind,
    line,
    endLine: line,
    container: null,
    signature: null,
    parent,
    language: 'typescript',
    column: 0,
    defaultExport: false,
  });
  const iface = row(0, 10, 'interface');
  const value = row(1, 13, 'constant');
  const elsewhere = row(0, 3, 'interface', -1, 'b.ts');
  const nested = row(2, 20, 'type', 1);

  it("lists a top-level definition's partners of the other space in its file first, in source order", () => {
    const lines = (rows: SymbolRow[]) => rows.map((r) => `${r.path}:${r.line}`);
    assert.deepEqual(lines(mergedFirst([value, elsewhere], [iface, value, elsewhere, nested])), ['a.ts:10', 'a.ts:13', 'b.ts:3']);
    assert.deepEqual(lines(mergedFirst([iface], [iface, value])), ['a.ts:10', 'a.ts:13']);
  });

  it('leaves alone a nested definition, one without partners, and partners of the same space', () => {
    const lines = (rows: SymbolRow[]) => rows.map((r) => `${r.path}:${r.line}`);
    assert.deepEqual(lines(mergedFirst([nested], [iface, value, nested])), ['a.ts:20']);
    assert.deepEqual(lines(mergedFirst([value], [value, elsewhere])), ['a.ts:13']);
    assert.deepEqual(lines(mergedFirst([value], [value, row(3, 30, 'function')])), ['a.ts:13']);
  });
});

describe('byArity (overloads by the number of arguments)', () => {
  const row = (line: number, signature: string | null): SymbolRow => ({
    repositoryId: 'r',
    path: 'a.ts',
    ordinal: line,
    name: 'run',
    kind: 'method',
    line,
    endLine: line,
    container: 'A',
    signature,
    parent: 0,
    language: 'typescript',
    column: 0,
    defaultExport: false,
  });

  it('moves the signatures that cannot take the call last, and leaves one that says nothing where it was', () => {
    const lines = (rows: SymbolRow[]) => rows.map((r) => r.line);
    const none = row(1, 'run(): void');
    const one = row(2, 'run(a: number): void');
    const property = row(3, 'run: Runner');
    assert.deepEqual(lines(byArity([none, one], 1)), [2, 1]);
    assert.deepEqual(lines(byArity([none, one], 0)), [1, 2]);
    // A property of a function type (its declaration, listed first) is not passed over for a literal's method.
    assert.deepEqual(lines(byArity([property, row(4, 'run(...args)')], 1)), [3, 4]);
  });
});
