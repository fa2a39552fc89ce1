import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IndexingStatus, RegisteredRepository } from '@sextant/contracts';
import { BusRequestError } from '@sextant/messaging';
import { withPrincipal } from '@sextant/work';
import { Scopes } from './scopes.js';

const repo = (id: string, name = id): RegisteredRepository => ({ id, name, kind: 'local', locator: `/w/${name}`, ref: null });
const KNOWN = new Map([repo('r1', 'shop'), repo('r2', 'tools')].map((r) => [r.id, r]));

/** The registry's answers over a fixed set of repositories (by id or name), and what it was asked. */
function registry(
  workspace: () => { repository: RegisteredRepository; discovered: boolean },
  status: (id: string) => IndexingStatus = () => 'ready',
) {
  return {
    repositories: async (refs: readonly string[]) => refs.map((r) => KNOWN.get(r) ?? [...KNOWN.values()].find((k) => k.name === r) ?? null),
    workspace: async () => workspace(),
    freshness: async (ids: readonly string[]) =>
      ids.map((id) => ({
        id,
        indexed_commit: status(id) === 'ready' ? `c-${id}` : null,
        behind_head: status(id) === 'ready' ? false : null,
        index_status: status(id),
        dirty: id === 'r2' ? true : null,
        changed_paths: id === 'r2' ? ['src/edited.ts'] : [],
      })),
  };
}

describe('Scopes', () => {
  it('resolves repos (every one must exist, named in the error) and a project through the projects service', async () => {
    const asked: unknown[] = [];
    const bus = {
      request: async <T>(subject: string, body: unknown): Promise<T> => {
        asked.push([subject, body]);
        return { project: { name: 'Both', repository_ids: ['r1', 'r2', 'gone'] } } as T;
      },
    };
    const scopes = new Scopes(
      registry(() => ({ repository: repo('r1', 'shop'), discovered: false })),
      bus,
    );
    const both = await scopes.of({ repos: ['shop', 'tools', 'r1'] }, false);
    assert.deepEqual([both.type, both.repositories?.map((r) => r.id)], ['repos', ['r1', 'r2']]);
    await assert.rejects(scopes.of({ repos: ['shop', 'nope', 'zip'] }, false), (e: Error) => /"nope", "zip"/.test(e.message));
    const project = await scopes.of({ project: 'both' }, false);
    assert.deepEqual([project.type, project.project, project.repositories?.map((r) => r.id)], ['project', 'Both', ['r1', 'r2']]);
    assert.deepEqual(asked, [['projects.get.v1', { project: 'both' }]]);
  });

  it('marks an answer over a workspace this call discovered, and falls back to all repositories only where allowed', async () => {
    const discovered = new Scopes(registry(() => ({ repository: repo('r1', 'shop'), discovered: true })));
    const scope = await discovered.of({ workspace: '/w/shop' }, false);
    assert.deepEqual(await discovered.answer(scope, new Map()), {
      freshness: [{ repo: 'shop', commit: 'c-r1', behind_head: false }],
      indexing_status: 'indexing',
      result_completeness: 'partial',
    });
    const noDefault = new Scopes(
      registry(() => {
        throw new BusRequestError({ code: 'invalid_input', message: 'no default workspace', retryable: false });
      }),
    );
    assert.equal((await noDefault.of({}, true)).repositories, null);
    await assert.rejects(noDefault.of({}, false), /no default workspace/);
  });

  it('says which repositories of an answer its index does not cover, and what to call; a dirty workspace names its edits', async () => {
    const statuses: Record<string, IndexingStatus> = { r1: 'not_indexed', r2: 'ready' };
    const scopes = new Scopes(
      registry(
        () => ({ repository: repo('r1', 'shop'), discovered: false }),
        (id) => statuses[id],
      ),
    );
    const both = { repositories: [...KNOWN.values()], partial: false, type: 'repos' as const };
    assert.deepEqual(await scopes.answer(both, new Map()), {
      freshness: [
        { repo: 'shop', commit: null, behind_head: null },
        { repo: 'tools', commit: 'c-r2', behind_head: false, dirty: true, changed_paths: ['src/edited.ts'] },
      ],
      result_completeness: 'partial',
      hint: 'shop is not indexed: call index_repo',
    });
    const answer = async (status: IndexingStatus) => {
      statuses.r1 = status;
      const fresh = new Scopes(
        registry(
          () => ({ repository: repo('r1', 'shop'), discovered: false }),
          (id) => statuses[id],
        ),
      );
      return fresh.answer({ repositories: [repo('r1', 'shop')], partial: false, type: 'workspace' }, new Map());
    };
    const indexing = await answer('indexing');
    assert.deepEqual(
      [indexing.indexing_status, indexing.result_completeness, indexing.hint],
      ['indexing', 'partial', 'shop is being indexed: this answer covers what is indexed so far (index_status shows progress)'],
    );
    assert.equal((await answer('failed')).hint, 'indexing shop failed (index_status says why): call index_repo to try again');
    statuses.r1 = 'ready';
    const covered = await new Scopes(
      registry(
        () => ({ repository: repo('r1', 'shop'), discovered: false }),
        (id) => statuses[id],
      ),
    ).answer({ repositories: [repo('r1', 'shop')], partial: false, type: 'workspace' }, new Map());
    assert.deepEqual(covered, { freshness: [{ repo: 'shop', commit: 'c-r1', behind_head: false }] });
  });

  it('leaves out rows of repositories the registry no longer knows and hands their ids to forget', async () => {
    const forgotten: string[][] = [];
    const scopes = new Scopes(
      registry(() => ({ repository: repo('r1'), discovered: false })),
      undefined,
      async (ids) => forgotten.push(ids),
    );
    const all = { repositories: null, partial: false, type: 'all' as const };
    const known = await scopes.repositoriesOf(all, [{ repositoryId: 'r2' }, { repositoryId: 'evicted' }, { repositoryId: 'r2' }]);
    assert.deepEqual([...known.keys()], ['r2']);
    assert.deepEqual(forgotten, [['evicted']]);
  });

  it("treats a repository outside the caller's projects as unknown, and makes all mean all it may read", async () => {
    const asked: string[] = [];
    const bus = {
      request: async <T>(subject: string): Promise<T> => {
        asked.push(subject);
        return { all: false, repository_ids: ['r1'], maintained_ids: [] } as T;
      },
    };
    const noDefault = registry(() => {
      throw new BusRequestError({ code: 'invalid_input', message: 'no default workspace', retryable: false });
    });
    const scopes = new Scopes(noDefault, bus);
    const reader = { kind: 'key' as const, id: 'k', name: 'reader', admin: false, projects: { p: 'reader' as const }, groups: [] };
    await withPrincipal(reader, async () => {
      assert.deepEqual(
        (await scopes.of({ repo: 'shop' }, false)).repositories?.map((r) => r.id),
        ['r1'],
      );
      await assert.rejects(scopes.of({ repos: ['shop', 'tools'] }, false), (e: Error) =>
        /No registered repository is "tools"/.test(e.message),
      );
      assert.deepEqual(
        (await scopes.of({}, true)).repositories?.map((r) => r.id),
        ['r1'],
      );
    });
    assert.deepEqual(asked, ['projects.readable-repositories.v1'], 'asked once, then kept');
    // Without a caller in scope (an in-process call), or for an admin: everything.
    assert.equal((await scopes.of({}, true)).repositories, null);
  });
});
