/**
 * BM25 in Postgres (ADR 0058): an inverted index of a collection's chunks beside its chunk table, so the Postgres
 * stores rank words as the local store's postings do (`Postings`), not by ts_rank (which saturates a word's count at
 * about 1.6 occurrences whatever the chunk, and cannot rank whole files).
 *
 * Two tables per collection, rewritten for the files a write touches in the transaction that writes their chunks:
 * - `terms_<collection>`: a row per file and term: the term's count in the file and the file's length, and, in
 *   arrays, the chunks holding it with the term's count in each and each one's length (a row per chunk and term
 *   would be about three times as many rows to write and index). Its key starts with the term and includes the
 *   file's counts, so whole-file ranking and document frequencies read the index alone (once vacuumed).
 * - `files_<collection>`: a row per file, its length and its number of chunks (BM25's N and mean lengths of a scope).
 *
 * A term's count is the local store's (`termCounts` of the chunk's lexemes: a header occurrence counts
 * HEADER_WEIGHT); a length is the counts' sum. Queries are ranked with the same k1, b and idf as the local store.
 */
import { Logger } from '@nestjs/common';
import { sql, type Statement } from '@sextant/persistence';
import { B, idf, K1, termCounts } from '../lexical/postings.js';
import type { Hit } from '../search/hit.js';
import { numeric, type ChunkTable, type InTransaction, type SearchFilter, type SearchOptions } from './vector-index.js';

const COLUMNS = `ch.repository_id AS "repositoryId", ch.path, ch.ordinal, ch.start_line AS "startLine", ch.end_line AS "endLine", ch.language, ch.symbol, ch.commit, ch.content`;

/**
 * The BM25 sum over postings `p` (`term`, `tf`, `length`) of the query's terms (`$2`, weighted idf × (k1 + 1) by
 * `$3`); `avg`: the mean length. A term's weight is found by its place in `$2`, not joined: then one index scan reads
 * every term's postings.
 */
const bm25 = (p: string, avg: string) =>
  `sum(($3::float8[])[array_position($2::text[], ${p}.term)] * ${p}.tf / (${p}.tf + ${K1}::float8 * (1 - ${B}::float8 + ${B}::float8 * ${p}.length / ${avg}::float8)))`;

/** A scope condition on `$1` (repository ids, or null for all) for the table aliased `x`. */
const SCOPE = `($1::text[] IS NULL OR x.repository_id = ANY($1::text[]))`;

/** The chunks of `x`'s row as postings (`ordinal`, `tf`, `length`, and the row's `term`, `repository_id`, `path`). */
const CHUNK_POSTINGS = `(SELECT x.term, x.repository_id, x.path, u.ordinal, u.tf, u.length
  FROM unnest(x.ordinals, x.tfs, x.lengths) AS u(ordinal, tf, length))`;

/** A chunk's lexemes as they are written or read back (`lexemes::text`). */
interface ChunkLexemes {
  path: string;
  ordinal: number;
  lexemes: string;
}

type Statements =
  | 'create'
  | 'createTerms'
  | 'indexTerms'
  | 'any'
  | 'anyChunk'
  | 'page'
  | 'forget'
  | 'forgetTerms'
  | 'insert'
  | 'insertTerms'
  | 'scope'
  | 'chunkDf'
  | 'fileDf'
  | 'chunks'
  | 'files'
  | 'purge'
  | 'purgeTerms';

/** Files counted per statement when a collection's terms are counted from its chunks (at open). */
const FILL_FILES = 500;

export class TermTables {
  private readonly log = new Logger('TermTables');
  private readonly sql: Record<Statements, Statement>;

  constructor(private readonly table: ChunkTable) {
    const { name: t, collection: c } = table;
    const f = `"vector_search"."files_${c}"`;
    const tt = `"vector_search"."terms_${c}"`;
    this.sql = {
      create: sql(
        `files.${c}.create`,
        `CREATE TABLE IF NOT EXISTS ${f} (repository_id text NOT NULL, path text NOT NULL, length int NOT NULL, chunks int NOT NULL,
           PRIMARY KEY (repository_id, path))`,
      ),
      createTerms: sql(
        `terms.${c}.create`,
        `CREATE TABLE IF NOT EXISTS ${tt} (term text NOT NULL, repository_id text NOT NULL, path text NOT NULL,
           tf int NOT NULL, length int NOT NULL, chunks int NOT NULL, ordinals int[] NOT NULL, tfs int[] NOT NULL, lengths int[] NOT NULL,
           PRIMARY KEY (term, repository_id, path) INCLUDE (tf, length, chunks))`,
      ),
      // A write forgets a file's terms by its repository and path.
      indexTerms: sql(`terms.${c}.index`, `CREATE INDEX IF NOT EXISTS "terms_${c}_file" ON ${tt} (repository_id, path)`),
      any: sql(`files.${c}.any`, `SELECT EXISTS (SELECT 1 FROM ${f}) AS yes`),
      anyChunk: sql(`chunks.${c}.any`, `SELECT EXISTS (SELECT 1 FROM ${t}) AS yes`),
      // Whole files' chunks after ($1, $2), $3 files at most.
      page: sql(
        `chunks.${c}.lexemes`,
        `SELECT repository_id AS "repositoryId", path, ordinal, lexemes::text AS lexemes FROM ${t}
         WHERE (repository_id, path) IN (
           SELECT DISTINCT repository_id, path FROM ${t} WHERE (repository_id, path) > ($1, $2) ORDER BY 1, 2 LIMIT $3)
         ORDER BY 1, 2, 3`,
      ),
      forget: sql(`files.${c}.forget`, `DELETE FROM ${f} WHERE repository_id = $1 AND path = ANY($2::text[])`),
      forgetTerms: sql(`terms.${c}.forget`, `DELETE FROM ${tt} WHERE repository_id = $1 AND path = ANY($2::text[])`),
      insert: sql(
        `files.${c}.insert`,
        `INSERT INTO ${f} (repository_id, path, length, chunks) SELECT $1, * FROM unnest($2::text[], $3::int[], $4::int[])`,
      ),
      // Arrays per row are sent as their text (`{1,2}`): a text[] of them, each cast.
      insertTerms: sql(
        `terms.${c}.insert`,
        `INSERT INTO ${tt} (term, repository_id, path, tf, length, chunks, ordinals, tfs, lengths)
         SELECT u.term, $1, u.path, u.tf, u.length, cardinality(u.ordinals::int[]), u.ordinals::int[], u.tfs::int[], u.lengths::int[]
         FROM unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[])
           AS u(term, path, tf, length, ordinals, tfs, lengths)`,
      ),
      // BM25's N and mean lengths over a scope: its chunks and its files.
      scope: sql(
        `files.${c}.scope`,
        `SELECT coalesce(sum(chunks), 0)::int AS chunks, count(*)::int AS files, coalesce(sum(length), 0)::float8 AS length
         FROM ${f} x WHERE ${SCOPE}`,
      ),
      // $2: terms; a term's chunks and files in the scope.
      chunkDf: sql(
        `terms.${c}.chunk-df`,
        `SELECT q AS term, (SELECT coalesce(sum(x.chunks), 0) FROM ${tt} x WHERE x.term = q AND ${SCOPE})::int AS df FROM unnest($2::text[]) AS q`,
      ),
      fileDf: sql(
        `terms.${c}.file-df`,
        `SELECT q AS term, (SELECT count(*) FROM ${tt} x WHERE x.term = q AND ${SCOPE})::int AS df FROM unnest($2::text[]) AS q`,
      ),
      // $2 terms, $3 their weights, $4 the mean chunk length, $5 a path prefix or null, $6 how many.
      chunks: sql(
        `terms.${c}.chunks`,
        `WITH top AS (
           SELECT p.repository_id, p.path, p.ordinal, ${bm25('p', '$4')} AS score
           FROM ${tt} x CROSS JOIN LATERAL ${CHUNK_POSTINGS} p
           WHERE x.term = ANY($2::text[]) AND ${SCOPE} AND ($5::text IS NULL OR starts_with(x.path, $5))
           GROUP BY 1, 2, 3 ORDER BY score DESC, p.path, p.ordinal LIMIT $6::int)
         SELECT ${COLUMNS}, top.score FROM top JOIN ${t} ch USING (repository_id, path, ordinal)
         ORDER BY top.score DESC, top.path, top.ordinal`,
      ),
      // $2 terms, $3 their weights, $4 the mean file length, $5 the mean chunk length, $6 how many; each file as its
      // best chunk on the same terms.
      files: sql(
        `terms.${c}.files`,
        `WITH top AS (
           SELECT x.repository_id, x.path, ${bm25('x', '$4')} AS score
           FROM ${tt} x
           WHERE x.term = ANY($2::text[]) AND ${SCOPE}
           GROUP BY 1, 2 ORDER BY score DESC, x.path LIMIT $6::int),
         best AS (
           SELECT top.repository_id, top.path, top.score, (
             SELECT p.ordinal FROM ${tt} x CROSS JOIN LATERAL ${CHUNK_POSTINGS} p
             WHERE x.term = ANY($2::text[]) AND x.repository_id = top.repository_id AND x.path = top.path
             GROUP BY p.ordinal ORDER BY ${bm25('p', '$5')} DESC, p.ordinal LIMIT 1) AS ordinal
           FROM top)
         SELECT ${COLUMNS}, best.score FROM best JOIN ${t} ch USING (repository_id, path, ordinal)
         ORDER BY best.score DESC, best.path`,
      ),
      purge: sql(`files.${c}.purge`, `DELETE FROM ${f} WHERE repository_id = ANY($1::text[])`),
      purgeTerms: sql(`terms.${c}.purge`, `DELETE FROM ${tt} WHERE repository_id = ANY($1::text[])`),
    };
  }

  /**
   * Makes the tables (a collection made before them has none) and, when they are empty and the chunk table is not,
   * counts every file once, from its chunks' lexemes. Runs under the collection's lock, as the store's `open` does.
   */
  async open(): Promise<void> {
    const { db, collection } = this.table;
    for (const s of ['create', 'createTerms', 'indexTerms'] as const) await db.run(this.sql[s], []);
    const yes = async (s: Statement) => (await db.run<{ yes: boolean }>(s, [])).rows[0].yes;
    if ((await yes(this.sql.any)) || !(await yes(this.sql.anyChunk))) return;
    const started = Date.now();
    let after = ['', ''];
    let files = 0;
    for (;;) {
      const { rows } = await db.run<ChunkLexemes & { repositoryId: string }>(this.sql.page, [...after, FILL_FILES]);
      if (rows.length === 0) break;
      const byRepository = new Map<string, ChunkLexemes[]>();
      for (const r of rows) byRepository.set(r.repositoryId, [...(byRepository.get(r.repositoryId) ?? []), r]);
      await db.transaction(async (m) => {
        for (const [id, chunks] of byRepository) await this.insert(id, chunks, { run: (s, v) => db.run(s, v, m) });
      });
      const last = rows[rows.length - 1];
      after = [last.repositoryId, last.path];
      files += new Set(rows.map((r) => `${r.repositoryId}\0${r.path}`)).size;
    }
    this.log.log(`collection ${collection}: counted the terms of ${files} files for BM25 (${Date.now() - started} ms)`);
  }

  /**
   * Counts these files of a repository again, in the write's transaction: `paths` the files rewritten or removed,
   * `chunks` what they now hold.
   */
  async recount(repositoryId: string, paths: readonly string[], chunks: readonly ChunkLexemes[], tx: InTransaction): Promise<void> {
    if (paths.length === 0) return;
    for (const s of [this.sql.forgetTerms, this.sql.forget]) await tx.run(s, [repositoryId, paths]);
    await this.insert(repositoryId, chunks, tx);
  }

  /** The rows of these chunks' files (whole files: every chunk of each). */
  private async insert(repositoryId: string, chunks: readonly ChunkLexemes[], tx: InTransaction): Promise<void> {
    if (chunks.length === 0) return;
    const files = new Map<string, { length: number; chunks: number; terms: Map<string, { tf: number; ordinals: number[]; tfs: number[]; lengths: number[] }> }>();
    for (const chunk of chunks) {
      const counts = termCounts(chunk.lexemes);
      let length = 0;
      for (const tf of counts.values()) length += tf;
      let file = files.get(chunk.path);
      if (!file) files.set(chunk.path, (file = { length: 0, chunks: 0, terms: new Map() }));
      file.length += length;
      file.chunks++;
      for (const [term, tf] of counts) {
        let posting = file.terms.get(term);
        if (!posting) file.terms.set(term, (posting = { tf: 0, ordinals: [], tfs: [], lengths: [] }));
        posting.tf += tf;
        posting.ordinals.push(chunk.ordinal);
        posting.tfs.push(tf);
        posting.lengths.push(length);
      }
    }
    const rows: [string[], string[], number[], number[], string[], string[], string[]] = [[], [], [], [], [], [], []];
    for (const [path, file] of files) {
      for (const [term, p] of file.terms) {
        rows[0].push(term);
        rows[1].push(path);
        rows[2].push(p.tf);
        rows[3].push(file.length);
        rows[4].push(`{${p.ordinals.join(',')}}`);
        rows[5].push(`{${p.tfs.join(',')}}`);
        rows[6].push(`{${p.lengths.join(',')}}`);
      }
    }
    const paths = [...files.keys()];
    await tx.run(this.sql.insert, [repositoryId, paths, paths.map((p) => files.get(p)!.length), paths.map((p) => files.get(p)!.chunks)]);
    await tx.run(this.sql.insertTerms, [repositoryId, ...rows]);
  }

  /** Forgets these repositories (their chunks are gone already). */
  async purge(repositoryIds: readonly string[]): Promise<void> {
    const { db } = this.table;
    await db.transaction(async (m) => {
      for (const s of [this.sql.purgeTerms, this.sql.purge]) await db.run(s, [repositoryIds], m);
    });
  }

  /** The best chunks by BM25 on the query's `maxTerms` rarest words (idf over the scope's chunks). */
  async chunks(words: readonly string[], filter: SearchFilter, options: SearchOptions): Promise<Hit[]> {
    const scope = await this.scope(filter.repositoryIds);
    const used = await this.weigh(this.sql.chunkDf, words, filter.repositoryIds, scope.chunks, options);
    if (used.length === 0) return [];
    const { rows } = await this.table.db.run<Hit>(this.sql.chunks, [
      filter.repositoryIds,
      used.map((t) => t.term),
      used.map((t) => t.weight),
      scope.length / scope.chunks,
      filter.pathPrefix,
      filter.limit,
    ]);
    return rows.map(numeric);
  }

  /**
   * The `fileDepth` best files by BM25 over whole files (idf over the scope's files, on the query's `maxTerms`
   * rarest words), each as its best chunk on the same words.
   */
  async files(words: readonly string[], repositoryIds: readonly string[] | null, options: SearchOptions): Promise<Hit[]> {
    const scope = await this.scope(repositoryIds);
    const used = await this.weigh(this.sql.fileDf, words, repositoryIds, scope.files, options);
    if (used.length === 0) return [];
    const { rows } = await this.table.db.run<Hit>(this.sql.files, [
      repositoryIds,
      used.map((t) => t.term),
      used.map((t) => t.weight),
      scope.length / scope.files,
      scope.length / scope.chunks,
      options.fileDepth,
    ]);
    return rows.map(numeric);
  }

  private async scope(repositoryIds: readonly string[] | null): Promise<{ chunks: number; files: number; length: number }> {
    return (await this.table.db.run<{ chunks: number; files: number; length: number }>(this.sql.scope, [repositoryIds])).rows[0];
  }

  /** The query's `maxTerms` rarest words that occur in the scope, each weighted idf × (k1 + 1) over `n` documents. */
  private async weigh(
    df: Statement,
    words: readonly string[],
    repositoryIds: readonly string[] | null,
    n: number,
    options: SearchOptions,
  ): Promise<Array<{ term: string; weight: number }>> {
    if (n === 0 || words.length === 0) return [];
    const { rows } = await this.table.db.run<{ term: string; df: number }>(df, [repositoryIds, [...new Set(words)]]);
    return rows
      .filter((t) => t.df > 0)
      .sort((a, b) => a.df - b.df || a.term.localeCompare(b.term))
      .slice(0, options.maxTerms)
      .map((t) => ({ term: t.term, weight: idf(Math.max(n, t.df), t.df) * (K1 + 1) }));
  }
}
