import { TOOLS } from './catalog.js';
import type { ToolContract } from './tool.js';
import { inputShape, spellings, VOCABULARY } from './vocabulary.js';

/** The input fields of a tool as the catalog spells them (its aliases left out). */
export function wireFields(tool: ToolContract): string[] {
  return Object.keys(inputShape(tool.input) ?? {});
}

const code = (name: string) => `\`${name}\``;

/** The tools taking any of `names`, grouped by the spelling each one's field has: "`path`: open_file, …". */
function usedBy(names: readonly string[], tools: readonly ToolContract[]): string {
  const groups = names
    .map((name) => [name, tools.filter((tool) => wireFields(tool).includes(name)).map((tool) => tool.name)] as const)
    .filter(([, users]) => users.length > 0);
  if (groups.length === 1 && groups[0][0] === names[0]) return groups[0][1].join(', ');
  return groups.map(([name, users]) => `${code(name)}: ${users.join(', ')}`).join('; ');
}

/**
 * docs/vocabulary.md, generated from VOCABULARY and the catalog (the spec
 * checks the file against it; UPDATE_TOOLSNAPS=1 rewrites it).
 */
export function vocabularyDocument(tools: readonly ToolContract[] = TOOLS): string {
  const fields = [...new Set(tools.flatMap(wireFields))];
  const multiWord = fields.filter((f) => /[_A-Z]/.test(f));
  const snake = multiWord.filter((f) => f.includes('_'));
  const lines = [
    '# Vocabulary: one name per concept',
    '',
    '<!-- Generated from VOCABULARY (libs/contracts/src/vocabulary.ts) and the tool catalog by vocabularyDocument();',
    '     libs/contracts/src/vocabulary.spec.ts checks this file and every tool against it.',
    '     Change the constant, then run: UPDATE_TOOLSNAPS=1 node scripts/run-tests.mjs contracts -->',
    '',
    'The tools came from several sources and spelled the same thing several ways (`repo` and `repository`, `path` and',
    '`file_path`, `topK` and `limit`, camelCase beside snake_case). The rules:',
    '',
    `- Each concept has one canonical name, in snake_case: the catalog's majority (${snake.length} of its ${multiWord.length}`,
    '  multi-word input field names). A new tool names its fields so; a field spelled any other way fails',
    '  `vocabulary.spec.ts`, which names the canonical spelling.',
    "- The catalog's wire names stay (clients send them): where a tool's field has an alias's spelling, it keeps it.",
    "- Every tool that takes a concept accepts every spelling of it. An alias is renamed to the tool's field before",
    '  the input is validated (one place: `defineTool` in libs/contracts/src/tool.ts), so the service sees only its',
    '  field. The same value under two spellings is one value; two different values are `invalid_input` naming both.',
    '- `tools/list` publishes each alias as a property of the input schema, described "Alias of `field`." A required',
    '  field that has aliases is left out of `required` (either spelling satisfies it; some model APIs refuse a',
    '  top-level `anyOf`) and its description says "Required: as `field` or as `alias`."',
    '- Aliases are top-level fields. Inside `scope` the fields are as the catalog writes them.',
    '',
    '## Concepts spelled more than one way',
    '',
    '| concept | canonical | accepted aliases | tools (their field as the catalog spells it) |',
    '| --- | --- | --- | --- |',
    ...VOCABULARY.concepts.map(
      (c) => `| ${c.concept} | ${code(c.canonical)} | ${c.aliases.map(code).join(', ')} | ${usedBy(spellings(c), tools) || '(none yet)'} |`,
    ),
    '',
    '## Names spelled one way',
    '',
    '| name | meaning | tools |',
    '| --- | --- | --- |',
    ...Object.entries(VOCABULARY.names).map(([name, meaning]) => `| ${code(name)} | ${meaning} | ${usedBy([name], tools)} |`),
    '',
    '## Answers',
    '',
    '- Every tool that starts an indexing job (`index_repo`, `sync_repo`, `index_repository`) and',
    '  `get_index_job_status` answer the job as `job_id`, and also as `runId` (the same value; `index_repository`',
    '  and `get_index_job_status` first called it so). `get_index_job_status` takes either.',
    '- Other answer fields keep the spelling the catalog gives them (`startLine`/`endLine` of search hits and',
    '  `open_file`, `meta.topK` of search): they are not repeated under a second name, which would double the size of',
    '  every hit.',
    '',
    '## `index_repository` with a local path',
    '',
    '`index_repository {localPath}` (or `{local_path}`) needs nothing else: a local repository is named after its',
    "directory. `repository` given with it is checked, not ignored: it must be the directory's name (or the path",
    'itself); another name is `invalid_input` naming `repository` and `localPath`, and nothing is registered.',
    '`repository` alone is cloned (owner/repo or a git URL); one of the two is required.',
    '',
  ];
  return lines.join('\n');
}
