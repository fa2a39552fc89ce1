import { posix } from 'node:path';
import { languageOf } from '@sextant/checkouts';
import type { AnalyzeChangeImpact, ListRecentFiles, SearchDependencies, ValidateImplementationSpec } from '@sextant/contracts';
import { hasPackageScope } from '@sextant/parsing';
import { namesOf, type Scope, type Scopes } from '@sextant/registry-client';
import { ServiceError } from '@sextant/work';
import { cmp, repoPath } from '../helpers.js';
import type { BindingFacts } from '../binding/binding-facts.js';
import { packageKey, ReferenceBinder } from '../binding/references.js';
import { TEST_PATH, type SymbolStore } from '../index/symbol.store.js';
import type { PreciseAnswers, Precision } from '../precise/precise-answers.js';

/** Files reached by one graph walk; past it the answer says truncated. */
const MAX_FILES = 500;
/** How deep analyze_change_impact follows dependents. */
const IMPACT_DEPTH = 2;
/** Cycles reported at most. */
const MAX_CYCLES = 20;
/** A file with at least this many direct dependents is risky to modify. */
const MANY_DEPENDENTS = 10;
/** File-level edges read from the precise tier for one step of a walk at most. */
const PRECISE_EDGES = 4 * MAX_FILES;

const TEST = new RegExp(TEST_PATH);

interface Edge {
  path: string;
  depth: number;
  via: string | null;
  precision: Precision;
}

/** One step of a walk: `from` depends on `to` (dependencies) or `to` on `from` (dependents), and which tier says so. */
interface Step {
  from: string;
  to: string;
  precision: Precision;
}

/**
 * The file-level tools: the import graph (imports resolved to files at
 * indexing; a Go import names its package directory, which stands for its
 * files), change impact, the check of a proposed change, recent files. Where
 * the precise tier covers both files, its references add edges the imports do
 * not show (a file that references a symbol defined in another depends on it)
 * and label the import edges they confirm (ADR 0059).
 */
export class DependencyService {
  private readonly binder: ReferenceBinder;

  constructor(
    private readonly store: SymbolStore,
    private readonly scopes: Scopes,
    facts: BindingFacts,
    private readonly precise: PreciseAnswers,
  ) {
    this.binder = new ReferenceBinder(store, facts);
  }

  async dependencies(input: SearchDependencies.Request): Promise<SearchDependencies.Response> {
    const { repository, scope } = await this.scopes.one({ repo: input.repository, workspace: input.workspace }, 'search_dependencies');
    const path = await this.indexed(repository.id, repository.name, input.file_path);
    const keep = (p: string) => input.include_tests || !TEST.test(p);
    const graph = new Map<string, Set<string>>();
    const link = (from: string, to: string) => (graph.get(from) ?? graph.set(from, new Set()).get(from)!).add(to);
    let truncated = false;
    const walk = async (step: (frontier: string[]) => Promise<Step[]>) => {
      const edges: Edge[] = [];
      const seen = new Set([path]);
      let frontier = [path];
      for (let depth = 1; depth <= input.depth && frontier.length > 0; depth++) {
        const next: string[] = [];
        for (const { from, to, precision } of await step(frontier)) {
          if (seen.has(to) || !keep(to)) continue;
          if (seen.size >= MAX_FILES) {
            truncated = true;
            break;
          }
          seen.add(to);
          edges.push({ path: to, depth, via: depth === 1 ? null : from, precision });
          next.push(to);
        }
        frontier = next;
      }
      return edges;
    };
    const dependencies =
      input.direction === 'dependents'
        ? []
        : await walk(async (frontier) => {
            const files = await this.expand(repository.id, frontier);
            const out: Step[] = [];
            for (const i of await this.store.importsOf(repository.id, files)) {
              if (i.target === null) continue;
              link(i.path, i.target);
              out.push({ from: i.path, to: i.target, precision: 'search' });
            }
            const precise = await this.precise.edges(repository.id, files, 'dependencies', PRECISE_EDGES);
            for (const e of precise) link(e.path, e.target);
            return labelled(
              out,
              precise.map((e) => ({ from: e.path, to: e.target })),
            );
          });
    const dependents =
      input.direction === 'dependencies'
        ? []
        : await walk(async (frontier) => {
            const out: Step[] = [];
            const files = await this.expand(repository.id, frontier);
            for (const i of await this.store.importersOf(repository.id, [...files, ...packagesOf(files)])) {
              link(i.path, i.target!);
              out.push({ from: i.target!, to: i.path, precision: 'search' });
            }
            const precise = await this.precise.edges(repository.id, files, 'dependents', PRECISE_EDGES);
            for (const e of precise) link(e.path, e.target);
            return labelled(
              out,
              precise.map((e) => ({ from: e.target, to: e.path })),
            );
          });
    return {
      ...(await this.answer(scope)),
      file_path: path,
      dependents,
      dependencies,
      cycles: cyclesThrough(graph, path),
      truncated,
    };
  }

  async impact(input: AnalyzeChangeImpact.Request): Promise<AnalyzeChangeImpact.Response> {
    const { repository, scope } = await this.scopes.one({ repo: input.repository, workspace: input.workspace }, 'analyze_change_impact');
    const files = (input.files ?? []).map(repoPath);
    const known = await this.store.existing(repository.id, files);
    const changed = new Set(files.filter((f) => known.has(f)));
    const depth = new Map<string, number>();
    // A changed symbol: the files that use it are its first dependents.
    for (const name of input.symbols ?? []) {
      const definitions = await this.store.named(name, [repository.id], 20);
      for (const definition of definitions) changed.add(definition.path);
      const { refs } = await this.binder.ofAll(definitions, [repository.id]);
      for (const r of refs) if (!changed.has(r.path) && !depth.has(r.path)) depth.set(r.path, 1);
    }
    // Level by level: the changed files are level 0, the users of a changed symbol level 1; their importers one more.
    // A file that passes what it imports on (`export * from`, a package's index) uses it no more than its importers
    // do: they are at its level, so that a barrel between two packages does not hide the tests behind it.
    // Where the precise tier covers both files, a file that references a symbol defined in one of the level's files is
    // at the next level too (after the importers, so that re-exports keep their level); a dependent the precise tier
    // shows is labelled precise, one only the imports show search.
    let truncated = false;
    const confirmed = new Set<string>();
    for (const c of changed) depth.set(c, 0);
    for (let level = 0; level < IMPACT_DEPTH && !truncated; level++) {
      let frontier = [...depth].filter(([, d]) => d === level).map(([p]) => p);
      const users = (await this.precise.edges(repository.id, frontier, 'dependents', PRECISE_EDGES)).map((e) => e.path);
      while (frontier.length > 0 && !truncated) {
        const through: string[] = [];
        for (const i of await this.store.importersOf(repository.id, [...frontier, ...packagesOf(frontier)])) {
          if (depth.has(i.path)) continue;
          if (depth.size >= MAX_FILES) {
            truncated = true;
            break;
          }
          depth.set(i.path, level + 1);
          if (i.reexport) through.push(i.path);
        }
        frontier = through;
      }
      for (const p of users) {
        if (!depth.has(p)) {
          if (depth.size >= MAX_FILES) {
            truncated = true;
            break;
          }
          depth.set(p, level + 1);
        }
        if (depth.get(p) === level + 1) confirmed.add(p);
      }
    }
    for (const c of changed) depth.delete(c);
    const dependents = [...depth]
      .map(([path, d]) => ({ path, depth: d, precision: confirmed.has(path) ? ('precise' as const) : ('search' as const) }))
      .sort((a, b) => a.depth - b.depth || cmp(a.path, b.path));
    const affectedTests = [...new Set([...changed, ...depth.keys()])].filter((p) => TEST.test(p)).sort(cmp);
    const direct = dependents.filter((d) => d.depth === 1).length;
    const level = dependents.length >= 25 || direct >= MANY_DEPENDENTS ? 'high' : dependents.length >= 5 ? 'medium' : 'low';
    const unknown = files.length - files.filter((f) => known.has(f)).length;
    const summary =
      `${dependents.length} file${dependents.length === 1 ? '' : 's'} depend on the change (${direct} directly, followed ${IMPACT_DEPTH} levels, re-exports not counted); ` +
      `${affectedTests.length} test file${affectedTests.length === 1 ? '' : 's'} likely affected` +
      (unknown > 0 ? `; ${unknown} of the given files ${unknown === 1 ? 'is' : 'are'} not in the index` : '') +
      '.';
    return {
      ...(await this.answer(scope)),
      dependents,
      affected_tests: affectedTests,
      risk: { level, summary, dependents_count: dependents.length },
      truncated,
    };
  }

  /** `Scopes.answer` with the repository's precise tier's commit (these tools answer from it where it covers). */
  private answer(scope: Scope): ReturnType<Scopes['answer']> {
    return this.scopes.answer(scope, new Map(), (ids) => this.precise.tiers(ids));
  }

  async validate(input: ValidateImplementationSpec.Request): Promise<ValidateImplementationSpec.Response> {
    const { repository, scope } = await this.scopes.one(
      { repo: input.repository, workspace: input.workspace },
      'validate_implementation_spec',
    );
    const errors: ValidateImplementationSpec.Response['errors'] = [];
    const warnings: ValidateImplementationSpec.Response['warnings'] = [];
    const create = input.files_to_create.map(repoPath);
    const modify = input.files_to_modify.map(repoPath);
    for (const path of [...create, ...modify]) {
      if (path.startsWith('/') || path.split('/').includes('..')) {
        errors.push({ kind: 'invalid_path', target: path, message: `"${path}" is not a path inside the repository.` });
      }
    }
    const existing = await this.store.existing(repository.id, [...create, ...modify]);
    for (const path of create) {
      if (existing.has(path)) errors.push({ kind: 'file_exists', target: path, message: `${path} already exists: modify it instead.` });
      if (modify.includes(path)) errors.push({ kind: 'conflict', target: path, message: `${path} is both to create and to modify.` });
    }
    for (const path of modify) {
      if (!existing.has(path))
        errors.push({ kind: 'file_missing', target: path, message: `${path} does not exist in ${repository.name}.` });
    }
    for (const name of input.symbols ?? []) {
      const found = await this.store.named(name, [repository.id], 5);
      if (found.length > 0) {
        const where = found.map((d) => `${d.path}:${d.line}`).join(', ');
        errors.push({ kind: 'symbol_exists', target: name, message: `${name} is already defined (${where}).` });
      }
    }
    for (const path of modify.filter((p) => existing.has(p))) {
      const dependents = new Set((await this.store.importersOf(repository.id, [path, ...packagesOf([path])])).map((i) => i.path));
      if (dependents.size >= MANY_DEPENDENTS) {
        warnings.push({
          kind: 'many_dependents',
          target: path,
          message: `${dependents.size} files import ${path}: check them (analyze_change_impact lists them).`,
        });
      }
    }
    for (const path of create.filter((p) => !existing.has(p))) {
      const dir = posix.dirname(path);
      const siblings = (await this.store.filesIn(repository.id, dir === '.' ? '' : `${dir}/`, 200)).map((p) => posix.basename(p));
      if (siblings.length === 0) {
        warnings.push({ kind: 'new_directory', target: path, message: `No indexed file is in ${dir}/ yet: is the directory right?` });
        continue;
      }
      const style = nameStyle(posix.basename(path));
      const styles = siblings.map(nameStyle).filter((s) => s !== 'plain');
      const usual = mostCommon(styles);
      if (style !== 'plain' && usual && style !== usual && styles.filter((s) => s === usual).length > styles.length / 2) {
        warnings.push({
          kind: 'naming_style',
          target: path,
          message: `${posix.basename(path)} is ${style}; most files in ${dir}/ are ${usual}.`,
        });
      }
    }
    return { ...(await this.scopes.answer(scope, new Map())), valid: errors.length === 0, errors, warnings };
  }

  async recent(input: ListRecentFiles.Request): Promise<ListRecentFiles.Response> {
    const scope = await this.scopes.of({ workspace: input.workspace }, true);
    const rows = await this.store.recent(scope.repositories?.map((r) => r.id) ?? null, input.limit);
    const repositories = await this.scopes.repositoriesOf(scope, rows);
    const names = namesOf(repositories);
    return {
      ...(await this.scopes.answer(scope, repositories)),
      files: rows
        .filter((r) => repositories.has(r.repositoryId))
        .map((r) => ({
          repo: names.get(r.repositoryId) ?? r.repositoryId,
          path: r.path,
          language: r.language,
          indexed_at: new Date(r.indexedAt).toISOString(),
        })),
    };
  }

  /** The path as indexed, or not_found. */
  private async indexed(repositoryId: string, repositoryName: string, raw: string): Promise<string> {
    const path = repoPath(raw);
    if (!(await this.store.existing(repositoryId, [path])).has(path)) {
      throw ServiceError.of('not_found', `"${path}" is not in the index of ${repositoryName} (not a file of it, or not indexed yet).`, {
        path,
        repo: repositoryName,
      });
    }
    return path;
  }

  /** Files, with package directories (`dir/`, `./`; `packageScope`) replaced by their files. */
  private async expand(repositoryId: string, nodes: readonly string[]): Promise<string[]> {
    const out: string[] = [];
    for (const node of nodes) {
      // `./` is the root package.
      if (node.endsWith('/'))
        out.push(...(await this.store.filesIn(repositoryId, node === './' ? '' : node, 200)).filter((p) => hasPackageScope(languageOf(p))));
      else out.push(node);
    }
    return out;
  }
}

/** The package keys of the files of `packageScope` languages (Go) among `paths` (their importers import the directory). */
function packagesOf(paths: readonly string[]): string[] {
  return [...new Set(paths.filter((p) => hasPackageScope(languageOf(p))).map(packageKey))];
}

/** Cycles of the import graph that pass through `start` (each as its files in order), found by depth-first search; at most MAX_CYCLES. */
function cyclesThrough(graph: ReadonlyMap<string, ReadonlySet<string>>, start: string): string[][] {
  const cycles: string[][] = [];
  const stack: string[] = [start];
  const onStack = new Set([start]);
  const visit = (node: string, depth: number) => {
    for (const next of graph.get(node) ?? []) {
      if (cycles.length >= MAX_CYCLES) return;
      if (next === start) cycles.push([...stack]);
      else if (!onStack.has(next) && depth < 8) {
        stack.push(next);
        onStack.add(next);
        visit(next, depth + 1);
        onStack.delete(next);
        stack.pop();
      }
    }
  };
  visit(start, 0);
  return cycles;
}

function nameStyle(file: string): 'kebab' | 'snake' | 'camel' | 'pascal' | 'plain' {
  const stem = file.replace(/\..*$/, '');
  if (stem.includes('-')) return 'kebab';
  if (stem.includes('_')) return 'snake';
  if (/^[A-Z][^A-Z]*[a-z]/.test(stem)) return 'pascal';
  if (/^[a-z][a-z0-9]*[A-Z]/.test(stem)) return 'camel';
  return 'plain';
}

function mostCommon<T>(items: readonly T[]): T | undefined {
  const counts = new Map<T, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/**
 * The steps of the import graph, each labelled precise where the precise tier has the same edge, then the precise
 * tier's edges the imports do not show; the precise ones first, so a file reached both ways is reached by its precise
 * edge.
 */
function labelled(imports: readonly Step[], precise: ReadonlyArray<{ from: string; to: string }>): Step[] {
  const key = (e: { from: string; to: string }) => `${e.from}\0${e.to}`;
  const sure = new Set(precise.map(key));
  const out = imports.map((e): Step => (sure.has(key(e)) ? { ...e, precision: 'precise' } : e));
  const seen = new Set(out.map(key));
  out.push(...precise.filter((e) => !seen.has(key(e))).map((e): Step => ({ ...e, precision: 'precise' })));
  return [...out.filter((e) => e.precision === 'precise'), ...out.filter((e) => e.precision === 'search')];
}
