import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The precise tier (ADR 0053): per repository, the SCIP index of one commit — its documents, the global symbols they
 * name (by a number local to the repository, so an occurrence row carries no symbol string) and their occurrences
 * (0-based, as SCIP gives them), and the symbols' `is_reference` relationships. `precise_indexes` says which commit and when its run started: a file the symbols
 * stage re-indexed after that is no longer answered from it. The run's claim (which job, which batch) lives there too.
 */
export class PreciseTier1733000000000 implements MigrationInterface {
  name = 'PreciseTier1733000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "symbol_indexer"."precise_indexes" (
        "repository_id" text PRIMARY KEY,
        "job_id" text,
        "batch_id" bigint,
        "claimed_at" timestamptz,
        "commit" text,
        "tool" text,
        "started_at" timestamptz,
        "indexed_at" timestamptz,
        "documents" int NOT NULL DEFAULT 0,
        "occurrences" int NOT NULL DEFAULT 0
      )`);
    await q.query(`
      CREATE TABLE "symbol_indexer"."precise_documents" (
        "repository_id" text NOT NULL,
        "path" text NOT NULL,
        "language" text NOT NULL,
        PRIMARY KEY ("repository_id", "path")
      )`);
    await q.query(`
      CREATE TABLE "symbol_indexer"."precise_symbols" (
        "repository_id" text NOT NULL,
        "id" int NOT NULL,
        "symbol" text NOT NULL,
        "kind" int NOT NULL,
        "display_name" text NOT NULL,
        PRIMARY KEY ("repository_id", "id")
      )`);
    await q.query(`CREATE UNIQUE INDEX "precise_symbols_symbol" ON "symbol_indexer"."precise_symbols" ("repository_id", "symbol")`);
    await q.query(`
      CREATE TABLE "symbol_indexer"."precise_occurrences" (
        "repository_id" text NOT NULL,
        "path" text NOT NULL,
        "symbol_id" int NOT NULL,
        "line" int NOT NULL,
        "col" int NOT NULL,
        "end_line" int NOT NULL,
        "end_col" int NOT NULL,
        "roles" int NOT NULL
      )`);
    // `is_reference` relationships: the references of `target` are the symbol's too (a member and what it overrides).
    await q.query(`
      CREATE TABLE "symbol_indexer"."precise_relationships" (
        "repository_id" text NOT NULL,
        "symbol_id" int NOT NULL,
        "target" text NOT NULL
      )`);
    await q.query(`CREATE INDEX "precise_relationships_symbol" ON "symbol_indexer"."precise_relationships" ("repository_id", "symbol_id")`);
    await q.query(`CREATE INDEX "precise_relationships_target" ON "symbol_indexer"."precise_relationships" ("repository_id", "target")`);
    // Every occurrence of a symbol (find_references), and what is at a position (go to definition).
    await q.query(`CREATE INDEX "precise_occurrences_symbol" ON "symbol_indexer"."precise_occurrences" ("repository_id", "symbol_id")`);
    await q.query(`CREATE INDEX "precise_occurrences_at" ON "symbol_indexer"."precise_occurrences" ("repository_id", "path", "line")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `DROP TABLE "symbol_indexer"."precise_relationships", "symbol_indexer"."precise_occurrences", "symbol_indexer"."precise_symbols", "symbol_indexer"."precise_documents", "symbol_indexer"."precise_indexes"`,
    );
  }
}
