/**
 * bench/symbols/oracle — symbol quality against an oracle that is not Sextant's code: for TypeScript the
 * TypeScript language service on the sources shipped in installed npm packages (zod, rxjs, @grpc/grpc-js, ajv,
 * piscina) and this repository's own workspace packages (`sextant`: imports by package name); for Python
 * (`-- --language python`) jedi on the Python packages Debian installs (jedi, parso, jwt; needs
 * `apt-get install python3-jedi`); for Go (`-- --language go`) gopls on packages of the standard library
 * (needs `apt-get install gopls golang-go`):
 *   references   for sampled definitions, `find_references {path, line, column}` against the language
 *                service's findReferences (every group, declarations excluded): precision and recall per
 *                symbol, averaged (precision over symbols Sextant answered, recall over symbols that have
 *                references), also by kind of definition
 *   definitions  for the first reference site of each sampled definition, the language service's definition
 *                against the first answer of `locate_symbol` with the name as written there, given the use site
 *                (`path`, `line`, `column`: go to definition) and without it (name only): hit@1
 *   locals       the same two for sampled parameters and local variables (found by Sextant's `@local.definition`
 *                captures, not at the top level of a file), asked at their declarations: reported apart
 * Each project is its own git workspace, indexed by an embedded Sextant through the gateway (MCP over HTTP).
 * With `--tier precise`, jobs also run the precise stage (scip-typescript, ADR 0053; scip-python, ADR 0060): the
 * answers then come from the precise tier where it covers and say so (`precision`); the run prints the stage's time and peak memory per 100k lines
 * and how many answered references and first `locate_symbol` definitions each tier gave. For `sextant`, the names
 * checked against `git grep` are also asked of `search_dependencies` and `analyze_change_impact` on their defining
 * file: the direct dependents by tier, and how many of the language service's files of the name they include.
 *
 * Usage: npm run bench:oracle [-- --quick] [-- --language typescript|python|go] [-- --project <name>] [-- --tier search|precise]
 *        [-- --commit <rev>] (the commit of this repository the `sextant` project measures; default HEAD)
 */
import { cpSync, existsSync, writeFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { execFileSync, spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { languageOf } from '@sextant/checkouts';
import { Grammars } from '@sextant/parsing';
import { git, leanCaller, READY, startNode, type ToolCaller } from '@sextant/testing';
import { fullIndex } from '../jobs.js';

const quick = process.argv.includes('--quick');
const tier = process.argv.includes('--tier') ? process.argv[process.argv.indexOf('--tier') + 1] : 'search';
if (tier !== 'search' && tier !== 'precise') throw new Error('--tier: search or precise');
/** find_references round trips (ms) over a project's samples. */
const referenceMs: number[] = [];
/** References answered, by the tier each says it came from, over a project's sample. */
const labelled = new Map<string, number>();
/** locate_symbol's first definitions, by the tier each says it came from, over a project's sample. */
const locatedTiers = new Map<string, number>();
const SAMPLE = quick ? 40 : 150;
/** Parameters and local variables sampled per project (`find_references` at the declaration: its uses in the file). */
const LOCALS = quick ? 15 : 60;

/** A position in a workspace: path relative to its root, 1-based line, 0-based column. */
interface Site {
  path: string;
  line: number;
  column: number;
}

/** What the oracle says about a workspace: the references of a definition (its own site left out), the definition of a use. */
interface Oracle {
  references(definition: Site): Promise<Site[]>;
  definition(use: Site): Promise<Site | undefined>;
  close(): void;
}

/** A project of a language: where its sources are, which files, and the oracle over the copy. */
interface Language {
  label: string;
  projects: Array<{
    name: string;
    from: () => string;
    into: string;
    /** The files to copy when not every source under `from` (relative to it): sources, and manifests the copy needs. */
    list?: (from: string) => { sources: string[]; manifests: string[] };
  }>;
  sources: RegExp;
  oracle(dir: string, files: readonly string[]): Oracle;
  /** Files the copy needs besides the sources (path → content). */
  extraFiles?: Record<string, string>;
}

const require = createRequire(import.meta.url);

/** The folder of an installed npm package (some packages export no ./package.json). */
function packageDir(name: string): string {
  return dirname(
    require.resolve
      .paths(name)!
      .map((p) => join(p, name, 'package.json'))
      .find((p) => existsSync(p))!,
  );
}

const DIST_PACKAGES = '/usr/lib/python3/dist-packages';
const REPOSITORY = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * This repository at a commit (`--commit <rev>`, else its last), extracted once: a fixed corpus, so that runs of
 * different builds compare (the working tree's edits are left out).
 */
const COMMIT = process.argv.includes('--commit') ? process.argv[process.argv.indexOf('--commit') + 1] : 'HEAD';
let snapshot: string | undefined;
function headSnapshot(): string {
  if (snapshot === undefined) {
    snapshot = mkdtempSync(join(tmpdir(), 'sextant-bench-head-'));
    execFileSync('sh', ['-c', `git -C "$0" archive "$1" | tar -x -C "$2"`, REPOSITORY, COMMIT, snapshot]);
  }
  return snapshot;
}

/** The committed TypeScript sources of this repository's workspace packages, with their package.json and tsconfig files. */
function workspaceSources(): { sources: string[]; manifests: string[] } {
  const committed = git(REPOSITORY, 'ls-tree', '-r', '--name-only', COMMIT).split('\n');
  return {
    sources: committed.filter((f) => /^(libs|services|apps)\/[^/]+\/src\/.*(?<!\.d)\.ts$|^(tests|bench)\/src\/.*(?<!\.d)\.ts$/.test(f)),
    manifests: committed.filter((f) => /(^|\/)(package\.json|tsconfig[\w.]*\.json)$/.test(f) && !f.includes('node_modules')),
  };
}

/**
 * `paths` for the language service: each workspace package of the copy (the root package.json's `workspaces`,
 * `dir/*` or a directory) by name to its `src/index.ts`, and its subpaths to `src/` — as its exports do once built.
 */
function workspacePaths(dir: string): Record<string, string[]> {
  const paths: Record<string, string[]> = {};
  const read = (path: string) =>
    existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as { name?: string; workspaces?: string[] }) : {};
  for (const glob of read(join(dir, 'package.json')).workspaces ?? []) {
    const dirs = glob.endsWith('/*')
      ? readdirSync(join(dir, glob.slice(0, -2)), { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => `${glob.slice(0, -2)}/${e.name}`)
      : [glob];
    for (const d of dirs) {
      const name = read(join(dir, d, 'package.json')).name;
      if (!name) continue;
      paths[name] = [`${d}/src/index.ts`];
      paths[`${name}/*`] = [`${d}/src/*`];
    }
  }
  return paths;
}
const GOROOT_SRC = '/usr/lib/go/src';

const LANGUAGES: Record<string, Language> = {
  typescript: {
    label: `TypeScript ${ts.version} language service`,
    projects: [
      { name: 'zod', from: () => join(packageDir('zod'), 'src'), into: '' },
      { name: 'rxjs', from: () => join(packageDir('rxjs'), 'src'), into: '' },
      { name: 'grpc-js', from: () => join(packageDir('@grpc/grpc-js'), 'src'), into: '' },
      { name: 'ajv', from: () => join(packageDir('ajv'), 'lib'), into: '' },
      { name: 'piscina', from: () => join(packageDir('piscina'), 'src'), into: '' },
      // This repository, a monorepo of npm workspaces: what its committed sources import of each other by package name.
      { name: 'sextant', from: headSnapshot, into: '', list: workspaceSources },
    ],
    sources: /(?<!\.d)\.[mc]?tsx?$/,
    oracle: typescriptOracle,
  },
  go: {
    label: 'gopls (Debian gopls) over the standard library',
    // Packages of the standard library at their paths under a `module std` go.mod, as GOROOT/src has them.
    projects: [
      { name: 'text-template', from: () => join(GOROOT_SRC, 'text/template'), into: 'text/template/' },
      { name: 'encoding-json', from: () => join(GOROOT_SRC, 'encoding/json'), into: 'encoding/json/' },
      { name: 'net-url', from: () => join(GOROOT_SRC, 'net/url'), into: 'net/url/' },
    ],
    sources: /\.go$/,
    oracle: goplsOracle,
    extraFiles: { 'go.mod': 'module std\n\ngo 1.19\n' },
  },
  python: {
    label: 'jedi (Debian python3-jedi)',
    // Each package keeps its folder, so that its absolute imports (`from jedi.api import …`) resolve from the root.
    projects: ['jedi', 'parso', 'jwt'].map((name) => ({ name, from: () => join(DIST_PACKAGES, name), into: `${name}/` })),
    sources: /\.py$/,
    oracle: jediOracle,
  },
};

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

function sourcesOf(dir: string, pattern: RegExp): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== '__pycache__' && entry.name !== 'testdata') out.push(...sourcesOf(path, pattern));
    else if (entry.isFile() && pattern.test(entry.name)) out.push(path);
  }
  return out;
}

/** The project's sources copied into a fresh git repository (under `into`). */
function makeWorkspace(root: string, language: Language, project: Language['projects'][number]): { dir: string; files: string[] } {
  const from = project.from();
  const dir = join(root, project.name);
  const listed = project.list?.(from);
  const files = listed?.sources ?? sourcesOf(from, language.sources).map((f) => `${project.into}${relative(from, f)}`);
  for (const file of [...files, ...(listed?.manifests ?? [])]) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(from, file.slice(project.into.length)), join(dir, file));
  }
  for (const [path, content] of Object.entries(language.extraFiles ?? {})) writeFileSync(join(dir, path), content);
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
  const paths = workspacePaths(dir);
  if (Object.keys(paths).length > 0) Object.assign(options, { baseUrl: dir, paths });
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
    fileExists: (path) => ts.sys.fileExists(path),
    readFile: (path, encoding) => ts.sys.readFile(path, encoding),
    readDirectory: (...args) => ts.sys.readDirectory(...args),
    directoryExists: (path) => ts.sys.directoryExists(path),
    getDirectories: (path) => ts.sys.getDirectories(path),
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

/**
 * Parameters and local variables of the files: each declaration the language's query captures as `@local.definition`
 * whose innermost `@local.scope` is not the whole file (a top-level name is the index's). Sampled by Sextant's own
 * query; what their references are is the oracle's.
 */
async function localsOf(dir: string, files: readonly string[]): Promise<Definition[]> {
  const grammars = new Grammars();
  const out: Definition[] = [];
  for (const path of files) {
    const language = languageOf(path);
    const grammar = language ? await grammars.get(language) : undefined;
    if (!grammar || 'error' in grammar) continue;
    const tree = grammar.parser.parse(readFileSync(join(dir, path), 'utf8'));
    if (!tree) continue;
    const scopes: Array<[number, number]> = [];
    const declared: Array<{ at: number; name: string; line: number; column: number }> = [];
    for (const match of grammar.query.matches(tree.rootNode)) {
      for (const c of match.captures) {
        if (c.name === 'local.scope') scopes.push([c.node.startIndex, c.node.endIndex]);
        else if (c.name === 'local.definition')
          declared.push({
            at: c.node.startIndex,
            name: c.node.text,
            line: c.node.startPosition.row + 1,
            column: c.node.startPosition.column,
          });
      }
    }
    const whole = [tree.rootNode.startIndex, tree.rootNode.endIndex];
    tree.delete();
    const seen = new Set<number>();
    for (const d of declared) {
      if (seen.has(d.at)) continue;
      seen.add(d.at);
      const around = scopes.filter(([from, to]) => from <= d.at && d.at < to).sort((a, b) => b[0] - a[0] || a[1] - b[1])[0];
      if (!around || (around[0] === whole[0] && around[1] === whole[1])) continue;
      out.push({ path, name: d.name, kind: 'local', line: d.line, column: d.column });
    }
  }
  return out;
}

function typescriptOracle(dir: string, files: readonly string[]): Oracle {
  const service = languageService(dir, files);
  const source = (path: string) => service.getProgram()!.getSourceFile(join(dir, path))!;
  const siteOf = (fileName: string, start: number): Site => {
    const { line, character } = service.getProgram()!.getSourceFile(fileName)!.getLineAndCharacterOfPosition(start);
    return { path: relative(dir, fileName), line: line + 1, column: character };
  };
  const at = (site: Site) => source(site.path).getPositionOfLineAndCharacter(site.line - 1, site.column);
  return {
    async references(definition) {
      const groups = service.findReferences(join(dir, definition.path), at(definition)) ?? [];
      // Every group (a re-export's alias, an override): what an editor's Find All References lists; declarations left out.
      return groups.flatMap((g) =>
        g.references.filter((r) => !r.isDefinition && r.fileName.startsWith(dir)).map((r) => siteOf(r.fileName, r.textSpan.start)),
      );
    },
    async definition(use) {
      const found = service.getDefinitionAtPosition(join(dir, use.path), at(use))?.find((x) => x.fileName.startsWith(dir));
      return found && siteOf(found.fileName, found.textSpan.start);
    },
    close() {
      service.dispose();
    },
  };
}

/** jedi in a Python process (bench/src/symbols/jedi-oracle.py), one request at a time. */
function jediOracle(dir: string): Oracle {
  const script = fileURLToPath(new URL('../../src/symbols/jedi-oracle.py', import.meta.url));
  const child = spawn('/usr/bin/python3', [script, dir], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const replies: Array<(line: string) => void> = [];
  lines.on('line', (line) => replies.shift()?.(line));
  const ask = (op: string, site: Site) =>
    new Promise<Site[]>((resolve) => {
      replies.push((line) =>
        resolve(
          (JSON.parse(line) as { sites: Site[] }).sites
            .filter((s) => s.path.startsWith(`${dir}/`))
            .map((s) => ({ ...s, path: relative(dir, s.path) })),
        ),
      );
      child.stdin.write(`${JSON.stringify({ op, path: join(dir, site.path), line: site.line, column: site.column })}\n`);
    });
  return {
    references: (definition) => ask('references', definition),
    definition: async (use) => (await ask('definition', use))[0],
    close: () => child.kill(),
  };
}

/**
 * gopls as a language server over stdio (LSP), rooted at GOROOT/src: the copy's files are the standard library's at
 * the same paths, so sites map one to one. Sites outside the copied packages are left out (Sextant does not see them).
 */
function goplsOracle(_dir: string, files: readonly string[]): Oracle {
  const child = spawn('gopls', ['serve'], { stdio: ['pipe', 'pipe', 'ignore'] });
  const inCopy = new Set(files);
  let id = 0;
  const pending = new Map<number, (result: unknown) => void>();
  let buffer = Buffer.alloc(0);
  child.stdout.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const header = buffer.indexOf('\r\n\r\n');
      if (header < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, header).toString())?.[1]);
      if (buffer.length < header + 4 + length) return;
      const message = JSON.parse(buffer.subarray(header + 4, header + 4 + length).toString()) as {
        id?: number;
        result?: unknown;
        method?: string;
      };
      buffer = buffer.subarray(header + 4 + length);
      if (message.id !== undefined && message.method === undefined) pending.get(message.id)?.(message.result ?? null);
      else if (message.id !== undefined) send({ jsonrpc: '2.0', id: message.id, result: null }); // a request of the server: answered empty
    }
  });
  const send = (message: object) => {
    const body = JSON.stringify(message);
    child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  };
  const request = (method: string, params: object) =>
    new Promise<unknown>((resolve) => {
      const n = ++id;
      pending.set(n, resolve);
      send({ jsonrpc: '2.0', id: n, method, params });
    });
  const uri = (path: string) => `file://${join(GOROOT_SRC, path)}`;
  const ready = request('initialize', { processId: process.pid, rootUri: `file://${GOROOT_SRC}`, capabilities: {} }).then(() =>
    send({ jsonrpc: '2.0', method: 'initialized', params: {} }),
  );
  type Location = { uri: string; range: { start: { line: number; character: number } } };
  const sites = (locations: unknown) =>
    ((locations as Location[] | null) ?? [])
      .map((l) => ({
        path: relative(GOROOT_SRC, l.uri.replace(/^file:\/\//, '')),
        line: l.range.start.line + 1,
        column: l.range.start.character,
      }))
      .filter((s) => inCopy.has(s.path));
  const position = (site: Site) => ({ textDocument: { uri: uri(site.path) }, position: { line: site.line - 1, character: site.column } });
  return {
    async references(definition) {
      await ready;
      return sites(await request('textDocument/references', { ...position(definition), context: { includeDeclaration: false } }));
    },
    async definition(use) {
      await ready;
      return sites(await request('textDocument/definition', position(use)))[0];
    },
    close: () => child.kill(),
  };
}

/** Scores one sample; `label` names it in what `ORACLE_EXPLAIN` prints (`definitions` or `locals`). */
async function score(
  call: ToolCaller,
  oracle: Oracle,
  dir: string,
  sample: readonly Definition[],
  scores: Scores,
  label: string,
): Promise<void> {
  const text = new Map<string, string[]>();
  const lineOf = (site: Site) => {
    if (!text.has(site.path)) text.set(site.path, readFileSync(join(dir, site.path), 'utf8').split('\n'));
    return text.get(site.path)![site.line - 1] ?? '';
  };
  for (const d of sample) {
    const truth = new Map((await oracle.references(d)).map((s) => [`${s.path}:${s.line}:${s.column}`, s]));
    const asked = performance.now();
    const answer = await call<{ references: Array<{ path: string; line: number; column: number; precision?: string }> }>(
      'find_references',
      {
        path: d.path,
        line: d.line,
        column: d.column,
        limit: 1000,
      },
    );
    referenceMs.push(performance.now() - asked);
    const mine = new Set(answer.isError ? [] : answer.body.references.map((r) => `${r.path}:${r.line}:${r.column}`));
    for (const r of answer.isError ? [] : answer.body.references)
      labelled.set(r.precision ?? 'none', (labelled.get(r.precision ?? 'none') ?? 0) + 1);
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
    // Definition hit@1: from the first reference site, what the oracle calls its definition vs locate_symbol's first.
    const first = [...truth.values()].sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line)[0];
    if (!first) continue;
    const target = await oracle.definition(first);
    const written = lineOf(first)
      .slice(first.column)
      .match(/^[\p{L}\p{N}_$#]+/u)?.[0];
    if (!target || !written) continue;
    let answered = '';
    const ask = async (args: Record<string, unknown>) => {
      const located = await call<{ definitions: Array<{ path: string; line: number; precision?: string }> }>('locate_symbol', {
        name: written,
        limit: 1,
        ...args,
      });
      const top = located.isError ? undefined : located.body.definitions[0];
      if (top) locatedTiers.set(top.precision ?? 'none', (locatedTiers.get(top.precision ?? 'none') ?? 0) + 1);
      if ('path' in args) answered = top ? `${top.path}:${top.line}` : 'nothing';
      return top !== undefined && top.path === target.path && top.line === target.line ? 1 : 0;
    };
    scores.asked++;
    const atUse = await ask({ path: first.path, line: first.line, column: first.column });
    scores.hits += atUse;
    scores.nameHits += await ask({});
    if (!atUse && EXPLAIN === 'definitions')
      console.log(
        `-- ${label}: ${written} at ${first.path}:${first.line}:${first.column}: true ${target.path}:${target.line}, answered ${answered}\n   ${lineOf(first).trim().slice(0, 140)}`,
      );
  }
}

/** Names exported by this repository's libraries and used across packages, checked against `git grep` (`sextant`). */
const GREP_CHECKED = ['ServiceError', 'WorkBudget', 'ToolHandler', 'CloneCache', 'defineTool'];

/**
 * For each of `GREP_CHECKED`, by name: the files `find_references` names against the files the language service's
 * references are in and the files `git grep -w` finds the name in (the defining file left out of each; grep also
 * finds comments and strings). A file the language service has and the answer lacks is printed.
 */
async function grepCheck(call: ToolCaller, oracle: Oracle, dir: string): Promise<void> {
  for (const name of GREP_CHECKED) {
    const answer = await call<{ definitions: Array<{ path: string; line: number }>; references: Array<{ path: string }> }>(
      'find_references',
      { name, limit: 1000 },
    );
    if (answer.isError || answer.body.definitions.length !== 1) throw new Error(`find_references ${name}: ${JSON.stringify(answer.body)}`);
    const definition = answer.body.definitions[0];
    const column = readFileSync(join(dir, definition.path), 'utf8').split('\n')[definition.line - 1].search(new RegExp(`\\b${name}\\b`));
    const truth = new Set((await oracle.references({ path: definition.path, line: definition.line, column })).map((s) => s.path));
    const grep = new Set(git(dir, 'grep', '-lw', name, '--', '*.ts').split('\n').filter(Boolean));
    for (const files of [truth, grep]) files.delete(definition.path);
    const found = new Set(answer.body.references.map((r) => r.path).filter((p) => p !== definition.path));
    const missed = [...truth].filter((f) => !found.has(f));
    console.log(
      `${''.padEnd(8)} find_references ${name}: ${found.size} files; the language service ${truth.size}, ${truth.size - missed.length} of them found; git grep -lw ${grep.size}` +
        (missed.length > 0 ? ` (missing ${missed.slice(0, 4).join(', ')}${missed.length > 4 ? ' …' : ''})` : ''),
    );
    // The file-level tools on the defining file: a file the language service finds a reference of the name in depends
    // on it (a lower bound of its dependents).
    type Dependent = { path: string; depth: number; precision?: string };
    const graph = await call<{ dependents: Dependent[] }>('search_dependencies', { file_path: definition.path, direction: 'dependents' });
    const impact = await call<{ dependents: Dependent[] }>('analyze_change_impact', { files: [definition.path] });
    for (const [tool, answered] of [
      ['search_dependencies', graph],
      ['analyze_change_impact', impact],
    ] as const) {
      if (answered.isError) throw new Error(`${tool} ${definition.path}: ${JSON.stringify(answered.body)}`);
      const direct = answered.body.dependents.filter((d) => d.depth === 1);
      const files = new Set(direct.map((d) => d.path));
      const tiers = new Map<string, number>();
      for (const d of direct) tiers.set(d.precision ?? 'none', (tiers.get(d.precision ?? 'none') ?? 0) + 1);
      console.log(
        `${''.padEnd(8)} ${tool} ${definition.path}: ${files.size} direct dependents (${[...tiers].map(([k, n]) => `${k} ${n}`).join(', ')}); ` +
          `${[...truth].filter((f) => files.has(f)).length} of the language service's ${truth.size} files of ${name}`,
      );
    }
  }
}

/** `ORACLE_EXPLAIN=<kind>|all`: print each sampled symbol's false positives and misses with their lines. */
const EXPLAIN = process.env.ORACLE_EXPLAIN;

function explain(dir: string, d: Definition, mine: ReadonlySet<string>, truth: ReadonlyMap<string, unknown>): void {
  const line = (key: string) => {
    const [path, n] = key.split(':');
    return `${key}  ${(readFileSync(join(dir, path), 'utf8').split('\n')[Number(n) - 1] ?? '').trim().slice(0, 120)}`;
  };
  const extra = [...mine].filter((k) => !truth.has(k));
  const missed = [...truth.keys()].filter((k) => !mine.has(k));
  if (extra.length === 0 && missed.length === 0) return;
  console.log(`-- ${d.kind} ${d.name} ${d.path}:${d.line}  (${mine.size} answered, ${truth.size} true)`);
  for (const k of extra.slice(0, 5)) console.log(`   + ${line(k)}`);
  for (const k of missed.slice(0, 5)) console.log(`   - ${line(k)}`);
}

const pct = (x: number) => (Number.isNaN(x) ? '  n/a' : x.toFixed(3));

/** The precise stage's run as its log line gives it, per 100k lines of the project's sources. */
function preciseCost(log: string, dir: string, files: readonly string[]): void {
  const lines = files.reduce((n, f) => n + readFileSync(join(dir, f), 'utf8').split('\n').length, 0);
  const run = /precise tier from (.+?): (\d+) documents, (\d+) occurrences in (\d+) ms(?:, peak (\d+) MB)?/.exec(log);
  if (!run) {
    console.log(
      `         precise stage: no index (${/the precise tier keeps its previous index \((.*)\)/.exec(log)?.[1] ?? 'no run in the log'})`,
    );
    return;
  }
  const [, tool, documents, occurrences, ms, peak] = run;
  const per = 100_000 / lines;
  console.log(
    `         precise stage (${tool}): ${documents} documents, ${occurrences} occurrences, ${lines} lines: ${(Number(ms) / 1000).toFixed(1)} s, peak ${peak ?? '?'} MB` +
      ` = ${((Number(ms) / 1000) * per).toFixed(1)} s per 100k lines (peak RSS does not scale linearly)`,
  );
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'sextant-bench-oracle-'));
  const total: Scores = { precision: [], recall: [], hits: 0, nameHits: 0, asked: 0, byKind: new Map() };
  const totalLocals: Scores = { precision: [], recall: [], hits: 0, nameHits: 0, asked: 0, byKind: new Map() };
  const name = process.argv.includes('--language') ? process.argv[process.argv.indexOf('--language') + 1] : 'typescript';
  const language = LANGUAGES[name];
  if (!language) throw new Error(`--language: one of ${Object.keys(LANGUAGES).join(', ')}`);
  console.log(`bench/symbols/oracle (${name}, ${tier} tier): ${SAMPLE} definitions per project, ${language.label} as the oracle`);
  try {
    const only = process.argv.includes('--project') ? process.argv[process.argv.indexOf('--project') + 1] : undefined;
    for (const project of language.projects.filter((p) => only === undefined || p.name === only)) {
      const { dir, files } = makeWorkspace(root, language, project);
      // Read before the server starts: a pause of seconds between two calls outlasts the gateway's keep-alive.
      const locals = await localsOf(dir, files);
      const sextant = await startNode('apps/sextant/dist/main.js', [], {
        env: {
          SEXTANT_PORT: '0',
          SEXTANT_AUTH: 'off',
          SEXTANT_DATA_DIR: join(root, `${project.name}-data`),
          SEXTANT_WORKSPACE: dir,
          SEXTANT_INDEXING_STAGES: tier === 'precise' ? 'symbols,precise' : 'symbols',
          LOG_LEVEL: 'info',
        },
        readyWhen: READY.embedded,
        timeoutMs: 60_000,
      });
      try {
        const call = leanCaller((await sextant.waitFor(READY.embedded))[1]);
        await fullIndex(call);
        if (tier === 'precise') preciseCost(sextant.output(), dir, files);
        labelled.clear();
        locatedTiers.clear();
        referenceMs.length = 0;
        const definitions = (await definitionsOf(call, dir, files)).sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line);
        const stride = Math.max(1, Math.floor(definitions.length / SAMPLE));
        const sample = definitions.filter((_, i) => i % stride === 0).slice(0, SAMPLE);
        const localStride = Math.max(1, Math.floor(locals.length / LOCALS));
        const localSample = locals.filter((_, i) => i % localStride === 0).slice(0, LOCALS);
        const oracle = language.oracle(dir, files);
        const scores: Scores = { precision: [], recall: [], hits: 0, nameHits: 0, asked: 0, byKind: new Map() };
        const localScores: Scores = { precision: [], recall: [], hits: 0, nameHits: 0, asked: 0, byKind: new Map() };
        await score(call, oracle, dir, sample, scores, 'definitions')
          .then(() => score(call, oracle, dir, localSample, localScores, 'locals'))
          .then(() => (project.name === 'sextant' ? grepCheck(call, oracle, dir) : undefined))
          .finally(() => oracle.close());
        console.log(
          `${project.name.padEnd(8)} ${String(files.length).padStart(4)} files, ${String(sample.length).padStart(3)} symbols   ` +
            `references precision ${pct(mean(scores.precision))} recall ${pct(mean(scores.recall))}   definition hit@1 ${pct(scores.hits / scores.asked)} at the use, ${pct(scores.nameHits / scores.asked)} by name (${scores.asked})`,
        );
        console.log(
          `${''.padEnd(8)} ${String(localSample.length).padStart(15)} locals    ` +
            `references precision ${pct(mean(localScores.precision))} recall ${pct(mean(localScores.recall))}   definition hit@1 ${pct(localScores.hits / localScores.asked)} at the use (${localScores.asked})`,
        );
        const sorted = [...referenceMs].sort((a, b) => a - b);
        console.log(
          `${''.padEnd(8)} references answered by tier: ${[...labelled].map(([k, n]) => `${k} ${n}`).join(', ')}; ` +
            `locate_symbol first definitions by tier: ${[...locatedTiers].map(([k, n]) => `${k} ${n}`).join(', ')}; ` +
            `find_references p50 ${sorted[Math.floor(sorted.length / 2)]?.toFixed(1)} ms (${sorted.length} calls, embedded)`,
        );
        totalLocals.precision.push(...localScores.precision);
        totalLocals.recall.push(...localScores.recall);
        totalLocals.hits += localScores.hits;
        totalLocals.asked += localScores.asked;
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
    console.log(
      `locals   references precision ${pct(mean(totalLocals.precision))} recall ${pct(mean(totalLocals.recall))}   definition hit@1 ${pct(totalLocals.hits / totalLocals.asked)} at the use (${totalLocals.asked}); not in the figures above`,
    );
    for (const [kind, s] of [...total.byKind].sort()) {
      console.log(
        `  ${kind.padEnd(10)} precision ${pct(mean(s.precision))} (${s.precision.length})  recall ${pct(mean(s.recall))} (${s.recall.length})`,
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
    if (snapshot !== undefined) rmSync(snapshot, { recursive: true, force: true });
  }
}

await main();
