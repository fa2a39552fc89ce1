import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extract } from './extract.js';
import { Grammars } from './grammars.js';

describe('supertypes where a language puts them outside the type (Rust)', () => {
  it('records what a trait requires, and the traits an impl block says a type of the file implements', async () => {
    const grammar = await new Grammars().get('rust');
    assert.ok(grammar && !('error' in grammar));
    const source = [
      'pub trait Priced: Named + std::fmt::Debug { fn price(&self) -> u32; }',
      'pub struct Cart { total: u32 }',
      'pub enum Coin { Penny }',
      'impl Priced for Cart { fn price(&self) -> u32 { self.total } }',
      'impl std::fmt::Display for Coin { }',
      'impl Cart { fn new() -> Cart { Cart { total: 0 } } }',
      'impl Unknown for Elsewhere { }',
    ].join('\n');
    const { symbols } = extract(grammar, source, 2_000);
    const of = (name: string) => symbols.find((s) => s.name === name && s.parent === -1)!;
    assert.deepEqual(of('Priced').supertypes, ['Named', 'Debug']);
    assert.deepEqual(of('Cart').implements, ['Priced']);
    assert.deepEqual(of('Coin').implements, ['Display']);
    assert.equal(of('Cart').supertypes, undefined);
  });
});
