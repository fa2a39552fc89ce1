/**
 * bench/symbols/oracle — symbol quality against the TypeScript language service (the oracle), on real
 * TypeScript sources shipped in installed npm packages (zod, rxjs, @grpc/grpc-js, ajv, piscina):
 *   references   for sampled definitions, `find_references {path, line, column}` against the language
 *                service's findReferences (every group, declarations excluded): precision and recall per
 *                symbol, averaged (precision over symbols Sextant answered, recall over symbols that have
 *                references), also by kind of definition
 *   definitions  for the first reference site of each sampled definition, the language service's definition
 *                against the first answer of `locate_symbol` with the name as written there, given the use site
 *                (`path`, `line`, `column`: go to definition) and without it (name only): hit@1
 * Each project is its own git workspace, indexed by an embedded Sextant through the gateway (MCP over HTTP).
 * Usage: npm run bench:oracle [-- --quick]
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { git, leanCaller, READY, startNode, type ToolCaller } from '@sextant/testing';
import { fullIndex } from '../jobs.js';

const quick = process.argv.includes('--quick');
const SAMPLE = quick ? 40 : 150;
const require = createRequire(import.meta.url);

/** Projects: an installed package and the folder of its TypeScript sources. */
const PROJECTS: Array<{ name: string; package: string; src: string }> = [
  { name: 'zod', package: 'zod', src: 'src' },
  { name: 'rxjs', package: 'rxjs', src: 'src' },
  { name: 'grpc-js', package: '@grpc/grpc-js', src: 'src' },
  { name: 'ajv', package: 'ajv', src: 'lib' },
  { name: 'piscina', package: 'piscina', src: 'src' },
];

interface OutlineNode {
  name: string;
  kind: string;
  line: number;
  children: OutlineNode[];
}

interface Definition {
  path: string;
  name: string;
  kind: string;
  line: number;
  column: number;
}

interface Scores {
  precision: number[];
  recall: number[];
  /** locate_symbol with the use site (go to definition) / with the name only: first answer right. */
  hits: number;
  nameHits: number;
  asked: number;
  byKind: Map<string, { precision: number[]; recall: number[] }>;
}

const mean = (xs: readonly number[]) => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);

function sourcesOf(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourcesOf(path));
    else if (/\.(ts|tsx)$/.test(entry.name) && !/\.d\.[mc]?ts$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** The package's sources copied into a fresh git repository. */
function makeWorkspace(root: string, project: (typeof PROJECTS)[number]): { dir: string; files: string[] } {
  // The package folder where the repository's node_modules holds it (some packages export no ./package.json).
  const from = join(
    dirname(
      require.resolve
        .paths(project.package)!
        .map((p) => join(p, project.package, 'package.json'))
        .find((p) => existsSync(p))!,
    ),
    project.src,
  );
  const dir = join(root, project.name);
  mkdirSync(dir, { recursive: true });
  const files = sourcesOf(from).map((f) => relative(from, f));
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(from, file), join(dir, file));
  }
  git(dir, 'init', '-q', '--initial-branch=main');
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-q', '-m', 'sources');
  return { dir, files };
}

function languageService(dir: string, files: readonly string[]): ts.LanguageService {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const absolute = files.map((f) => join(dir, f));
  const host: ts.LanguageServiceHost = {
    getScriptFileNames: () => absolute,
    getScriptVersion: () => '1',
    getScriptSnapshot: (name) => {
      try {
        return statSync(name).isFile() ? ts.ScriptSnapshot.fromString(readFileSync(name, 'utf8')) : undefined;
      } catch {
        return undefined;
      }
    },
    getCurrentDirectory: () => dir,
    getCompilationSettings: () => options,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  return ts.createLanguageService(host, ts.createDocumentRegistry());
}

/** Every definition of the index, from get_file_outline, with the column of its name on its line. */
async function definitionsOf(call: ToolCaller, dir: string, files: readonly string[]): Promise<Definition[]> {
  const out: Definition[] = [];
  for (const path of files) {
    const outline = await call<{ symbols: OutlineNode[] }>('get_file_outline', { path });
    if (outline.isError) continue;
    const lines = readFileSync(join(dir, path), 'utf8').split('\n');
    const walk = (nodes: OutlineNode[]) => {
      for (const node of nodes) {
        const text = lines[node.line - 1] ?? '';
        const column = new RegExp(`(?<![\\w$#])${node.name.replace(/[$]/g, '\\$')}(?![\\w$])`).exec(text)?.index;
        if (column !== undefined) out.push({ path, name: node.name, kind: node.kind, line: node.line, column });
        walk(node.children);
      }
    };
    walk(outline.body.symbols);
  }
  return out;
}

function positionOf(service: ts.LanguageService, file: string, line: number, column: number): number {
  const source = service.getProgram()!.getSourceFile(file)!;
  return source.getPositionOfLineAndCharacter(line - 1, column);
}

function siteOf(service: ts.LanguageService, dir: string, fileName: string, start: number): { path: string; line: number; column: number } {
  const source = service.getProgram()!.getSourceFile(fileName)!;
  const { line, character } = source.getLineAndCharacterOfPosition(start);
  return { path: relative(dir, fileName), line: line + 1, column: character };
}

async function score(
  call: ToolCaller,
  service: ts.LanguageService,
  dir: string,
  sample: readonly Definition[],
  scores: Scores,
): Promise<void> {
  for (const d of sample) {
    const file = join(dir, d.path);
    const referenced = service.findReferences(file, positionOf(service, file, d.line, d.column)) ?? [];
    const truth = new Map<string, { path: string; line: number; column: number; start: number; fileName: string }>();
    for (const group of referenced) {
      for (const ref of group.references) {
        if (ref.isDefinition || !ref.fileName.startsWith(dir)) continue;
        const site = siteOf(service, dir, ref.fileName, ref.textSpan.start);
        truth.set(`${site.path}:${site.line}:${site.column}`, { ...site, start: ref.textSpan.start, fileName: ref.fileName });
      }
    }
    const answer = await call<{ references: Array<{ path: string; line: number; column: number }> }>('find_references', {
      path: d.path,
      line: d.line,
      column: d.column,
      limit: 1000,
    });
    const mine = new Set(answer.isError ? [] : answer.body.references.map((r) => `${r.path}:${r.line}:${r.column}`));
    const hit = [...mine].filter((k) => truth.has(k)).length;
    if (EXPLAIN && (EXPLAIN === 'all' || EXPLAIN === d.kind)) explain(dir, d, mine, truth);
    const kind = scores.byKind.get(d.kind) ?? { precision: [], recall: [] };
    scores.byKind.set(d.kind, kind);
    if (mine.size > 0) {
      scores.precision.push(hit / mine.size);
      kind.precision.push(hit / mine.size);
    }
    if (truth.size > 0) {
      scores.recall.push(hit / truth.size);
      kind.recall.push(hit / truth.size);
    }
    // Definition hit@1: from the first reference site, what the language service calls its definition vs locate_symbol's first.
    const first = [...truth.values()].sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line)[0];
    if (!first) continue;
    const defined = service.getDefinitionAtPosition(first.fileName, first.start)?.find((x) => x.fileName.startsWith(dir));
    if (!defined) continue;
    const target = siteOf(service, dir, defined.fileName, defined.textSpan.start);
    const written = service
      .getProgram()!
      .getSourceFile(first.fileName)!
      .text.slice(first.start)
      .match(/^[\w$#]+/)?.[0];
    if (!written) continue;
    const ask = async (args: Record<string, unknown>) => {
      const located = await call<{ definitions: Array<{ path: string; line: number }> }>('locate_symbol', {
        name: written,
        limit: 1,
        ...args,
      });
      const top = located.isError ? undefined : located.body.definitions[0];
      return top !== undefined && top.path === target.path && top.line === target.line ? 1 : 0;
    };
    scores.asked++;
    const atUse = await ask({ path: first.path, line: first.line, column: first.column });
    scores.hits += atUse;
    scores.nameHits += await ask({});
    if (!atUse && EXPLAIN === 'definitions')
      console.log(`-- ${written} at ${first.path}:${first.line}:${first.column}: true ${target.path}:${target.line}`);
  }
}

/** `ORACLE_EXPLAIN=<kind>|all`: print each sampled symbol's false positives and misses with their lines. */
const EXPLAIN = process.env.ORACLE_EXPLAIN;

function explain(dir: string, d: Definition, mine: ReadonlySet<string>, truth: ReadonlyMap<string, unknown>): void {
  const line = (key: string) => {
    const [path, n] = key.split(':');
    return `${key}  ${(readFileSync(join(dir, path!), 'utf8').split('\n')[Number(n) - 1] ?? '').trim().slice(0, 120)}`;
  };
  const extra = [...mine].filter((k) => !truth.has(k));
  const missed = [...truth.keys()].filter((k) => !mine.has(k));
  if (extra.length === 0 && missed.length === 0) return;
  console.log(`-- ${d.kind} ${d.name} ${d.path}:${d.line}  (${mine.size} answered, ${truth.size} true)`);
  for (const k of extra.slice(0, 5)) console.log(`   + ${line(k)}`);
  for (const k of missed.slice(0, 5)) console.log(`   - ${line(k)}`);
}

const pct = (x: number) => (Number.isNaN(x) ? '  n/a' : x.toFixed(3));

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'sextant-bench-oracle-'));
  const total: Scores = { precision: [], recall: [], hits: 0, nameHits: 0, asked: 0, byKind: new Map() };
  console.log(`bench/symbols/oracle: ${SAMPLE} definitions per project, TypeScript ${ts.version} language service as the oracle`);
  try {
    for (const project of PROJECTS) {
      const { dir, files } = makeWorkspace(root, project);
      const sextant = await startNode('apps/sextant/dist/main.js', [], {
        env: { SEXTANT_PORT: '0', SEXTANT_DATA_DIR: join(root, `${project.name}-data`), SEXTANT_WORKSPACE: dir, LOG_LEVEL: 'info' },
        readyWhen: READY.embedded,
        timeoutMs: 60_000,
      });
      try {
        const call = leanCaller((await sextant.waitFor(READY.embedded))[1]!);
        await fullIndex(call);
        const definitions = (await definitionsOf(call, dir, files)).sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line);
        const stride = Math.max(1, Math.floor(definitions.length / SAMPLE));
        const sample = definitions.filter((_, i) => i % stride === 0).slice(0, SAMPLE);
        const service = languageService(dir, files);
        const scores: Scores = { precision: [], recall: [], hits: 0, nameHits: 0, asked: 0, byKind: new Map() };
        await score(call, service, dir, sample, scores);
        console.log(
          `${project.name.padEnd(8)} ${String(files.length).padStart(4)} files, ${String(sample.length).padStart(3)} symbols   ` +
            `references precision ${pct(mean(scores.precision))} recall ${pct(mean(scores.recall))}   definition hit@1 ${pct(scores.hits / scores.asked)} at the use, ${pct(scores.nameHits / scores.asked)} by name (${scores.asked})`,
        );
        total.precision.push(...scores.precision);
        total.recall.push(...scores.recall);
        total.hits += scores.hits;
        total.nameHits += scores.nameHits;
        total.asked += scores.asked;
        for (const [kind, s] of scores.byKind) {
          const t = total.byKind.get(kind) ?? { precision: [], recall: [] };
          t.precision.push(...s.precision);
          t.recall.push(...s.recall);
          total.byKind.set(kind, t);
        }
        call.close();
      } finally {
        await sextant.stop();
      }
    }
    console.log(
      `all      references precision ${pct(mean(total.precision))} recall ${pct(mean(total.recall))}   definition hit@1 ${pct(total.hits / total.asked)} at the use, ${pct(total.nameHits / total.asked)} by name (${total.asked})   targets: precision ≥ 0.90, recall ≥ 0.90, hit@1 ≥ 0.95`,
    );
    for (const [kind, s] of [...total.byKind].sort()) {
      console.log(
        `  ${kind.padEnd(10)} precision ${pct(mean(s.precision))} (${s.precision.length})  recall ${pct(mean(s.recall))} (${s.recall.length})`,
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
