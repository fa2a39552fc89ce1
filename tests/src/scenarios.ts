/**
 * Scenarios shared by the embedded, stdio and distributed suites: the same
 * calls must behave the same whichever way Sextant runs.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SERVICE_NAMES, TOOLS_BY_SERVICE, type ServiceName } from '@sextant/contracts';
import { callTool, git, writeTree, type ErrorBody } from '@sextant/testing';

/** One `notifications/progress` as the SDK client's `onprogress` gets it. */
export interface ProgressEvent {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * What a client following an indexing job with a progressToken must see,
 * whichever way Sextant runs: `progress` growing with every notification
 * (MCP asks for it), also from one indexing stage to the next; messages from
 * Scanning through each configured stage, named ("symbols: 120/539 files, …")
 * and in order, to Finalizing and the end, a stage's file count never going
 * back; every stage in `stages` named at least once; and no
 * MaxListenersExceededWarning in `output`, what the process that followed
 * the job (the gateway) wrote.
 */
export function assertJobProgress(events: readonly ProgressEvent[], stages: readonly string[], output: string): void {
  const shown = JSON.stringify(events.map((e) => [e.progress, e.message]));
  assert.ok(events.length >= 2, `${events.length} notifications`);
  for (let i = 1; i < events.length; i++) assert.ok(events[i].progress > events[i - 1].progress, `progress increases: ${shown}`);
  assert.equal(events.at(-1)!.progress, 100);
  // Scanning is 0, stage i is 1 + i, Finalizing and the end follow.
  const places = events.map((e) => {
    const message = e.message ?? '';
    if (message.startsWith('Scanning files: ')) return { place: 0, files: 0 };
    const stage = /^([\w-]+): (\d+)\/(\d+) files(, \d+ \w+)*$/.exec(message);
    if (stage && stages.includes(stage[1])) return { place: 1 + stages.indexOf(stage[1]), files: Number(stage[2]) };
    if (message === 'Finalizing index...') return { place: stages.length + 1, files: 0 };
    if (message.startsWith('Indexed ')) return { place: stages.length + 2, files: 0 };
    return assert.fail(`a message naming no stage (${message}): ${shown}`);
  });
  for (let i = 1; i < places.length; i++) {
    const [before, now] = [places[i - 1], places[i]];
    assert.ok(now.place > before.place || (now.place === before.place && now.files >= before.files), `stages in order: ${shown}`);
  }
  for (const [i, stage] of stages.entries())
    assert.ok(
      places.some((p) => p.place === 1 + i),
      `the ${stage} stage is named: ${shown}`,
    );
  const warning = output.split('\n').find((line) => line.includes('MaxListenersExceededWarning'));
  assert.equal(warning, undefined, 'no listener leak while following the job');
}

/**
 * The tool list holds exactly the catalog's tools of the configured services (`services`: the default
 * installation runs them all) and the gateway's own. Derived from the catalog (`TOOLS_BY_SERVICE`), so a new
 * tool needs no line here; what this checks is that the gateway lists each one, with its schemas.
 */
export async function assertToolList(client: Client, services: readonly ServiceName[] = SERVICE_NAMES): Promise<void> {
  const { tools } = await client.listTools();
  const expected = [...services, 'gateway' as const].flatMap((service) => TOOLS_BY_SERVICE[service].map((t) => t.name));
  assert.ok(expected.length > services.length + 1, `the catalog names tools: ${expected.join(', ')}`);
  assert.deepEqual(tools.map((t) => t.name).sort(), expected.sort());
  for (const tool of tools) {
    assert.equal(tool.inputSchema.type, 'object', tool.name);
    assert.equal(tool.outputSchema?.type, 'object', tool.name);
    assert.ok(tool.description && tool.description.length > 20, tool.name);
    assert.equal(typeof tool.annotations?.readOnlyHint, 'boolean', tool.name);
  }
}

export function assertMetadata(metadata: { execution_time_ms: number; request_id: string; trace_id: string }): void {
  assert.equal(typeof metadata.execution_time_ms, 'number');
  assert.match(metadata.request_id, /^[0-9a-f-]{36}$/);
  assert.match(metadata.trace_id, /^[0-9a-f]{32}$/);
  assert.notEqual(metadata.trace_id, '0'.repeat(32));
}

/**
 * Registers one small local git repository per name with `index_repository
 * {localPath}` (the registry must run) and returns their registry ids by name.
 * The directories are named `<name>`, so the names resolve too.
 */
export async function registerRepositories(client: Client, names: readonly string[]): Promise<Record<string, string>> {
  const root = mkdtempSync(join(tmpdir(), 'sextant-registered-'));
  const ids: Record<string, string> = {};
  for (const name of names) {
    const dir = join(root, name);
    mkdirSync(dir);
    git(dir, 'init', '-q', '--initial-branch=main');
    writeTree(dir, { 'README.md': `# ${name}\n` });
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'first');
    const started = await callTool<{ runId: string }>(client, 'index_repository', { repository: name, localPath: dir });
    assert.equal(started.isError, false, JSON.stringify(started.body));
    // Indexed before it is used, so that nothing later sees the installation busy.
    for (;;) {
      const job = await callTool<{ repository_id: string; status: string }>(client, 'get_index_job_status', { runId: started.body.runId });
      assert.equal(job.isError, false, JSON.stringify(job.body));
      ids[name] = job.body.repository_id;
      if (!['pending', 'running'].includes(job.body.status)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  return ids;
}

interface ProjectBody {
  project: { id: string; name: string; description: string | null; repository_ids: string[]; repository_count: number };
}

/** Every project tool, happy path, through MCP. `tag` keeps names unique across suites sharing a database. */
export async function projectLifecycle(client: Client, tag: string): Promise<void> {
  const name = `Frontend ${tag}`;
  const [a, b, c, x] = ['a', 'b', 'c', 'x'].map((n) => `${tag}-repo-${n}`) as [string, string, string, string];
  const ids = await registerRepositories(client, [a, b, c, x]);
  // Members named by id, by name (any case) and twice: stored once each, as registry ids.
  const created = await callTool<ProjectBody>(client, 'create_project', {
    name,
    description: 'web apps',
    repository_ids: [ids[b], a.toUpperCase(), ids[a]],
  });
  assert.equal(created.isError, false, JSON.stringify(created.body));
  assertMetadata(created.body.metadata);
  const { id } = created.body.project;
  assert.deepEqual(created.body.project.repository_ids, [ids[a], ids[b]].sort());
  const unknown = await expectToolError(
    client,
    'create_project',
    { name: `${name} bad`, repository_ids: [ids[a], `${tag}-nowhere`] },
    'not_found',
  );
  assert.match(unknown.message, new RegExp(`"${tag}-nowhere"`));
  await expectToolError(client, 'get_project', { project: `${name} bad` }, 'not_found');

  const byName = await callTool<ProjectBody>(client, 'get_project', { project: name.toUpperCase() });
  assert.equal(byName.body.project.id, id);

  const listed = await callTool<{ projects: Array<{ id: string; repository_count: number }>; total: number; truncated: boolean }>(
    client,
    'list_projects',
    { limit: 500 },
  );
  assert.equal(listed.isError, false);
  assert.equal(listed.body.projects.find((p) => p.id === id)?.repository_count, 2);

  const added = await callTool<{ added: boolean; repository_count: number }>(client, 'add_repository_to_project', {
    project: id,
    repository_id: c,
  });
  const addedAgain = await callTool<{ added: boolean; repository_count: number }>(client, 'add_repository_to_project', {
    project: id,
    repository_id: ids[c],
  });
  assert.deepEqual(
    [added.body.added, added.body.repository_count, addedAgain.body.added, addedAgain.body.repository_count],
    [true, 3, false, 3],
  );

  const removed = await callTool<{ removed: boolean }>(client, 'remove_repository_from_project', {
    project: name,
    repository_id: a,
  });
  const removedAgain = await callTool<{ removed: boolean }>(client, 'remove_repository_from_project', {
    project: name,
    repository_id: ids[a],
  });
  assert.deepEqual([removed.body.removed, removedAgain.body.removed], [true, false]);

  const updated = await callTool<ProjectBody>(client, 'update_project', {
    project: id,
    name: `${name} v2`,
    description: null,
    repository_ids: [x],
  });
  assert.equal(updated.body.project.name, `${name} v2`);
  assert.equal(updated.body.project.description, null);
  assert.deepEqual(updated.body.project.repository_ids, [ids[x]]);

  const deleted = await callTool<{ deleted: boolean; repositories_removed: number }>(client, 'delete_project', { project: `${name} V2` });
  assert.deepEqual([deleted.body.deleted, deleted.body.repositories_removed], [true, 1]);
  const gone = await callTool<ErrorBody>(client, 'get_project', { project: id });
  assert.equal(gone.isError, true);
  assert.equal(gone.body.error, 'not_found');
}

/** A failed call: `{error, message, details}` with `isError`, never a crash or a stack. */
export async function expectToolError(
  client: Client,
  tool: string,
  args: Record<string, unknown>,
  code: string,
  field?: string,
): Promise<ErrorBody> {
  const result = await callTool<ErrorBody>(client, tool, args);
  assert.equal(result.isError, true, `${tool}(${JSON.stringify(args).slice(0, 80)}) should fail`);
  assert.equal(result.body.error, code, `${tool}: ${result.body.message}`);
  assert.ok(result.body.message.length > 0);
  assert.doesNotMatch(result.body.message, /\n\s+at |node_modules|SELECT |INSERT /, 'no stack or SQL in messages');
  assertMetadata(result.body.metadata);
  if (field) assert.ok(result.body.details?.fields?.[field], `details.fields should name ${field}: ${JSON.stringify(result.body.details)}`);
  return result.body;
}

/** Bad input for every project tool: missing, wrong-typed, empty, over-long, unknown fields. */
export async function projectBadInputs(client: Client, tag: string): Promise<void> {
  const longName = 'n'.repeat(10 * 1024);
  await expectToolError(client, 'create_project', {}, 'invalid_input', 'name');
  await expectToolError(client, 'create_project', { name: 42 }, 'invalid_input', 'name');
  await expectToolError(client, 'create_project', { name: '' }, 'invalid_input', 'name');
  await expectToolError(client, 'create_project', { name: '   ' }, 'invalid_input', 'name');
  await expectToolError(client, 'create_project', { name: longName }, 'invalid_input', 'name');
  await expectToolError(client, 'create_project', { name: 'bad\u0007bell' }, 'invalid_input', 'name');
  await expectToolError(client, 'create_project', { name: `ok ${tag}`, repository_ids: 'repo' }, 'invalid_input', 'repository_ids');
  await expectToolError(client, 'create_project', { name: `ok ${tag}`, repository_ids: [''] }, 'invalid_input', 'repository_ids.0');
  await expectToolError(client, 'create_project', { name: `ok ${tag}`, description: 'd'.repeat(2001) }, 'invalid_input', 'description');
  await expectToolError(client, 'create_project', { name: `ok ${tag}`, colour: 'red' }, 'invalid_input', 'colour');
  await expectToolError(client, 'list_projects', { limit: 0 }, 'invalid_input', 'limit');
  await expectToolError(client, 'list_projects', { limit: 'ten' }, 'invalid_input', 'limit');
  await expectToolError(client, 'list_projects', { limit: 501 }, 'invalid_input', 'limit');
  for (const tool of ['get_project', 'delete_project']) {
    await expectToolError(client, tool, {}, 'invalid_input', 'project');
    await expectToolError(client, tool, { project: 7 }, 'invalid_input', 'project');
    await expectToolError(client, tool, { project: '' }, 'invalid_input', 'project');
    await expectToolError(client, tool, { project: longName }, 'invalid_input', 'project');
    await expectToolError(client, tool, { project: `missing ${tag} ✨` }, 'not_found');
  }
  await expectToolError(client, 'update_project', { project: `missing ${tag}` }, 'invalid_input');
  await expectToolError(client, 'update_project', { project: `missing ${tag}`, name: 'x' }, 'not_found');
  await expectToolError(client, 'update_project', { project: `missing ${tag}`, name: longName }, 'invalid_input', 'name');
  await expectToolError(
    client,
    'update_project',
    { project: `missing ${tag}`, repository_ids: [null] },
    'invalid_input',
    'repository_ids.0',
  );
  for (const tool of ['add_repository_to_project', 'remove_repository_from_project']) {
    await expectToolError(client, tool, { project: `missing ${tag}` }, 'invalid_input', 'repository_id');
    await expectToolError(client, tool, { repository_id: 'r' }, 'invalid_input', 'project');
    await expectToolError(client, tool, { project: `missing ${tag}`, repository_id: ['r'] }, 'invalid_input', 'repository_id');
    await expectToolError(client, tool, { project: `missing ${tag}`, repository_id: 'r'.repeat(10_000) }, 'invalid_input', 'repository_id');
    await expectToolError(client, tool, { project: `missing ${tag}`, repository_id: 'r' }, 'not_found');
  }

  const unicode = `Données 🚀 データ ${tag}`;
  const created = await callTool<{ project: { name: string } }>(client, 'create_project', { name: unicode });
  assert.equal(created.isError, false, JSON.stringify(created.body));
  assert.equal(created.body.project.name, unicode);
  await expectToolError(client, 'create_project', { name: unicode.toUpperCase() }, 'invalid_input', 'name');
  await callTool(client, 'delete_project', { project: unicode });
}
