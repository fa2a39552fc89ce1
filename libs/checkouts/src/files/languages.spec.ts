import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { languageOf } from './languages.js';

describe('languageOf', () => {
  it('knows files by extension and by name', () => {
    assert.deepEqual(['src/a.ts', 'b.PY', 'deploy/Dockerfile', 'Makefile', 'README'].map(languageOf), [
      'typescript',
      'python',
      'dockerfile',
      'make',
      null,
    ]);
  });

  it('takes no inherited property of an object for a language: constructor, __proto__, toString are file names', () => {
    for (const path of ['constructor', '__proto__', 'toString', 'src/a.constructor', 'b.__proto__', 'c.toString', 'd.hasOwnProperty']) {
      assert.equal(languageOf(path), null, path);
    }
  });
});
