import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the symbols stage writes per file: the file (parsed, or kept at file
 * level and why), its definitions in source order (`parent`: the ordinal of
 * the enclosing one; the file's language repeated, so that a lookup by name
 * needs no join) and its imports. Repositories are the registry's ids.
 */
export class CreateSymbols1732500000000 implements MigrationInterface {
  name = 'CreateSymbols1732500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "symbol_indexer"."files" (
        "repository_id" text NOT NULL,
        "path" text NOT NULL,
        "language" text,
        "commit" text,
        "symbol_count" int NOT NULL DEFAULT 0,
        "skipped" text,
        "indexed_at" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("repository_id", "path")
      )`);
    await q.query(`
      CREATE TABLE "symbol_indexer"."symbols" (
        "repository_id" text NOT NULL,
        "path" text NOT NULL,
        "ordinal" int NOT NULL,
        "name" text NOT NULL,
        "name_key" text NOT NULL,
        "kind" text NOT NULL,
        "language" text,
        "line" int NOT NULL,
        "end_line" int NOT NULL,
        "col" int NOT NULL,
        "container" text,
        "signature" text,
        "parent" int NOT NULL,
        PRIMARY KEY ("repository_id", "path", "ordinal")
      )`);
    // Name first, then repository: a lookup by name in one repository is one index range whatever the statistics say.
    await q.query(`CREATE INDEX "symbols_name_key" ON "symbol_indexer"."symbols" ("name_key", "repository_id")`);
    await q.query(`
      CREATE TABLE "symbol_indexer"."imports" (
        "repository_id" text NOT NULL,
        "path" text NOT NULL,
        "ordinal" int NOT NULL,
        "module" text NOT NULL,
        "line" int NOT NULL,
        PRIMARY KEY ("repository_id", "path", "ordinal")
      )`);
    await q.query(`CREATE INDEX "imports_module" ON "symbol_indexer"."imports" ("module")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "symbol_indexer"."imports", "symbol_indexer"."symbols", "symbol_indexer"."files"`);
  }
}
