import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { busError, PROJECT_LIMITS, ResolveRepositories, type BusError } from '@sextant/contracts';
import { BusRequestError, type BusClient } from '@sextant/messaging';
import { Database, startEmbeddedPostgres, type EmbeddedPostgres } from '@sextant/persistence';
import { MIGRATIONS } from '../migrations/index.js';
import { ProjectsRepository } from './projects.repository.js';
import { ProjectsService } from './projects.service.js';

async function failure(promise: Promise<unknown>): Promise<BusError> {
  try {
    await promise;
  } catch (error) {
    // A ServiceError of projects, or the registry's error passed through.
    const busError = error instanceof BusRequestError ? error.error : (error as { busError?: BusError }).busError;
    assert.ok(busError, `expected a ServiceError, got ${String(error)}`);
    return busError;
  }
  assert.fail('expected a failure');
}

/**
 * workspace-registry as projects sees it over the bus (the real one answers in
 * tests/): every reference is a registered repository whose id is itself,
 * except "unknown…" (not registered); "name:X" is the name of repository X.
 */
let registryDown = false;
const registry: BusClient = {
  async request<T>(subject: string, data: unknown): Promise<T> {
    assert.equal(subject, ResolveRepositories.SUBJECT);
    if (registryDown) throw new BusRequestError(busError('unavailable', 'The workspace-registry service is not running.'));
    const { references } = ResolveRepositories.Request.parse(data);
    const repositories = references.map((ref) => {
      if (ref.startsWith('unknown')) return null;
      const id = ref.replace(/^name:/, '');
      return { id, name: `name:${id}`, kind: 'local' as const, locator: `/repos/${id}`, ref: null };
    });
    return { repositories } as T;
  },
  isConnected: () => true,
  close: async () => undefined,
};

describe('ProjectsService (PGlite, real SQL and migrations)', () => {
  let pg: EmbeddedPostgres;
  let db: Database;
  let projects: ProjectsService;

  before(async () => {
    pg = await startEmbeddedPostgres({ dataDir: 'memory://' });
    db = new Database({ url: pg.url, schema: 'projects', migrations: MIGRATIONS, poolSize: 4, connectTimeoutMs: 2_000 });
    await db.start();
    projects = new ProjectsService(db, new ProjectsRepository(db), registry);
  });
  after(async () => {
    await db.stop();
    await pg.stop();
  });
  beforeEach(async () => {
    await db.transaction((m) => m.query('DELETE FROM "projects"."projects"'));
  });

  it('creates a project with deduplicated members and reads it back by id and by name in any case', async () => {
    const { project } = await projects.create({ name: 'Frontend Repos', description: 'web', repository_ids: ['b', 'a'] });
    assert.match(project.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(project.repository_ids, ['a', 'b']);
    assert.equal(project.repository_count, 2);
    assert.deepEqual((await projects.get({ project: project.id })).project, project);
    assert.deepEqual((await projects.get({ project: 'fRONTEND repos' })).project, project);
  });

  it('refuses a name that differs only in case (or compatibility form)', async () => {
    await projects.create({ name: 'Backend' });
    const upper = await failure(projects.create({ name: 'BACKEND' }));
    assert.equal(upper.code, 'invalid_input');
    assert.deepEqual(upper.details, { fields: { name: 'already used by another project' } });
    const fullwidth = await failure(projects.create({ name: 'Ｂａｃｋｅｎｄ' }));
    assert.equal(fullwidth.code, 'invalid_input');
  });

  it('keeps unicode names intact', async () => {
    await projects.create({ name: 'Plateforme données 🚀 データ' });
    assert.equal((await projects.get({ project: 'PLATEFORME DONNÉES 🚀 データ' })).project.name, 'Plateforme données 🚀 データ');
  });

  it('lists by name with a total and says when it cut the list', async () => {
    for (const name of ['c', 'A', 'b']) await projects.create({ name, repository_ids: [name] });
    const all = await projects.list({ limit: 50 });
    assert.deepEqual(
      all.projects.map((p) => p.name),
      ['A', 'b', 'c'],
    );
    assert.equal(all.total, 3);
    assert.equal(all.truncated, false);
    assert.equal(all.projects[0].repository_count, 1);
    const cut = await projects.list({ limit: 2 });
    assert.equal(cut.projects.length, 2);
    assert.equal(cut.total, 3);
    assert.equal(cut.truncated, true);
  });

  it('updates name, description and replaces the member set', async () => {
    const { project } = await projects.create({ name: 'old', description: 'x', repository_ids: ['r1', 'r2'] });
    const { project: updated } = await projects.update({ project: 'OLD', name: 'new', description: null, repository_ids: ['r3'] });
    assert.equal(updated.id, project.id);
    assert.equal(updated.name, 'new');
    assert.equal(updated.description, null);
    assert.deepEqual(updated.repository_ids, ['r3']);
    assert.ok(updated.updated_at >= project.updated_at);
    assert.equal((await failure(projects.get({ project: 'old' }))).code, 'not_found');
  });

  it('refuses a rename onto another project name and changes nothing', async () => {
    await projects.create({ name: 'one', repository_ids: ['a'] });
    await projects.create({ name: 'two' });
    const error = await failure(projects.update({ project: 'one', name: 'TWO', repository_ids: ['z'] }));
    assert.equal(error.code, 'invalid_input');
    assert.deepEqual((await projects.get({ project: 'one' })).project.repository_ids, ['a']);
  });

  it('adds and removes members idempotently', async () => {
    await projects.create({ name: 'p' });
    const first = await projects.addRepository({ project: 'p', repository_id: 'r' });
    const again = await projects.addRepository({ project: 'P', repository_id: 'r' });
    assert.deepEqual([first.added, first.repository_count, again.added, again.repository_count], [true, 1, false, 1]);
    const removed = await projects.removeRepository({ project: 'p', repository_id: 'r' });
    const removedAgain = await projects.removeRepository({ project: 'p', repository_id: 'r' });
    assert.deepEqual([removed.removed, removed.repository_count, removedAgain.removed, removedAgain.repository_count], [true, 0, false, 0]);
  });

  it('caps the members of a project', async () => {
    const ids = Array.from({ length: PROJECT_LIMITS.repositoriesPerProject }, (_, i) => `repo-${i}`);
    await projects.create({ name: 'full', repository_ids: ids });
    const error = await failure(projects.addRepository({ project: 'full', repository_id: 'one-more' }));
    assert.equal(error.code, 'invalid_input');
    assert.ok(error.details && 'fields' in error.details);
  });

  it('deletes memberships only and answers not_found afterwards', async () => {
    await projects.create({ name: 'gone', repository_ids: ['a', 'b'] });
    const deleted = await projects.delete({ project: 'GONE' });
    assert.equal(deleted.repositories_removed, 2);
    assert.equal((await failure(projects.get({ project: 'gone' }))).code, 'not_found');
    assert.equal((await failure(projects.delete({ project: 'gone' }))).code, 'not_found');
    const orphans = await db.dataSource.query('SELECT count(*)::int AS n FROM "projects"."project_repositories"');
    assert.equal(orphans[0].n, 0);
  });

  it('serializes concurrent creates of one name: exactly one wins', async () => {
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => projects.create({ name: 'race' })));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    assert.equal((await projects.list({ limit: 10 })).total, 1);
  });

  it('serializes concurrent adds to one project', async () => {
    await projects.create({ name: 'busy' });
    await Promise.all(Array.from({ length: 20 }, (_, i) => projects.addRepository({ project: 'busy', repository_id: `r${i % 10}` })));
    assert.equal((await projects.get({ project: 'busy' })).project.repository_count, 10);
  });

  it('stores the registry id of a repository named by name, once', async () => {
    const { project } = await projects.create({ name: 'named', repository_ids: ['name:r1', 'r1', 'name:r2'] });
    assert.deepEqual(project.repository_ids, ['r1', 'r2']);
    const added = await projects.addRepository({ project: 'named', repository_id: 'name:r2' });
    assert.deepEqual([added.added, added.repository_id], [false, 'r2']);
    const removed = await projects.removeRepository({ project: 'named', repository_id: 'name:r1' });
    assert.deepEqual([removed.removed, removed.repository_id], [true, 'r1']);
  });

  it('refuses repositories the registry does not know with not_found naming each, and writes nothing', async () => {
    const create = await failure(projects.create({ name: 'bad', repository_ids: ['r1', 'unknown-1', 'unknown-2'] }));
    assert.equal(create.code, 'not_found');
    assert.match(create.message, /"unknown-1", "unknown-2"/);
    assert.deepEqual(create.details, { repository_ids: ['unknown-1', 'unknown-2'] });
    assert.equal((await projects.list({ limit: 10 })).total, 0);
    await projects.create({ name: 'good', repository_ids: ['r1'] });
    assert.equal((await failure(projects.update({ project: 'good', name: 'renamed', repository_ids: ['unknown'] }))).code, 'not_found');
    assert.equal((await failure(projects.addRepository({ project: 'good', repository_id: 'unknown' }))).code, 'not_found');
    const { project } = await projects.get({ project: 'good' });
    assert.deepEqual([project.name, project.repository_ids], ['good', ['r1']]);
  });

  it('answers unavailable (retryable) while the registry cannot be asked, and writes nothing', async () => {
    registryDown = true;
    try {
      const error = await failure(projects.create({ name: 'later', repository_ids: ['r1'] }));
      assert.equal(error.code, 'unavailable');
      assert.equal((await projects.list({ limit: 10 })).total, 0);
      // Without members nothing needs the registry.
      assert.equal((await projects.create({ name: 'empty' })).project.repository_count, 0);
    } finally {
      registryDown = false;
    }
  });

  it('resolves an id before a name that looks like an id', async () => {
    const { project: target } = await projects.create({ name: 'target' });
    const { project: impostor } = await projects.create({ name: 'impostor' });
    await projects.update({ project: impostor.id, name: target.id.toUpperCase() });
    assert.equal((await projects.get({ project: target.id })).project.name, 'target');
  });
});
