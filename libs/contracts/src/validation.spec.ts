import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CreateProject, GrepRepository, ListProjects, OpenFile, SearchCode, UpdateProject } from './catalog.js';
import { z } from 'zod';
import { projectRole } from './access.js';
import { safeParseInput, unacceptableText } from './validation.js';

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
    // The aliases are the tool's (the vocabulary, defineTool): its input, not the bare Request, takes them.
    const first = safeParseInput(SearchCode.tool.input, { term: 'jwt', repository: 'o/r', limit: 3 });
    assert.deepEqual(first, { ok: true, value: { query: 'jwt', repo: 'o/r', topK: 3, mode: 'hybrid' } });
    if (!first.ok) return;
    assert.deepEqual(safeParseInput(SearchCode.tool.input, first.value), first);
  });

  it('lets scope win over the legacy repo', () => {
    const result = safeParseInput(SearchCode.Request, { query: 'q', scope: { type: 'repos', repos: ['a'] }, repo: 'b' });
    assert.ok(result.ok && result.value.repo === undefined && result.value.scope?.type === 'repos');
  });

  it('refuses NUL and lone surrogates in every string, naming the field', () => {
    const cases: Array<[import('zod').ZodType, Record<string, unknown>, string]> = [
      [GrepRepository.Request, { repository: 'github:o/r', pattern: 'a\u0000b' }, 'pattern'],
      [CreateProject.Request, { name: 'p', description: 'a\u0000b' }, 'description'],
      [UpdateProject.Request, { project: 'p', description: 'x\ud800y' }, 'description'],
      [CreateProject.Request, { name: 'p', repository_ids: ['ok', 'bad\udc00'] }, 'repository_ids.1'],
    ];
    for (const [schema, input, field] of cases) {
      const result = safeParseInput(schema, input);
      assert.equal(result.ok, false, field);
      if (result.ok) continue;
      assert.equal(result.error.code, 'invalid_input');
      assert.ok((result.error.details?.fields as Record<string, string>)[field], `${field}: ${result.error.message}`);
    }
    // A well-formed pair is fine.
    assert.equal(safeParseInput(CreateProject.Request, { name: 'p', description: 'emoji 😀' }).ok, true);
  });

  it('reports the documented bounds of a number before the integer check', () => {
    const huge = safeParseInput(ListProjects.Request, { limit: 1e308 });
    assert.equal(huge.ok, false);
    if (!huge.ok) assert.deepEqual(huge.error.details, { fields: { limit: 'must be at most 500' } });
    const line = safeParseInput(OpenFile.Request, { repo: 'r', path: 'p', startLine: 1e300 });
    assert.ok(!line.ok && /must be at most 1000000000/.test(line.error.message));
    const fraction = safeParseInput(ListProjects.Request, { limit: 2.5 });
    assert.ok(!fraction.ok && /must be an integer/.test(fraction.error.message));
  });

  it('accepts only an absolute, normalized workspace path', () => {
    for (const workspace of ['relative/dir', '/srv/../etc', '/srv/./x', '']) {
      assert.equal(safeParseInput(GrepRepository.Request, { repository: 'github:o/r', pattern: 'x', workspace }).ok, false, workspace);
    }
    assert.equal(safeParseInput(GrepRepository.Request, { repository: 'github:o/r', pattern: 'x', workspace: '/srv/ws' }).ok, true);
  });
  it('gives no role in a project called constructor, __proto__ or toString', () => {
    const principal = { kind: 'key', id: 'k', name: 'k', admin: false, projects: { p1: 'reader' }, groups: [] } as const;
    for (const id of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) assert.equal(projectRole(principal, id), undefined, id);
    assert.equal(projectRole(principal, 'p1'), 'reader');
  });

  it('names fields called __proto__, constructor or toString like any other', () => {
    const strict = safeParseInput(CreateProject.Request, JSON.parse('{"name": "x", "__proto__": "y", "constructor": "z"}'));
    assert.equal(strict.ok, false);
    if (!strict.ok) assert.deepEqual(Object.keys(strict.error.details?.fields as object).sort(), ['__proto__', 'constructor']);
    const missing = safeParseInput(z.object({ toString: z.string(), constructor: z.int() }), {});
    assert.equal(missing.ok, false);
    if (!missing.ok) assert.deepEqual(missing.error.details, { fields: { toString: 'required', constructor: 'required' } });
    // NUL under a key __proto__ is found too (a plain object swallowed the finding).
    assert.deepEqual(Object.keys(unacceptableText(JSON.parse('{"__proto__": "a\\u0000b"}'))), ['__proto__']);
  });
});
