import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Database, startEmbeddedPostgres, type EmbeddedPostgres } from '@sextant/persistence';
import { createTestDatabase, infrastructure, type TestDatabase } from '@sextant/testing';
import { jobTablesMigration } from './migration.js';
import { JobStore, workerId } from './store.js';
import { StageWorker, type IndexingStage } from './worker.js';

const SCHEMA = 'jobspec';

/** The same scenarios on PGlite (embedded mode) and on the machine's Postgres (distributed mode). */
for (const backend of ['PGlite', 'Postgres'] as const) {
  describe(`job store on ${backend}`, () => {
    let embedded: EmbeddedPostgres | undefined;
    let testDb: TestDatabase | undefined;
    let db: Database;
    let store: JobStore;

    before(async () => {
      let url: string;
      if (backend === 'PGlite') {
        embedded = await startEmbeddedPostgres({ dataDir: 'memory://' });
        url = embedded.url;
      } else {
        const infra = await infrastructure();
        testDb = await createTestDatabase(infra.postgresUrl, 'sextant_jobs');
        url = testDb.url;
      }
      db = new Database({ url, schema: SCHEMA, migrations: [jobTablesMigration(SCHEMA)], poolSize: 4, connectTimeoutMs: 5_000 });
      await db.start();
      store = new JobStore(db, SCHEMA);
    });
    /** Claims pending jobs as `owner` until it holds job `id` (earlier tests leave others pending: they are skipped). */
    async function claimJob(owner: string, id: string) {
      let job;
      while ((job = await store.claim(owner, 60_000)) && job.id !== id) await store.finish(job.id, owner, 'skipped');
      assert.ok(job, `job ${id} was claimed`);
      return job;
    }

    after(async () => {
      await db?.stop();
      await embedded?.stop();
      await testDb?.drop();
    });

    it('keeps one active job per key: a second request gets the first', async () => {
      const [a, b] = await Promise.all([
        store.create('repo-1', { kind: 'index', mode: 'full' }),
        store.create('repo-1', { kind: 'index', mode: 'incremental' }),
      ]);
      assert.equal(a.job.id, b.job.id);
      assert.deepEqual([a.created, b.created].sort(), [false, true]);
      const other = await store.create('repo-2', { kind: 'index', mode: 'full' });
      assert.notEqual(other.job.id, a.job.id);
    });

    it('gives each pending job to one worker, records progress, and frees the key when it ends', async () => {
      const owners = [workerId(), workerId()];
      const claimed = await Promise.all(owners.map((o) => store.claim(o, 10_000)));
      assert.equal(new Set(claimed.map((j) => j?.id)).size, 2, 'two workers, two different jobs');
      const job = claimed[0]!;
      assert.equal(job.status, 'running');
      assert.ok(
        await store.progress(job.id, owners[0], {
          stage: 'discovery',
          percent: 5,
          message: 'Scanning files: 10 discovered',
          stats: { files_scanned: 10 },
        }),
      );
      assert.equal(
        await store.progress(job.id, owners[1], { stage: 'x', percent: 1, message: 'not mine' }),
        false,
        'only the owner writes',
      );
      const done = await store.finish(job.id, owners[0], 'completed', { message: 'done' });
      assert.deepEqual([done?.status, done?.percent, done?.stats.files_scanned], ['completed', 100, 10]);
      assert.equal((await store.create(job.key, { kind: 'index', mode: 'full' })).created, true, 'the key is free again');
      await store.finish(claimed[1]!.id, owners[1], 'failed', { error: 'boom' });
    });

    it('reports a job whose worker died as interrupted until a later job of its key completes', async () => {
      const key = `repo-${Math.random()}`;
      const created = await store.create(key, { kind: 'index', mode: 'full' });
      // A worker of this host whose process is gone (pid 2^22 + 1 is above Linux's pid_max default).
      const ghost = `${workerId().split(':')[0]}:4194305:dead`;
      const job = await claimJob(ghost, created.job.id);
      const interrupted = await store.interruptAbandoned('interrupted by a restart');
      assert.ok(interrupted.some((j) => j.id === job.id && j.status === 'failed' && j.interruptedAt));
      assert.equal((await store.interrupted(key)).count, 1);
      const again = await store.create(key, { kind: 'index', mode: 'full' });
      const owner = workerId();
      await claimJob(owner, again.job.id);
      await store.finish(again.job.id, owner, 'completed');
      assert.equal((await store.interrupted(key)).count, 0, 'a completed re-run clears the report');
    });

    it("shares a job's batches among workers; a batch of a worker that stopped renewing is taken up again", async () => {
      const key = `repo-${Math.random()}`;
      const { job } = await store.create(key, { kind: 'index', mode: 'full' });
      const coordinator = workerId();
      await claimJob(coordinator, job.id);
      const groups = Array.from({ length: 12 }, (_, i) => [`src/f${i}.ts`, `src/g${i}.ts`]);
      await store.addBatches(job.id, 'symbols', groups);

      // A worker that claims one batch and dies (never renews, never completes). Its lease outlasts the drain below on a
      // loaded machine (200 ms did not: the drain took it up early and counted 12).
      const dead = await store.claimBatch('symbols', 'crashed-worker', 1_500);
      assert.ok(dead);

      const seen: string[] = [];
      const stage: IndexingStage = {
        name: 'symbols',
        async process(batch) {
          seen.push(...(batch.items as string[]));
          await new Promise((r) => setTimeout(r, 5));
          return { files_indexed: batch.items.length, symbols_extracted: 3 };
        },
      };
      const workers = [new StageWorker(store, stage, { idleMs: 20 }), new StageWorker(store, stage, { idleMs: 20 })];
      const counts = await Promise.all(workers.map((w) => w.drain()));
      assert.equal(counts[0] + counts[1], 11, 'the 11 free batches, shared');
      await new Promise((r) => setTimeout(r, 1_600)); // the dead worker's lease runs out
      assert.equal(await workers[0].drain(), 1, 'its batch is taken up again');
      assert.equal(await store.completeBatch(dead.id, 'crashed-worker', { files_indexed: 99 }), false, 'a late completion is not counted');
      assert.deepEqual(new Set(seen), new Set(groups.flat()));
      const stageCounts = await store.stageCounts(job.id, 'symbols');
      assert.deepEqual(stageCounts, { total: 12, done: 12, failed: 0, error: null, result: { files_indexed: 24, symbols_extracted: 36 } });
      await store.finish(job.id, coordinator, 'completed');
    });

    it('runs a started worker until it is stopped, finishing the batch in hand', async () => {
      const { job } = await store.create(`repo-${Math.random()}`, { kind: 'index', mode: 'full' });
      const coordinator = workerId();
      await claimJob(coordinator, job.id);
      await store.addBatches(job.id, 'started', [['a'], ['b'], ['c']]);
      const done: string[] = [];
      const worker = new StageWorker(
        store,
        { name: 'started', process: async (b) => (done.push(...(b.items as string[])), { files_indexed: 1 }) },
        { idleMs: 10 },
      );
      worker.start();
      for (let i = 0; i < 200 && (await store.stageCounts(job.id, 'started')).done < 3; i++) await new Promise((r) => setTimeout(r, 10));
      await worker.stop();
      assert.deepEqual(done.sort(), ['a', 'b', 'c']);
      await store.finish(job.id, coordinator, 'completed');
    });

    it('retries a failing batch, then fails it', async () => {
      const key = `repo-${Math.random()}`;
      const { job } = await store.create(key, { kind: 'index', mode: 'full' });
      const coordinator = workerId();
      await claimJob(coordinator, job.id);
      await store.addBatches(job.id, 'vectors', [['a.ts']]);
      let attempts = 0;
      const worker = new StageWorker(
        store,
        {
          name: 'vectors',
          async process() {
            attempts++;
            throw new Error('embedding endpoint down');
          },
        },
        { maxAttempts: 2 },
      );
      await worker.drain();
      assert.equal(attempts, 2);
      assert.deepEqual(await store.stageCounts(job.id, 'vectors'), {
        total: 1,
        done: 0,
        failed: 1,
        error: 'embedding endpoint down',
        result: {},
      });
      await store.finish(job.id, coordinator, 'failed', { error: 'vectors failed' });
    });
  });
}
