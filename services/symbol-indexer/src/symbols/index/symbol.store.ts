import { Database, sql, type Statement } from '@sextant/persistence';
import type { EntityManager } from 'typeorm';
import { languagesWhere, parsedLanguages, unpackOccurrences, type ExtractedImport, type ExtractedSymbol, type Occurrence, type PackedReferences } from '@sextant/parsing';

/** An import with what it resolves to in the repository (a path, a Go package directory, or null: outside). */
interface ResolvedImport extends ExtractedImport {
  target: string | null;
}

/** A file as the symbols stage leaves it: parsed (its symbols, imports and references), or kept at file level (`skipped` says why). */
export interface IndexedFile {
  path: string;
  language: string | null;
  skipped: string | null;
  symbols: readonly ExtractedSymbol[];
  imports: readonly ResolvedImport[];
  /** Packed per name (`packReferences`). */
  references: readonly PackedReferences[];
  referenceCount: number;
}

/** The occurrences of one name in one file, unpacked from their row. */
export interface ReferenceRow {
  repositoryId: string;
  path: string;
  name: string;
  occurrences: Occurrence[];
}

export type { Occurrence };

/** An import as the tools read it: who imports, what, bound to which local names. */
export interface ImportRow {
  repositoryId: string;
  path: string;
  module: string;
  line: number;
  target: string | null;
  reexport: boolean;
  bindings: Array<{ name: string; alias: string }>;
}

/** A step in the type hierarchy, by names: `from` extends, implements or embeds `to` (or, walking down, the reverse). */
export interface TypeEdge {
  from: string;
  to: string;
  /** `extends`, `implements`, or `aliases` (`type From = To & …`); subtypes are read without it. */
  relation?: string;
}

/** A file of the index, for listings. */
export interface FileRow {
  repositoryId: string;
  path: string;
  language: string | null;
  commit: string | null;
  indexedAt: Date;
}

/** A definition as the tools read it. */
/** Same-named definitions read for one name at most (`SymbolStore.named`; a member's rivals when binding). */
export const SAME_NAMED = 200;

/** Of `SymbolStore.locate`'s rows for `name`, those with exactly that name (`Container.name`: in that container). */
export function exactlyNamed(rows: readonly SymbolRow[], name: string): SymbolRow[] {
  const { container, bare } = splitName(name);
  return rows.filter((r) => r.name === bare && (container === null || r.container === container));
}

export interface SymbolRow {
  repositoryId: string;
  path: string;
  ordinal: number;
  name: string;
  kind: string;
  line: number;
  endLine: number;
  container: string | null;
  signature: string | null;
  parent: number;
  language: string | null;
  /** 0-based column of the name. */
  column: number;
  /** Its file exports it as the default (`import x from` binds it). */
  defaultExport: boolean;
  /**
   * What a call of it gives, or its declared type (a property's, a variable's), by bare name; its own name for a type
   * without a name (`ExtractedSymbol.returns`). Read only by `symbolsByOrdinal` (a member's owner), not by every lookup.
   */
  returns?: string | null;
}

const T = {
  files: '"symbol_indexer"."files"',
  symbols: '"symbol_indexer"."symbols"',
  imports: '"symbol_indexer"."imports"',
  refs: '"symbol_indexer"."refs"',
  supertypes: '"symbol_indexer"."supertypes"',
  generation: '"symbol_indexer"."generation"',
};

const IMPORT_COLUMNS = `repository_id AS "repositoryId", path, module, line, target, reexport, bindings`;

const SYMBOL_COLUMNS = `s.repository_id AS "repositoryId", s.path, s.ordinal, s.name, s.kind, s.line, s.end_line AS "endLine",
  s.container, s.signature, s.parent, s.language, s.col AS "column", s.default_export AS "defaultExport"`;

/** A test file's path (POSIX regular expression): its definitions come after the others'. */
export const TEST_PATH = String.raw`(^|/)(tests?|__tests__|spec|testing)/|[._](test|spec)\.[a-z]+$|(^|/)test_[^/]*\.py$`;

/**
 * Whether a symbol's file is a test's, in SQL. Every test path names `test` or `spec`: the regular expression runs only
 * on those, not on each of a common name's hundreds of rows before the top-N sort (the bench index's ten sample
 * names: mean 2.04 -> 1.46 ms a query on PGlite, the same rows).
 */
const IS_TEST_PATH = `((strpos(s.path, 'test') > 0 OR strpos(s.path, 'spec') > 0) AND s.path ~ '${TEST_PATH}')`;

/**
 * Definitions matching a name, best first, as an agent that asks by name wants them: exact, then case-insensitive,
 * then `Container.name`; outside tests first; top-level definitions (what a module exports) before members and nested
 * ones; shallower paths first.
 */
const LOCATE_ORDER = `CASE WHEN s.name = $1 THEN 0 WHEN s.name_key = lower($1) THEN 1 ELSE 2 END,
  ${IS_TEST_PATH}, s.parent >= 0, length(s.path) - length(replace(s.path, '/', '')), s.repository_id, s.path, s.line`;

const SQL = {
  generation: sql('generation.read', `SELECT n::int AS n FROM ${T.generation}`),
  // Last in a write's transaction: the row is locked only until the commit, and readers see the new count with the new rows.
  nextGeneration: sql('generation.next', `UPDATE ${T.generation} SET n = n + 1`),
  analyze: sql('symbols.analyze', `ANALYZE ${T.files}, ${T.symbols}, ${T.imports}, ${T.refs}, ${T.supertypes}`),
  countSymbols: sql(
    'files.count-symbols',
    `SELECT coalesce(sum(symbol_count), 0)::int AS n FROM ${T.files} WHERE repository_id = $1 AND path = ANY($2::text[])`,
  ),
  deleteSymbols: sql('symbols.delete', `DELETE FROM ${T.symbols} WHERE repository_id = $1 AND path = ANY($2::text[])`),
  deleteImports: sql('imports.delete', `DELETE FROM ${T.imports} WHERE repository_id = $1 AND path = ANY($2::text[])`),
  deleteSupertypes: sql('supertypes.delete', `DELETE FROM ${T.supertypes} WHERE repository_id = $1 AND path = ANY($2::text[])`),
  insertSupertypes: sql(
    'supertypes.insert',
    `INSERT INTO ${T.supertypes} (repository_id, path, ordinal, name, relation) SELECT $1, * FROM unnest($2::text[], $3::int[], $4::text[], $5::text[])
     ON CONFLICT DO NOTHING`,
  ),
  // Class-like definitions named $1 (any repository of $2; null: all) and what they extend.
  supertypesOf: sql(
    'supertypes.of',
    `SELECT DISTINCT s.name AS "from", h.name AS "to", h.relation FROM ${T.symbols} s
       JOIN ${T.supertypes} h ON h.repository_id = s.repository_id AND h.path = s.path AND h.ordinal = s.ordinal
     WHERE s.name_key = ANY($3::text[]) AND s.name = ANY($1::text[]) AND ($2::text[] IS NULL OR s.repository_id = ANY($2::text[]))`,
  ),
  // The names of what extends, implements or embeds each of $1: at most $3 per name (the first by name), so that a
  // name that many types extend does not crowd out the others of one lookup. The relation is `aliases` when any
  // declaration of that name is a type alias of $1 (the least of the relations by name).
  subtypeNamesOf: sql(
    'supertypes.subtype-names',
    `SELECT "from", "to", relation FROM (
       SELECT h.name AS "from", s.name AS "to", min(h.relation) AS relation, row_number() OVER (PARTITION BY h.name ORDER BY s.name) AS k
       FROM ${T.supertypes} h
         JOIN ${T.symbols} s ON h.repository_id = s.repository_id AND h.path = s.path AND h.ordinal = s.ordinal
       WHERE h.name = ANY($1::text[]) AND ($2::text[] IS NULL OR h.repository_id = ANY($2::text[]))
       GROUP BY h.name, s.name) t
     WHERE k <= $3`,
  ),
  interfacesDeclaring: sql(
    'symbols.interfaces-declaring',
    `SELECT DISTINCT c.name FROM ${T.symbols} m
       JOIN ${T.symbols} c ON c.repository_id = m.repository_id AND c.path = m.path AND c.ordinal = m.parent
     WHERE m.name_key = lower($1) AND m.name = $1 AND c.kind = 'interface' AND ($2::text[] IS NULL OR m.repository_id = ANY($2::text[]))`,
  ),
  // At most $4 per name.
  returnsOf: sql(
    'symbols.returns-of',
    `SELECT name, language, container, returns FROM (
       SELECT name, language, container, returns, row_number() OVER (PARTITION BY name ORDER BY repository_id, path, ordinal) AS k
       FROM ${T.symbols}
       WHERE name_key = ANY($1::text[]) AND name = ANY($2::text[]) AND kind IN ('function', 'method')
         AND ($3::text[] IS NULL OR repository_id = ANY($3::text[]))) t
     WHERE k <= $4`,
  ),
  // Members named $2 (name keys $1) of the types $3: what reading or calling each gives; at most $5 per name.
  membersOf: sql(
    'symbols.members-of',
    `SELECT name, container, kind, language, returns FROM (
       SELECT name, container, kind, language, returns,
         row_number() OVER (PARTITION BY name ORDER BY repository_id, path, ordinal) AS k
       FROM ${T.symbols}
       WHERE name_key = ANY($1::text[]) AND name = ANY($2::text[]) AND container = ANY($3::text[])
         AND ($4::text[] IS NULL OR repository_id = ANY($4::text[]))) t
     WHERE k <= $5`,
  ),
  // Which of the names $2 (keys $1) the index defines as a type.
  typesDefined: sql(
    'symbols.types-defined',
    `SELECT DISTINCT name, language FROM ${T.symbols}
     WHERE name_key = ANY($1::text[]) AND name = ANY($2::text[]) AND kind IN ('class', 'interface', 'struct', 'trait', 'type', 'enum')
       AND ($3::text[] IS NULL OR repository_id = ANY($3::text[]))`,
  ),
  typeAliasesOf: sql(
    'symbols.type-aliases-of',
    `SELECT name FROM ${T.symbols}
     WHERE name_key = ANY($1::text[]) AND name = ANY($2::text[]) AND ($3::text[] IS NULL OR repository_id = ANY($3::text[]))
     GROUP BY name
     HAVING bool_or(kind = 'type') AND NOT bool_or(kind IN ('class', 'interface', 'struct', 'trait', 'enum'))`,
  ),
  supertypesOfSymbol: sql(
    'supertypes.of-symbol',
    `SELECT name, relation FROM ${T.supertypes} WHERE repository_id = $1 AND path = $2 AND ordinal = $3 ORDER BY relation, name`,
  ),
  subtypesOf: sql(
    'supertypes.subtypes',
    `SELECT ${SYMBOL_COLUMNS} FROM ${T.supertypes} h
       JOIN ${T.symbols} s ON h.repository_id = s.repository_id AND h.path = s.path AND h.ordinal = s.ordinal
     WHERE h.name = ANY($1::text[]) AND h.relation <> 'aliases' AND ($2::text[] IS NULL OR h.repository_id = ANY($2::text[]))
     ORDER BY s.repository_id, s.path, s.line LIMIT $3`,
  ),
  deleteRefs: sql('refs.delete', `DELETE FROM ${T.refs} WHERE repository_id = $1 AND path = ANY($2::text[])`),
  deleteFiles: sql('files.delete', `DELETE FROM ${T.files} WHERE repository_id = $1 AND path = ANY($2::text[])`),
  insertFiles: sql(
    'files.insert',
    `INSERT INTO ${T.files} (repository_id, path, language, commit, symbol_count, skipped)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::text[])`,
  ),
  insertSymbols: sql(
    'symbols.insert',
    `INSERT INTO ${T.symbols} (repository_id, path, ordinal, name, name_key, kind, line, end_line, col, container, signature, parent, language, returns, default_export)
     SELECT $1, p, o, n, lower(n), k, l, e, c, ct, sg, pa, lg, r, d
     FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::int[], $7::int[], $8::int[], $9::text[], $10::text[], $11::int[], $12::text[], $13::text[], $14::boolean[])
       AS t(p, o, n, k, l, e, c, ct, sg, pa, lg, r, d)`,
  ),
  insertImports: sql(
    'imports.insert',
    `INSERT INTO ${T.imports} (repository_id, path, ordinal, module, line, bindings, reexport, target)
     SELECT $1, * FROM unnest($2::text[], $3::int[], $4::text[], $5::int[], $6::text[], $7::boolean[], $8::text[])`,
  ),
  insertRefs: sql(
    'refs.insert',
    `INSERT INTO ${T.refs} (repository_id, path, name, occurrences) SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[])`,
  ),
  references: sql(
    'refs.by-name',
    `SELECT repository_id AS "repositoryId", path, name, occurrences FROM ${T.refs}
     WHERE name = ANY($1::text[]) AND ($2::text[] IS NULL OR repository_id = ANY($2::text[]))
     ORDER BY repository_id, path, name LIMIT $3`,
  ),
  callsIn: sql(
    'refs.of-file',
    // By name, as reading the primary key gave them before refs were looked up by file (ADR 0064): callers keep the
    // first few, the same ones each time.
    `SELECT repository_id AS "repositoryId", path, name, occurrences FROM ${T.refs}
     WHERE repository_id = $1 AND path = $2 AND occurrences LIKE '%,c,%' ORDER BY name`,
  ),
  filesMentioning: sql(
    'refs.files-mentioning',
    `SELECT name, repository_id AS "repositoryId", path FROM ${T.refs}
     WHERE name = ANY($1::text[]) AND ($2::text[] IS NULL OR repository_id = ANY($2::text[]))`,
  ),
  // The paths as a semi-join, not `path = ANY($2)`: the planner estimates `= ANY` element by element, which took
  // longer than the query itself for a hundred paths (bench corpus, PGlite: 1.96 -> 1.41 ms a query, same rows).
  referencesAt: sql(
    'refs.in-files',
    `SELECT repository_id AS "repositoryId", path, name, occurrences FROM ${T.refs}
     WHERE repository_id = $1 AND path IN (SELECT unnest($2::text[])) AND name = ANY($3::text[]) ORDER BY path, name LIMIT $4`,
  ),
  namespaceImportsOf: sql(
    'imports.namespaces',
    `SELECT ${IMPORT_COLUMNS} FROM ${T.imports}
     WHERE repository_id = $1 AND path = ANY($2::text[]) AND (bindings LIKE '* _%' OR bindings LIKE '%,* _%')`,
  ),
  referencesIn: sql(
    'refs.in-file',
    `SELECT repository_id AS "repositoryId", path, name, occurrences FROM ${T.refs} WHERE repository_id = $1 AND path = $2 AND name = $3`,
  ),
  importersOf: sql(
    'imports.by-target',
    `SELECT ${IMPORT_COLUMNS} FROM ${T.imports} WHERE repository_id = $1 AND target = ANY($2::text[]) ORDER BY path, ordinal LIMIT $3`,
  ),
  importsOf: sql(
    'imports.by-path',
    `SELECT ${IMPORT_COLUMNS} FROM ${T.imports} WHERE repository_id = $1 AND path = ANY($2::text[]) ORDER BY path, ordinal`,
  ),
  definitionsAt: sql(
    'symbols.at-line',
    `SELECT ${SYMBOL_COLUMNS} FROM ${T.symbols} s WHERE s.repository_id = $1 AND s.path = $2 AND s.line = $3 ORDER BY s.ordinal`,
  ),
  symbolsByOrdinal: sql(
    'symbols.by-ordinal',
    `SELECT ${SYMBOL_COLUMNS}, s.returns FROM ${T.symbols} s JOIN unnest($2::text[], $3::int[]) AS k(p, o) ON s.path = k.p AND s.ordinal = k.o
     WHERE s.repository_id = $1`,
  ),
  similar: sql(
    'symbols.similar',
    `SELECT ${SYMBOL_COLUMNS} FROM ${T.symbols} s
     WHERE s.name_key LIKE $1 || '%' AND s.name_key <> $2 AND ($3::text[] IS NULL OR s.repository_id = ANY($3::text[]))
     ORDER BY length(s.name), s.name, s.repository_id, s.path LIMIT $4`,
  ),
  classesIn: sql(
    'symbols.classes-in',
    `SELECT path, name, line, end_line AS "endLine" FROM ${T.symbols}
     WHERE repository_id = $1 AND path = ANY($2::text[]) AND kind IN ('class', 'interface', 'struct', 'trait')`,
  ),
  defaultExportOf: sql(
    'symbols.default-export',
    `SELECT ${SYMBOL_COLUMNS} FROM ${T.symbols} s WHERE s.repository_id = $1 AND s.path = $2 AND s.parent = -1 AND s.default_export`,
  ),
  filesIn: sql(
    'files.in-directory',
    // A range of files_path_prefix (bytewise: `~>=~`, `~<~`): from the directory's prefix (`a/b/`) up to the next one (`a/b0`).
    `SELECT path FROM ${T.files} WHERE repository_id = $1 AND path ~>=~ $2 AND path ~<~ $3
       AND position('/' in substr(path, length($2) + 1)) = 0 ORDER BY path LIMIT $4`,
  ),
  filesInRoot: sql(
    'files.in-root',
    `SELECT path FROM ${T.files} WHERE repository_id = $1 AND position('/' in path) = 0 ORDER BY path LIMIT $2`,
  ),
  recent: sql(
    'files.recent',
    `SELECT repository_id AS "repositoryId", path, language, commit, indexed_at AS "indexedAt" FROM ${T.files}
     WHERE ($1::text[] IS NULL OR repository_id = ANY($1::text[])) ORDER BY indexed_at DESC, path LIMIT $2`,
  ),
  purgeSymbols: sql('symbols.purge', `DELETE FROM ${T.symbols} WHERE repository_id = ANY($1::text[])`),
  purgeSupertypes: sql('supertypes.purge', `DELETE FROM ${T.supertypes} WHERE repository_id = ANY($1::text[])`),
  purgeImports: sql('imports.purge', `DELETE FROM ${T.imports} WHERE repository_id = ANY($1::text[])`),
  purgeRefs: sql('refs.purge', `DELETE FROM ${T.refs} WHERE repository_id = ANY($1::text[])`),
  purgeFiles: sql('files.purge', `DELETE FROM ${T.files} WHERE repository_id = ANY($1::text[])`),
  filesExist: sql('files.exist', `SELECT path FROM ${T.files} WHERE repository_id = $1 AND path = ANY($2::text[])`),
  // The file row, with its symbols if it has any (ordinal null: none).
  outline: sql(
    'symbols.outline',
    `SELECT f.language, f.skipped, s.repository_id AS "repositoryId", f.path, s.ordinal, s.name, s.kind, s.line, s.end_line AS "endLine",
       s.container, s.signature, s.parent, s.col AS "column", s.default_export AS "defaultExport"
     FROM ${T.files} f LEFT JOIN ${T.symbols} s ON s.repository_id = f.repository_id AND s.path = f.path
     WHERE f.repository_id = $1 AND f.path = $2 ORDER BY s.ordinal`,
  ),
};

const locateStatements = new Map<string, ReturnType<typeof sql>>();

/** Names of languages as an SQL list (`'go', 'python'`); `NULL` for none, which no `IN` matches. Names are folder names of languages/. */
function sqlList(languages: readonly string[]): string {
  return languages.length === 0 ? 'NULL' : languages.map((name) => `'${name.replaceAll("'", "''")}'`).join(', ');
}

let moduleSql: { moduleOf: string; qualified: string } | undefined;

/**
 * A definition's module as a qualified name names it, lower case: a file's package directory (`packageScope`, Go),
 * else its module path (Python's); and the languages whose top-level names are qualified so (`moduleQualified`).
 */
function moduleSqlOf(): { moduleOf: string; qualified: string } {
  return (moduleSql ??= {
    moduleOf: `lower(CASE WHEN s.language IN (${sqlList(languagesWhere((l) => l.packageScope))}) THEN regexp_replace(s.path, '/?[^/]*$', '')
  ELSE regexp_replace(regexp_replace(s.path, '\\.[^./]*$', ''), '/__init__$', '') END)`,
    qualified: sqlList(languagesWhere((l) => l.moduleQualified)),
  });
}

/**
 * One statement per combination of filters (a handful), each a plain lookup
 * in the name index: optional filters written as `$n IS NULL OR …` would
 * leave Postgres a generic plan that scans the table.
 */
function locateStatement(where: readonly string[]): ReturnType<typeof sql> {
  const text = `SELECT ${SYMBOL_COLUMNS} FROM ${T.symbols} s
     WHERE ${where.join(' AND ')}
     ORDER BY ${LOCATE_ORDER} LIMIT $2`;
  let statement = locateStatements.get(text);
  if (!statement) locateStatements.set(text, (statement = sql(`symbols.locate.${locateStatements.size}`, text)));
  return statement;
}

/**
 * Rows per insert statement. Embedded Postgres (PGlite) runs a statement on the event loop's thread, in one piece, at
 * about 28 µs a symbol row: a batch's symbols in one statement held the thread most of a second, during which no parse
 * thread done with its file was handed its next one. A thousand symbol rows hold it ~30 ms (refs rows with long packed
 * occurrences longer: the bound is a count), and the event loop runs what is ready between two statements
 * (pglite-socket serves each message on a turn of its own); the transaction is the same. A full index of bench/symbols'
 * corpus took 4–7% less time (two pairs of runs: 203.8 and 201.8 s before, 194.2 and 190.0 s after, measured with an
 * explicit turn between statements since dropped as redundant); the parse threads, idle a third of it before, mostly
 * wait on other things (CPU shared with storage on two cores).
 */
const STATEMENT_ROWS = 1_000;

/** Rows written before the first ANALYZE; each later one waits for twice as many (PGlite has no autovacuum to keep statistics). */
const FIRST_ANALYZE_ROWS = 50_000;

/** The symbol index in schema `symbol_indexer`. Each write replaces whole files in one transaction: no query sees half a file. */
export class SymbolStore {
  private rowsWritten = 0;
  private analyzeAt = FIRST_ANALYZE_ROWS;
  private analyzing: Promise<void> | undefined;

  constructor(private readonly db: Database) {}

  /** Replaces what is stored for `files` and removes `deleted`, at once; returns by how much the repository's symbol count moved. */
  async replace(repositoryId: string, commit: string | null, files: readonly IndexedFile[], deleted: readonly string[]): Promise<number> {
    const paths = [...files.map((f) => f.path), ...deleted];
    if (paths.length === 0) return 0;
    const symbols = files.flatMap((f) => f.symbols.map((s, ordinal) => ({ path: f.path, language: f.language, ordinal, ...s })));
    const imports = files.flatMap((f) => f.imports.map((i, ordinal) => ({ path: f.path, ordinal, ...i })));
    const refs = files.flatMap((f) => f.references.map((r) => ({ path: f.path, ...r })));
    const supertypes = symbols.flatMap((s) => [
      // As the language has it (`supertypeRelation`): Go has no inheritance, what a struct or interface names inside it is embedded.
      ...(s.supertypes ?? []).map((name) => ({
        path: s.path,
        ordinal: s.ordinal,
        name,
        relation: parsedLanguages().get(s.language ?? '')?.supertypeRelation ?? 'extends',
      })),
      ...(s.implements ?? []).map((name) => ({ path: s.path, ordinal: s.ordinal, name, relation: 'implements' })),
      // A type alias stands for the named types of its unions and intersections: for binding, a type of theirs.
      ...(s.aliases ?? []).map((name) => ({ path: s.path, ordinal: s.ordinal, name, relation: 'aliases' })),
    ]);
    return this.db
      .transaction(async (m) => {
        const before = (await this.db.run<{ n: number }>(SQL.countSymbols, [repositoryId, paths], m)).rows[0].n;
        for (const statement of [SQL.deleteSymbols, SQL.deleteSupertypes, SQL.deleteImports, SQL.deleteRefs, SQL.deleteFiles])
          await this.db.run(statement, [repositoryId, paths], m);
        const insert = <R>(statement: Statement, rows: readonly R[], columns: ReadonlyArray<(row: R) => unknown>) =>
          this.insertRows(m, statement, repositoryId, rows, columns);
        await insert(SQL.insertFiles, files, [(f) => f.path, (f) => f.language, () => commit, (f) => f.symbols.length, (f) => f.skipped]);
        await insert(SQL.insertSymbols, symbols, [
          (s) => s.path,
          (s) => s.ordinal,
          (s) => s.name,
          (s) => s.kind,
          (s) => s.line,
          (s) => s.endLine,
          (s) => s.column,
          (s) => s.container,
          (s) => s.signature,
          (s) => s.parent,
          (s) => s.language,
          (s) => s.returns ?? null,
          (s) => s.defaultExport === true,
        ]);
        await insert(SQL.insertImports, imports, [
          (i) => i.path,
          (i) => i.ordinal,
          (i) => i.module,
          (i) => i.line,
          (i) => i.bindings.map((b) => `${b.name} ${b.alias}`).join(','),
          (i) => i.reexport,
          (i) => i.target,
        ]);
        await insert(SQL.insertSupertypes, supertypes, [(h) => h.path, (h) => h.ordinal, (h) => h.name, (h) => h.relation]);
        await insert(SQL.insertRefs, refs, [(r) => r.path, (r) => r.name, (r) => r.occurrences]);
        await this.db.run(SQL.nextGeneration, [], m);
        return symbols.length - before;
      })
      .finally(() => this.analyzeNowAndThen(symbols.length + refs.length + paths.length));
  }

  /**
   * `rows` inserted by `statement`, whose `$1` is the repository and whose next parameters are one array per column:
   * STATEMENT_ROWS at a time.
   */
  private async insertRows<R>(
    manager: EntityManager,
    statement: Statement,
    repositoryId: string,
    rows: readonly R[],
    columns: ReadonlyArray<(row: R) => unknown>,
  ): Promise<void> {
    for (let start = 0; start < rows.length; start += STATEMENT_ROWS) {
      const part = rows.slice(start, start + STATEMENT_ROWS);
      await this.db.run(statement, [repositoryId, ...columns.map((column) => part.map(column))], manager);
    }
  }

  private analyzeNowAndThen(rows: number): void {
    this.rowsWritten += rows;
    if (this.rowsWritten < this.analyzeAt || this.analyzing) return;
    this.analyzeAt = this.rowsWritten * 2;
    this.analyzing = this.db
      .run(SQL.analyze, [])
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => (this.analyzing = undefined));
  }

  /**
   * Definitions named `name` (any case), or `Container.name` when qualified,
   * in the given repositories (null: all), best matches first; `truncated`
   * when there are more than `limit`.
   */
  async locate(
    name: string,
    filter: { repositoryIds: readonly string[] | null; kind?: string; language?: string; limit: number },
  ): Promise<{ rows: SymbolRow[]; truncated: boolean }> {
    const { container, bare } = splitName(name);
    const qualified = container !== null;
    const values: unknown[] = [name, filter.limit + 1];
    // `Container.name`, or a top-level `name` of a Go package or Python module named so (`store.New`, `pkg.models.User`).
    const { moduleOf, qualified: qualifiedLanguages } = moduleSqlOf();
    const where = [
      qualified
        ? `(s.name_key = lower($1) OR (s.name_key = lower($3) AND (lower(s.container) = lower($4)
             OR (s.parent = -1 AND s.language IN (${qualifiedLanguages}) AND (${moduleOf} = $5 OR right(${moduleOf}, length($5) + 1) = '/' || $5)))))`
        : 's.name_key = lower($1)',
    ];
    if (qualified) values.push(bare, container, container.toLowerCase().replaceAll('.', '/'));
    const add = (clause: (n: number) => string, value: unknown) => {
      values.push(value);
      where.push(clause(values.length));
    };
    if (filter.repositoryIds) add((n) => `s.repository_id = ANY($${n}::text[])`, filter.repositoryIds);
    if (filter.kind) add((n) => `s.kind = $${n}`, filter.kind);
    if (filter.language) add((n) => `s.language = $${n}`, filter.language);
    const { rows } = await this.db.run<SymbolRow>(locateStatement(where), values);
    return { rows: rows.slice(0, filter.limit), truncated: rows.length > filter.limit };
  }

  /** Definitions with exactly this name (`Container.name`: in that container), best first, at most `limit`. */
  async named(name: string, repositoryIds: readonly string[] | null, limit: number): Promise<SymbolRow[]> {
    const { rows } = await this.locate(name, { repositoryIds, limit: Math.max(limit, SAME_NAMED) });
    return exactlyNamed(rows, name).slice(0, limit);
  }

  /** A file's definitions in source order, or undefined when the file is not indexed. */
  async outline(
    repositoryId: string,
    path: string,
  ): Promise<{ language: string | null; skipped: string | null; symbols: SymbolRow[] } | undefined> {
    const { rows } = await this.db.run<SymbolRow & { skipped: string | null; ordinal: number | null }>(SQL.outline, [repositoryId, path]);
    const first = rows[0];
    if (!first) return undefined;
    return { language: first.language, skipped: first.skipped, symbols: rows.filter((r) => r.ordinal !== null) };
  }

  /** Definitions whose name starts on `line` of a file, in source order. */
  async definitionsAt(repositoryId: string, path: string, line: number): Promise<SymbolRow[]> {
    return (await this.db.run<SymbolRow>(SQL.definitionsAt, [repositoryId, path, line])).rows;
  }

  /** Definitions by (path, ordinal) in one repository: the enclosing symbols of references. */
  async symbolsByOrdinal(repositoryId: string, keys: ReadonlyArray<{ path: string; ordinal: number }>): Promise<SymbolRow[]> {
    if (keys.length === 0) return [];
    return (await this.db.run<SymbolRow>(SQL.symbolsByOrdinal, [repositoryId, keys.map((k) => k.path), keys.map((k) => k.ordinal)])).rows;
  }

  /** Every file's occurrences of `names` in the given repositories (null: all), at most `limit` rows. */
  async references(names: readonly string[], repositoryIds: readonly string[] | null, limit: number): Promise<ReferenceRow[]> {
    if (names.length === 0) return [];
    const { rows } = await this.db.run<{ repositoryId: string; path: string; name: string; occurrences: string }>(SQL.references, [
      names,
      repositoryIds,
      limit,
    ]);
    return rows.map((r) => ({ ...r, occurrences: unpackOccurrences(r.occurrences) }));
  }

  /** Per name of `names`, the files (`repository\0path`) that use it, in the repositories (null: all). */
  async filesMentioning(names: readonly string[], repositoryIds: readonly string[] | null): Promise<Map<string, Set<string>>> {
    const out = new Map(names.map((n) => [n, new Set<string>()]));
    if (names.length === 0) return out;
    const { rows } = await this.db.run<{ name: string; repositoryId: string; path: string }>(SQL.filesMentioning, [names, repositoryIds]);
    for (const r of rows) out.get(r.name)?.add(`${r.repositoryId}\0${r.path}`);
    return out;
  }

  /** The occurrences of `names` in the given files of one repository, at most `limit` rows. */
  async referencesAt(repositoryId: string, paths: readonly string[], names: readonly string[], limit: number): Promise<ReferenceRow[]> {
    if (paths.length === 0 || names.length === 0) return [];
    const { rows } = await this.db.run<{ repositoryId: string; path: string; name: string; occurrences: string }>(SQL.referencesAt, [
      repositoryId,
      paths,
      names,
      limit,
    ]);
    return rows.map((r) => ({ ...r, occurrences: unpackOccurrences(r.occurrences) }));
  }

  /** The imports of some files that bind a whole module to a name (`import * as ns`, Go's and Python's module names). */
  async namespaceImportsOf(repositoryId: string, paths: readonly string[]): Promise<ImportRow[]> {
    if (paths.length === 0) return [];
    return (await this.db.run<RawImport>(SQL.namespaceImportsOf, [repositoryId, paths])).rows.map(importRow);
  }

  /** A file's names that it calls somewhere, with all their occurrences. */
  async callsIn(repositoryId: string, path: string): Promise<ReferenceRow[]> {
    const { rows } = await this.db.run<{ repositoryId: string; path: string; name: string; occurrences: string }>(SQL.callsIn, [
      repositoryId,
      path,
    ]);
    return rows.map((r) => ({ ...r, occurrences: unpackOccurrences(r.occurrences) }));
  }

  /** The occurrences of one name in one file, if any. */
  async referencesIn(repositoryId: string, path: string, name: string): Promise<ReferenceRow | undefined> {
    const row = (
      await this.db.run<{ repositoryId: string; path: string; name: string; occurrences: string }>(SQL.referencesIn, [
        repositoryId,
        path,
        name,
      ])
    ).rows[0];
    return row && { ...row, occurrences: unpackOccurrences(row.occurrences) };
  }

  /** Imports that resolve to one of `targets` (files, or Go package directories) in a repository. */
  async importersOf(repositoryId: string, targets: readonly string[], limit = 10_000): Promise<ImportRow[]> {
    if (targets.length === 0) return [];
    return (await this.db.run<RawImport>(SQL.importersOf, [repositoryId, targets, limit])).rows.map(importRow);
  }

  /** The imports of some files of a repository, in source order. */
  async importsOf(repositoryId: string, paths: readonly string[]): Promise<ImportRow[]> {
    if (paths.length === 0) return [];
    return (await this.db.run<RawImport>(SQL.importsOf, [repositoryId, paths])).rows.map(importRow);
  }

  /** What the class-like definitions named `names` extend, implement or embed: pairs of names, in the repositories (null: all). */
  async supertypesOf(names: readonly string[], repositoryIds: readonly string[] | null): Promise<TypeEdge[]> {
    if (names.length === 0) return [];
    const keys = [...new Set(names.map((n) => n.toLowerCase()))];
    return (await this.db.run<TypeEdge>(SQL.supertypesOf, [names, repositoryIds, keys])).rows;
  }

  /** The names of the definitions that extend, implement or embed each of `names`: pairs (at most `limit` per name), in the repositories (null: all). */
  async subtypeNamesOf(names: readonly string[], repositoryIds: readonly string[] | null, limit: number): Promise<TypeEdge[]> {
    if (names.length === 0) return [];
    return (await this.db.run<TypeEdge>(SQL.subtypeNamesOf, [names, repositoryIds, limit])).rows;
  }

  /** The interfaces that declare a member named `name`, in the repositories (null: all). */
  async interfacesDeclaring(name: string, repositoryIds: readonly string[] | null): Promise<Set<string>> {
    return new Set((await this.db.run<{ name: string }>(SQL.interfacesDeclaring, [name, repositoryIds])).rows.map((r) => r.name));
  }

  /**
   * The functions and methods named `names` (exactly), with their declared results (null: none declared), in the
   * repositories (null: all); at most `limit`.
   */
  async returnsOf(
    names: readonly string[],
    repositoryIds: readonly string[] | null,
    limit: number,
  ): Promise<Array<{ name: string; language: string | null; container: string | null; returns: string | null }>> {
    if (names.length === 0) return [];
    const keys = [...new Set(names.map((n) => n.toLowerCase()))];
    return (
      await this.db.run<{ name: string; language: string | null; container: string | null; returns: string | null }>(SQL.returnsOf, [
        keys,
        names,
        repositoryIds,
        limit,
      ])
    ).rows;
  }

  /** The members named `names` of the types `containers` (bare names), with what reading or calling them gives; at most `limit`. */
  async membersOf(
    names: readonly string[],
    containers: readonly string[],
    repositoryIds: readonly string[] | null,
    limit: number,
  ): Promise<Array<{ name: string; container: string | null; kind: string; language: string | null; returns: string | null }>> {
    if (names.length === 0 || containers.length === 0) return [];
    const keys = [...new Set(names.map((n) => n.toLowerCase()))];
    return (
      await this.db.run<{ name: string; container: string | null; kind: string; language: string | null; returns: string | null }>(
        SQL.membersOf,
        [keys, names, containers, repositoryIds, limit],
      )
    ).rows;
  }

  /** Which of `names` the index defines as a type (class, interface, struct, trait, type or enum), with its language. */
  async typesDefined(
    names: readonly string[],
    repositoryIds: readonly string[] | null,
  ): Promise<Array<{ name: string; language: string | null }>> {
    if (names.length === 0) return [];
    const keys = [...new Set(names.map((n) => n.toLowerCase()))];
    return (await this.db.run<{ name: string; language: string | null }>(SQL.typesDefined, [keys, names, repositoryIds])).rows;
  }

  /** Which of `names` are defined only as `type` definitions (no class, interface, struct, trait or enum), in the repositories. */
  async typeAliasesOf(names: readonly string[], repositoryIds: readonly string[] | null): Promise<Set<string>> {
    if (names.length === 0) return new Set();
    const keys = [...new Set(names.map((n) => n.toLowerCase()))];
    return new Set((await this.db.run<{ name: string }>(SQL.typeAliasesOf, [keys, names, repositoryIds])).rows.map((r) => r.name));
  }

  /** What one definition extends (or embeds) and implements. */
  async supertypesOfSymbol(symbol: SymbolRow): Promise<{ extends: string[]; implements: string[]; embeds: string[] }> {
    const { rows } = await this.db.run<{ name: string; relation: string }>(SQL.supertypesOfSymbol, [
      symbol.repositoryId,
      symbol.path,
      symbol.ordinal,
    ]);
    return {
      extends: rows.filter((r) => r.relation === 'extends').map((r) => r.name),
      implements: rows.filter((r) => r.relation === 'implements').map((r) => r.name),
      embeds: rows.filter((r) => r.relation === 'embeds').map((r) => r.name),
    };
  }

  /** The definitions that extend, implement or embed one of `names`, in the repositories (null: all). */
  async subtypesOf(names: readonly string[], repositoryIds: readonly string[] | null, limit = 1_000): Promise<SymbolRow[]> {
    if (names.length === 0) return [];
    return (await this.db.run<SymbolRow>(SQL.subtypesOf, [names, repositoryIds, limit])).rows;
  }

  /** Definitions whose name starts with `prefix` (any case), other than `name`, shortest first. */
  async similar(prefix: string, name: string, repositoryIds: readonly string[] | null, limit: number): Promise<SymbolRow[]> {
    const escaped = prefix.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
    return (await this.db.run<SymbolRow>(SQL.similar, [escaped, name.toLowerCase(), repositoryIds, limit])).rows;
  }

  /** The class-like definitions (class, interface, struct, trait) of some files: which class a line is in. */
  async classesIn(
    repositoryId: string,
    paths: readonly string[],
  ): Promise<Array<{ path: string; name: string; line: number; endLine: number }>> {
    if (paths.length === 0) return [];
    return (await this.db.run<{ path: string; name: string; line: number; endLine: number }>(SQL.classesIn, [repositoryId, paths])).rows;
  }

  /** The most recently indexed files of the given repositories (null: all). */
  async recent(repositoryIds: readonly string[] | null, limit: number): Promise<FileRow[]> {
    return (await this.db.run<FileRow>(SQL.recent, [repositoryIds, limit])).rows;
  }

  /** The definition a file exports as its default, if the index knows it. */
  async defaultExportOf(repositoryId: string, path: string): Promise<SymbolRow[]> {
    return (await this.db.run<SymbolRow>(SQL.defaultExportOf, [repositoryId, path])).rows;
  }

  /** The files directly in a directory (`dir/`, or `''` for the root) of a repository. */
  /** The files directly in a directory (`dir`: its path with a trailing `/`, or '' for the root). */
  async filesIn(repositoryId: string, dir: string, limit = 1_000): Promise<string[]> {
    if (dir !== '' && !dir.endsWith('/')) throw new Error(`filesIn: a directory ends with "/" (${dir})`);
    const { rows } =
      dir === ''
        ? await this.db.run<{ path: string }>(SQL.filesInRoot, [repositoryId, limit])
        : // Every path under `a/b/` sorts before `a/b0` ('0' follows '/').
          await this.db.run<{ path: string }>(SQL.filesIn, [repositoryId, dir, `${dir.slice(0, -1)}0`, limit]);
    return rows.map((r) => r.path);
  }

  /** How many writes the index has had: facts derived from it hold while this stays. */
  async generation(): Promise<number> {
    return (await this.db.run<{ n: number }>(SQL.generation, [])).rows[0]?.n ?? 0;
  }

  /** Drops everything held of repositories the registry no longer knows (evicted workspaces). */
  async purge(repositoryIds: readonly string[]): Promise<void> {
    if (repositoryIds.length === 0) return;
    await this.db.transaction(async (m) => {
      for (const statement of [SQL.purgeSymbols, SQL.purgeSupertypes, SQL.purgeImports, SQL.purgeRefs, SQL.purgeFiles])
        await this.db.run(statement, [repositoryIds], m);
      await this.db.run(SQL.nextGeneration, [], m);
    });
  }

  /** Which of `paths` the index holds for a repository. */
  async existing(repositoryId: string, paths: readonly string[]): Promise<Set<string>> {
    if (paths.length === 0) return new Set();
    return new Set((await this.db.run<{ path: string }>(SQL.filesExist, [repositoryId, paths])).rows.map((r) => r.path));
  }
}

/** `Container.name` → its parts; a name without a dot inside has no container. */
export function splitName(name: string): { container: string | null; bare: string } {
  const dot = name.lastIndexOf('.');
  return dot > 0 && dot < name.length - 1 ? { container: name.slice(0, dot), bare: name.slice(dot + 1) } : { container: null, bare: name };
}

type RawImport = Omit<ImportRow, 'bindings'> & { bindings: string };

function importRow(row: RawImport): ImportRow {
  const bindings = row.bindings
    ? row.bindings.split(',').map((pair) => {
        const space = pair.indexOf(' ');
        return { name: pair.slice(0, space), alias: pair.slice(space + 1) };
      })
    : [];
  return { ...row, bindings };
}
