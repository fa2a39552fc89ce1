import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CreateProject, SearchCode, UpdateProject } from './catalog.js';
import { safeParseInput } from './validation.js';

describe('input validation', () => {
  it('names every bad field, unknown ones included', () => {
    const result = safeParseInput(CreateProject.Request, { name: 'x'.repeat(10_000), repository_ids: [1], colour: 'red' });
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.error.code, 'invalid_input');
    assert.deepEqual(Object.keys(result.error.details?.fields as object).sort(), ['colour', 'name', 'repository_ids.0']);
    assert.match(result.error.message, /name: must be at most 100 characters/);
  });

  it('says "required" for a missing field', () => {
    const result = safeParseInput(CreateProject.Request, {});
    assert.equal(result.ok, false);
    if (!result.ok) assert.deepEqual(result.error.details, { fields: { name: 'required' } });
  });

  it('trims names and rejects control characters', () => {
    const ok = safeParseInput(CreateProject.Request, { name: '  Plateforme été 🚀  ' });
    assert.deepEqual(ok, { ok: true, value: { name: 'Plateforme été 🚀' } });
    const bad = safeParseInput(CreateProject.Request, { name: 'a\u0000b' });
    assert.equal(bad.ok, false);
  });

  it('rejects an update with nothing to change', () => {
    const result = safeParseInput(UpdateProject.Request, { project: 'p' });
    assert.equal(result.ok, false);
  });

  it('normalizes search_code aliases idempotently', () => {
    const first = safeParseInput(SearchCode.Request, { term: 'jwt', repository: 'o/r', limit: 3 });
    assert.deepEqual(first, { ok: true, value: { query: 'jwt', repo: 'o/r', topK: 3, mode: 'hybrid' } });
    if (!first.ok) return;
    assert.deepEqual(safeParseInput(SearchCode.Request, first.value), first);
  });

  it('lets scope win over the legacy repo', () => {
    const result = safeParseInput(SearchCode.Request, { query: 'q', scope: { type: 'repos', repos: ['a'] }, repo: 'b' });
    assert.ok(result.ok && result.value.repo === undefined && result.value.scope?.type === 'repos');
  });
});
