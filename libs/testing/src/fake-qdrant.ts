import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** One exchange with the fake, as it came and went: checked against Qdrant's schema by `checkQdrantExchanges`. */
export interface QdrantExchange {
  /** Qdrant's operation id (its OpenAPI `operationId`), e.g. `query_points`. */
  operation: string;
  /** The URL's query parameters, typed as Qdrant's schema declares them (`wait=true` → `{wait: true}`). */
  query: Record<string, unknown>;
  body: unknown;
  status: number;
  response: unknown;
}

export interface FakeQdrantOptions {
  /** When set, requests must carry `api-key: <apiKey>` (Qdrant's header). */
  apiKey?: string;
}

interface Point {
  id: number | string;
  vectors: Record<string, number[] | { indices: number[]; values: number[] }>;
  payload: Record<string, unknown>;
}

interface Collection {
  dense: Map<string, { size: number }>;
  sparse: Map<string, { idf: boolean }>;
  points: Map<string, Point>;
}

export interface FakeQdrant {
  /** `QDRANT_URL`: `http://127.0.0.1:<port>`. */
  url: string;
  /** Every exchange, in order. */
  exchanges: QdrantExchange[];
  /** The points of a collection (for a test's own checks, or to seed points another indexer wrote). */
  points(collection: string): Point[];
  /** Adds points as another writer would (e.g. an older indexer's, with only `repo_root` in the payload). */
  seed(collection: string, points: Point[]): void;
  /** Answers every request with 503 until `up()` (Qdrant restarting). */
  down(): void;
  up(): void;
  close(): Promise<void>;
}

type Condition = Record<string, unknown>;

/**
 * A local server speaking Qdrant's REST wire format for the calls Sextant
 * makes (collection exists/create, payload index, upsert, delete by ids or
 * filter, Query API with nearest dense and sparse queries, prefetch and
 * weighted `rrf` fusion), with Qdrant's answer and error bodies. Search is
 * exact (cosine; sparse dot product with Qdrant's idf modifier; Qdrant's
 * rrf formula), so it ranks as Qdrant does up to HNSW's approximation.
 * Every exchange is recorded for `checkQdrantExchanges`.
 */
export async function startFakeQdrant(options: FakeQdrantOptions = {}): Promise<FakeQdrant> {
  const collections = new Map<string, Collection>();
  const exchanges: QdrantExchange[] = [];
  const sockets = new Set<Socket>();
  let isDown = false;
  /** A route's handler on an existing collection (Qdrant's 404 otherwise). */
  const existing =
    (run: (c: Collection, body: Record<string, unknown>) => [number, unknown]) =>
    (name: string, body: Record<string, unknown>): [number, unknown] => {
      const c = collections.get(name);
      return c ? run(c, body) : missing(name);
    };

  const routes: Array<{
    method: string;
    pattern: RegExp;
    operation: string;
    run: (name: string, body: Record<string, unknown>) => [number, unknown];
  }> = [
    { method: 'GET', pattern: /^\/$/, operation: 'root', run: () => [200, { title: 'qdrant - vector search engine', version: '1.18.0' }] },
    {
      method: 'GET',
      pattern: /^\/collections\/([^/]+)\/exists$/,
      operation: 'collection_exists',
      run: (name) => ok({ exists: collections.has(name) }),
    },
    {
      method: 'PUT',
      pattern: /^\/collections\/([^/]+)$/,
      operation: 'create_collection',
      run: (name, body) => {
        if (collections.has(name)) return fail(409, `Wrong input: Collection \`${name}\` already exists!`);
        const dense = new Map<string, { size: number }>();
        for (const [vector, params] of Object.entries((body.vectors ?? {}) as Record<string, { size: number }>)) {
          dense.set(vector, { size: params.size });
        }
        const sparse = new Map<string, { idf: boolean }>();
        for (const [vector, params] of Object.entries((body.sparse_vectors ?? {}) as Record<string, { modifier?: string }>)) {
          sparse.set(vector, { idf: params.modifier === 'idf' });
        }
        collections.set(name, { dense, sparse, points: new Map() });
        return ok(true);
      },
    },
    {
      method: 'PUT',
      pattern: /^\/collections\/([^/]+)\/index$/,
      operation: 'create_field_index',
      run: existing(() => ok({ operation_id: 1, status: 'completed' })),
    },
    {
      method: 'PUT',
      pattern: /^\/collections\/([^/]+)\/points$/,
      operation: 'upsert_points',
      run: existing((c, body) => {
        const points = (body.points ?? []) as Array<{ id: number | string; vector: Point['vectors']; payload?: Record<string, unknown> }>;
        for (const p of points) {
          for (const [vector, value] of Object.entries(p.vector)) {
            const dense = c.dense.get(vector);
            if (!dense && !c.sparse.has(vector)) return fail(400, `Wrong input: Not existing vector name error: ${vector}`);
            if (dense && (!Array.isArray(value) || value.length !== dense.size)) {
              return fail(
                400,
                `Wrong input: Vector dimension error: expected dim: ${dense.size}, got ${Array.isArray(value) ? value.length : 0}`,
              );
            }
          }
        }
        for (const p of points) c.points.set(String(p.id), { id: p.id, vectors: p.vector, payload: p.payload ?? {} });
        return ok({ operation_id: 1, status: 'completed' });
      }),
    },
    {
      method: 'POST',
      pattern: /^\/collections\/([^/]+)\/points\/delete$/,
      operation: 'delete_points',
      run: existing((c, body) => {
        if (Array.isArray(body.points)) for (const id of body.points) c.points.delete(String(id));
        else for (const p of [...c.points.values()]) if (matches(p, body.filter as Condition)) c.points.delete(String(p.id));
        return ok({ operation_id: 1, status: 'completed' });
      }),
    },
    {
      method: 'POST',
      pattern: /^\/collections\/([^/]+)\/points\/query$/,
      operation: 'query_points',
      run: existing((c, body) => {
        const found = query(c, body);
        if (typeof found === 'string') return fail(400, found);
        return ok({ points: found.map(({ point, score }) => ({ id: point.id, version: 1, score, payload: point.payload })) });
      }),
    },
  ];

  const respond = (res: ServerResponse, status: number, answer: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer));
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const route = routes.find((r) => r.method === req.method && r.pattern.test(url.pathname));
      if (!route) return respond(res, 404, { status: { error: `Not found: ${req.method} ${url.pathname}` }, time: 0 });
      if (isDown) return respond(res, 503, { status: { error: 'Service Unavailable' }, time: 0 });
      if (options.apiKey && req.headers['api-key'] !== options.apiKey) {
        return respond(res, 401, { status: { error: 'Must provide an API key or an Authorization bearer token' }, time: 0 });
      }
      let body: Record<string, unknown> = {};
      try {
        if (raw) body = JSON.parse(raw) as Record<string, unknown>;
      } catch (error) {
        return respond(res, 400, { status: { error: `Json deserialize error: ${(error as Error).message}` }, time: 0 });
      }
      const name = decodeURIComponent(route.pattern.exec(url.pathname)?.[1] ?? '');
      const [status, answer] = route.run(name, body);
      exchanges.push({
        operation: route.operation,
        query: typedQuery(url.searchParams),
        body: raw ? body : undefined,
        status,
        response: answer,
      });
      respond(res, status, answer);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('fake Qdrant: no port');

  return {
    url: `http://127.0.0.1:${address.port}`,
    exchanges,
    points: (collection) => [...(collections.get(collection)?.points.values() ?? [])],
    seed: (collection, points) => {
      const c = collections.get(collection);
      if (!c) throw new Error(`fake Qdrant: no collection ${collection}`);
      for (const p of points) c.points.set(String(p.id), p);
    },
    down: () => (isDown = true),
    up: () => (isDown = false),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const ok = (result: unknown): [number, unknown] => [200, { result, status: 'ok', time: 0.0001 }];
const fail = (status: number, error: string): [number, unknown] => [status, { status: { error }, time: 0.0001 }];
const missing = (name: string) => fail(404, `Not found: Collection \`${name}\` doesn't exist!`);

function typedQuery(params: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of params) out[k] = v === 'true' ? true : v === 'false' ? false : /^\d+$/.test(v) ? Number(v) : v;
  return out;
}

/** A filter as Qdrant evaluates it: `must` all, `should` at least one, `must_not` none; field conditions `match` and `is_empty`. */
function matches(point: Point, filter: Condition | null | undefined): boolean {
  if (!filter) return true;
  const list = (v: unknown) => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]) as Condition[];
  const must = list(filter.must);
  const should = list(filter.should);
  const mustNot = list(filter.must_not);
  return (
    must.every((c) => holds(point, c)) &&
    (should.length === 0 || should.some((c) => holds(point, c))) &&
    !mustNot.some((c) => holds(point, c))
  );
}

function holds(point: Point, c: Condition): boolean {
  if ('must' in c || 'should' in c || 'must_not' in c) return matches(point, c);
  if ('is_empty' in c) {
    const v = point.payload[(c.is_empty as { key: string }).key];
    return v === undefined || v === null || (Array.isArray(v) && v.length === 0);
  }
  const value = point.payload[c.key as string];
  const values = Array.isArray(value) ? value : [value];
  const match = c.match as { value?: unknown; any?: unknown[] } | undefined;
  if (match && 'value' in match) return values.includes(match.value);
  if (match?.any) return values.some((v) => match.any!.includes(v));
  return false;
}

interface Scored {
  point: Point;
  score: number;
}

/** The Query API over a collection: a nearest query (dense or sparse), or a fusion of prefetches; errors as Qdrant words them. */
function query(c: Collection, body: Record<string, unknown>, within?: readonly Point[]): Scored[] | string {
  const candidates = (within ?? [...c.points.values()]).filter((p) => matches(p, body.filter as Condition));
  const limit = typeof body.limit === 'number' ? body.limit : 10;
  const prefetch =
    body.prefetch === undefined || body.prefetch === null ? [] : Array.isArray(body.prefetch) ? body.prefetch : [body.prefetch];
  if (prefetch.length > 0) {
    const lists: Scored[][] = [];
    for (const p of prefetch as Array<Record<string, unknown>>) {
      const list = query(c, p, candidates);
      if (typeof list === 'string') return list;
      lists.push(list);
    }
    const q = body.query as { rrf?: { k?: number; weights?: number[] }; fusion?: string } | undefined;
    if (!q || !(q.rrf || q.fusion === 'rrf')) return 'Wrong input: this fake fuses prefetches with rrf only';
    const k = q.rrf?.k ?? 2;
    const weights = q.rrf?.weights ?? lists.map(() => 1);
    if (weights.length !== lists.length)
      return `Wrong input: the number of weights (${weights.length}) must match the number of prefetches (${lists.length})`;
    const fused = new Map<string, Scored>();
    lists.forEach((list, i) =>
      list.forEach(({ point }, position) => {
        // Qdrant: 1 / ((position + 1) / weight + k - 1).
        const add = 1 / ((position + 1) / weights[i] + k - 1);
        const entry = fused.get(String(point.id));
        if (entry) entry.score += add;
        else fused.set(String(point.id), { point, score: add });
      }),
    );
    return [...fused.values()].sort((a, b) => b.score - a.score).slice(0, limit);
  }
  const using = typeof body.using === 'string' ? body.using : '';
  const q = body.query as number[] | { indices: number[]; values: number[] } | { nearest: unknown } | undefined;
  const vector = q && typeof q === 'object' && 'nearest' in q ? (q.nearest as typeof q) : q;
  if (Array.isArray(vector)) {
    const dense = c.dense.get(using);
    if (!dense) return `Wrong input: Not existing vector name error: ${using}`;
    if (vector.length !== dense.size) return `Wrong input: Vector dimension error: expected dim: ${dense.size}, got ${vector.length}`;
    const norm = Math.hypot(...vector) || 1;
    return candidates
      .map((point) => {
        const v = point.vectors[using] as number[];
        return { point, score: v.reduce((s, x, i) => s + x * vector[i], 0) / (norm * (Math.hypot(...v) || 1)) };
      })
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
  }
  if (vector && 'indices' in (vector as object)) {
    const { indices, values } = vector as { indices: number[]; values: number[] };
    const sparse = c.sparse.get(using);
    if (!sparse) return `Wrong input: Not existing vector name error: ${using}`;
    const all = [...c.points.values()].map((p) => p.vectors[using] as { indices: number[] } | undefined).filter(Boolean);
    const weight = new Map<number, number>();
    indices.forEach((index, i) => {
      // Qdrant's idf modifier: ln(1 + (N - n + 0.5) / (n + 0.5)) over the collection.
      const n = all.filter((v) => v!.indices.includes(index)).length;
      weight.set(index, values[i] * (sparse.idf ? Math.log(1 + (all.length - n + 0.5) / (n + 0.5)) : 1));
    });
    return candidates
      .map((point) => {
        const v = point.vectors[using] as { indices: number[]; values: number[] } | undefined;
        let score = 0;
        v?.indices.forEach((index, i) => (score += (weight.get(index) ?? 0) * v.values[i]));
        return { point, score };
      })
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
  }
  return 'Wrong input: this fake answers nearest queries (dense or sparse) and rrf fusions only';
}
