import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closestNames, parseLsRemote } from './refs.js';

describe('refs', () => {
  it('parses ls-remote output into sorted branches and tags, without peeled tags', () => {
    const sha = 'a'.repeat(40);
    const output = [`${sha}\trefs/heads/main`, `${sha}\trefs/tags/v1`, `${sha}\trefs/tags/v1^{}`, `${sha}\trefs/heads/dev`, ''].join('\n');
    assert.deepEqual(parseLsRemote(output), { branches: ['dev', 'main'], tags: ['v1'] });
  });

  it('suggests the closest names, related ones first, and nothing far away', () => {
    const names = ['main', 'master', 'feature/login', 'release-1.2', 'develop'];
    assert.deepEqual(closestNames('mian', names), ['main']);
    assert.deepEqual(closestNames('mast', names), ['master', 'main'], 'the name that contains it first');
    assert.deepEqual(closestNames('login', names), ['feature/login']);
    assert.deepEqual(closestNames('Develop', names), ['develop']);
    assert.deepEqual(closestNames('zzzzzzzz', names), []);
  });
});
