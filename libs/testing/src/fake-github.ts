import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** A scripted answer for the next request instead of a search result. */
export type GitHubFault =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { status: number; html: string }
  | { rateLimitExhausted: true }
  | { drop: true }
  | { hang: true };

export interface FakeGitHub {
  /** Base URL, like https://api.github.com (serves `/search/repositories` and `/api/v3/search/repositories`). */
  url: string;
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers'] }>;
  /** Queues faults: each answers one request, in order. */
  fail(faults: GitHubFault[]): void;
  close(): Promise<void>;
}

const REPOSITORIES = [
  repo(1, 'sextant-dev', 'sextant', 'Code intelligence for AI agents', 'TypeScript', 1200, 80, '2026-10-01T10:00:00Z', ['mcp', 'search']),
  repo(2, 'sextant-dev', 'sextant-helm', 'Helm chart for sextant', null, 40, 12, '2026-09-01T10:00:00Z', []),
  repo(3, 'octo', 'hello-world', 'My first repository on GitHub!', 'JavaScript', 3000, 2500, '2025-01-01T10:00:00Z', []),
  repo(4, 'tree-sitter', 'tree-sitter', 'An incremental parsing system', 'Rust', 20000, 1800, '2026-11-01T10:00:00Z', ['parser']),
  repo(5, 'nats-io', 'nats-server', 'High-Performance server for NATS', 'Go', 16000, 1500, '2026-10-20T10:00:00Z', ['nats']),
];

/** A repository object as GitHub's search API returns it (the documented fields). */
function repo(
  id: number,
  owner: string,
  name: string,
  description: string | null,
  language: string | null,
  stars: number,
  forks: number,
  pushed: string,
  topics: string[],
) {
  const full = `${owner}/${name}`;
  return {
    id,
    node_id: `R_${id}`,
    name,
    full_name: full,
    private: false,
    owner: { login: owner, id: id * 10, type: 'Organization', html_url: `https://github.com/${owner}` },
    html_url: `https://github.com/${full}`,
    description,
    fork: false,
    url: `https://api.github.com/repos/${full}`,
    created_at: '2020-01-01T00:00:00Z',
    updated_at: pushed,
    pushed_at: pushed,
    git_url: `git://github.com/${full}.git`,
    ssh_url: `git@github.com:${full}.git`,
    clone_url: `https://github.com/${full}.git`,
    svn_url: `https://github.com/${full}`,
    homepage: id === 1 ? 'https://sextant.dev' : null,
    size: 1000 * id,
    stargazers_count: stars,
    watchers_count: stars,
    language,
    forks_count: forks,
    open_issues_count: 3,
    default_branch: 'main',
    score: 1.0,
    license:
      id === 3 ? null : { key: 'mit', name: 'MIT License', spdx_id: 'MIT', url: 'https://api.github.com/licenses/mit', node_id: 'L_mit' },
    topics,
    visibility: 'public',
  };
}

const SORT_KEYS: Record<string, (r: (typeof REPOSITORIES)[number]) => number> = {
  stars: (r) => r.stargazers_count,
  forks: (r) => r.forks_count,
  updated: (r) => Date.parse(r.updated_at),
};

/**
 * A local stand-in for the GitHub REST search API, speaking its wire format:
 * statuses, `x-ratelimit-*` headers and documented JSON bodies. Faults are
 * scripted per request.
 */
export async function startFakeGitHub(): Promise<FakeGitHub> {
  const faults: GitHubFault[] = [];
  const requests: FakeGitHub['requests'] = [];
  const sockets = new Set<Socket>();
  let remaining = 5000;
  const reset = () => Math.floor(Date.now() / 1000) + 3600;

  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '', headers: req.headers });
    const fault = faults.shift();
    if (fault && 'hang' in fault) return;
    if (fault && 'drop' in fault) return req.socket.destroy();
    const rateHeaders = { 'x-ratelimit-limit': '5000', 'x-ratelimit-used': String(5000 - remaining), 'x-ratelimit-resource': 'search' };
    if (fault && 'rateLimitExhausted' in fault) {
      return send(
        res,
        403,
        { message: 'API rate limit exceeded for 127.0.0.1.', documentation_url: 'https://docs.github.com/rest/rate-limit' },
        {
          ...rateHeaders,
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(reset()),
        },
      );
    }
    if (fault && 'html' in fault) {
      res.writeHead(fault.status, { 'content-type': 'text/html' });
      return res.end(fault.html);
    }
    if (fault) return send(res, fault.status, fault.body ?? { message: `status ${fault.status}` }, { ...rateHeaders, ...fault.headers });

    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!url.pathname.replace(/^\/api\/v3/, '').startsWith('/search/repositories')) {
      return send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }, rateHeaders);
    }
    const q = url.searchParams.get('q');
    if (!q) {
      return send(res, 422, { message: 'Validation Failed', errors: [{ resource: 'Search', field: 'q', code: 'missing' }] }, rateHeaders);
    }
    remaining = Math.max(0, remaining - 1);
    const words = q.toLowerCase().split(/\s+/).filter(Boolean);
    let items = REPOSITORIES.filter((r) => words.some((w) => `${r.full_name} ${r.description ?? ''}`.toLowerCase().includes(w)));
    const sort = SORT_KEYS[url.searchParams.get('sort') ?? ''];
    if (sort) items = [...items].sort((a, b) => (url.searchParams.get('order') === 'asc' ? sort(a) - sort(b) : sort(b) - sort(a)));
    const perPage = Number(url.searchParams.get('per_page') ?? 30);
    const page = Number(url.searchParams.get('page') ?? 1);
    send(
      res,
      200,
      { total_count: items.length, incomplete_results: false, items: items.slice((page - 1) * perPage, page * perPage) },
      { ...rateHeaders, 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(reset()) },
    );
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    fail: (list) => faults.push(...list),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}
