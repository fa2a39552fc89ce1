import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditDetails } from './audit-trail.js';

describe('auditDetails: what a call contributes to its audit record', () => {
  it('takes the repositories an answer covers from its freshness', () => {
    const details = auditDetails(
      { query: 'q', scope: { type: 'project', project: 'web' } },
      { freshness: [{ repo: 'a' }, { repo: 'b' }, { repo: 'a' }] },
      true,
    );
    assert.deepEqual(details, { scope: { scope: { type: 'project', project: 'web' } }, repositories: ['a', 'b'], query: 'q' });
  });

  it('takes the one repository a git tool named when its answer has no freshness, and none when the call failed', () => {
    assert.deepEqual(auditDetails({ repo: 'web-dir', path: 'a.ts' }, { content: '' }, true).repositories, ['web-dir']);
    assert.deepEqual(auditDetails({ workspace: '/srv/w', pattern: 'x' }, { matches: [] }, true).repositories, ['/srv/w']);
    assert.deepEqual(auditDetails({ repository: 'github:o/r', pattern: 'x' }, undefined, true).repositories, []);
  });

  it('keeps the query out for a caller who opted out', () => {
    assert.equal(auditDetails({ pattern: 'secret' }, { matches: [] }, false).query, null);
  });
});
