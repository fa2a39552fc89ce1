/**
 * SCIP uploads (issue 36 item 2, ADR 0056) end to end, in the one-process mode with authentication on (API keys in
 * a real Postgres, real git): a Go repository indexed by the search tier; an index encoded here with the field
 * numbers of the vendored scip.proto is sent with `sextant scip upload` as a CI job would, and find_references then
 * answers from it, labelled precise, for the commit the repository is indexed at. Every hostile upload — an unknown
 * commit, a caller that may not maintain the repository, a declared 1 GB, a body over the cap, truncated or not
 * protobuf, a path outside the repository, more occurrences than allowed — is refused in the catalog's error shape
 * and changes no answer. An index of 150,000 occurrences crosses the bus in parts; so does one over real NATS, with
 * the services as separate processes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { BareRepository, callTool, httpClient, queryOnce, repoPath } from '@sextant/testing';
import { AUDIENCE, authenticatedSextant, runKeys, type Authenticated } from './auth-fixture.js';
import { distributedStack, type Stack } from './stack.js';

// --- a SCIP index, encoded by hand (scip.proto: Index.metadata 1, documents 2; Metadata.tool_info 2; ToolInfo.name 1,
// version 2; Document.relative_path 1, occurrences 2, symbols 3, language 4; Occurrence.range 1 (packed), symbol 2,
// symbol_roles 3; SymbolInformation.symbol 1, kind 5).

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}
const field = (number: number, body: Buffer): Buffer =>
  Buffer.concat([Buffer.from([...varint((number << 3) | 2), ...varint(body.length)]), body]);
const text = (number: number, value: string) => field(number, Buffer.from(value, 'utf8'));
const int = (number: number, value: number) => Buffer.from([...varint(number << 3), ...varint(value)]);

interface Occurrence {
  range: number[];
  symbol: string;
  roles?: number;
}
interface Document {
  path: string;
  occurrences: Occurrence[];
}

function encodeIndex(documents: Document[]): Buffer {
  const metadata = field(1, field(2, Buffer.concat([text(1, 'scip-go'), text(2, '0.1.22')])));
  const encoded = documents.map((d) => {
    const occurrences = d.occurrences.map((o) =>
      field(2, Buffer.concat([field(1, Buffer.from(o.range.flatMap(varint))), text(2, o.symbol), int(3, o.roles ?? 0)])),
    );
    const symbols = [...new Set(d.occurrences.filter((o) => o.roles === 1).map((o) => o.symbol))].map((s) =>
      field(3, Buffer.concat([text(1, s), int(5, 17)])),
    );
    return field(2, Buffer.concat([text(1, d.path), text(4, 'go'), ...occurrences, ...symbols]));
  });
  return Buffer.concat([metadata, ...encoded]);
}

const ADD = 'scip-go gomod example.com/shop v1 `example.com/shop`/Add().';
const FILES = {
  'go.mod': 'module example.com/shop\n\ngo 1.22\n',
  'add.go': 'package shop\n\nfunc Add(n int) int { return n }\n',
  'use.go': 'package shop\n\nfunc Use() int { return Add(1) + Add(2) }\n',
};
const ADD_DEFINITION: Document = { path: 'add.go', occurrences: [{ range: [2, 5, 8], symbol: ADD, roles: 1 }] };
/** What scip-go writes for the two files: Add's definition and its two calls. */
const GOOD = [
  ADD_DEFINITION,
  {
    path: 'use.go',
    occurrences: [
      { range: [2, 24, 27], symbol: ADD },
      { range: [2, 33, 36], symbol: ADD },
    ],
  },
];
/** Another index, with one call only: were any of it stored, the references would change. */
const OTHER = [ADD_DEFINITION, { path: 'use.go', occurrences: [{ range: [2, 24, 27], symbol: ADD }] }];

const MAX_BYTES = 16 * 1024 * 1024;
const MAX_OCCURRENCES = 200_000;

interface Answer {
  status: number;
  body: { error?: string; message?: string; details?: Record<string, unknown>; documents?: number; occurrences?: number };
}

interface PostOptions {
  key?: string;
  commit?: string;
  repository?: string;
  declared?: number;
  chunked?: boolean;
}

/** `POST /scip` as a client sends it; `body` undefined: headers only (a declared length the body never reaches). */
function postScip(base: string, body: Buffer | undefined, options: PostOptions & { repository: string; commit: string }): Promise<Answer> {
  const url = new URL('/scip', base);
  url.searchParams.set('repository', options.repository);
  url.searchParams.set('commit', options.commit);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/octet-stream' };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    if (!options.chunked) headers['content-length'] = String(options.declared ?? body?.length ?? 0);
    const req = request(url, { method: 'POST', headers });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    // A refusal may close the connection while the body is still being sent: the answer counts, not the write.
    req.on('error', (error) => setTimeout(() => reject(error), 1_000));
    if (body === undefined) req.flushHeaders();
    else if (options.chunked) {
      for (let at = 0; at < body.length; at += 64 * 1024) req.write(body.subarray(at, at + 64 * 1024));
      req.end();
    } else req.end(body);
  });
}

/** An index of `count` occurrences besides GOOD's, in a third document: several bus messages' worth. */
function largeIndex(count: number): Buffer {
  const many = Array.from({ length: count }, (_, i) => ({
    range: [i, 0, 5],
    symbol: `scip-go gomod example.com/shop v1 \`example.com/shop\`/Gen${i % 1000}().`,
  }));
  return encodeIndex([...GOOD, { path: 'gen.go', occurrences: many }]);
}

describe('SCIP uploads (POST /scip, sextant scip upload)', () => {
  let fixture: Authenticated;
  let base: string;
  let work: string;
  let admin: Client;
  const keys: Record<string, string> = {};
  let remote: BareRepository;
  let repository: string;
  let commit: string;

  const key = (...args: string[]) => {
    const run = runKeys(fixture.database.url, 'create', ...args);
    assert.equal(run.status, 0, run.stderr);
    return run.stdout.trim();
  };

  const post = (body: Buffer | undefined, options: PostOptions = {}) =>
    postScip(base, body, { repository, commit, key: keys.maintainer, ...options });

  async function references(): Promise<string[]> {
    const found = await callTool<{ references: Array<{ path: string; line: number; column: number; precision?: string }> }>(
      admin,
      'find_references',
      { repo: repository, path: 'add.go', line: 3, column: 5 },
    );
    assert.equal(found.isError, false, JSON.stringify(found.body));
    return found.body.references.map((r) => `${r.path}:${r.line}:${r.column}:${r.precision ?? 'search'}`);
  }

  function cli(file: string, ...args: string[]) {
    return spawnSync(process.execPath, [repoPath('apps/sextant/dist/scip/main.js'), 'upload', ...args, file], {
      env: { PATH: process.env.PATH, SEXTANT_URL: base, SEXTANT_API_KEY: keys.maintainer },
      encoding: 'utf8',
    });
  }

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'sextant-scip-upload-'));
    fixture = await authenticatedSextant({
      GIT_ALLOW_FILE_URLS: 'true',
      SYMBOLS_PRECISE_MAX_INDEX_BYTES: String(MAX_BYTES),
      SYMBOLS_PRECISE_MAX_OCCURRENCES: String(MAX_OCCURRENCES),
      // A user who reads web's repositories and maintains api, which does not hold the repository.
      SEXTANT_AUTH_GROUP_ROLES: 'mixed=web:reader,mixed=api:maintainer',
    });
    base = new URL('/', fixture.sextant.url).toString();
    keys.admin = key('--name', 'admin', '--admin');
    admin = await httpClient(fixture.sextant.url, { bearer: keys.admin });
    for (const name of ['web', 'api']) assert.equal((await callTool(admin, 'create_project', { name })).isError, false);
    keys.maintainer = key('--name', 'ci', '--projects', 'web', '--role', 'maintainer');
    keys.reader = key('--name', 'reader', '--projects', 'web', '--role', 'reader');
    keys.other = key('--name', 'api-ci', '--projects', 'api', '--role', 'maintainer');
    keys.mixed = await fixture.idp.token('mixed-user', AUDIENCE, { claims: { groups: ['mixed'] } });

    remote = new BareRepository(work, 'shop');
    remote.commit('main', FILES);
    const done = await admin.callTool({ name: 'index_repository', arguments: { repository: remote.fileUrl } }, undefined, {
      onprogress: () => undefined,
      timeout: 120_000,
    });
    assert.equal((done.structuredContent as { status: string }).status, 'completed', JSON.stringify(done.structuredContent));
    assert.equal((await callTool(admin, 'add_repository_to_project', { project: 'web', repository_id: remote.fileUrl })).isError, false);
    const listed = await callTool<{ repositories: Array<{ name: string; indexed_commit: string }> }>(admin, 'list_repositories', {});
    ({ name: repository, indexed_commit: commit } = listed.body.repositories[0]!);
    // What a caller may read is kept 5 s by each service (ADR 0031): the keys' callers read it before the repository joined.
    await new Promise((resolve) => setTimeout(resolve, 5_100));
  });
  after(async () => {
    remote?.dispose();
    await admin?.close();
    await fixture?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  /** Every hostile upload, each with the code and HTTP status it must answer; none may change an answer. */
  async function hostileUploads(): Promise<void> {
    const other = encodeIndex(OTHER);
    const expect = async (what: string, answer: Promise<Answer>, code: string, status: number, words: RegExp) => {
      const { status: got, body } = await answer;
      assert.equal(body.error, code, `${what}: ${JSON.stringify(body)}`);
      assert.equal(got, status, `${what}: ${JSON.stringify(body)}`);
      assert.match(body.message ?? '', words, what);
      assert.doesNotMatch(body.message ?? '', /\n\s+at /, `${what}: no stack trace`);
    };
    // Authentication answers as it does on /mcp (a JSON-RPC error and a WWW-Authenticate challenge).
    assert.equal((await post(other, { key: '' })).status, 401, 'an unauthenticated upload is refused');
    await expect('a reader', post(other, { key: keys.reader }), 'forbidden', 403, /maintainer/);
    await expect('a maintainer of another project', post(other, { key: keys.other }), 'not_found', 404, /No registered repository/);
    await expect('a reader of it who maintains another project', post(other, { key: keys.mixed }), 'forbidden', 403, /needs a maintainer/);
    await expect('an unknown commit', post(other, { commit: 'f'.repeat(40) }), 'not_found', 404, /is indexed at/);
    await expect('not a commit id', post(other, { commit: 'main' }), 'invalid_input', 400, /commit/);
    await expect('an unregistered repository', post(other, { repository: 'nowhere' }), 'not_found', 404, /nowhere/);
    await expect('1 GB declared', post(undefined, { declared: 1024 ** 3 }), 'invalid_input', 400, /over the limit/);
    await expect('over the cap, undeclared', post(Buffer.alloc(MAX_BYTES + 1), { chunked: true }), 'invalid_input', 413, /over the limit/);
    await expect('truncated', post(other.subarray(0, other.length - 5)), 'invalid_input', 400, /not a well-formed SCIP protobuf/);
    await expect('not protobuf', post(Buffer.from('{"documents": []}\n'.repeat(100))), 'invalid_input', 400, /not a well-formed|refused/);
    await expect('empty', post(Buffer.alloc(0)), 'invalid_input', 400, /empty/);
    const outside = (path: string) => encodeIndex([...OTHER, { path, occurrences: [{ range: [0, 0, 1], symbol: ADD }] }]);
    await expect('a path leaving the repository', post(outside('../outside.go')), 'invalid_input', 400, /outside the repository/);
    await expect('an absolute path', post(outside('/etc/passwd')), 'invalid_input', 400, /outside the repository/);
    await expect('a path leaving it in the middle', post(outside('src/../../x.go')), 'invalid_input', 400, /outside the repository/);
    // A client that goes away after a few parts crossed: nothing stored (the answers are checked after), no crash.
    await new Promise<void>((resolve) => {
      const url = new URL('/scip', base);
      url.searchParams.set('repository', repository);
      url.searchParams.set('commit', commit);
      const big = largeIndex(40_000);
      const headers = { authorization: `Bearer ${keys.maintainer}`, 'content-length': String(big.length) };
      const req = request(url, { method: 'POST', headers });
      req.on('error', () => resolve());
      req.write(big.subarray(0, Math.floor(big.length / 2)), () => setTimeout(() => req.destroy(), 500));
    });
    const crowd = Array.from({ length: MAX_OCCURRENCES + 1 }, (_, i) => ({ range: [i, 0, 1], symbol: 'local 1' }));
    await expect(
      'more occurrences than allowed',
      post(encodeIndex([...OTHER, { path: 'crowd.go', occurrences: crowd }])),
      'invalid_input',
      400,
      new RegExp(`more than ${MAX_OCCURRENCES} occurrences`),
    );
  }

  it('refuses every hostile upload before any index is stored, and the answers stay the search tier', async () => {
    const before = await references();
    assert.deepEqual(before, ['use.go:3:24:search', 'use.go:3:33:search']);
    await hostileUploads();
    assert.deepEqual(await references(), before);
  });

  it('stores an index sent with `sextant scip upload`; find_references answers from it, labelled precise', async () => {
    const file = join(work, 'index.scip');
    writeFileSync(file, encodeIndex(GOOD));
    const run = cli(file, '--repository', repository, '--commit', commit);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /stored: .* 2 documents, 3 occurrences/);
    assert.deepEqual(await references(), ['use.go:3:24:precise', 'use.go:3:33:precise']);

    // The command's own refusals: the server's code and message, exit 1; a usage mistake, exit 2.
    const refused = cli(file, '--repository', repository, '--commit', 'e'.repeat(40));
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /refused \(not_found\): .* is indexed at/);
    const usage = cli(file, '--repository', repository);
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /--commit is required/);
    const missing = cli(join(work, 'none.scip'), '--repository', repository, '--commit', commit);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /cannot read .*none\.scip: ENOENT/);
  });

  it('keeps the stored index through every hostile upload', async () => {
    await hostileUploads();
    assert.deepEqual(await references(), ['use.go:3:24:precise', 'use.go:3:33:precise']);
  });

  it('takes an index of 150,000 occurrences, larger than a bus message, in parts', async () => {
    const index = largeIndex(150_000);
    assert.ok(index.length > 4 * 1024 * 1024, `${index.length} bytes: several parts`);
    const started = performance.now();
    const { status, body } = await post(index);
    const ms = Math.round(performance.now() - started);
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.occurrences, 150_003);
    assert.equal(body.documents, 3);
    console.log(
      `uploaded ${index.length} bytes, 150,003 occurrences in ${ms} ms (server: ${(body as { duration_ms?: number }).duration_ms} ms to check, decode and store)`,
    );
    assert.deepEqual(await references(), ['use.go:3:24:precise', 'use.go:3:33:precise']);
  });

  it('leaves nothing in transit, and keeps each upload in the audit trail with its outcome', async () => {
    const count = async (table: string) =>
      (await queryOnce<{ n: number }>(fixture.database.url, `SELECT count(*)::int AS n FROM symbol_indexer.${table}`))[0].n;
    assert.equal(await count('scip_uploads'), 0, 'uploads finished, refused or cancelled are gone');
    assert.equal(await count('scip_upload_parts'), 0);
    const deadline = Date.now() + 10_000;
    let codes: string[] = [];
    while (Date.now() < deadline) {
      const rows = await queryOnce<{ code: string }>(
        fixture.database.url,
        `SELECT DISTINCT code FROM projects.audit_log WHERE tool = 'POST /scip' ORDER BY code`,
      );
      codes = rows.map((r) => r.code);
      if (codes.length >= 4) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.deepEqual(codes, ['forbidden', 'invalid_input', 'not_found', 'ok']);
  });
});

describe('SCIP uploads over NATS (the distributed services)', () => {
  let stack: Stack;
  let client: Client;
  let work: string;
  let remote: BareRepository;
  let base: string;
  let repository: string;
  let commit: string;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'sextant-scip-upload-nats-'));
    remote = new BareRepository(work, 'shop');
    remote.commit('main', FILES);
    stack = await distributedStack();
    await stack.startService('workspace-registry', {
      GIT_ALLOW_FILE_URLS: 'true',
      SEXTANT_DATA_DIR: join(work, 'data'),
      SEXTANT_INDEXING_STAGES: 'symbols',
    });
    await stack.startService('symbol-indexer', { GIT_ALLOW_FILE_URLS: 'true', SEXTANT_DATA_DIR: join(work, 'symbols') });
    const gateway = await stack.startGateway();
    base = new URL('/', gateway.url).toString();
    client = await httpClient(gateway.url);
    const done = await client.callTool({ name: 'index_repository', arguments: { repository: remote.fileUrl } }, undefined, {
      onprogress: () => undefined,
      timeout: 120_000,
    });
    assert.equal((done.structuredContent as { status: string }).status, 'completed', JSON.stringify(done.structuredContent));
    const listed = await callTool<{ repositories: Array<{ name: string; indexed_commit: string }> }>(client, 'list_repositories', {});
    ({ name: repository, indexed_commit: commit } = listed.body.repositories[0]!);
  });
  after(async () => {
    await client?.close();
    await stack?.stop();
    remote?.dispose();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('carries an index of several NATS messages to symbol-indexer and refuses a truncated one', async () => {
    const index = largeIndex(60_000);
    assert.ok(index.length > 2 * 1024 * 1024, `${index.length} bytes: several parts`);
    const truncated = await postScip(base, index.subarray(0, index.length - 3), { repository, commit });
    assert.equal(truncated.body.error, 'invalid_input', JSON.stringify(truncated.body));
    const stored = await postScip(base, index, { repository, commit });
    assert.equal(stored.status, 200, JSON.stringify(stored.body));
    assert.equal(stored.body.occurrences, 60_003);
    const found = await callTool<{ references: Array<{ path: string; line: number; column: number; precision?: string }> }>(
      client,
      'find_references',
      { repo: repository, path: 'add.go', line: 3, column: 5 },
    );
    assert.equal(found.isError, false, JSON.stringify(found.body));
    assert.deepEqual(
      found.body.references.map((r) => `${r.path}:${r.line}:${r.column}:${r.precision}`),
      ['use.go:3:24:precise', 'use.go:3:33:precise'],
    );
  });
});
