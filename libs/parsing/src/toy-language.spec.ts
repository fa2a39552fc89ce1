import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { extract } from './extract.js';
import { Grammars } from './grammars.js';
import { readLanguages } from './languages.js';
import { localDefinitionAt } from './locals.js';

/**
 * Adding a language is adding its folder (and its file extensions to `languageOf`'s table in @sextant/checkouts):
 * a toy language, one folder made here — a `language.json` reusing the installed Python grammar and a query of its
 * own — is read by the same loader as Sextant's languages, with no code edited.
 */
describe('a language added as a folder (a toy language)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sextant-toy-language-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'toy'));
  writeFileSync(
    join(dir, 'toy', 'language.json'),
    JSON.stringify({
      grammar: { package: 'tree-sitter-python', wasm: 'tree-sitter-python.wasm' },
      query: 'tags.scm',
      options: { moduleAlias: 'module' },
    }),
  );
  writeFileSync(
    join(dir, 'toy', 'tags.scm'),
    [
      '(function_definition name: (identifier) @name) @definition.function',
      '(class_definition name: (identifier) @name) @definition.class',
      '(call function: (identifier) @reference.call)',
      '(import_statement name: (dotted_name) @module) @import',
      '(function_definition) @local.scope',
      '(parameters (identifier) @local.definition)',
    ].join('\n'),
  );
  const source = [
    'import tools',
    '',
    'class Shop:',
    '    pass',
    '',
    'def total(price):',
    '    return price',
    '',
    'def main(price):',
    '    total(price)',
    '    Shop()',
    '',
  ].join('\n');

  it('extracts its symbols, imports and references by its own query', async () => {
    const languages = readLanguages(dir);
    assert.deepEqual([...languages.keys()], ['toy']);
    const grammar = await new Grammars(() => languages).get('toy');
    assert.ok(grammar && !('error' in grammar), JSON.stringify(grammar));
    const result = extract(grammar, source, 5_000);
    assert.deepEqual(
      result.symbols.map((s) => [s.name, s.kind, s.line, s.container]),
      [
        ['Shop', 'class', 3, null],
        ['total', 'function', 6, null],
        ['main', 'function', 9, null],
      ],
    );
    // `moduleAlias: module` from its language.json: `import tools` binds `tools`.
    assert.deepEqual(result.imports, [{ module: 'tools', line: 1, reexport: false, bindings: [{ name: '*', alias: 'tools' }] }]);
    // The calls bind to their definitions' names, inside `main` (symbol 2).
    assert.deepEqual(
      result.references.map((r) => [r.name, r.kind, r.line, r.enclosing]),
      [
        ['total', 'call', 10, 2],
        ['Shop', 'call', 11, 2],
      ],
    );
  });

  it("binds a parameter's uses to its declaration (its @local captures)", async () => {
    const grammar = await new Grammars(() => readLanguages(dir)).get('toy');
    assert.ok(grammar && !('error' in grammar));
    const local = localDefinitionAt(grammar, source, 10, undefined, 5_000, 'price', true);
    assert.deepEqual(local && { line: local.line, column: local.column, uses: local.uses }, {
      line: 9,
      column: 9,
      uses: [{ line: 10, column: 10, kind: 'read' }],
    });
  });
});
