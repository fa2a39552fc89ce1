import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Database, startEmbeddedPostgres, type EmbeddedPostgres } from '@sextant/persistence';
import { MIGRATIONS, SCHEMA } from '../migrations/index.js';
import { RegistryStore } from './registry.store.js';

describe('RegistryStore.findMany (PGlite, real SQL and migrations)', () => {
  let pg: EmbeddedPostgres;
  let db: Database;
  let store: RegistryStore;

  before(async () => {
    pg = await startEmbeddedPostgres({ dataDir: 'memory://' });
    db = new Database({ url: pg.url, schema: SCHEMA, migrations: MIGRATIONS, poolSize: 2, connectTimeoutMs: 2_000 });
    await db.start();
    store = new RegistryStore(db);
  });
  after(async () => {
    await db?.stop();
    await pg?.stop();
  });

  const remote = (name: string) =>
    store.register({
      kind: 'remote',
      locator: `https://git.example.com/acme/${name}.git`,
      identity: `git.example.com/acme/${name}`,
      name,
      ref: null,
      origin: 'registered',
    });

  it('answers each reference as find does, in order: ids in any case, a merged id, names, locators, unknown ones', async () => {
    const [api, web, gone] = [await remote('api'), await remote('web'), await remote('gone')];
    await store.merge(gone, api);
    const unknown = randomUUID();
    const references = [web.id, api.id.toUpperCase(), gone.id, 'WEB', api.locator, unknown, 'nothing', web.id];
    const found = await store.findMany(references);
    assert.deepEqual(
      found.map((r) => r?.name ?? null),
      ['web', 'api', 'api', 'web', 'api', null, null, 'web'],
    );
    // The same answers as one find each.
    for (const [i, reference] of references.entries()) assert.deepEqual(found[i], await store.find(reference), reference);
    assert.deepEqual(await store.findMany([]), []);
  });
});
