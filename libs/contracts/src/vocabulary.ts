import { z } from 'zod';

/**
 * One vocabulary for the input fields of every tool (issue 39): the catalog
 * grew from several sources, and the same thing was spelled `repo` here and
 * `repository` there, `path` and `file_path`, `topK` and `limit`, camelCase
 * beside snake_case. The catalog's wire names stay (clients send them); each
 * concept gets one canonical, snake_case name, and every tool that takes a
 * concept accepts each of its spellings (defineTool, `acceptAliases`).
 * docs/vocabulary.md is generated from this file, and vocabulary.spec.ts
 * checks every tool against it.
 */

/** A concept spelled more than one way. */
export interface Concept {
  /** What the field means, for the document. */
  readonly concept: string;
  /** The name a new tool uses: snake_case. */
  readonly canonical: string;
  /** Other spellings, accepted wherever the concept is. */
  readonly aliases: readonly string[];
  /** Tools whose field has an alias's spelling (the catalog fixed it before this vocabulary): tool → field. */
  readonly wire?: Readonly<Record<string, string>>;
}

export const VOCABULARY: {
  readonly concepts: readonly Concept[];
  /** Every other input field name of the catalog, spelled one way only, with what it means. */
  readonly names: Readonly<Record<string, string>>;
} = {
  concepts: [
    {
      concept: 'one repository: a registered id or name, a URL, or (where the tool says) a workspace path or directory',
      canonical: 'repo',
      aliases: ['repository'],
      wire: {
        grep_repository: 'repository',
        list_repository_refs: 'repository',
        analyze_change_impact: 'repository',
        search_dependencies: 'repository',
        validate_implementation_spec: 'repository',
        index_repository: 'repository',
      },
    },
    { concept: 'several repositories', canonical: 'repos', aliases: ['repositories'] },
    {
      concept: 'a file, relative to its repository root',
      canonical: 'path',
      aliases: ['file_path'],
      wire: { search_dependencies: 'file_path' },
    },
    { concept: 'a branch or tag', canonical: 'ref', aliases: ['ref_name'], wire: { grep_repository: 'ref_name' } },
    {
      concept: 'how many results to return at most',
      canonical: 'limit',
      aliases: ['topK'],
      wire: { search_code: 'topK', ask_code: 'topK' },
    },
    { concept: 'a search text or question', canonical: 'query', aliases: ['term'] },
    { concept: 'first line, 1-based', canonical: 'start_line', aliases: ['startLine'], wire: { open_file: 'startLine' } },
    { concept: 'last line, 1-based, inclusive', canonical: 'end_line', aliases: ['endLine'], wire: { open_file: 'endLine' } },
    {
      concept: 'only paths starting with this prefix',
      canonical: 'path_prefix',
      aliases: ['pathPrefix'],
      wire: { search_code: 'pathPrefix', ask_code: 'pathPrefix' },
    },
    { concept: 'lowest score an answer uses', canonical: 'min_score', aliases: ['minScore'], wire: { ask_code: 'minScore' } },
    {
      concept: "a local git repository's absolute path",
      canonical: 'local_path',
      aliases: ['localPath'],
      wire: { index_repository: 'localPath' },
    },
    { concept: 'an indexing job', canonical: 'job_id', aliases: ['runId'], wire: { get_index_job_status: 'runId' } },
  ],
  names: {
    workspace: 'absolute path of a registered workspace',
    scope: 'where to search: {type: repo|repos|all|project, …}',
    project: 'a project, by id or name',
    repository_id: 'a registered repository, by id',
    repository_ids: 'registered repositories, by id',
    name: 'a name: of a symbol, or of a project',
    description: 'free text describing a project',
    kind: 'a symbol kind',
    language: 'a language name',
    line: 'a line, 1-based',
    column: 'a column, 1-based',
    files: 'changed files, relative paths',
    symbols: 'symbol names',
    files_to_create: 'relative paths a change creates',
    files_to_modify: 'relative paths a change modifies',
    pattern: 'a regular expression (or a literal)',
    case_sensitive: 'whether letter case matters',
    use_regex: 'whether `pattern` is a regular expression',
    file_extensions: 'only files with these extensions',
    exclude_dirs: 'directories to skip',
    context_lines: 'lines of context around each match',
    max_matches: 'matches to return at most, over all files (not a number of results: a file holds several)',
    sort_by: 'the order of the results',
    order: 'asc or desc',
    per_page: 'results per page (with `page`)',
    page: 'the page to return, 1-based',
    vector: 'a precomputed query embedding',
    mode: 'how to search or index',
    include_definitions: 'whether definitions count as references',
    include_tests: 'whether test files count',
    max_tokens: 'the size budget of an answer, in tokens',
    direction: 'which way to follow the import graph',
    depth: 'how many steps to follow',
    force: 'start over (a full re-index)',
    contract_id: 'a contract document, e.g. tools',
  },
};

/** The spellings of a concept, canonical first. */
export function spellings(concept: Concept): readonly string[] {
  return [concept.canonical, ...concept.aliases];
}

const CONCEPT_OF = new Map(VOCABULARY.concepts.flatMap((c) => spellings(c).map((s) => [s, c] as const)));

/** The concept a field name spells, if it is one spelled several ways. */
export function conceptOf(name: string): Concept | undefined {
  return CONCEPT_OF.get(name);
}

/**
 * The top-level fields of a tool's input: its object schema under the
 * refinements, transforms and aliases wrapped around it; undefined for an
 * input that is not an object.
 */
export function inputShape(schema: z.ZodType): Readonly<Record<string, z.ZodType>> | undefined {
  let current: z.ZodType = schema;
  for (let depth = 0; depth < 16; depth++) {
    if (current instanceof z.ZodObject) return current.shape;
    if (current instanceof z.ZodPipe) {
      // A transform on the left is a preprocess (aliases): the object is on the right.
      current = (current.in instanceof z.ZodTransform ? current.out : current.in) as z.ZodType;
      continue;
    }
    return undefined;
  }
  return undefined;
}

/**
 * What a tool with these input fields accepts besides them: every other
 * spelling of a concept it takes, mapped to its field (alias → field). Two
 * spellings of one concept in one tool are refused: the second must be an
 * alias, which this adds.
 */
export function aliasesOf(tool: string, fields: readonly string[]): Record<string, string> {
  const aliases: Record<string, string> = {};
  const seen = new Map<Concept, string>();
  for (const field of fields) {
    const concept = conceptOf(field);
    if (!concept) continue;
    const other = seen.get(concept);
    if (other !== undefined) {
      throw new Error(
        `${tool} declares both "${other}" and "${field}" (${concept.concept}): declare one; the other is accepted as its alias`,
      );
    }
    seen.set(concept, field);
    for (const spelling of spellings(concept)) if (spelling !== field) aliases[spelling] = field;
  }
  return aliases;
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * `schema`, accepting each alias in place of its field: before the (strict)
 * object parses, an alias's value moves to its field. The same value under
 * both names is one value; two different values are `invalid_input` naming
 * both fields. The output is the schema's own: a service sees only its fields.
 */
export function acceptAliases<S extends z.ZodType>(schema: S, aliases: Readonly<Record<string, string>>): S {
  const pairs = Object.entries(aliases);
  if (pairs.length === 0) return schema;
  const renamed = z.preprocess((value, ctx) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const input = value as Record<string, unknown>;
    let out: Record<string, unknown> | undefined;
    for (const [alias, field] of pairs) {
      if (!Object.hasOwn(input, alias) || input[alias] === undefined) continue;
      // Own properties only, copied as data: `__proto__` is a name like any other.
      out ??= { ...input };
      const given = out[alias];
      delete out[alias];
      if (Object.hasOwn(out, field) && out[field] !== undefined) {
        if (same(out[field], given)) continue;
        const message = `"${alias}" is an alias of "${field}" and they differ: give one of them`;
        ctx.issues.push({ code: 'custom', message, path: [field], input: value });
        ctx.issues.push({ code: 'custom', message, path: [alias], input: value });
        continue;
      }
      out[field] = given;
    }
    return out ?? value;
  }, schema);
  // The output is the schema's; only what it takes in is wider (any object).
  return renamed as unknown as S;
}
