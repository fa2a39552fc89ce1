import type { Freshness, RegisteredRepository, SearchCode } from '@sextant/contracts';
import { BusRequestError } from '@sextant/messaging';
import type { Scope, Scopes } from '@sextant/registry-client';
import { ServiceError } from '@sextant/work';
import type { Database } from '@sextant/persistence';
import type { EmbedOptions, Embedder } from '../embedding/embedder.js';
import { pathTokens, tokenize } from '../lexical/tokenizer.js';
import { indexedCollections, UNKNOWN_REPOSITORY, type ChunkStore } from '../store/chunk-store.js';
import { codeNames, DEFINITIONS_PER_NAME, rankDefinitions } from './code-names.js';
import { demoteTests, spreadAcrossFiles, withList, withoutOverlaps, withSignals, type Ranked } from './fusion.js';
import type { Hit } from './hit.js';

type SearchMode = 'hybrid' | 'semantic' | 'lexical';

/** What search_code and ask_code share: the query and where to look. */
export interface SearchInput {
  query: string;
  scope?: SearchCode.Request['scope'];
  repo?: string;
  workspace?: string;
  pathPrefix?: string;
  vector?: number[];
  mode: SearchMode;
  topK: number;
  /** Results scoring below it are left out (0–1). */
  minScore?: number;
}

/** A search's findings and what its answer says about them. */
export interface Found {
  results: Array<Ranked & { repo: string }>;
  /** Chunks that scored, before the cut to topK (after overlaps went). */
  total: number;
  scope: SearchCode.Response['meta']['scope'];
  /** The mode the search ran in: `lexical` when the query could not be embedded. */
  mode: SearchMode;
  warnings: string[];
  freshness: Freshness;
  /** None of the query's words occurs in what was searched: results, if any, are only near in the embedding space. */
  lowConfidence: boolean;
}

/** Each side of a hybrid search contributes this many candidates at least. */
const MIN_DEPTH = 50;
/**
 * In hybrid search, the dense list's weight in the fusion when the embedder
 * is the built-in one: its vectors hash the same words the lexical side
 * ranks, a weaker and partly redundant signal (bench/search-quality).
 */
const HASHED_DENSE_WEIGHT = 0.5;
/**
 * In hybrid search, the weight of the file-level list (whole files by BM25, each as its best chunk; the `local`
 * store): it sees a file's whole vocabulary, where a chunk sees its own lines. Six retrieval sets (bench:search-quality
 * --sets): mean MRR 0.679 → 0.704 at 4; 0.5, 2 and 6 gave 0.679, 0.697, 0.701 (ADR 0049).
 */
const FILE_WEIGHT = 4;
/** Chunks of one file among the first results, at most (its others follow every file's first ones). */
const CHUNKS_PER_FILE = 2;
/**
 * A test file's score when the query does not ask for tests. Measured on the six retrieval sets (bench:search-quality
 * --sets): hybrid mean MRR 0.594 → 0.677 (1.15× → 1.31× the whole-file BM25 floor), R@10 0.814 → 0.861; 0.7 gave
 * 0.671, 0.3 0.680 with requests' no-leak queries a little better — 0.5 sits between.
 */
const TEST_FACTOR = 0.5;
/** Characters of a chunk returned as its snippet. */
const SNIPPET_MAX = 2_000;

export interface SearchServiceDeps {
  db: Database;
  store: ChunkStore;
  embedder: Embedder;
  scopes: Scopes;
  allowGlobalScope: boolean;
  /** Hybrid search's weight of the definitions a query names; 0 leaves them out (SEARCH_DEFINITION_WEIGHT). */
  definitionWeight: number;
  /** How long a query's embedding is waited for (an embeddings endpoint), and how often retried. */
  queryEmbedding: EmbedOptions;
}

/** After a query's embedding failed, searches skip the dense side this long (the endpoint is not waited for on every call). */
const EMBEDDINGS_PAUSE_MS = 10_000;

/**
 * Hybrid search over one collection: lexical (the code tokenizer's terms,
 * ranked BM25-style by the store) and dense (the
 * embedder's vectors, nearest by cosine), fused by reciprocal rank with
 * symbol and path signals, overlapping chunks dropped, over the repositories
 * a scope names (resolved by the registry and projects).
 */
export class SearchService {
  private embeddingsFailed: { at: number; reason: string } | undefined;

  constructor(private readonly deps: SearchServiceDeps) {}

  get collection(): string {
    return this.deps.store.collection;
  }

  get embeddings(): { model: string; kind: 'lexical' | 'semantic'; dimension: number } {
    const { model, kind, dimension } = this.deps.embedder;
    return { model, kind, dimension };
  }

  async find(input: SearchInput): Promise<Found> {
    const scope = await this.scopeOf(input);
    const warnings: string[] = [];
    const ids = scope.repositories?.map((r) => r.id) ?? null;
    if (scope.repositories) await this.checkIndexed(scope.repositories, warnings);
    if (input.vector && input.vector.length !== this.deps.embedder.dimension) {
      throw ServiceError.invalid({
        vector: `has ${input.vector.length} dimensions; this collection (${this.collection}, model ${this.deps.embedder.model}) takes ${this.deps.embedder.dimension}`,
      });
    }
    const depth = Math.min(200, Math.max(MIN_DEPTH, input.topK * 4));
    const filter = { repositoryIds: ids, pathPrefix: input.pathPrefix ?? null, limit: depth };
    const words = [...new Set(tokenize(input.query))];
    const vector =
      input.mode === 'lexical' ? undefined : input.vector ? Float32Array.from(input.vector) : await this.queryVector(input.query, warnings);
    // Without the query's vector, hybrid and semantic searches answer lexically (the warning says why).
    const mode = vector ? input.mode : 'lexical';
    let ranked: Ranked[];
    if (mode === 'hybrid') {
      const dense = this.deps.embedder.kind === 'lexical' ? HASHED_DENSE_WEIGHT : 1;
      const weight = this.deps.definitionWeight;
      const names = weight > 0 ? codeNames(input.query) : { exact: [], last: [] };
      const [fused, definitions] = await Promise.all([
        this.deps.store.hybrid(words, vector!, filter, { lexical: 1, dense, files: FILE_WEIGHT }),
        this.deps.store.definitions(names, filter, DEFINITIONS_PER_NAME),
      ]);
      const named = rankDefinitions(definitions, names);
      ranked =
        named.length === 0
          ? withSignals(fused.hits, new Set(words), pathTokens, fused.weights)
          : withSignals(withList(fused.hits, named, weight), new Set(words), pathTokens, [...fused.weights, weight]);
    } else if (mode === 'semantic') {
      ranked = (await this.deps.store.dense(vector!, filter)).map((h) => ({ ...h, score: Math.max(0, Math.min(1, h.score)) }));
    } else ranked = (await this.deps.store.lexical(words, filter)).map((h) => ({ ...h, score: h.score / (h.score + 1) }));
    ranked = demoteTests(ranked, new Set(words), TEST_FACTOR);
    ranked = spreadAcrossFiles(withoutOverlaps(ranked), CHUNKS_PER_FILE);
    // A precomputed vector has no words to judge by; a lexical search finds only chunks holding them.
    const lowConfidence = input.vector === undefined && mode !== 'lexical' && !sharesAWord(ranked, words);
    if (lowConfidence) {
      warnings.push(
        words.length === 0
          ? 'The query has no words to match (only common words): these results are only near it in the embedding space.'
          : `None of the query's words (${words.slice(0, 5).join(', ')}) occurs in what was searched: these results are only near it in the embedding space.`,
      );
    }
    if (input.minScore !== undefined) ranked = ranked.filter((h) => h.score >= input.minScore!);
    const ours = ranked.filter((h) => h.repositoryId !== UNKNOWN_REPOSITORY);
    const repositories = await this.deps.scopes.repositoriesOf(scope, ours);
    // Rows that name no repository cannot be checked: only a caller who may read every repository sees them.
    const known = ranked.filter((h) => repositories.has(h.repositoryId) || (h.repositoryId === UNKNOWN_REPOSITORY && !scope.restricted));
    if (known.length > ours.length) {
      warnings.push(
        `Some results come from points without a "repo" payload (written by an older indexer that stored only repo_root): they show repo "${UNKNOWN_REPOSITORY}", and the scope's repository filter is best effort for them. Re-index to filter precisely.`,
      );
    }
    const answer = await this.deps.scopes.answer(scope, repositories);
    for (const f of answer.freshness) {
      if (f.behind_head)
        warnings.push(`${f.repo}: the index reflects commit ${f.commit?.slice(0, 12)}; its branch has moved on (sync_repo).`);
    }
    if (answer.hint) warnings.push(`${answer.hint}.`);
    return {
      results: known.slice(0, input.topK).map((h) => ({
        ...h,
        repo: repositories.get(h.repositoryId)?.name ?? UNKNOWN_REPOSITORY,
        content: h.content.length > SNIPPET_MAX ? `${h.content.slice(0, SNIPPET_MAX)}…` : h.content,
      })),
      total: known.length,
      scope: effective(scope),
      mode,
      warnings,
      freshness: answer.freshness,
      lowConfidence,
    };
  }

  /**
   * The query's embedding, or undefined (with a warning) when the embedder
   * failed: search then answers from the lexical side alone. After a failure
   * the endpoint is left alone for EMBEDDINGS_PAUSE_MS.
   */
  private async queryVector(query: string, warnings: string[]): Promise<Float32Array | undefined> {
    const failed = this.embeddingsFailed;
    if (failed && Date.now() - failed.at < EMBEDDINGS_PAUSE_MS) {
      warnings.push(
        `The embeddings endpoint failed ${Math.round((Date.now() - failed.at) / 1000)} s ago (${failed.reason}): these results are lexical only.`,
      );
      return undefined;
    }
    try {
      const [vector] = await this.deps.embedder.embed([query], this.deps.queryEmbedding);
      this.embeddingsFailed = undefined;
      return vector;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.embeddingsFailed = { at: Date.now(), reason };
      warnings.push(`The query could not be embedded (${reason}): these results are lexical only.`);
      return undefined;
    }
  }

  /** `scope` wins over `repo`; neither: the workspace (the default one); `all` only where allowed. */
  private async scopeOf(input: SearchInput): Promise<Scope> {
    const { scope } = input;
    if (scope?.type === 'all') {
      if (!this.deps.allowGlobalScope) {
        throw ServiceError.of(
          'forbidden',
          'scope {type: "all"} is not allowed on this server (ALLOW_GLOBAL_SCOPE is not true); name repositories or a project.',
          {
            scope: 'all',
          },
        );
      }
      return this.deps.scopes.all();
    }
    if (scope?.type === 'repo') return this.deps.scopes.of({ repo: scope.repo }, false);
    if (scope?.type === 'repos') return this.deps.scopes.of({ repos: scope.repos }, false);
    if (scope?.type === 'project') return this.deps.scopes.of({ project: scope.project }, false);
    if (input.repo !== undefined) return this.deps.scopes.of({ repo: input.repo }, false);
    try {
      return await this.deps.scopes.of({ workspace: input.workspace }, false);
    } catch (error) {
      if (input.workspace === undefined && error instanceof BusRequestError && error.error.code === 'invalid_input') {
        throw ServiceError.invalid({ scope: 'required: name a scope or repo; this server has no default workspace' });
      }
      throw error;
    }
  }

  /**
   * Each repository of the scope is in this collection, or the answer says
   * why not: not indexed for search yet (a warning), or indexed with another
   * embedding model (`index_incompatible` when none of the scope is usable).
   */
  private async checkIndexed(repositories: readonly RegisteredRepository[], warnings: string[]): Promise<void> {
    if (repositories.length === 0) return;
    const indexed = await indexedCollections(
      this.deps.db,
      repositories.map((r) => r.id),
    );
    const incompatible: string[] = [];
    let usable = 0;
    for (const r of repositories) {
      const collections = indexed.get(r.id) ?? [];
      if (collections.some((c) => c.collection === this.collection)) usable++;
      else if (collections.length > 0) {
        incompatible.push(r.name);
        warnings.push(
          `${r.name} was indexed with another embedding model (collection ${collections[0].collection}); this server uses ${this.collection}: re-index it (index_repo {force: true}).`,
        );
      } else warnings.push(`${r.name} has no search index yet (index_status shows its indexing).`);
    }
    if (usable === 0 && incompatible.length > 0) {
      throw ServiceError.of(
        'index_incompatible',
        `${incompatible.join(', ')} ${incompatible.length === 1 ? 'was' : 'were'} indexed with another embedding model than this server's (${this.deps.embedder.model}, collection ${this.collection}); re-index with index_repo {force: true} or index_repository.`,
        { repos: incompatible, collection: this.collection },
      );
    }
  }
}

/** The scope an answer reports: by type, with repository names (a workspace is its repository). */
function effective(scope: Scope): SearchCode.Response['meta']['scope'] {
  if (scope.type === 'all') return { type: 'all' };
  const repos = (scope.repositories ?? []).map((r) => r.name);
  if (scope.type === 'project') return { type: 'project', project: scope.project, repos };
  return { type: scope.type === 'repos' ? 'repos' : 'repo', repos };
}

/** Whether any candidate holds one of the query's words (its content, path or symbol, as the tokenizer splits them). */
function sharesAWord(hits: readonly Hit[], words: readonly string[]): boolean {
  if (words.length === 0) return false;
  const wanted = new Set(words);
  return hits.some((h) => [h.content, h.path, h.symbol ?? ''].some((text) => tokenize(text).some((t) => wanted.has(t))));
}
