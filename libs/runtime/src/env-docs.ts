import { z } from 'zod';

/**
 * What the configuration reference (docs/configuration.md, `npm run docs`)
 * says of a variable, kept on its schema with zod's `.meta()` (`.describe()`
 * sets the description alone):
 *
 *     SEXTANT_PORT: env.int(0, 65_535).default(9100).describe('HTTP port (`0`: any free port)'),
 *     SYMBOLS_PARSE_THREADS: env.int(1, 64).optional().meta({ description: 'parse worker threads', default: "the machine's cores" }),
 */
export interface EnvDoc {
  /** One short line: a table cell. */
  description: string;
  /** The default as a reader should see it, where the schema's is computed or absent; else the schema's own default (or "unset"). */
  default?: string;
  /** A longer explanation, printed under the table. */
  details?: string;
}

/** One table of the reference: a heading, a paragraph, and the variables of `schema` named in `names` (all of them when omitted). */
export interface EnvSection {
  title: string;
  intro?: string;
  schema: z.ZodObject;
  names?: readonly string[];
}

type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; defaultValue?: unknown };
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schema and the wrappers around it (optional, default, a pipe's input), outermost first. */
function layers(schema: z.ZodType): z.ZodType[] {
  const out: z.ZodType[] = [];
  for (let at: z.ZodType | undefined = schema; at;) {
    out.push(at);
    const def = defOf(at);
    at = def.innerType ?? (def.type === 'pipe' ? def.in : undefined);
  }
  return out;
}

/** The documentation of one variable's schema: the first `description` on it or a schema it wraps; undefined when there is none. */
export function envDoc(schema: z.ZodType, name = ''): EnvDoc | undefined {
  let doc: Partial<EnvDoc> = {};
  for (const layer of layers(schema)) {
    const meta = z.globalRegistry.get(layer) as Partial<EnvDoc> | undefined;
    if (meta) doc = { ...meta, ...doc };
  }
  if (typeof doc.description !== 'string') return undefined;
  return { description: doc.description, default: doc.default ?? defaultOf(schema, name), details: doc.details };
}

const SIZES: Array<[number, string]> = [
  [1024 ** 3, 'GiB'],
  [1024 ** 2, 'MiB'],
  [1024, 'KiB'],
];
const DURATIONS: Array<[number, string]> = [
  [86_400_000, 'days'],
  [3_600_000, 'h'],
  [60_000, 'min'],
];

/** A default as the reference prints it: the value in backticks, with bytes (`*_BYTES`) and milliseconds (`*_MS`) also in larger units. */
function defaultOf(schema: z.ZodType, name: string): string {
  const layer = layers(schema).find((l) => defOf(l).type === 'default');
  if (!layer) return 'unset';
  const value = defOf(layer).defaultValue;
  if (Array.isArray(value)) return value.length === 0 ? 'none' : `\`${value.join(',')}\``;
  if (value !== null && typeof value === 'object') {
    if (Object.values(value).every((v) => Array.isArray(v) && v.length === 0)) return 'none';
    throw new Error(`a default of ${JSON.stringify(value)} needs a written default (.meta({ default }))`);
  }
  const shown = `\`${String(value)}\``;
  if (typeof value !== 'number') return shown;
  const larger = name.endsWith('_BYTES') ? unit(value, SIZES, 1024) : name.endsWith('_MS') ? unit(value, DURATIONS, 60_000) : undefined;
  return shown + (larger ?? '');
}

function unit(value: number, units: Array<[number, string]>, least: number): string | undefined {
  if (value < least) return undefined;
  const [size, name] = units.find(([size]) => value % size === 0) ?? [];
  return size ? ` (${value / size} ${value / size === 1 ? name!.replace(/s$/, '') : name})` : undefined;
}

/** Undocumented variables of `sections` (their names), for the check that every variable is described. */
export function undocumentedEnv(sections: readonly EnvSection[]): string[] {
  return sections.flatMap((s) => namesOf(s).filter((name) => !envDoc(s.schema.shape[name] as z.ZodType)));
}

function namesOf(section: EnvSection): readonly string[] {
  return section.names ?? Object.keys(section.schema.shape);
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The reference's tables: per section a heading, its paragraph, a row per variable, then the variables' longer explanations. */
export function renderEnvSections(sections: readonly EnvSection[]): string {
  const missing = undocumentedEnv(sections);
  if (missing.length > 0) throw new Error(`undocumented variables (describe them in their config.ts): ${missing.join(', ')}`);
  const lines: string[] = [];
  for (const section of sections) {
    lines.push(`## ${section.title}`, '');
    if (section.intro) lines.push(section.intro, '');
    lines.push('| variable | default | description |', '| --- | --- | --- |');
    const details: string[] = [];
    for (const name of namesOf(section)) {
      const doc = envDoc(section.schema.shape[name] as z.ZodType, name)!;
      lines.push(`| \`${name}\` | ${cell(doc.default!)} | ${cell(doc.description)} |`);
      if (doc.details) details.push(`- \`${name}\`: ${doc.details}`);
    }
    lines.push('');
    if (details.length > 0) lines.push(...details, '');
  }
  return lines.join('\n');
}
