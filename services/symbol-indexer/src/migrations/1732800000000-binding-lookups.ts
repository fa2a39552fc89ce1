import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A count of the index's writes (`generation`, one row: each write adds one as it commits), so that facts derived from
 * the index can be kept until it changes, by every replica. Which definition a file exports as its default (`default_export`: `import x from './f'` binds it, under another
 * name), and lookups that find_references makes for each member it binds, as index ranges:
 * - subtypes by name within the caller's repositories: with the name alone indexed, a lookup that also names the
 *   repositories could be planned as a scan of the repository's part of the primary key (2–8 ms on the bench
 *   corpus against 0.3 ms by name);
 * - the functions and methods of a name (what a call of it returns): the name index alone holds every same-named
 *   property too (`type`: 2,846 definitions, 46 of them callable; 3 ms against 0.4 ms).
 */
export class BindingLookups1732800000000 implements MigrationInterface {
  name = 'BindingLookups1732800000000';

  async up(q: QueryRunner): Promise<void> {
    // One row: the key can only be true.
    await q.query(`CREATE TABLE "symbol_indexer"."generation" ("one" boolean PRIMARY KEY DEFAULT true CHECK ("one"), "n" bigint NOT NULL)`);
    await q.query(`INSERT INTO "symbol_indexer"."generation" ("n") VALUES (0)`);
    await q.query(`ALTER TABLE "symbol_indexer"."symbols" ADD COLUMN "default_export" boolean NOT NULL DEFAULT false`);
    await q.query(`DROP INDEX "symbol_indexer"."supertypes_name"`);
    await q.query(`CREATE INDEX "supertypes_name" ON "symbol_indexer"."supertypes" ("name", "repository_id")`);
    await q.query(
      `CREATE INDEX "symbols_callables" ON "symbol_indexer"."symbols" ("name_key", "repository_id") WHERE kind IN ('function', 'method')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "symbol_indexer"."symbols_callables"`);
    await q.query(`DROP INDEX "symbol_indexer"."supertypes_name"`);
    await q.query(`CREATE INDEX "supertypes_name" ON "symbol_indexer"."supertypes" ("name")`);
    await q.query(`ALTER TABLE "symbol_indexer"."symbols" DROP COLUMN "default_export"`);
    await q.query(`DROP TABLE "symbol_indexer"."generation"`);
  }
}
