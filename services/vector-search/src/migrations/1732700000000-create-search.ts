import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What search keeps whatever the embedding model: the collections (one per
 * model and dimension; each has its own chunk table, made when first used,
 * see `ChunkStore`), and which repositories each collection has indexed, at
 * which commit. `dot` scores vectors stored as `real[]` where the server has
 * no pgvector (an exact scan).
 */
export class CreateSearch1732700000000 implements MigrationInterface {
  name = 'CreateSearch1732700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "vector_search"."collections" (
        "name" text PRIMARY KEY,
        "model" text NOT NULL,
        "dimension" int NOT NULL,
        "vectors" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE "vector_search"."indexed" (
        "repository_id" text NOT NULL,
        "collection" text NOT NULL,
        "commit" text,
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY ("repository_id", "collection")
      )`);
    await q.query(`
      CREATE FUNCTION "vector_search"."dot"(a real[], b real[]) RETURNS double precision
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT sum(x::float8 * y) FROM unnest(a, b) AS t(x, y) $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION "vector_search"."dot"(real[], real[])`);
    await q.query(`DROP TABLE "vector_search"."indexed", "vector_search"."collections"`);
  }
}
