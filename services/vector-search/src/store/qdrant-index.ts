import { Logger } from '@nestjs/common';
import { QdrantClient, type Schemas } from '@qdrant/js-client-rest';
import { ServiceError } from '@sextant/work';
import { lazy } from '../lazy.js';
import { saturated, type TermCounts } from '../lexical/postings.js';

/** Qdrant's request shapes, as its client declares them (generated from Qdrant's OpenAPI schema). */
type QueryRequest = Schemas['QueryRequest'];
type Filter = Schemas['Filter'];
type Condition = Schemas['Condition'];

/** A chunk as Qdrant holds it: the Postgres row's key as the point id, both vectors, and a payload that describes it. */
export interface QdrantChunk {
  key: bigint;
  vector: Float32Array;
  terms: TermCounts;
  repositoryId: string;
  /** The repository's name (payload `repo`, what older indexers and people filter on). */
  repo: string;
  path: string;
  startLine: number;
  endLine: number;
  language: string | null;
  symbol: string | null;
  commit: string | null;
}

/** A point found: ours (its key leads to the row in Postgres) or, without a `repo` payload, one an older indexer wrote. */
export interface QdrantHit {
  key: bigint | null;
  score: number;
  payload: Record<string, unknown>;
}

export interface QdrantFilter {
  repositoryIds: readonly string[] | null;
  pathPrefix: string | null;
}

export interface QdrantIndexOptions {
  url: string;
  apiKey: string | undefined;
  /** The collection's name (the embedder's: `<model>_<dimension>`). */
  collection: string;
  dimension: number;
  timeoutMs: number;
}

/** Named vectors of a point. */
const DENSE = 'dense';
const LEXICAL = 'lexical';
/**
 * A chunk's length (its weighted term occurrences) is normalized against this
 * average: Qdrant applies the idf at query time but leaves BM25's length
 * normalization to whoever writes the sparse vector.
 */
const AVERAGE_LENGTH = 80;
/** Points per upsert request. */
const UPSERT_BATCH = 256;
/** HNSW candidates looked at per query, at least. */
const HNSW_EF = 128;

/**
 * A collection in Qdrant (`VECTOR_STORE=qdrant`, ADR 0023): per chunk a point
 * with a dense vector (cosine) and a sparse one of its terms (BM25 weights,
 * Qdrant's idf modifier), payload `repo`, `repository_id`, `path`, `dirs`
 * (the path's folders, for `pathPrefix`), lines, language, symbol, commit.
 * Hybrid queries are one Query API call: both vectors prefetched, fused by
 * weighted reciprocal rank. The chunks' text stays in Postgres, which says
 * which points are live (ChunkStore).
 */
export class QdrantIndex {
  private readonly log = new Logger('QdrantIndex');
  private readonly client: QdrantClient;

  constructor(private readonly options: QdrantIndexOptions) {
    this.client = new QdrantClient({
      url: options.url,
      apiKey: options.apiKey,
      timeout: options.timeoutMs,
      checkCompatibility: false,
    });
  }

  /** Makes the collection if Qdrant lacks it; true when it was made (empty). */
  readonly open = lazy(() => this.create());

  private async create(): Promise<boolean> {
    const name = this.options.collection;
    const { exists } = await this.call('open the collection', () => this.client.collectionExists(name));
    if (exists) return false;
    try {
      await this.client.createCollection(name, {
        vectors: { [DENSE]: { size: this.options.dimension, distance: 'Cosine' } },
        sparse_vectors: { [LEXICAL]: { modifier: 'idf' } },
      });
    } catch (error) {
      // Another replica made it first.
      if (!(await this.client.collectionExists(name)).exists) throw unavailable('create the collection', error);
      return false;
    }
    for (const field of ['repository_id', 'dirs', 'repo']) {
      await this.call('index the payload', () =>
        this.client.createPayloadIndex(name, { field_name: field, field_schema: 'keyword', wait: true }),
      );
    }
    this.log.log(`made collection ${name} in Qdrant (${this.options.dimension} dimensions, dense + sparse)`);
    return true;
  }

  async upsert(chunks: readonly QdrantChunk[]): Promise<void> {
    await this.open();
    for (let i = 0; i < chunks.length; i += UPSERT_BATCH) {
      const points = chunks.slice(i, i + UPSERT_BATCH).map((c) => ({
        id: Number(c.key),
        vector: { [DENSE]: Array.from(c.vector), [LEXICAL]: sparse(c.terms) },
        payload: {
          repo: c.repo,
          repository_id: c.repositoryId,
          path: c.path,
          dirs: folders(c.path),
          start_line: c.startLine,
          end_line: c.endLine,
          language: c.language,
          symbol: c.symbol,
          commit: c.commit,
        },
      }));
      await this.call('store points', () => this.client.upsert(this.options.collection, { wait: true, points }));
    }
  }

  async delete(keys: readonly bigint[]): Promise<void> {
    if (keys.length === 0) return;
    await this.open();
    await this.call('delete points', () => this.client.delete(this.options.collection, { wait: true, points: keys.map(Number) }));
  }

  async deleteRepositories(repositoryIds: readonly string[]): Promise<void> {
    await this.open();
    await this.call('delete points', () =>
      this.client.delete(this.options.collection, {
        wait: true,
        filter: { must: [{ key: 'repository_id', match: { any: [...repositoryIds] } }] },
      }),
    );
  }

  dense(vector: Float32Array, filter: QdrantFilter, limit: number): Promise<QdrantHit[]> {
    return this.query({ ...denseSide(vector, limit), filter: condition(filter) }, limit);
  }

  lexical(words: readonly string[], filter: QdrantFilter, limit: number): Promise<QdrantHit[]> {
    return this.query({ ...lexicalSide(words), filter: condition(filter) }, limit);
  }

  /**
   * Both sides in one call: each prefetched `limit` deep with the scope's
   * filter, fused by reciprocal rank (`k`, a weight per side: lexical, dense).
   */
  hybrid(
    words: readonly string[],
    vector: Float32Array,
    filter: QdrantFilter,
    limit: number,
    rrf: { k: number; weights: readonly [number, number] },
  ): Promise<QdrantHit[]> {
    const where = condition(filter);
    return this.query(
      {
        prefetch: [
          { ...lexicalSide(words), filter: where, limit },
          { ...denseSide(vector, limit), filter: where, limit },
        ],
        query: { rrf: { k: rrf.k, weights: [...rrf.weights] } },
      },
      limit,
    );
  }

  private async query(request: QueryRequest, limit: number): Promise<QdrantHit[]> {
    await this.open();
    const { points } = await this.call('search', () =>
      this.client.query(this.options.collection, { ...request, limit, with_payload: true }),
    );
    return points.map((p) => {
      const payload = p.payload ?? {};
      const ours = typeof payload.repo === 'string' && typeof payload.repository_id === 'string';
      return { key: ours ? BigInt(p.id) : null, score: p.score, payload };
    });
  }

  /** A Qdrant call; failing to reach Qdrant is `unavailable` (retryable), naming what was being done. */
  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw unavailable(what, error);
    }
  }
}

function unavailable(what: string, error: unknown): ServiceError {
  const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
  return ServiceError.of('unavailable', `Qdrant could not ${what} (${reason}); retry when it is back.`, { store: 'qdrant' });
}

/**
 * The scope as a Qdrant filter: the repositories' points, and points with no
 * `repo` at all (older indexers'; best effort, the search says so); the
 * path's folder (the exact prefix is checked against Postgres).
 */
function condition(filter: QdrantFilter): Filter | undefined {
  const must: Condition[] = [];
  if (filter.repositoryIds !== null) {
    must.push({
      should: [{ key: 'repository_id', match: { any: [...filter.repositoryIds] } }, { is_empty: { key: 'repo' } }],
    });
  }
  const folder = filter.pathPrefix?.slice(0, filter.pathPrefix.lastIndexOf('/') + 1);
  if (folder) must.push({ key: 'dirs', match: { value: folder } });
  return must.length > 0 ? { must } : undefined;
}

/** `a/b/c.ts` → `["a/", "a/b/"]`. */
function folders(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) out.push(path.slice(0, i + 1));
  return out;
}

/** A chunk's terms as a sparse vector: term hash → BM25 weight (idf left to Qdrant). */
function sparse(terms: TermCounts): { indices: number[]; values: number[] } {
  let length = 0;
  for (const tf of terms.values()) length += tf;
  const weights = new Map<number, number>();
  for (const [term, tf] of terms) {
    const index = termIndex(term);
    weights.set(index, (weights.get(index) ?? 0) + saturated(tf, length, AVERAGE_LENGTH));
  }
  return { indices: [...weights.keys()], values: [...weights.values()] };
}

/** A nearest query on the dense vector (HNSW looking at HNSW_EF candidates at least). */
function denseSide(vector: Float32Array, limit: number): QueryRequest {
  return { query: Array.from(vector), using: DENSE, params: { hnsw_ef: Math.max(HNSW_EF, limit) } };
}

/** A nearest query on the sparse vector: each query word once (Qdrant weighs it by its idf). */
function lexicalSide(words: readonly string[]): QueryRequest {
  const indices = [...new Set(words.map(termIndex))];
  return { query: { indices, values: indices.map(() => 1) }, using: LEXICAL };
}

/** A term's dimension in the sparse vectors: FNV-1a (32 bits) of its UTF-16 code units. */
export function termIndex(term: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) {
    h ^= term.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
