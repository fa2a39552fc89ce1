import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { TOOLS, TOOLS_BY_SERVICE } from './catalog.js';
import { inputJsonSchema, outputJsonSchema } from './json-schema.js';
import { HEALTH_SUBJECTS } from './subjects.js';
import { ERROR_CODES } from './errors.js';

// Snapshots live beside the sources (not in dist) so a contract change shows up in review.
const SNAPS = fileURLToPath(new URL('../__toolsnaps__/', import.meta.url));
const UPDATE = process.env.UPDATE_TOOLSNAPS === '1';

function published(tool: (typeof TOOLS)[number]) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    annotations: tool.annotations,
    inputSchema: inputJsonSchema(tool),
    outputSchema: outputJsonSchema(tool),
  };
}

describe('tool catalog', () => {
  it('names are snake_case and unique', () => {
    const names = TOOLS.map((t) => t.name);
    assert.equal(new Set(names).size, names.length);
    for (const name of names) assert.match(name, /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
  });

  it('every service tool has its own subject, <service>.<verb>.v<N>, in the list of its service', () => {
    const seen = new Set<string>(Object.values(HEALTH_SUBJECTS));
    for (const [service, tools] of Object.entries(TOOLS_BY_SERVICE)) {
      for (const tool of tools) {
        assert.equal(tool.service, service, `${tool.name} is listed under ${service}`);
        if (tool.service === 'gateway') {
          assert.equal(tool.subject, null, tool.name);
          continue;
        }
        assert.match(tool.subject ?? '', new RegExp(`^${service}\\.[a-z][a-z-]*\\.v\\d+$`), tool.name);
        assert.ok(!seen.has(tool.subject!), `${tool.name}: subject ${tool.subject} is used twice`);
        seen.add(tool.subject!);
      }
    }
  });

  it('input and output schemas are draft-07 objects', () => {
    for (const tool of TOOLS) {
      const { inputSchema, outputSchema } = published(tool);
      assert.equal(inputSchema.type, 'object', tool.name);
      assert.equal(outputSchema.type, 'object', tool.name);
      assert.equal(inputSchema.$schema, 'http://json-schema.org/draft-07/schema#');
      assert.ok(!JSON.stringify(inputSchema).includes('\\\\p{'), `${tool.name}: unicode property escapes are not portable`);
    }
  });

  for (const tool of TOOLS) {
    it(`published schema of ${tool.name} matches its snapshot`, () => {
      const file = `${SNAPS}${tool.name}.snap.json`;
      const actual = `${JSON.stringify(published(tool), null, 2)}\n`;
      if (UPDATE) {
        mkdirSync(SNAPS, { recursive: true });
        writeFileSync(file, actual);
        return;
      }
      assert.ok(existsSync(file), `no snapshot for ${tool.name}: run UPDATE_TOOLSNAPS=1 npm test and review the new file`);
      assert.equal(
        actual,
        readFileSync(file, 'utf8'),
        `${tool.name} changed its published contract; if deliberate, run UPDATE_TOOLSNAPS=1 npm test`,
      );
    });
  }
});

describe('what the schemas tell a model', () => {
  it('names only tools that exist (a description pointing at a missing tool sends an agent nowhere)', () => {
    const names = new Set<string>([...TOOLS.map((t) => t.name), ...ERROR_CODES]);
    // Tool names start with a verb; field names (repository_ids, ref_name) do not.
    const toolLike =
      /\b(?:list|get|create|update|delete|add|remove|search|grep|open|index|sync|locate|find|analyze|validate|ask|health)_[a-z_]+\b/g;
    const unknown = TOOLS.flatMap(
      (tool) =>
        [tool.description, JSON.stringify(inputJsonSchema(tool)), JSON.stringify(outputJsonSchema(tool))]
          .join(' ')
          .match(toolLike)
          ?.filter((name) => !names.has(name))
          .map((name) => `${tool.name} mentions ${name}`) ?? [],
    );
    assert.deepEqual(unknown, []);
  });
});
