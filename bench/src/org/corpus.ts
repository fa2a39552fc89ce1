/**
 * The org corpus: `count` bare git repositories under one directory, generated from a seed (same seed, same bytes),
 * for `git daemon` to serve. Sizes follow a log-normal distribution (most repositories have a few dozen files) with a
 * few large ones on top; each repository has a main language (TypeScript, Python, Go, Java, Rust, JavaScript) and a
 * README. Files define functions and classes named from a shared vocabulary and call a few "org library" functions
 * every repository uses, so that symbols and references cross repositories as they do in an organization.
 * Built once per (seed, shape) and kept: a marker file says the directory is complete.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface OrgShape {
  repositories: number;
  /** Median files of a repository (log-normal), its sigma, and the cap of the drawn sizes. */
  medianFiles: number;
  sigma: number;
  capFiles: number;
  /** Files of the few large repositories, added to the drawn ones. */
  large: readonly number[];
  seed: number;
}

interface OrgRepository {
  name: string;
  language: Language;
  files: number;
}

export interface OrgCorpus {
  root: string;
  repositories: OrgRepository[];
  files: number;
  bytes: number;
  /** Names defined in the corpus, for the symbol queries: org library functions (defined once, called everywhere) and local ones. */
  libraryNames: readonly string[];
  localNames: string[];
}

type Language = 'typescript' | 'python' | 'go' | 'java' | 'rust' | 'javascript';

const LANGUAGES: ReadonlyArray<[Language, number]> = [
  ['typescript', 0.35],
  ['python', 0.25],
  ['go', 0.15],
  ['java', 0.1],
  ['rust', 0.08],
  ['javascript', 0.07],
];

const EXTENSION: Record<Language, string> = { typescript: 'ts', python: 'py', go: 'go', java: 'java', rust: 'rs', javascript: 'js' };

const VERBS = [
  'parse',
  'load',
  'fetch',
  'build',
  'render',
  'validate',
  'resolve',
  'compute',
  'merge',
  'encode',
  'decode',
  'format',
  'apply',
  'collect',
  'schedule',
  'retry',
  'publish',
  'normalize',
  'index',
  'filter',
];
const NOUNS = [
  'Config',
  'User',
  'Order',
  'Invoice',
  'Session',
  'Token',
  'Payload',
  'Route',
  'Request',
  'Response',
  'Metric',
  'Event',
  'Cache',
  'Query',
  'Schema',
  'Report',
  'Account',
  'Message',
  'Batch',
  'Window',
  'Ledger',
  'Shipment',
  'Catalog',
  'Policy',
];
const AREAS = [
  'billing',
  'auth',
  'search',
  'checkout',
  'catalog',
  'payments',
  'notifications',
  'analytics',
  'inventory',
  'shipping',
  'identity',
  'reports',
  'gateway',
  'storage',
  'pricing',
];
/** Functions of the organization's shared library: every repository calls some of them. */
const LIBRARY = [
  'logEvent',
  'retryWithBackoff',
  'readSecret',
  'emitMetric',
  'withTracing',
  'loadFeatureFlags',
  'signRequest',
  'openConnection',
];
const WORDS = [
  'the',
  'request',
  'is',
  'retried',
  'when',
  'the',
  'upstream',
  'times',
  'out',
  'and',
  'each',
  'attempt',
  'is',
  'logged',
  'with',
  'its',
  'duration',
  'cache',
  'entries',
  'expire',
  'after',
  'an',
  'hour',
  'totals',
  'are',
  'rounded',
  'to',
  'cents',
  'before',
  'they',
  'are',
  'stored',
];

/** mulberry32: a small seeded generator, enough for a reproducible corpus. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Draw {
  constructor(private readonly next: () => number) {}
  float(): number {
    return this.next();
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  normal(): number {
    const u = Math.max(this.next(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }
  language(): Language {
    let x = this.next();
    for (const [language, share] of LANGUAGES) if ((x -= share) < 0) return language;
    return 'typescript';
  }
}

/** The repositories' sizes: drawn, then the large ones placed at fixed positions (deterministic). */
function repositorySizes(shape: OrgShape): number[] {
  const draw = new Draw(random(shape.seed));
  const sizes = Array.from({ length: shape.repositories }, () =>
    Math.max(1, Math.min(shape.capFiles, Math.round(shape.medianFiles * Math.exp(shape.sigma * draw.normal())))),
  );
  shape.large.forEach((files, i) => (sizes[Math.floor(((i + 1) * shape.repositories) / (shape.large.length + 1))] = files));
  return sizes;
}

function camel(...parts: string[]): string {
  return parts.map((p, i) => (i === 0 ? p : p[0].toUpperCase() + p.slice(1))).join('');
}
function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** One source file: a few functions and a class named from the vocabulary, calling library functions. */
function sourceFile(draw: Draw, language: Language, area: string, calls: readonly string[], names: string[]): string {
  const functions = Array.from({ length: draw.int(2, 6) }, () => camel(draw.pick(VERBS), draw.pick(NOUNS), area));
  const klass = `${draw.pick(NOUNS)}${area[0].toUpperCase()}${area.slice(1)}${draw.pick(['Service', 'Store', 'Client', 'Handler'])}`;
  names.push(...functions, klass);
  const comment = () => Array.from({ length: draw.int(5, 14) }, () => draw.pick(WORDS)).join(' ');
  const call = () => draw.pick(calls);
  const lines: string[] = [];
  const body = (indent: string, f: string, py = false) => {
    const out: string[] = [];
    for (let i = 0; i < draw.int(3, 12); i++) {
      const c = call();
      out.push(py ? `${indent}${snake(c)}("${f}", ${i})` : `${indent}${c}("${f}", ${i});`);
    }
    return out;
  };
  switch (language) {
    case 'typescript':
    case 'javascript': {
      const typed = language === 'typescript';
      lines.push(`import { ${calls.join(', ')} } from '@org/platform';`, '');
      for (const f of functions) {
        lines.push(
          `/** ${comment()} */`,
          `export function ${f}(input${typed ? ': Record<string, unknown>' : ''}, limit${typed ? ' = 10' : ''}) {`,
        );
        lines.push(...body('  ', f), `  return Object.keys(input).slice(0, limit);`, '}', '');
      }
      lines.push(
        `export class ${klass} {`,
        `  constructor(${typed ? 'private readonly ' : ''}name) {${typed ? '' : ' this.name = name;'}}`,
      );
      for (const f of functions.slice(0, 2)) lines.push(`  ${f}() {`, `    return ${f}({ name: this.name }, 5);`, '  }');
      lines.push('}', '');
      break;
    }
    case 'python':
      lines.push(`from org.platform import ${calls.map(snake).join(', ')}`, '');
      for (const f of functions) {
        lines.push(
          `def ${snake(f)}(payload, limit=10):`,
          `    """${comment()}"""`,
          ...body('    ', f, true),
          '    return list(payload)[:limit]',
          '',
          '',
        );
      }
      lines.push(`class ${klass}:`, `    def __init__(self, name):`, `        self.name = name`, '');
      for (const f of functions.slice(0, 2))
        lines.push(`    def ${snake(f)}(self):`, `        return ${snake(f)}({"name": self.name}, 5)`, '');
      break;
    case 'go':
      lines.push(`package ${area}`, '', `import "example.com/org/platform"`, '');
      for (const f of functions) {
        const g = f[0].toUpperCase() + f.slice(1);
        lines.push(`// ${g} ${comment()}`, `func ${g}(input map[string]string, limit int) []string {`);
        lines.push(...body('\t', f).map((l) => l.replace(/^\t(\w)/, (_m, c: string) => `\tplatform.${c.toUpperCase()}`).replace(/;$/, '')));
        lines.push('\tout := []string{}', '\tfor k := range input {', '\t\tout = append(out, k)', '\t}', '\treturn out', '}', '');
      }
      lines.push(`type ${klass} struct {`, '\tName string', '}', '');
      break;
    case 'java':
      lines.push(`package com.example.${area};`, '', 'import static com.example.platform.Platform.*;', 'import java.util.*;', '');
      lines.push(`/** ${comment()} */`, `public class ${klass} {`);
      for (const f of functions) {
        lines.push(`  /** ${comment()} */`, `  public static List<String> ${f}(Map<String, String> input, int limit) {`);
        lines.push(...body('    ', f), '    return new ArrayList<>(input.keySet()).subList(0, Math.min(limit, input.size()));', '  }', '');
      }
      lines.push('}', '');
      break;
    case 'rust':
      lines.push(`use org_platform::{${calls.map(snake).join(', ')}};`, '');
      for (const f of functions) {
        lines.push(`/// ${comment()}`, `pub fn ${snake(f)}(input: &[String], limit: usize) -> Vec<String> {`);
        lines.push(...body('    ', f).map((l) => l.replace(/^( +)(\w+)/, (_m, s: string, c: string) => `${s}${snake(c)}`)));
        lines.push('    input.iter().take(limit).cloned().collect()', '}', '');
      }
      lines.push(`pub struct ${klass} {`, '    pub name: String,', '}', '');
      break;
  }
  return lines.join('\n');
}

/** The organization's shared library (one repository, `platform`), defining every LIBRARY function in TypeScript. */
function libraryFile(): string {
  return LIBRARY.map(
    (f) =>
      `/** Part of the org platform: ${f}. */\nexport function ${f}(scope: string, attempt: number): void {\n  void scope;\n  void attempt;\n}\n`,
  ).join('\n');
}

/** A bare repository at `dir` whose `main` holds `files` (one commit, via fast-import: no working tree). */
function writeRepository(dir: string, files: ReadonlyArray<[string, string]>): void {
  execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', dir]);
  const chunks: Buffer[] = [];
  const data = (text: string) => {
    const bytes = Buffer.from(text);
    chunks.push(Buffer.from(`data ${bytes.length}\n`), bytes, Buffer.from('\n'));
  };
  chunks.push(Buffer.from('commit refs/heads/main\ncommitter Bench <bench@sextant.invalid> 1767225600 +0000\n'));
  data('initial import');
  for (const [path, content] of files) {
    chunks.push(Buffer.from(`M 100644 inline ${path}\n`));
    data(content);
  }
  chunks.push(Buffer.from('done\n'));
  execFileSync('git', ['fast-import', '--quiet', '--done'], { cwd: dir, input: Buffer.concat(chunks), maxBuffer: 1 << 26 });
}

/** Builds the corpus under `root` unless a complete one with this shape is there already. */
export function buildOrg(root: string, shape: OrgShape): OrgCorpus {
  const sizes = repositorySizes(shape);
  const draw = new Draw(random(shape.seed ^ 0x9e3779b9));
  const marker = join(root, `.complete-${JSON.stringify(shape).replace(/[^\w]/g, '')}`);
  const reuse = existsSync(marker);
  if (!reuse) {
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
  }
  const repositories: OrgRepository[] = [];
  const localNames: string[] = [];
  let files = 0;
  let bytes = 0;
  sizes.forEach((size, r) => {
    const language = r === 0 ? 'typescript' : draw.language();
    const name = r === 0 ? 'platform' : `${draw.pick(AREAS)}-${String(r).padStart(4, '0')}`;
    const area = name.split('-')[0];
    const calls = LIBRARY.filter(() => draw.float() < 0.4).concat(LIBRARY[r % LIBRARY.length]);
    const tree: Array<[string, string]> = [['README.md', `# ${name}\n\nThe ${area} ${language} service of the org. ${WORDS.join(' ')}.\n`]];
    if (r === 0) tree.push(['src/index.ts', libraryFile()]);
    const names: string[] = [];
    for (let f = tree.length; f < size; f++) {
      const dirs = Array.from({ length: draw.int(1, 3) }, () => draw.pick([...AREAS, 'core', 'util', 'internal', 'api', 'model']));
      const file = `${snake(camel(draw.pick(VERBS), draw.pick(NOUNS))).replace(/^_/, '')}_${f}.${EXTENSION[language]}`;
      tree.push([['src', ...dirs, file].join('/'), sourceFile(draw, language, area, [...new Set(calls)], names)]);
    }
    // A stable sample of each repository's own names: the local symbol queries.
    if (names.length > 0) localNames.push(names[Math.floor(names.length / 2)]);
    files += tree.length;
    for (const [, content] of tree) bytes += Buffer.byteLength(content);
    if (!reuse) writeRepository(join(root, `${name}.git`), tree);
    repositories.push({ name, language, files: tree.length });
  });
  if (!reuse) writeFileSync(marker, '');
  return { root, repositories, files, bytes, libraryNames: LIBRARY, localNames };
}
