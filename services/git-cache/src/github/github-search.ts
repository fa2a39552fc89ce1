import { Logger } from '@nestjs/common';
import type { SearchRepositories } from '@sextant/contracts';
import { callerGone, callerSignal, ServiceError } from '@sextant/work';

export interface GitHubSearchOptions {
  /** REST base, e.g. https://api.github.com or https://ghe.example.com/api/v3. */
  apiUrl: string;
  /** Sent as a bearer token; never logged, never in an error. */
  token?: string | undefined;
  timeoutMs: number;
  /** Retries after a network error, a timeout or a 5xx (exponential backoff). */
  retries: number;
  backoffMs: number;
  /** Size budget of one answer (JSON bytes of its repositories): it must fit in one bus message. */
  maxResultBytes: number;
  sleep?: (ms: number) => Promise<void>;
}

/** Longest text kept per field of a repository; longer text is cut (descriptions end with "…"). */
const FIELD_LIMITS = { text: 1_000, name: 256, url: 2_048, topics: 30, topic: 64 } as const;

type Repository = SearchRepositories.Response['repositories'][number];
type Json = Record<string, unknown>;

/** A failure worth another attempt, with the error to report if attempts run out. */
class Retryable extends Error {
  constructor(readonly final: ServiceError) {
    super(final.busError.message);
  }
}

/**
 * GitHub's repository search (`GET /search/repositories`) over fetch.
 * Maps GitHub's statuses to the error registry: 401/403 → forbidden,
 * exhausted rate limit (403 or 429) → rate_limited with the reset time,
 * 422 → invalid_input; network errors, timeouts and 5xx are retried with
 * exponential backoff, a bounded number of times.
 */
export class GitHubSearch {
  private readonly log = new Logger('GitHubSearch');
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: GitHubSearchOptions) {
    this.sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  async search(request: SearchRepositories.Request): Promise<SearchRepositories.Response> {
    const url = this.url(request);
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.attempt(url, request);
      } catch (error) {
        if (!(error instanceof Retryable)) throw error;
        if (attempt >= this.options.retries) throw error.final;
        const delay = this.options.backoffMs * 2 ** attempt * (0.5 + Math.random() / 2);
        this.log.warn(`GitHub search attempt ${attempt + 1} failed (${error.message}); retrying in ${Math.round(delay)} ms`);
        await this.sleep(delay);
      }
    }
  }

  private url(request: SearchRepositories.Request): string {
    const params = new URLSearchParams({ q: request.query, per_page: String(request.per_page), page: String(request.page) });
    if (request.sort_by !== 'relevance') {
      params.set('sort', request.sort_by);
      params.set('order', request.order);
    }
    return `${this.options.apiUrl.replace(/\/+$/, '')}/search/repositories?${params.toString()}`;
  }

  private async attempt(url: string, request: SearchRepositories.Request): Promise<SearchRepositories.Response> {
    const host = new URL(url).host;
    let response: Response;
    // Given up at our own budget, or when the caller stops waiting (its deadline).
    const caller = callerSignal();
    const budget = AbortSignal.timeout(this.options.timeoutMs);
    try {
      response = await fetch(url, { headers: this.headers(), signal: caller ? AbortSignal.any([budget, caller]) : budget });
    } catch (error) {
      if (caller?.aborted) throw callerGone();
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      throw new Retryable(
        timedOut
          ? ServiceError.of('timeout', `GitHub (${host}) did not answer within ${this.options.timeoutMs} ms.`)
          : ServiceError.of('unavailable', `Could not reach GitHub at ${host}; try again shortly.`),
      );
    }
    const rateLimit = readRateLimit(response.headers);
    const { text: body, cut } = await readCapped(response, response.ok ? MAX_ANSWER_BYTES : MAX_ERROR_BYTES);
    if (response.ok) {
      if (cut)
        throw ServiceError.of(
          'api_error',
          `GitHub answered more than ${MAX_ANSWER_BYTES >> 20} MiB for one page; ask for fewer (per_page).`,
        );
      return toResponse(parseJson(body), request, rateLimit, this.options.maxResultBytes);
    }
    throw this.failure(response, body, rateLimit);
  }

  private headers(): Record<string, string> {
    return {
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
      'user-agent': 'sextant-mcp',
      ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}),
    };
  }

  private failure(response: Response, body: string, rateLimit: { remaining: number; reset: number } | undefined): Error {
    const status = response.status;
    const message = githubMessage(body);
    const retryAfter = Number(response.headers.get('retry-after'));
    const exhausted = status === 429 || (status === 403 && (rateLimit?.remaining === 0 || /rate limit/i.test(message)));
    if (exhausted) {
      const reset = Number.isFinite(retryAfter) && retryAfter > 0 ? Math.ceil(Date.now() / 1000 + retryAfter) : (rateLimit?.reset ?? 0);
      return ServiceError.of('rate_limited', `GitHub's rate limit is exhausted; it resets at ${new Date(reset * 1000).toISOString()}.`, {
        rate_limit_reset: reset,
        rate_limit_remaining: rateLimit?.remaining ?? 0,
      });
    }
    if (status === 401) {
      return ServiceError.of('forbidden', `GitHub rejected the credentials (401): check GITCODE_MCP_GITHUB_TOKEN.`);
    }
    if (status === 403) return ServiceError.of('forbidden', `GitHub refused the search (403): ${message}`);
    if (status === 422) return ServiceError.invalid({ query: `GitHub cannot run this query: ${message}` });
    if (status >= 500) return new Retryable(ServiceError.of('api_error', `GitHub answered ${status}: ${message}`, { status }));
    return ServiceError.of('api_error', `GitHub answered ${status}: ${message}`, { status });
  }
}

function readRateLimit(headers: Headers): { remaining: number; reset: number } | undefined {
  const remaining = headers.get('x-ratelimit-remaining');
  const reset = headers.get('x-ratelimit-reset');
  if (remaining === null || reset === null) return undefined;
  return { remaining: Number(remaining), reset: Number(reset) };
}

function parseJson(body: string): Json {
  try {
    return JSON.parse(body) as Json;
  } catch {
    throw ServiceError.of('api_error', 'GitHub answered with a body that is not JSON.');
  }
}

/** A search page is read whole up to this (100 results of GitHub's own size are well under 1 MiB). */
const MAX_ANSWER_BYTES = 32 << 20;
/** Of an error body, this much is read: enough for GitHub's JSON, not for a proxy's page of any size. */
const MAX_ERROR_BYTES = 64 << 10;

/** The body as text, read up to `limit` bytes (the rest is not downloaded); `cut` when there was more. */
async function readCapped(response: Response, limit: number): Promise<{ text: string; cut: boolean }> {
  if (!response.body) return { text: '', cut: false };
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: Buffer.concat(chunks).toString('utf8'), cut: false };
    chunks.push(value);
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return { text: Buffer.concat(chunks).subarray(0, limit).toString('utf8'), cut: true };
    }
  }
}

/**
 * GitHub's own error text (`message` and `errors[].message` of its JSON
 * body), on one short printable line. Anything else (an HTML error page of a
 * proxy, a stack trace of a GitHub Enterprise server) is summarized, never
 * passed on: it can hold internal host names and paths.
 */
function githubMessage(body: string): string {
  let json: { message?: unknown; errors?: Array<{ message?: unknown }> } | undefined;
  try {
    json = JSON.parse(body) as typeof json;
  } catch {
    json = undefined;
  }
  if (!json || typeof json !== 'object') return `no JSON error message (a ${body.length}-byte body of another kind)`;
  const parts = [json.message, ...(Array.isArray(json.errors) ? json.errors.map((e) => e?.message) : [])].filter(
    (m): m is string => typeof m === 'string' && m.length > 0,
  );
  return oneLine(withoutPaths(parts.join('; ') || 'no message'), 300);
}

/** File paths (`/srv/app/lib/x.rb`, `C:\\app\\x.cs`) in an upstream message are the server's business, not the caller's; URLs stay. */
function withoutPaths(text: string): string {
  return text.replace(/(?<![\w.:/\\-])(?:\/[\w.@-]+){2,}\/?|\b[A-Za-z]:\\[^\s'"]+/g, '<path>');
}

/** Printable text on one line, at most `max` characters (cut with "…"). */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function toResponse(
  body: Json,
  request: SearchRepositories.Request,
  rateLimit: { remaining: number; reset: number } | undefined,
  maxResultBytes: number,
): SearchRepositories.Response {
  if (!Array.isArray(body.items) || typeof body.total_count !== 'number') {
    throw ServiceError.of('api_error', 'GitHub answered without the search result fields (total_count, items).');
  }
  const repositories: Repository[] = [];
  let bytes = 0;
  let truncated = false;
  for (const item of body.items as Json[]) {
    const repository = toRepository(item ?? {});
    bytes += Buffer.byteLength(JSON.stringify(repository)) + 1;
    if (bytes > maxResultBytes) {
      truncated = true;
      break;
    }
    repositories.push(repository);
  }
  return {
    repositories,
    total_count: body.total_count,
    page: request.page,
    per_page: request.per_page,
    truncated,
    ...(truncated
      ? {
          notes: [
            `The answer was cut at ${repositories.length} of ${body.items.length} repositories to stay under ${maxResultBytes} bytes; ask for a smaller per_page.`,
          ],
        }
      : {}),
    ...(rateLimit ? { rate_limit: rateLimit } : {}),
  };
}

/** A string field cut to `max` characters (`…` marks a cut). */
const str = (v: unknown, max: number = FIELD_LIMITS.name, fallback = ''): string =>
  typeof v === 'string' ? (v.length > max ? `${v.slice(0, max - 1)}…` : v) : fallback;
const strOrNull = (v: unknown, max: number = FIELD_LIMITS.name): string | null => (typeof v === 'string' ? str(v, max) : null);
/** A URL longer than any real one is left out rather than cut into a wrong address. */
const url = (v: unknown): string => (typeof v === 'string' && v.length <= FIELD_LIMITS.url ? v : '');

function toRepository(item: Json): Repository {
  const license = item.license as Json | null | undefined;
  return {
    name: str(item.name),
    full_name: str(item.full_name),
    private: item.private === true,
    html_url: url(item.html_url),
    description: strOrNull(item.description, FIELD_LIMITS.text),
    fork: item.fork === true,
    created_at: str(item.created_at, 64),
    updated_at: str(item.updated_at, 64),
    pushed_at: str(item.pushed_at, 64),
    git_url: url(item.git_url),
    ssh_url: url(item.ssh_url),
    clone_url: url(item.clone_url),
    svn_url: url(item.svn_url),
    homepage: url(item.homepage) || null,
    language: strOrNull(item.language),
    license:
      license && typeof license === 'object'
        ? { key: str(license.key), name: str(license.name), spdx_id: str(license.spdx_id), url: url(license.url) || null }
        : null,
    topics: Array.isArray(item.topics)
      ? item.topics
          .filter((t): t is string => typeof t === 'string')
          .slice(0, FIELD_LIMITS.topics)
          .map((t) => str(t, FIELD_LIMITS.topic))
      : [],
    visibility: str(item.visibility, 32, item.private === true ? 'private' : 'public'),
    default_branch: str(item.default_branch, FIELD_LIMITS.name, 'main'),
  };
}
