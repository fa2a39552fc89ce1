import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SearchRepositories, type BusError } from '@sextant/contracts';
import { startFakeGitHub, type FakeGitHub } from '@sextant/testing';
import { GitHubSearch, type GitHubSearchOptions } from './github-search.js';

const TOKEN = 'ghp_unit-test-secret';

async function failure(promise: Promise<unknown>): Promise<BusError> {
  try {
    await promise;
  } catch (error) {
    const busError = (error as { busError?: BusError }).busError;
    assert.ok(busError, `expected a ServiceError, got ${String(error)}`);
    assert.doesNotMatch(JSON.stringify(busError), new RegExp(TOKEN), 'the token never appears in an error');
    return busError;
  }
  assert.fail('expected a failure');
}

describe('search_repositories: GitHubSearch against a GitHub stand-in', () => {
  let github: FakeGitHub;
  const sleeps: number[] = [];
  const client = (options: Partial<GitHubSearchOptions> = {}) =>
    new GitHubSearch({
      apiUrl: github.url,
      token: TOKEN,
      timeoutMs: 2_000,
      retries: 2,
      backoffMs: 100,
      maxResultBytes: 768 * 1024,
      sleep: async (ms) => void sleeps.push(ms),
      ...options,
    });
  const search = (c: GitHubSearch, input: Record<string, unknown>) => c.search(SearchRepositories.Request.parse(input));

  before(async () => {
    github = await startFakeGitHub();
  });
  after(() => github.close());

  it('maps every field of the contract and the rate-limit headers', async () => {
    const result = await search(client(), { query: 'sextant' });
    SearchRepositories.Response.parse(result);
    assert.equal(result.total_count, 2);
    assert.deepEqual(result.repositories.map((r) => r.full_name).sort(), ['sextant-dev/sextant', 'sextant-dev/sextant-helm']);
    const main = result.repositories.find((r) => r.name === 'sextant')!;
    assert.deepEqual(main.license, { key: 'mit', name: 'MIT License', spdx_id: 'MIT', url: 'https://api.github.com/licenses/mit' });
    assert.deepEqual(main.topics, ['mcp', 'search']);
    assert.equal(main.visibility, 'public');
    assert.equal(result.rate_limit?.remaining, 4999);
    assert.ok((result.rate_limit?.reset ?? 0) > Date.now() / 1000);
    assert.equal(github.requests.at(-1)?.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(github.requests.at(-1)?.headers.accept, 'application/vnd.github+json');
  });

  it('passes sort, order and pagination; relevance sends no sort; no token sends no Authorization', async () => {
    const sorted = await search(client({ token: undefined }), {
      query: 'sextant tree nats',
      sort_by: 'stars',
      order: 'asc',
      per_page: 2,
      page: 2,
    });
    const url = new URL(github.requests.at(-1)!.url, 'http://x');
    assert.equal(url.searchParams.get('sort'), 'stars');
    assert.equal(url.searchParams.get('order'), 'asc');
    assert.equal(url.searchParams.get('per_page'), '2');
    assert.equal(url.searchParams.get('page'), '2');
    assert.equal(github.requests.at(-1)?.headers.authorization, undefined);
    assert.deepEqual(
      sorted.repositories.map((r) => r.name),
      ['nats-server', 'tree-sitter'],
    );
    await search(client(), { query: 'x' });
    assert.equal(new URL(github.requests.at(-1)!.url, 'http://x').searchParams.get('sort'), null);
  });

  it('works with a GitHub Enterprise base path', async () => {
    const result = await search(client({ apiUrl: `${github.url}/api/v3/` }), { query: 'hello' });
    assert.equal(result.repositories[0]?.full_name, 'octo/hello-world');
    assert.equal(result.repositories[0]?.license, null);
    assert.match(github.requests.at(-1)!.url, /^\/api\/v3\/search\/repositories\?/);
  });

  it('maps 401 and plain 403 to forbidden, 422 to invalid_input', async () => {
    github.fail([{ status: 401, body: { message: 'Bad credentials' } }]);
    assert.equal((await failure(search(client(), { query: 'x' }))).code, 'forbidden');
    github.fail([{ status: 403, body: { message: 'Resource not accessible by integration' } }]);
    assert.match((await failure(search(client(), { query: 'x' }))).message, /not accessible/);
    github.fail([
      { status: 422, body: { message: 'Validation Failed', errors: [{ message: 'The search is longer than 256 characters.' }] } },
    ]);
    const invalid = await failure(search(client(), { query: 'x' }));
    assert.equal(invalid.code, 'invalid_input');
    assert.match(JSON.stringify(invalid.details), /longer than 256/);
  });

  it('reports an exhausted rate limit (403 or 429) as rate_limited with the reset time', async () => {
    github.fail([{ rateLimitExhausted: true }]);
    const limited = await failure(search(client(), { query: 'x' }));
    assert.equal(limited.code, 'rate_limited');
    const reset = (limited.details as { rate_limit_reset: number }).rate_limit_reset;
    assert.ok(reset > Date.now() / 1000);
    assert.ok(limited.message.includes(new Date(reset * 1000).toISOString()));
    assert.equal((limited.details as { rate_limit_remaining: number }).rate_limit_remaining, 0);

    github.fail([{ status: 429, body: { message: 'You have exceeded a secondary rate limit' }, headers: { 'retry-after': '60' } }]);
    const secondary = await failure(search(client(), { query: 'x' }));
    assert.equal(secondary.code, 'rate_limited');
    assert.ok((secondary.details as { rate_limit_reset: number }).rate_limit_reset >= Math.floor(Date.now() / 1000) + 59);
  });

  it('retries 5xx and network errors with exponential backoff, bounded', async () => {
    sleeps.length = 0;
    const before = github.requests.length;
    github.fail([{ status: 502 }, { drop: true }]);
    const result = await search(client(), { query: 'sextant' });
    assert.equal(result.total_count, 2);
    assert.equal(github.requests.length - before, 3);
    assert.equal(sleeps.length, 2);
    assert.ok(sleeps[1] > sleeps[0] * 1.0 || sleeps[1] >= 100, `backoff grows: ${sleeps.join(', ')}`);

    github.fail([{ status: 500 }, { status: 503 }, { status: 500 }]);
    const failed = await failure(search(client(), { query: 'x' }));
    assert.equal(failed.code, 'api_error');

    github.fail([{ drop: true }, { drop: true }, { drop: true }]);
    assert.equal((await failure(search(client(), { query: 'x' }))).code, 'unavailable');
  });

  it('cuts long fields and an answer over its size budget, saying so', async () => {
    const item = (i: number) => ({
      name: `r${i}`,
      full_name: `o/r${i}`,
      description: 'd'.repeat(100_000),
      topics: Array.from({ length: 500 }, (_, t) => `topic-${t}-${'t'.repeat(200)}`),
      html_url: `https://github.com/o/r${i}`,
      homepage: `https://example.com/${'x'.repeat(10_000)}`,
    });
    const huge = { status: 200, body: { total_count: 100, items: Array.from({ length: 100 }, (_, i) => item(i)) } };
    github.fail([huge]);
    const capped = await search(client(), { query: 'x', per_page: 100 });
    SearchRepositories.Response.parse(capped);
    assert.equal(capped.truncated, false);
    assert.equal(capped.repositories.length, 100);
    const first = capped.repositories[0];
    assert.equal(first.description!.length, 1_000);
    assert.ok(first.description!.endsWith('…'));
    assert.equal(first.topics.length, 30);
    assert.ok(first.topics.every((t) => t.length <= 64));
    assert.equal(first.homepage, null, 'a URL too long to be real is left out, not cut');
    assert.ok(Buffer.byteLength(JSON.stringify(capped)) < 768 * 1024);

    github.fail([huge]);
    const cut = await search(client({ maxResultBytes: 16 * 1024 }), { query: 'x', per_page: 100 });
    assert.equal(cut.truncated, true);
    assert.ok(cut.repositories.length > 0 && cut.repositories.length < 100, `${cut.repositories.length} repositories`);
    assert.ok(Buffer.byteLength(JSON.stringify(cut.repositories)) <= 16 * 1024);
    assert.match(cut.notes![0], /cut at \d+ of 100 repositories/);
  });

  it('summarizes an upstream error body instead of passing it on', async () => {
    const page = '<html><body><h1>502 Bad Gateway</h1><pre>/srv/ghe/internal/app.rb:42 in `call`</pre></body></html>';
    github.fail([
      { status: 502, html: page },
      { status: 502, html: page },
      { status: 502, html: page },
    ]);
    const error = await failure(search(client(), { query: 'x' }));
    assert.equal(error.code, 'api_error');
    assert.doesNotMatch(error.message, /srv|html|<|internal/);
    assert.match(error.message, /GitHub answered 502/);
    github.fail([{ status: 400, body: { message: `bad\n${'x'.repeat(5_000)}\u0007` } }]);
    const long = await failure(search(client(), { query: 'x' }));
    assert.ok(long.message.length < 400 && !long.message.includes('\n'), long.message);
    // GitHub's own JSON message naming a server path: the path is not passed on, a documentation URL is.
    github.fail([
      {
        status: 422,
        body: { message: 'failed at /srv/ghe/internal/search.rb:12 and C:\\ghe\\x.cs; see https://docs.github.com/rest/search' },
      },
    ]);
    const pathy = await failure(search(client(), { query: 'x' }));
    assert.doesNotMatch(pathy.message, /srv|ghe\\|internal/);
    assert.match(pathy.message, /failed at <path>.*https:\/\/docs\.github\.com\/rest\/search/);
    // An error body of any size: only its start is read.
    github.fail([{ status: 500, body: { message: 'm'.repeat(2_000_000) } }]);
    const huge = await failure(search(client({ retries: 0 }), { query: 'x' }));
    assert.match(huge.message, /no JSON error message/);
  });

  it('times out a GitHub that does not answer', async () => {
    github.fail([{ hang: true }]);
    const started = performance.now();
    const error = await failure(search(client({ timeoutMs: 200, retries: 0 }), { query: 'x' }));
    assert.equal(error.code, 'timeout');
    assert.ok(performance.now() - started < 2_000);
  });
});
