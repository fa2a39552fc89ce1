import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A function's or method's declared result, by bare name (`returns`): the type a call of it gives, so that a member
 * accessed on a call's result (`x := f(); x.name`, `f().name`) binds by that type (ADR 0035). Null when the
 * definition declares none, or was indexed before this migration (until `index_repo` with `force: true`).
 */
export class AddReturns1732700000000 implements MigrationInterface {
  name = 'AddReturns1732700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "symbol_indexer"."symbols" ADD COLUMN "returns" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "symbol_indexer"."symbols" DROP COLUMN "returns"`);
  }
}
