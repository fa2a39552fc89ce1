/**
 * search_code and ask_code end to end, embedded as a user runs it (PGlite
 * with pgvector): a workspace of code, docs and config indexed with
 * index_repo (its vectors stage), then searched over MCP by meaning, by
 * words, by scope; answers extractive, and from a chat model that speaks
 * the OpenAI wire format (a local fake: the only stand-in here).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool, git, httpClient, queryOnce, startEmbedded, type Sextant } from '@sextant/testing';
import { distributedStack, type Stack } from './stack.js';
import { expectToolError } from './scenarios.js';
import { commitAll, indexed, makeRepository, SHOP } from './shop.js';

const TOOLS_REPO: Record<string, string> = {
  'src/retry.go':
    'package tools\n\n// RetryWithBackoff retries a call with exponential backoff.\nfunc RetryWithBackoff(call func() error) error {\n\treturn call()\n}\n',
};

interface Result {
  repo: string;
  score: number;
  path: string;
  startLine: number;
  endLine: number;
  snippet: string;
  symbol?: string;
  language?: string;
  commit?: string;
}
interface SearchBody {
  results: Result[];
  meta: {
    scope: { type: string; repos?: string[]; project?: string };
    topK: number;
    pathPrefix: string | null;
    collection: string;
    mode: string;
    warnings?: string[];
    freshness?: Array<{ repo: string; commit: string | null; behind_head: boolean | null }>;
    embeddings?: { model: string; kind: string; dimension: number };
  };
}
interface AskBody {
  answer: string;
  evidences: Result[];
  meta: {
    llmModel: string;
    contextsUsed: number;
    totalMatches: number;
    minScore: number;
    topK: number;
    warnings?: string[];
    collection: string;
  };
}

describe('search_code and ask_code (embedded)', () => {
  let base: string;
  let shop: string;
  let sextant: Sextant;
  let client: Client;

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'sextant-search-'));
    shop = makeRepository(base, 'shop', SHOP);
    makeRepository(base, 'tools', TOOLS_REPO);
    sextant = await startEmbedded({ SEXTANT_WORKSPACE: shop, SEXTANT_PROGRESS_POLL_MS: '50' });
    client = await httpClient(sextant.url);
    await indexed(client, 'index_repo', {});
  });
  after(async () => {
    await client?.close();
    await sextant?.stop();
    rmSync(base, { recursive: true, force: true });
  });

  it('finds code by what it does, hybrid by default, and says what it searched', async () => {
    const found = await callTool<SearchBody>(client, 'search_code', { query: 'where do we retry failed webhooks?' });
    assert.equal(found.isError, false, JSON.stringify(found.body));
    const top = found.body.results[0];
    assert.deepEqual(
      [top.repo, top.path, top.symbol, top.language],
      ['shop', 'src/webhooks/retry.ts', 'retryFailedWebhooks', 'typescript'],
    );
    assert.match(top.snippet, /export async function retryFailedWebhooks/);
    assert.ok(top.startLine <= 4 && top.endLine >= 11, `${top.startLine}-${top.endLine}`);
    assert.equal(top.commit, git(shop, 'rev-parse', 'HEAD').trim());
    assert.ok(top.score > 0 && top.score <= 1);
    const { meta } = found.body;
    assert.deepEqual(meta.scope, { type: 'repo', repos: ['shop'] });
    assert.deepEqual([meta.topK, meta.mode, meta.pathPrefix, meta.collection], [10, 'hybrid', null, 'sextant_hashing_v1_256']);
    assert.deepEqual(meta.embeddings, { model: 'sextant-hashing-v1', kind: 'lexical', dimension: 256 });
    assert.deepEqual(
      meta.freshness?.map((f) => [f.repo, f.behind_head]),
      [['shop', false]],
    );
    for (let i = 1; i < found.body.results.length; i++) assert.ok(found.body.results[i - 1].score >= found.body.results[i].score);
  });

  it('answers each mode alone, takes `term` and `limit`, and cuts long definitions into pieces that do not overlap in one answer', async () => {
    const lexical = await callTool<SearchBody>(client, 'search_code', { term: 'InvoiceService taxFor', mode: 'lexical', limit: 3 });
    assert.equal(lexical.body.results[0].path, 'src/billing/invoice.ts');
    assert.ok(lexical.body.results.length <= 3);
    // The dense side meets a word in another form (trigrams of the built-in embedder).
    const semantic = await callTool<SearchBody>(client, 'search_code', { query: 'invoicing totals', mode: 'semantic', topK: 3 });
    assert.ok(
      semantic.body.results.some((r) => r.path === 'src/billing/invoice.ts'),
      JSON.stringify(semantic.body.results.map((r) => r.path)),
    );
    const big = await callTool<SearchBody>(client, 'search_code', {
      query: 'bigComputation pipeline stage',
      topK: 20,
      pathPrefix: 'src/big',
    });
    const pieces = big.body.results.filter((r) => r.path === 'src/big.ts');
    assert.ok(
      pieces.length >= 2,
      `a 123-line function is cut into several chunks: ${JSON.stringify(pieces.map((p) => [p.startLine, p.endLine]))}`,
    );
    for (const p of pieces) assert.equal(p.symbol, 'bigComputation');
    const sorted = [...pieces].sort((a, b) => a.startLine - b.startLine);
    for (let i = 1; i < sorted.length; i++)
      assert.ok(sorted[i].startLine > sorted[i - 1].endLine, 'no two overlapping pieces in one answer');
  });

  it('searches docs by heading and config by key, and filters by pathPrefix', async () => {
    const docs = await callTool<SearchBody>(client, 'search_code', { query: 'retrying webhooks', pathPrefix: 'docs/' });
    assert.ok(docs.body.results.length > 0);
    assert.ok(docs.body.results.every((r) => r.path.startsWith('docs/')));
    assert.equal(docs.body.meta.pathPrefix, 'docs/');
    const config = await callTool<SearchBody>(client, 'search_code', { query: 'database host port', pathPrefix: 'config/' });
    assert.equal(config.body.results[0].path, 'config/app.yaml');
  });

  it('scopes: scope wins over repo; several repositories; a project; all only where allowed; unknown names fail clearly', async () => {
    await indexed(client, 'index_repository', { repository: 'tools', localPath: join(base, 'tools') });
    const tools = await callTool<SearchBody>(client, 'search_code', {
      query: 'retry with backoff',
      scope: { type: 'repo', repo: 'tools' },
      repo: 'shop',
    });
    assert.deepEqual(tools.body.meta.scope, { type: 'repo', repos: ['tools'] });
    assert.ok(tools.body.results.every((r) => r.repo === 'tools'));
    assert.equal(tools.body.results[0].symbol, 'RetryWithBackoff');
    const legacy = await callTool<SearchBody>(client, 'search_code', { query: 'retry with backoff', repository: 'tools' });
    assert.deepEqual(legacy.body.meta.scope, { type: 'repo', repos: ['tools'] });
    const both = await callTool<SearchBody>(client, 'search_code', {
      query: 'retry backoff',
      scope: { type: 'repos', repos: ['shop', 'tools'] },
    });
    assert.deepEqual(new Set(both.body.results.map((r) => r.repo)), new Set(['shop', 'tools']));
    assert.deepEqual(both.body.meta.freshness?.map((f) => f.repo).sort(), ['shop', 'tools']);
    const project = await callTool<{ project: { id: string } }>(client, 'create_project', { name: 'Go tools', repository_ids: ['tools'] });
    assert.equal(project.isError, false);
    const byProject = await callTool<SearchBody>(client, 'search_code', {
      query: 'retry',
      scope: { type: 'project', project: 'go TOOLS' },
    });
    assert.deepEqual(byProject.body.meta.scope, { type: 'project', project: 'Go tools', repos: ['tools'] });
    assert.ok(byProject.body.results.every((r) => r.repo === 'tools'));
    await expectToolError(client, 'search_code', { query: 'x', scope: { type: 'all' } }, 'forbidden');
    const unknown = await expectToolError(
      client,
      'search_code',
      { query: 'x', scope: { type: 'repos', repos: ['shop', 'nope'] } },
      'not_found',
    );
    assert.match(unknown.message, /"nope"/);
    await expectToolError(client, 'search_code', { query: 'x', scope: { type: 'project', project: 'no such project' } }, 'not_found');
  });

  it('takes a precomputed vector of the right dimension, and names the dimension otherwise', async () => {
    const wrong = await expectToolError(client, 'search_code', { query: 'x', vector: [0.1, 0.2, 0.3] }, 'invalid_input', 'vector');
    assert.match(JSON.stringify(wrong.details), /256/);
    const vector = Array.from({ length: 256 }, (_, i) => (i === 7 ? 1 : 0));
    const found = await callTool<SearchBody>(client, 'search_code', { query: 'anything', vector, mode: 'semantic' });
    assert.equal(found.isError, false, JSON.stringify(found.body));
  });

  it('answers a question extractively, citing only what it retrieved', async () => {
    const asked = await callTool<AskBody>(client, 'ask_code', { query: 'How are failed webhooks retried?' });
    assert.equal(asked.isError, false, JSON.stringify(asked.body));
    const { answer, evidences, meta } = asked.body;
    assert.equal(meta.llmModel, 'none');
    assert.deepEqual([meta.topK, meta.minScore, meta.collection], [5, 0, 'sextant_hashing_v1_256']);
    assert.equal(meta.contextsUsed, evidences.length);
    assert.ok(meta.totalMatches >= evidences.length);
    assert.equal(evidences[0].path, 'src/webhooks/retry.ts');
    const cited = [...answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    assert.deepEqual(
      cited,
      evidences.map((_, i) => i + 1),
      answer,
    );
    assert.match(answer, /src\/webhooks\/retry\.ts:\d+-\d+/);
    const strict = await callTool<AskBody>(client, 'ask_code', { query: 'How are failed webhooks retried?', minScore: 1 });
    assert.deepEqual([strict.body.evidences.length, /\[\d\]/.test(strict.body.answer)], [0, false]);
  });

  it('follows sync_repo: an edit is found, a deleted file is gone', async () => {
    writeFileSync(
      join(shop, 'src/webhooks/dead-letter.ts'),
      'export function moveToDeadLetterQueue(hook: string) {\n  return `dlq:${hook}`;\n}\n',
    );
    unlinkSync(join(shop, 'src/billing/invoice.ts'));
    commitAll(shop);
    await indexed(client, 'sync_repo', {});
    const dlq = await callTool<SearchBody>(client, 'search_code', { query: 'dead letter queue' });
    assert.equal(dlq.body.results[0].path, 'src/webhooks/dead-letter.ts');
    const invoice = await callTool<SearchBody>(client, 'search_code', { query: 'InvoiceService taxFor', mode: 'lexical' });
    assert.ok(!invoice.body.results.some((r) => r.path === 'src/billing/invoice.ts'), 'the deleted file is no longer found');
  });

  it("says when none of the query's words occurs in the code, and leaves out results under min_score", async () => {
    const nowhere = await callTool<SearchBody & { meta: { low_confidence?: true } }>(client, 'search_code', {
      query: 'zxqvbn frobnicator quuxify',
    });
    assert.equal(nowhere.isError, false, JSON.stringify(nowhere.body));
    assert.equal(nowhere.body.meta.low_confidence, true);
    assert.ok(nowhere.body.meta.warnings?.some((w) => /None of the query's words \(zxqvbn, frobnicator, quuxify\) occurs/.test(w)));
    const related = await callTool<SearchBody & { meta: { low_confidence?: true } }>(client, 'search_code', {
      query: 'retry failed webhooks with backoff',
    });
    assert.equal(related.body.meta.low_confidence, undefined);
    const strong = await callTool<SearchBody>(client, 'search_code', { query: 'retry failed webhooks with backoff', min_score: 0.5 });
    assert.ok(
      strong.body.results.length > 0 && strong.body.results.length < related.body.results.length,
      JSON.stringify(strong.body.results),
    );
    assert.ok(strong.body.results.every((r) => r.score >= 0.5));
    assert.equal(
      (await callTool<SearchBody>(client, 'search_code', { query: 'zxqvbn frobnicator quuxify', minScore: 0.5 })).body.results.length,
      0,
    );
    await expectToolError(client, 'search_code', { query: 'x', min_score: 2 }, 'invalid_input', 'min_score');
  });

  it('refuses bad queries clearly and takes any script', async () => {
    await expectToolError(client, 'search_code', {}, 'invalid_input', 'query');
    await expectToolError(client, 'search_code', { query: '   ' }, 'invalid_input', 'query');
    await expectToolError(client, 'search_code', { query: 'x'.repeat(100 * 1024) }, 'invalid_input', 'query');
    await expectToolError(client, 'search_code', { query: 'x', topK: 101 }, 'invalid_input', 'topK');
    await expectToolError(client, 'search_code', { query: 'x', mode: 'fuzzy' }, 'invalid_input', 'mode');
    await expectToolError(client, 'ask_code', { query: 'x', minScore: 2 }, 'invalid_input', 'minScore');
    const foreign = await callTool<SearchBody>(client, 'search_code', { query: 'повторить 失敗した webhook' });
    assert.equal(foreign.isError, false, JSON.stringify(foreign.body));
  });
});

/** A chat completions endpoint in the OpenAI wire format: answers with `reply`, or fails while `down`. */
class FakeChatModel {
  private server: Server | undefined;
  reply = '';
  down = false;
  readonly requests: Array<{ model: string; messages: Array<{ role: string; content: string }> }> = [];

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return res.writeHead(404).end();
        this.requests.push(JSON.parse(body));
        if (this.down) return res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"overloaded"}}');
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: 'chatcmpl-1',
            object: 'chat.completion',
            model: 'fake-model',
            choices: [{ index: 0, message: { role: 'assistant', content: this.reply }, finish_reason: 'stop' }],
          }),
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address() as { port: number };
    return `http://127.0.0.1:${address.port}/v1`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

describe('ask_code with a chat model, and a server without a default workspace', () => {
  let base: string;
  let sextant: Sextant;
  let client: Client;
  const model = new FakeChatModel();

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'sextant-ask-'));
    const url = await model.start();
    sextant = await startEmbedded({ LLM_URL: url, LLM_MODEL: 'fake-model', ALLOW_GLOBAL_SCOPE: 'true', SEXTANT_PROGRESS_POLL_MS: '50' });
    client = await httpClient(sextant.url);
    await indexed(client, 'index_repository', { repository: 'shop', localPath: makeRepository(base, 'shop', SHOP) });
  });
  after(async () => {
    await client?.close();
    await sextant?.stop();
    await model.stop();
    rmSync(base, { recursive: true, force: true });
  });

  it('answers from the evidence with the model, dropping citations of evidence it was not given', async () => {
    model.reply = 'Webhooks are retried with exponential backoff [1], up to five attempts [1][9].';
    const asked = await callTool<AskBody>(client, 'ask_code', {
      query: 'How are webhooks retried?',
      scope: { type: 'repo', repo: 'shop' },
      topK: 3,
    });
    assert.equal(asked.isError, false, JSON.stringify(asked.body));
    assert.equal(asked.body.meta.llmModel, 'fake-model');
    assert.equal(asked.body.answer, 'Webhooks are retried with exponential backoff [1], up to five attempts [1].');
    const sent = model.requests.at(-1)!;
    assert.equal(sent.model, 'fake-model');
    assert.match(sent.messages[1].content, /\[1\] shop:src\/webhooks\/retry\.ts/);
    assert.ok(!/\[4\]/.test(sent.messages[1].content), 'topK 3: three pieces of evidence');
  });

  it('answers extractively, with a warning, when the model is down', async () => {
    model.down = true;
    const asked = await callTool<AskBody>(client, 'ask_code', { query: 'How are webhooks retried?', scope: { type: 'all' } });
    model.down = false;
    assert.equal(asked.isError, false, JSON.stringify(asked.body));
    assert.equal(asked.body.meta.llmModel, 'none');
    assert.match(asked.body.meta.warnings?.join(' ') ?? '', /fake-model.*failed.*extractive/);
    assert.match(asked.body.answer, /\[1\] shop:src\/webhooks\/retry\.ts/);
  });

  it('searches all repositories where allowed, and asks for a scope when nothing says which', async () => {
    const all = await callTool<SearchBody>(client, 'search_code', { query: 'retry failed webhooks', scope: { type: 'all' } });
    assert.equal(all.isError, false, JSON.stringify(all.body));
    assert.deepEqual([all.body.meta.scope, all.body.results[0].repo], [{ type: 'all' }, 'shop']);
    await expectToolError(client, 'search_code', { query: 'retry' }, 'invalid_input', 'scope');
  });
});

describe('search_code and ask_code (distributed: vector-search as its own process)', () => {
  let base: string;
  let stack: Stack;
  let client: Client;

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'sextant-search-nats-'));
    stack = await distributedStack();
    await stack.startService('workspace-registry', { SEXTANT_DATA_DIR: join(base, 'registry'), SEXTANT_INDEXING_STAGES: 'vectors' });
    await Promise.all([stack.startService('projects'), stack.startService('vector-search', { SEXTANT_DATA_DIR: join(base, 'vectors') })]);
    const gateway = await stack.startGateway({
      SEXTANT_SERVICES: 'projects,workspace-registry,vector-search',
      SEXTANT_PROGRESS_POLL_MS: '50',
    });
    client = await httpClient(gateway.url);
    await indexed(client, 'index_repository', { repository: 'shop', localPath: makeRepository(base, 'shop', SHOP) });
  });
  after(async () => {
    await client?.close();
    await stack?.stop();
    rmSync(base, { recursive: true, force: true });
  });

  it('indexes in its own process and answers over NATS, with an exact dense scan where Postgres has no pgvector', async () => {
    const found = await callTool<SearchBody>(client, 'search_code', { query: 'retry failed webhooks', repo: 'shop' });
    assert.equal(found.isError, false, JSON.stringify(found.body));
    assert.deepEqual([found.body.results[0].path, found.body.meta.scope], ['src/webhooks/retry.ts', { type: 'repo', repos: ['shop'] }]);
    const [collection] = await queryOnce<{ name: string; vectors: string }>(
      stack.database.url,
      'SELECT name, vectors FROM vector_search.collections',
    );
    const extension = await queryOnce(stack.database.url, "SELECT 1 FROM pg_extension WHERE extname = 'vector'");
    assert.deepEqual([collection.name, collection.vectors], ['sextant_hashing_v1_256', extension.length > 0 ? 'pgvector' : 'array']);
    const semantic = await callTool<SearchBody>(client, 'search_code', { query: 'invoice tax', repo: 'shop', mode: 'semantic', topK: 3 });
    assert.ok(
      semantic.body.results.some((r) => r.path === 'src/billing/invoice.ts'),
      JSON.stringify(semantic.body.results.map((r) => r.path)),
    );
    const asked = await callTool<AskBody>(client, 'ask_code', { query: 'how is tax computed?', repo: 'shop', topK: 2 });
    assert.equal(asked.isError, false, JSON.stringify(asked.body));
    assert.ok(
      asked.body.evidences.some((e) => e.path === 'src/billing/invoice.ts'),
      JSON.stringify(asked.body.evidences),
    );
    await expectToolError(client, 'search_code', { query: 'x', repo: 'nope' }, 'not_found');
  });
});
