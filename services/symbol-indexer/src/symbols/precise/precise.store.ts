import { Database, sql } from '@sextant/persistence';
import type { EntityManager } from 'typeorm';
import type { ScipIndex } from './scip-index.js';

const T = {
  indexes: '"symbol_indexer"."precise_indexes"',
  documents: '"symbol_indexer"."precise_documents"',
  symbols: '"symbol_indexer"."precise_symbols"',
  occurrences: '"symbol_indexer"."precise_occurrences"',
  relationships: '"symbol_indexer"."precise_relationships"',
  files: '"symbol_indexer"."files"',
  defs: '"symbol_indexer"."symbols"',
};

/** A relationship row's `kind` bits: SCIP's `is_reference` and `is_implementation` (one row may be both). */
const REFERENCE = 1;
const IMPLEMENTATION = 2;

/** Rows per INSERT … unnest (each column one array parameter). */
const CHUNK = 20_000;

/**
 * A file is answered from the precise tier when the precise index has it and the symbols stage has not re-indexed it
 * since that index's run started (the symbols stage rewrites a file's row only when the file changed).
 */
const fresh = (o: string) => `EXISTS (SELECT 1 FROM ${T.files} f JOIN ${T.indexes} i ON i.repository_id = f.repository_id
  WHERE f.repository_id = ${o}.repository_id AND f.path = ${o}.path AND f.indexed_at <= i.started_at)`;
const FRESH = fresh('o');

/** The file-level edges of the files `$2` at side `side` (`d`: where symbols are defined, `u`: where used), at most `$3`. */
const uses = (side: 'd' | 'u') => `SELECT DISTINCT u.path, d.path AS target
  FROM ${T.occurrences} d JOIN ${T.occurrences} u ON u.repository_id = d.repository_id AND u.symbol_id = d.symbol_id
  WHERE d.repository_id = $1 AND u.repository_id = $1 AND ${side}.path = ANY($2::text[])
    AND d.roles & 1 = 1 AND u.roles & 1 = 0 AND u.path <> d.path AND ${fresh('d')} AND ${fresh('u')}
  ORDER BY 1, 2
  LIMIT $3`;

const SQL = {
  claim: sql(
    'precise.claim',
    `INSERT INTO ${T.indexes} AS p (repository_id, job_id, batch_id, claimed_at) VALUES ($1, $2, $3, now())
     ON CONFLICT (repository_id) DO UPDATE SET job_id = $2, batch_id = $3, claimed_at = now()
       WHERE p.job_id IS DISTINCT FROM $2 OR p.batch_id = $3
     RETURNING claimed_at AS "claimedAt"`,
  ),
  // What the repository holds (after the symbols stage), and whether anything changed since the stored index's run.
  state: sql(
    'precise.state',
    `SELECT count(*) FILTER (WHERE f.language IN ('typescript', 'tsx'))::int AS "typescript",
            count(*) FILTER (WHERE f.language = 'javascript')::int AS "javascript",
            count(*) FILTER (WHERE f.language = 'python')::int AS "python",
            count(*) FILTER (WHERE i.started_at IS NULL OR f.indexed_at > i.started_at)::int AS "changed",
            min(i.commit) AS "commit", bool_or(i.started_at IS NOT NULL) AS "indexed"
     FROM ${T.files} f LEFT JOIN ${T.indexes} i ON i.repository_id = f.repository_id
     WHERE f.repository_id = $1`,
  ),
  // An uploaded index's row (no job's claim): its run starts now, by the database's clock (as the files' rows).
  uploaded: sql('precise.uploaded', `INSERT INTO ${T.indexes} (repository_id) VALUES ($1) ON CONFLICT (repository_id) DO NOTHING`),
  now: sql('precise.now', `SELECT now() AS "now"`),
  analyze: sql('precise.analyze', `ANALYZE ${T.documents}, ${T.symbols}, ${T.occurrences}, ${T.relationships}, ${T.indexes}`),
  deleteRelationships: sql('precise.delete-relationships', `DELETE FROM ${T.relationships} WHERE repository_id = ANY($1::text[])`),
  insertRelationships: sql(
    'precise.insert-relationships',
    `INSERT INTO ${T.relationships} (repository_id, symbol_id, target, kind) SELECT $1, * FROM unnest($2::int[], $3::text[], $4::smallint[])`,
  ),
  // The symbols $2 name by is_reference relationships (what they override), and those that name them (overriders).
  related: sql(
    'precise.related',
    `SELECT r.target AS symbol FROM ${T.symbols} s JOIN ${T.relationships} r ON r.repository_id = s.repository_id AND r.symbol_id = s.id
     WHERE s.repository_id = $1 AND s.symbol = ANY($2::text[]) AND r.kind & ${REFERENCE} <> 0
     UNION
     SELECT s.symbol FROM ${T.relationships} r JOIN ${T.symbols} s ON s.repository_id = r.repository_id AND s.id = r.symbol_id
     WHERE r.repository_id = $1 AND r.target = ANY($2::text[]) AND r.kind & ${REFERENCE} <> 0`,
  ),
  // The symbols $2 name by is_reference relationships: the members they override or implement, at every level.
  overridden: sql(
    'precise.overridden',
    `SELECT DISTINCT r.target AS symbol FROM ${T.symbols} s JOIN ${T.relationships} r ON r.repository_id = s.repository_id AND r.symbol_id = s.id
     WHERE s.repository_id = $1 AND s.symbol = ANY($2::text[]) AND r.kind & ${REFERENCE} <> 0`,
  ),
  // The symbols that name any of $2 by is_implementation relationships (its subtypes at every level), each with all
  // it names so (its supertypes at every level).
  implementers: sql(
    'precise.implementers',
    `SELECT s.symbol, array_agg(a.target) AS supertypes
     FROM ${T.relationships} r
       JOIN ${T.symbols} s ON s.repository_id = r.repository_id AND s.id = r.symbol_id
       JOIN ${T.relationships} a ON a.repository_id = r.repository_id AND a.symbol_id = r.symbol_id AND a.kind & ${IMPLEMENTATION} <> 0
     WHERE r.repository_id = $1 AND r.target = ANY($2::text[]) AND r.kind & ${IMPLEMENTATION} <> 0
     GROUP BY s.symbol
     ORDER BY s.symbol
     LIMIT $3`,
  ),
  deleteOccurrences: sql('precise.delete-occurrences', `DELETE FROM ${T.occurrences} WHERE repository_id = ANY($1::text[])`),
  deleteSymbols: sql('precise.delete-symbols', `DELETE FROM ${T.symbols} WHERE repository_id = ANY($1::text[])`),
  deleteDocuments: sql('precise.delete-documents', `DELETE FROM ${T.documents} WHERE repository_id = ANY($1::text[])`),
  deleteIndexes: sql('precise.delete-indexes', `DELETE FROM ${T.indexes} WHERE repository_id = ANY($1::text[])`),
  insertDocuments: sql(
    'precise.insert-documents',
    `INSERT INTO ${T.documents} (repository_id, path, language) SELECT $1, * FROM unnest($2::text[], $3::text[])`,
  ),
  insertSymbols: sql(
    'precise.insert-symbols',
    `INSERT INTO ${T.symbols} (repository_id, id, symbol, kind, display_name) SELECT $1, * FROM unnest($2::int[], $3::text[], $4::int[], $5::text[])`,
  ),
  insertOccurrences: sql(
    'precise.insert-occurrences',
    `INSERT INTO ${T.occurrences} (repository_id, path, symbol_id, line, col, end_line, end_col, roles)
     SELECT $1, * FROM unnest($2::text[], $3::int[], $4::int[], $5::int[], $6::int[], $7::int[], $8::int[])`,
  ),
  stored: sql(
    'precise.stored',
    `UPDATE ${T.indexes} SET commit = $2, tool = $3, started_at = $4, indexed_at = now(), documents = $5, occurrences = $6
     WHERE repository_id = $1`,
  ),
  // The global symbols whose occurrence (a definition first) covers 0-based `line`:`column` (null: anywhere on the
  // line) of a fresh file.
  symbolsAt: sql(
    'precise.symbols-at',
    `SELECT s.symbol, bool_or(o.roles & 1 = 1) AS "definition" FROM ${T.occurrences} o
       JOIN ${T.symbols} s ON s.repository_id = o.repository_id AND s.id = o.symbol_id
     WHERE o.repository_id = $1 AND o.path = $2 AND o.line = $3
       AND ($4::int IS NULL OR (o.col <= $4 AND ($4 < o.end_col OR o.end_line > o.line)))
       AND ${FRESH}
     GROUP BY s.symbol ORDER BY bool_or(o.roles & 1 = 1) DESC, s.symbol`,
  ),
  // Where the symbols $2 are defined, in fresh files; 1-based lines.
  definitionsOf: sql(
    'precise.definitions-of',
    `SELECT o.path, o.line + 1 AS line, o.col AS "column", s.symbol FROM ${T.occurrences} o
       JOIN ${T.symbols} s ON s.repository_id = o.repository_id AND s.id = o.symbol_id
     WHERE o.repository_id = $1 AND s.repository_id = $1 AND s.symbol = ANY($2::text[]) AND o.roles & 1 = 1 AND ${FRESH}
     ORDER BY o.path, o.line, o.col
     LIMIT $3`,
  ),
  // The occurrences of the symbols $2 in fresh files, 1-based lines: the symbols' numbers first (one index range),
  // then their occurrences (another).
  occurrencesOf: sql(
    'precise.occurrences-of',
    `WITH ids AS (SELECT id, symbol FROM ${T.symbols} WHERE repository_id = $1 AND symbol = ANY($2::text[]))
     SELECT o.path, o.line + 1 AS line, o.col AS "column", o.roles, ids.symbol
     FROM ids JOIN ${T.occurrences} o ON o.repository_id = $1 AND o.symbol_id = ids.id
     WHERE ${FRESH}
     ORDER BY o.path, o.line, o.col
     LIMIT $3`,
  ),
  // The definitions of the symbol index in files $2 that span a line between $3 and $4 (per file): what may enclose
  // an occurrence there.
  outlines: sql(
    'precise.outlines',
    `SELECT d.path, d.ordinal, d.line, d.end_line AS "endLine"
     FROM unnest($2::text[], $3::int[], $4::int[]) AS t(path, first, last)
       JOIN ${T.defs} d ON d.repository_id = $1 AND d.path = t.path AND d.line <= t.last AND d.end_line >= t.first`,
  ),
  // Which of the places ($2 paths, $3 1-based lines, $4 columns) have an occurrence of any symbol.
  occupied: sql(
    'precise.occupied',
    `SELECT t.path, t.line, t.col AS "column" FROM unnest($2::text[], $3::int[], $4::int[]) AS t(path, line, col)
     WHERE EXISTS (SELECT 1 FROM ${T.occurrences} o WHERE o.repository_id = $1 AND o.path = t.path AND o.line = t.line - 1
       AND o.col <= t.col AND (t.col < o.end_col OR o.end_line > o.line))`,
  ),
  indexed: sql(
    'precise.indexed',
    `SELECT repository_id AS "repositoryId", commit FROM ${T.indexes} WHERE repository_id = ANY($1::text[]) AND started_at IS NOT NULL`,
  ),
  // Which of the places ($2 paths, $3 1-based lines, $4 columns) of fresh files have a definition occurrence there.
  definedAt: sql(
    'precise.defined-at',
    `SELECT t.path, t.line, t.col AS "column" FROM unnest($2::text[], $3::int[], $4::int[]) AS t(path, line, col)
     WHERE EXISTS (SELECT 1 FROM ${T.occurrences} o WHERE o.repository_id = $1 AND o.path = t.path AND o.line = t.line - 1
       AND o.roles & 1 = 1 AND o.col <= t.col AND (t.col < o.end_col OR o.end_line > o.line) AND ${FRESH})`,
  ),
  // File-level edges of fresh files: "path" uses a symbol defined in "target" (another file), for the targets $2
  // (their dependents) or the users $2 (their dependencies).
  dependents: sql('precise.dependents', uses('d')),
  dependencies: sql('precise.dependencies', uses('u')),
  freshPaths: sql(
    'precise.fresh-paths',
    `SELECT o.path FROM ${T.documents} o WHERE o.repository_id = $1 AND o.path = ANY($2::text[]) AND ${FRESH}`,
  ),
};

/** An occurrence as the tools read it: 1-based line, 0-based column. */
export interface PreciseHit {
  path: string;
  line: number;
  column: number;
  roles: number;
  symbol: string;
  enclosing: number;
}

/** What the precise stage needs to know before it runs: the repository's TypeScript/JavaScript files, and what changed. */
export interface PreciseState {
  typescript: number;
  javascript: number;
  python: number;
  changed: number;
  commit: string | null;
  indexed: boolean;
}

/**
 * The precise tier in schema `symbol_indexer` (migration 1733000000000): one SCIP index per repository, replaced
 * whole in one transaction, so that a query sees the previous index or the new one.
 */
export class PreciseStore {
  constructor(private readonly db: Database) {}

  /**
   * Takes the job's precise run for `batchId` (one per repository and job: the other batches of the job find it
   * taken); the same batch, claimed again after its worker died, takes it again. Resolves when the claim was
   * taken, with the database's time of it (the run's start, for freshness); undefined when another batch has it.
   */
  async claim(repositoryId: string, jobId: string, batchId: number): Promise<Date | undefined> {
    const { rows } = await this.db.run<{ claimedAt: Date }>(SQL.claim, [repositoryId, jobId, batchId]);
    return rows[0]?.claimedAt;
  }

  async state(repositoryId: string): Promise<PreciseState> {
    const { rows } = await this.db.run<PreciseState>(SQL.state, [repositoryId]);
    const r = rows[0];
    return { ...r, indexed: r.indexed === true };
  }

  /** Replaces the repository's precise index by `index`, at once. */
  async replace(repositoryId: string, commit: string | null, startedAt: Date, index: ScipIndex): Promise<void> {
    const ids = new Map(index.symbols.map((s, i) => [s.symbol, i]));
    await this.db.transaction(async (m) => {
      await this.remove([repositoryId], m, false);
      await this.insert(m, SQL.insertDocuments, repositoryId, index.documents, [(d) => d.path, (d) => d.language]);
      await this.insert(m, SQL.insertSymbols, repositoryId, index.symbols, [
        (s) => ids.get(s.symbol),
        (s) => s.symbol,
        (s) => s.kind,
        (s) => s.displayName,
      ]);
      const occurrences = index.documents.flatMap((d) => d.occurrences.map((o) => ({ path: d.path, ...o })));
      await this.insert(m, SQL.insertOccurrences, repositoryId, occurrences, [
        (o) => o.path,
        (o) => ids.get(o.symbol),
        (o) => o.line,
        (o) => o.column,
        (o) => o.endLine,
        (o) => o.endColumn,
        (o) => o.roles,
      ]);
      const relationships = index.symbols.flatMap((s) => {
        const kinds = new Map(s.references.map((target) => [target, REFERENCE]));
        for (const target of s.implementations) kinds.set(target, (kinds.get(target) ?? 0) | IMPLEMENTATION);
        return [...kinds].map(([target, kind]) => ({ id: ids.get(s.symbol), target, kind }));
      });
      await this.insert(m, SQL.insertRelationships, repositoryId, relationships, [(r) => r.id, (r) => r.target, (r) => r.kind]);
      const stored = [repositoryId, commit, index.tool, startedAt, index.documents.length, occurrences.length];
      await this.db.run(SQL.stored, stored, m);
    });
    // Statistics for the new rows: without them the planner reads every occurrence for one symbol's.
    await this.db.run(SQL.analyze, []);
  }

  /**
   * Replaces the repository's precise index by an uploaded one (ADR 0056), as a run starting now: the files the
   * symbols stage re-indexes after this are answered from the search tier again.
   */
  async replaceUploaded(repositoryId: string, commit: string, index: ScipIndex): Promise<void> {
    await this.db.run(SQL.uploaded, [repositoryId]);
    const { rows } = await this.db.run<{ now: Date }>(SQL.now, []);
    await this.replace(repositoryId, commit, rows[0].now, index);
  }

  /** What the index holds of repositories the registry no longer knows goes. */
  async purge(repositoryIds: readonly string[]): Promise<void> {
    if (repositoryIds.length === 0) return;
    await this.db.transaction((m) => this.remove(repositoryIds, m, true));
  }

  /** The global symbols at 1-based `line` and 0-based `column` (undefined: anywhere on the line) of a fresh file. */
  async symbolsAt(
    repositoryId: string,
    path: string,
    line: number,
    column: number | undefined,
  ): Promise<Array<{ symbol: string; definition: boolean }>> {
    return (await this.db.run<{ symbol: string; definition: boolean }>(SQL.symbolsAt, [repositoryId, path, line - 1, column ?? null])).rows;
  }

  /** Where `symbols` are defined in fresh files: 1-based lines, 0-based columns. */
  async definitionsOf(
    repositoryId: string,
    symbols: readonly string[],
    limit: number,
  ): Promise<Array<{ path: string; line: number; column: number; symbol: string }>> {
    if (symbols.length === 0) return [];
    return (
      await this.db.run<{ path: string; line: number; column: number; symbol: string }>(SQL.definitionsOf, [repositoryId, symbols, limit])
    ).rows;
  }

  /**
   * The occurrences of `symbols` in fresh files (at most `limit`), each with the innermost definition of the symbol
   * index around it (its ordinal; -1 at the top level), found here from the files' outlines (one query).
   */
  async occurrencesOf(repositoryId: string, symbols: readonly string[], limit: number): Promise<PreciseHit[]> {
    if (symbols.length === 0) return [];
    const hits = (await this.db.run<Omit<PreciseHit, 'enclosing'>>(SQL.occurrencesOf, [repositoryId, symbols, limit])).rows;
    if (hits.length === 0) return [];
    const spans = new Map<string, [number, number]>();
    for (const h of hits) {
      const span = spans.get(h.path);
      spans.set(h.path, span ? [Math.min(span[0], h.line), Math.max(span[1], h.line)] : [h.line, h.line]);
    }
    const paths = [...spans.keys()];
    const bounds = [paths, paths.map((p) => spans.get(p)![0]), paths.map((p) => spans.get(p)![1])];
    const outlines = new Map<string, Array<{ ordinal: number; line: number; endLine: number }>>();
    for (const d of (
      await this.db.run<{ path: string; ordinal: number; line: number; endLine: number }>(SQL.outlines, [repositoryId, ...bounds])
    ).rows) {
      const file = outlines.get(d.path);
      if (file) file.push(d);
      else outlines.set(d.path, [d]);
    }
    return hits.map((h) => {
      let enclosing: { ordinal: number; line: number } | undefined;
      for (const d of outlines.get(h.path) ?? []) {
        if (
          d.line <= h.line &&
          h.line <= d.endLine &&
          (!enclosing || d.line > enclosing.line || (d.line === enclosing.line && d.ordinal > enclosing.ordinal))
        ) {
          enclosing = d;
        }
      }
      return { ...h, enclosing: enclosing?.ordinal ?? -1 };
    });
  }

  /** Which of `sites` (1-based lines) the compiler recorded a symbol at, as `path:line:column`. */
  async occupied(repositoryId: string, sites: ReadonlyArray<{ path: string; line: number; column: number }>): Promise<Set<string>> {
    if (sites.length === 0) return new Set();
    const values = [repositoryId, sites.map((s) => s.path), sites.map((s) => s.line), sites.map((s) => s.column)];
    return new Set(
      (await this.db.run<{ path: string; line: number; column: number }>(SQL.occupied, values)).rows.map(
        (r) => `${r.path}:${r.line}:${r.column}`,
      ),
    );
  }

  /** The symbols related to `symbols` by is_reference relationships, either way (one step). */
  async related(repositoryId: string, symbols: readonly string[]): Promise<string[]> {
    if (symbols.length === 0) return [];
    return (await this.db.run<{ symbol: string }>(SQL.related, [repositoryId, symbols])).rows.map((r) => r.symbol);
  }

  /** The members `symbols` override or implement, at every level (their is_reference relationships). */
  async overridden(repositoryId: string, symbols: readonly string[]): Promise<string[]> {
    if (symbols.length === 0) return [];
    return (await this.db.run<{ symbol: string }>(SQL.overridden, [repositoryId, symbols])).rows.map((r) => r.symbol);
  }

  /**
   * The symbols that extend or implement any of `symbols`, at every level (SCIP `is_implementation` relationships),
   * each with every type it extends or implements; at most `limit`.
   */
  async implementers(
    repositoryId: string,
    symbols: readonly string[],
    limit: number,
  ): Promise<Array<{ symbol: string; supertypes: string[] }>> {
    if (symbols.length === 0) return [];
    return (await this.db.run<{ symbol: string; supertypes: string[] }>(SQL.implementers, [repositoryId, symbols, limit])).rows;
  }

  /** Which of the repositories have a precise index. */
  async indexed(repositoryIds: readonly string[]): Promise<Set<string>> {
    return new Set((await this.commits(repositoryIds)).keys());
  }

  /** The repositories that have a precise index, each with the commit it was made at (null: not known). */
  async commits(repositoryIds: readonly string[]): Promise<Map<string, string | null>> {
    if (repositoryIds.length === 0) return new Map();
    const { rows } = await this.db.run<{ repositoryId: string; commit: string | null }>(SQL.indexed, [[...repositoryIds]]);
    return new Map(rows.map((r) => [r.repositoryId, r.commit]));
  }

  /** Which of `sites` (1-based lines, the column of a definition's name) of fresh files the compiler defines a symbol at, as `path:line:column`. */
  async definedAt(repositoryId: string, sites: ReadonlyArray<{ path: string; line: number; column: number }>): Promise<Set<string>> {
    if (sites.length === 0) return new Set();
    const values = [repositoryId, sites.map((s) => s.path), sites.map((s) => s.line), sites.map((s) => s.column)];
    const { rows } = await this.db.run<{ path: string; line: number; column: number }>(SQL.definedAt, values);
    return new Set(rows.map((r) => `${r.path}:${r.line}:${r.column}`));
  }

  /**
   * File-level edges between fresh files (at most `limit`): `path` uses (an occurrence that is not a definition) a
   * symbol defined in `target`. `of` "dependents": the targets are `paths`; "dependencies": the users are.
   */
  async uses(
    repositoryId: string,
    paths: readonly string[],
    of: 'dependents' | 'dependencies',
    limit: number,
  ): Promise<Array<{ path: string; target: string }>> {
    if (paths.length === 0) return [];
    return (await this.db.run<{ path: string; target: string }>(SQL[of], [repositoryId, [...paths], limit])).rows;
  }

  /** Which of `paths` the precise tier answers for. */
  async freshPaths(repositoryId: string, paths: readonly string[]): Promise<Set<string>> {
    if (paths.length === 0) return new Set();
    return new Set((await this.db.run<{ path: string }>(SQL.freshPaths, [repositoryId, paths])).rows.map((r) => r.path));
  }

  private async remove(repositoryIds: readonly string[], m: EntityManager, withIndexRow: boolean): Promise<void> {
    const ids = [...repositoryIds];
    for (const statement of [SQL.deleteRelationships, SQL.deleteOccurrences, SQL.deleteSymbols, SQL.deleteDocuments])
      await this.db.run(statement, [ids], m);
    if (withIndexRow) await this.db.run(SQL.deleteIndexes, [ids], m);
  }

  private async insert<R>(
    m: EntityManager,
    statement: ReturnType<typeof sql>,
    repositoryId: string,
    rows: readonly R[],
    columns: ReadonlyArray<(row: R) => unknown>,
  ): Promise<void> {
    for (let i = 0; i < rows.length; i += CHUNK) {
      const chunk = rows.slice(i, i + CHUNK);
      await this.db.run(statement, [repositoryId, ...columns.map((column) => chunk.map(column))], m);
    }
  }
}
