import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The precise tier keeps SCIP's `is_implementation` relationships beside its `is_reference` ones (ADR 0061):
 * `kind` holds the relationship's bits (1 `is_reference`, 2 `is_implementation`). The rows stored before are all
 * `is_reference` ones; a repository's next precise run or upload adds its implementations.
 */
export class RelationshipKinds1733200000000 implements MigrationInterface {
  name = 'RelationshipKinds1733200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "symbol_indexer"."precise_relationships" ADD COLUMN "kind" smallint NOT NULL DEFAULT 1`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "symbol_indexer"."precise_relationships" DROP COLUMN "kind"`);
  }
}
