import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { TOOLS } from './catalog.js';
import { inputJsonSchema } from './json-schema.js';
import { defineTool, type ToolContract } from './tool.js';
import { safeParseInput } from './validation.js';
import { vocabularyDocument, wireFields } from './vocabulary-document.js';
import { conceptOf, spellings, VOCABULARY } from './vocabulary.js';

const DOCUMENT = fileURLToPath(new URL('../../../docs/vocabulary.md', import.meta.url));
const UPDATE = process.env.UPDATE_TOOLSNAPS === '1';
const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/** Where a tool's fields break the vocabulary: each problem names the tool, the field and what to call it. */
function vocabularyProblems(tools: readonly ToolContract[]): string[] {
  const problems: string[] = [];
  for (const tool of tools) {
    for (const field of wireFields(tool)) {
      const concept = conceptOf(field);
      if (concept) {
        if (field !== concept.canonical && concept.wire?.[tool.name] !== field) {
          problems.push(
            `${tool.name}.${field}: name it \`${concept.canonical}\`, the canonical name of ${concept.concept} (\`${field}\` is its alias)`,
          );
        }
      } else if (!Object.hasOwn(VOCABULARY.names, field)) {
        problems.push(`${tool.name}.${field}: not in the vocabulary (docs/vocabulary.md): use a documented name, or add it to VOCABULARY`);
      }
    }
  }
  return problems;
}

/** A value of each concept, valid wherever the concept is a field. */
const VALUE: Record<string, unknown> = {
  repo: 'github:o/r',
  repos: ['github:o/r'],
  path: 'src/a.ts',
  ref: 'main',
  limit: 3,
  query: 'checkout total',
  start_line: 2,
  end_line: 5,
  path_prefix: 'src/',
  min_score: 0.25,
  local_path: '/srv/checkouts/r',
  job_id: 'job-1',
};
/** Another value of each concept, to give under the second spelling. */
const OTHER: Record<string, unknown> = {
  repo: 'github:o/s',
  repos: ['github:o/s'],
  path: 'src/b.ts',
  ref: 'dev',
  limit: 4,
  query: 'cart',
  start_line: 3,
  end_line: 6,
  path_prefix: 'lib/',
  min_score: 0.5,
  local_path: '/srv/checkouts/s',
  job_id: 'job-2',
};
/** What each tool with aliases needs besides the concept under test to be valid. A tool with aliases must be here. */
const REST: Record<string, Record<string, unknown>> = {
  list_projects: {},
  ask_code: { query: 'q' },
  search_code: { query: 'q' },
  grep_repository: { pattern: 'x' },
  list_repository_refs: {},
  open_file: { repo: 'r', path: 'p' },
  search_repositories: {},
  analyze_change_impact: { files: ['a.ts'] },
  find_references: { name: 'f', path: 'p', line: 1 },
  find_related_symbols: { name: 'f' },
  get_code_context: { name: 'f' },
  get_file_outline: { path: 'p' },
  get_symbol_hierarchy: { name: 'f' },
  list_recent_files: {},
  locate_symbol: { name: 'f', path: 'p', line: 1 },
  search_dependencies: { file_path: 'p' },
  validate_implementation_spec: { files_to_modify: ['a.ts'] },
  get_index_job_status: {},
  index_repository: { repository: 'o/r' },
  list_repositories: {},
};

function fieldsOf(result: ReturnType<typeof safeParseInput>): string[] {
  return result.ok ? [] : Object.keys((result.error.details?.fields as Record<string, string>) ?? {}).sort();
}

describe('vocabulary (docs/vocabulary.md)', () => {
  it('every input field of every tool is a documented name, an alias only where the catalog fixed it', () => {
    assert.deepEqual(vocabularyProblems(TOOLS), []);
  });

  it('canonical names and names spelled one way are snake_case; no spelling belongs to two concepts', () => {
    const all = [...VOCABULARY.concepts.map((c) => c.canonical), ...Object.keys(VOCABULARY.names)];
    for (const name of all) assert.match(name, SNAKE, name);
    const spelled = VOCABULARY.concepts.flatMap((c) => spellings(c));
    assert.equal(new Set([...spelled, ...Object.keys(VOCABULARY.names)]).size, spelled.length + Object.keys(VOCABULARY.names).length);
  });

  it('the fields the vocabulary says a tool spells with an alias are its fields', () => {
    for (const concept of VOCABULARY.concepts) {
      for (const [name, field] of Object.entries(concept.wire ?? {})) {
        const tool = TOOLS.find((t) => t.name === name);
        assert.ok(tool && wireFields(tool).includes(field), `${name}.${field} (${concept.canonical}) is not a field of the catalog`);
        assert.ok(concept.aliases.includes(field), `${name}.${field} is not an alias of ${concept.canonical}`);
      }
    }
  });

  it('fails a new tool that spells an old concept its own way, naming the canonical name', () => {
    const tool = defineTool({
      name: 'count_lines',
      title: 't',
      description: 'd',
      service: 'git-cache',
      subject: 'git-cache.count-lines.v1',
      input: z.strictObject({ repository: z.string(), filePath: z.string() }),
      output: z.object({}),
    });
    assert.deepEqual(vocabularyProblems([tool]), [
      'count_lines.repository: name it `repo`, the canonical name of one repository: a registered id or name, a URL, or (where the tool says) a workspace path or directory (`repository` is its alias)',
      'count_lines.filePath: not in the vocabulary (docs/vocabulary.md): use a documented name, or add it to VOCABULARY',
    ]);
  });

  it('a tool may not declare two spellings of one concept', () => {
    const twice = () =>
      defineTool({
        name: 'twice',
        title: 't',
        description: 'd',
        service: 'git-cache',
        subject: 'git-cache.twice.v1',
        input: z.strictObject({ path: z.string(), file_path: z.string() }),
        output: z.object({}),
      });
    assert.throws(twice, /declares both "path" and "file_path"/);
  });

  it('every alias works on every tool that takes its concept: the same parse as the field, the same value twice is one', () => {
    let checked = 0;
    for (const tool of TOOLS) {
      for (const [alias, field] of Object.entries(tool.aliases)) {
        const concept = conceptOf(field)!;
        const rest = REST[tool.name];
        assert.ok(rest, `${tool.name} has aliases: give it its other arguments in REST`);
        const { [field]: _dropped, ...base } = rest;
        const value = VALUE[concept.canonical];
        const what = `${tool.name} {${alias}} for {${field}}`;
        const canonical = safeParseInput(tool.input, { ...base, [field]: value });
        assert.ok(canonical.ok, `${what}: ${JSON.stringify(canonical)}`);
        assert.deepEqual(safeParseInput(tool.input, { ...base, [alias]: value }), canonical, what);
        assert.deepEqual(safeParseInput(tool.input, { ...base, [alias]: value, [field]: value }), canonical, `${what}, both alike`);
        checked++;
      }
    }
    assert.ok(checked >= 40, `${checked} aliases`);
  });

  it('an alias and its field with different values are invalid_input naming both', () => {
    for (const tool of TOOLS) {
      for (const [alias, field] of Object.entries(tool.aliases)) {
        const concept = conceptOf(field)!;
        const { [field]: _dropped, ...base } = REST[tool.name];
        const result = safeParseInput(tool.input, { ...base, [field]: VALUE[concept.canonical], [alias]: OTHER[concept.canonical] });
        assert.equal(result.ok, false, `${tool.name} {${field}, ${alias}}`);
        if (result.ok) continue;
        assert.equal(result.error.code, 'invalid_input');
        assert.deepEqual(fieldsOf(result), [alias, field].sort(), `${tool.name}: ${result.error.message}`);
        assert.match(result.error.message, new RegExp(`"${alias}" is an alias of "${field}"`));
      }
    }
  });

  it('tools/list publishes each alias as a property saying whose alias it is; a required field says either spelling does', () => {
    for (const tool of TOOLS) {
      const schema = inputJsonSchema(tool) as { properties: Record<string, { description?: string }>; required?: string[] };
      for (const [alias, field] of Object.entries(tool.aliases)) {
        assert.equal(schema.properties[alias]?.description, `Alias of \`${field}\`.`, `${tool.name}.${alias}`);
        assert.ok(
          !schema.required?.includes(field) && !schema.required?.includes(alias),
          `${tool.name}: ${field} is required under either name`,
        );
      }
    }
    const open = inputJsonSchema(TOOLS.find((t) => t.name === 'open_file')!) as { properties: Record<string, { description?: string }> };
    assert.match(open.properties.path.description!, /Required: as `path` or as `file_path`\./);
  });

  it('every job-starting tool and get_index_job_status answer the job as job_id, and as runId', () => {
    const jobs = TOOLS.filter((t) => t.startsJob || t.name === 'get_index_job_status');
    assert.deepEqual(jobs.map((t) => t.name).sort(), ['get_index_job_status', 'index_repo', 'index_repository', 'sync_repo']);
    for (const tool of jobs) {
      if (tool.startsJob) assert.equal(tool.startsJob.idField, 'job_id', tool.name);
      const shape = (tool.output as z.ZodObject).shape;
      assert.ok('job_id' in shape && 'runId' in shape, `${tool.name} answers ${Object.keys(shape).join(', ')}`);
    }
  });

  it('docs/vocabulary.md is generated from VOCABULARY and the catalog', () => {
    const actual = vocabularyDocument();
    if (UPDATE) writeFileSync(DOCUMENT, actual);
    assert.ok(existsSync(DOCUMENT), 'no docs/vocabulary.md: run UPDATE_TOOLSNAPS=1 node scripts/run-tests.mjs contracts');
    assert.equal(readFileSync(DOCUMENT, 'utf8'), actual, 'docs/vocabulary.md is not what VOCABULARY says: run UPDATE_TOOLSNAPS=1');
  });
});
