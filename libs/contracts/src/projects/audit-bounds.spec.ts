import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUDIT_LIMITS, boundAuditRecord, boundText, type AuditRecordFields } from './audit-bounds.js';
import { AuditRecord } from './record-audit.js';

const bytes = (value: unknown) => Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value));

const record = (fields: Partial<AuditRecordFields> = {}): AuditRecordFields => ({
  at: '2026-11-27T10:00:00.000Z',
  principal: 'key:ci',
  principal_id: 'k1',
  tool: 'get_file_outline',
  scope: { path: 'a.ts' },
  repositories: [],
  code: 'ok',
  duration_ms: 1.25,
  trace_id: null,
  request_id: 'r1',
  query: null,
  ...fields,
});

describe('boundText: a recorded string without controls, within its cap', () => {
  it('writes NUL, other controls and lone surrogates as visible escapes, and keeps the rest as it was', () => {
    assert.equal(boundText('a\u0000b', 256), 'a\\u0000b');
    assert.equal(boundText('x\n\r\t\u001b[31m\u007f\u0085y', 256), 'x\\u000a\\u000d\\u0009\\u001b[31m\\u007f\\u0085y');
    assert.equal(boundText('\ud800 and \udfff', 256), '\\ud800 and \\udfff');
    assert.equal(boundText('snow ☃, emoji 😀, é', 256), 'snow ☃, emoji 😀, é');
    assert.equal(boundText('src/a.ts', 256), 'src/a.ts');
  });

  it('cuts at the cap in UTF-8 bytes, at a whole character, and says how many bytes it left out', () => {
    const cut = boundText('é'.repeat(1_000_000), 256);
    assert.ok(bytes(cut) <= 256, `${bytes(cut)} bytes`);
    const [, kept, left] = /^((?:é)+)…\[truncated (\d+) bytes\]$/.exec(cut) ?? [];
    assert.ok(kept, cut);
    assert.equal(bytes(kept) + Number(left), 2_000_000);
    // Escapes count as what they are written as; the bytes left out are the original's.
    const controls = boundText('\u0000'.repeat(1_000), 100);
    assert.ok(bytes(controls) <= 100);
    const n = (controls.match(/\\u0000/g) ?? []).length;
    assert.match(controls, new RegExp(`…\\[truncated ${1_000 - n} bytes\\]$`));
  });
});

describe('boundAuditRecord: every field bounded and clean, the record within its bytes and the contract', () => {
  it('keeps a normal record as it was', () => {
    const normal = record({ scope: { scope: { type: 'project', project: 'web' }, repo: 'shop' }, repositories: ['shop'], query: 'q' });
    assert.deepEqual(boundAuditRecord(normal), normal);
  });

  it('cleans a NUL in a scope path, the query and a repository', () => {
    const bounded = boundAuditRecord(record({ scope: { path: 'a\u0000b' }, repositories: ['r\u0000'], query: 'q\u0000' }));
    assert.deepEqual([bounded.scope, bounded.repositories, bounded.query], [{ path: 'a\\u0000b' }, ['r\\u0000'], 'q\\u0000']);
    // As JSON: the visible escape (`\\u0000`), never a NUL (`\u0000`), which Postgres refuses.
    assert.doesNotMatch(JSON.stringify(bounded), /(^|[^\\])\\u0000/);
  });

  it('cuts a 1 MB and a 100 MB field, and bounds objects and arrays of the scope in depth and size', () => {
    const mb = 'x'.repeat(1024 * 1024);
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let i = 0; i < 10_000; i++) at = at.next = {} as Record<string, unknown>;
    const bounded = boundAuditRecord(
      record({
        at: mb,
        principal: mb,
        principal_id: mb,
        tool: mb,
        code: mb,
        trace_id: mb,
        request_id: mb,
        query: 'q'.repeat(100 * 1024 * 1024),
        repositories: Array.from({ length: 10_000 }, () => mb),
        scope: {
          repo: mb,
          repos: Array.from({ length: 1_000_000 }, (_, i) => `repo-${i}`),
          scope: deep,
          workspace: { [mb]: mb },
          path: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i])),
          project: mb,
          repository: mb,
          file_path: mb,
          more: 'a ninth key',
        },
      }),
    );
    assert.ok(bytes(bounded) <= AUDIT_LIMITS.recordBytes, `${bytes(bounded)} bytes`);
    for (const field of ['at', 'principal', 'principal_id', 'tool', 'code', 'trace_id', 'request_id'] as const) {
      assert.ok(bytes(bounded[field]) <= AUDIT_LIMITS.fieldBytes, field);
      assert.match(bounded[field]!, /…\[truncated \d+ bytes\]$/);
    }
    assert.ok(bytes(bounded.query) <= AUDIT_LIMITS.queryBytes);
    const kept = bounded.query!.slice(0, bounded.query!.indexOf('…'));
    assert.equal(bounded.query!.slice(kept.length), `…[truncated ${100 * 1024 * 1024 - kept.length} bytes]`);
    assert.equal(bounded.repositories.length, AUDIT_LIMITS.repositories);
    assert.equal(Object.keys(bounded.scope).length, AUDIT_LIMITS.scopeKeys + 1);
    for (const value of Object.values(bounded.scope))
      assert.ok(bytes(value) <= AUDIT_LIMITS.scopeValueBytes + 2, JSON.stringify(value).slice(0, 80));
    // An array: its first items, and how many more there were.
    const repos = bounded.scope.repos as string[];
    assert.deepEqual(repos.slice(0, 2), ['repo-0', 'repo-1']);
    assert.equal(repos.at(-1), `…[${1_000_000 - (repos.length - 1)} more items]`);
    // Deeper than four levels: named, not copied.
    assert.equal(JSON.stringify(bounded.scope.scope), '{"next":{"next":{"next":{"next":"…[object nested deeper]"}}}}');
    const path = bounded.scope.path as Record<string, unknown>;
    assert.equal(path.k0, 0);
    assert.equal(path['…'], `${10_000 - (Object.keys(path).length - 1)} more keys`);
    // An object whose JSON is past the cap: that JSON, cut, as a string.
    assert.match(bounded.scope.workspace as string, /^\{"x{20}.*…\[truncated \d+ bytes\]$/);
    assert.ok(AuditRecord.safeParse(bounded).success, JSON.stringify(AuditRecord.safeParse(bounded).error?.issues));
  });

  it('stays within its bytes when every character needs a JSON escape', () => {
    const quotes = '"'.repeat(1024 * 1024);
    const bounded = boundAuditRecord(
      record({
        at: quotes,
        principal: quotes,
        principal_id: quotes,
        tool: quotes,
        code: quotes,
        trace_id: quotes,
        request_id: quotes,
        query: quotes,
        repositories: Array.from({ length: 100 }, () => quotes),
        scope: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`${i}`.padEnd(100, '"'), { a: quotes, b: [quotes] }])),
      }),
    );
    assert.ok(bytes(bounded) <= AUDIT_LIMITS.recordBytes, `${bytes(bounded)} bytes`);
    assert.ok(AuditRecord.safeParse(bounded).success);
  });
});
