import { readdirSync, readFileSync, statSync } from 'node:fs';
import { posix } from 'node:path';
import type { ExtractedImport } from '@sextant/parsing';
import { isRecord, packageTargets, splitSpecifier, workspaceGlobs, type PackageManifest } from './node-packages.js';

/**
 * Resolves an import's module string to what it names inside the
 * repository: a file path (TS/JS, Python) or a package directory ending in
 * `/` (Go; `./` for the root), or null when it points outside (a package from a registry, the
 * standard library) or nowhere. One resolver per checkout and job; it
 * looks at the checkout's files, so a file added later resolves when its
 * importers are indexed again. Schemes are named in each language's
 * `language.json` (`resolver`): `node`, `python`, `go`, `java` (a class by
 * its package path under the usual source roots), `c` (`#include "…"`
 * beside the file or under the usual include directories), `ruby`
 * (`require_relative`, then `lib/`), `rust` (`mod name;` and `use` paths
 * within the crate: see `rust`).
 */
export class ImportResolver {
  private readonly kinds = new Map<string, 'file' | 'dir' | null>();
  private readonly configs = new Map<string, TsConfig | null>();
  private readonly nearestConfigs = new Map<string, TsConfig | null>();
  private readonly manifests = new Map<string, PackageManifest | null>();
  private packages: Map<string, string> | undefined;
  private readonly goMods = new Map<string, GoMod | null>();
  private readonly pythonRootsByProject = new Map<string, string[]>();
  private pythonMembers: string[] | undefined;
  private readonly goModulesByDir = new Map<string, Array<[string, string]>>();

  constructor(private readonly root: string) {}

  resolve(scheme: string | null, fromPath: string, module: string): string | null {
    switch (scheme) {
      case 'node':
        return this.node(fromPath, module);
      case 'python':
        return this.python(fromPath, module);
      case 'go':
        return this.go(fromPath, module);
      case 'java':
        return this.java(module);
      case 'c':
        return module.startsWith('<')
          ? null
          : this.firstFile([posix.join(posix.dirname(fromPath), module), ...C_ROOTS.map((root) => `${root}${module}`)]);
      case 'ruby': {
        const file = module.endsWith('.rb') ? module : `${module}.rb`;
        return this.firstFile([posix.join(posix.dirname(fromPath), file), `lib/${file}`, file]);
      }
      case 'rust':
        return this.rust(fromPath, module);
      case null:
      default:
        return null;
    }
  }

  /**
   * An import with its target, and (Python) one more for each name it takes that is a module of its own
   * (`from pkg import mod`, `from . import mod`): `mod` is bound to that file as a namespace, as `import pkg.mod as mod` would.
   */
  resolveAll<T extends ExtractedImport>(scheme: string | null, fromPath: string, imported: T): Array<T & { target: string | null }> {
    const resolved = [{ ...imported, target: this.resolve(scheme, fromPath, imported.module) }];
    if (scheme !== 'python') return resolved;
    for (const b of imported.bindings) {
      if (b.name === '*' || b.name.includes('.')) continue;
      const module = imported.module.endsWith('.') ? `${imported.module}${b.name}` : `${imported.module}.${b.name}`;
      const target = this.python(fromPath, module);
      if (target) resolved.push({ ...imported, module, target, bindings: [{ name: '*', alias: b.alias }] });
    }
    return resolved;
  }

  /**
   * Relative paths, `.js` written for `.ts`, extensions, index files; `tsconfig.json` `paths` and `baseUrl` (the nearest
   * config up, its `extends` followed); then a workspace package by name (see `workspaceImport`).
   */
  private node(fromPath: string, module: string): string | null {
    if (module.startsWith('./') || module.startsWith('../') || module === '.' || module === '..') {
      return this.nodeFile(posix.join(posix.dirname(fromPath), module));
    }
    const config = this.nearestTsConfig(posix.dirname(fromPath));
    for (const [pattern, targets] of config?.paths ?? []) {
      const star = pattern.indexOf('*');
      const matched =
        star < 0
          ? module === pattern
            ? ''
            : undefined
          : module.length >= pattern.length - 1 && module.startsWith(pattern.slice(0, star)) && module.endsWith(pattern.slice(star + 1))
            ? module.slice(star, module.length - (pattern.length - star - 1))
            : undefined;
      if (matched === undefined) continue;
      for (const target of targets) {
        const found = this.nodeFile(posix.join(config!.pathsBase, target.replace('*', matched)));
        if (found) return found;
      }
    }
    return (config?.baseUrl != null ? this.nodeFile(posix.join(config.baseUrl, module)) : null) ?? this.workspaceImport(module);
  }

  /**
   * A bare specifier naming a package of the repository's workspaces (`@org/lib`, `@org/lib/sub`): the source file its
   * `package.json` sends the subpath to (see `packageTargets`), a build's output mapped back to its sources by the
   * package's tsconfig (`outDir` → `rootDir`; see `packageFile`).
   */
  private workspaceImport(module: string): string | null {
    const split = splitSpecifier(module);
    const dir = split && this.workspacePackages().get(split[0]);
    if (!split || dir === undefined || dir === null) return null;
    for (const target of packageTargets(this.manifest(dir) ?? {}, split[1])) {
      const found = this.packageFile(dir, target);
      if (found) return found;
    }
    return null;
  }

  /**
   * Workspace packages by name: the directories the root's workspace globs match (npm/yarn `workspaces`,
   * `pnpm-workspace.yaml`; less what a `!` glob matches) and those the root tsconfig's project `references` name, each with a `package.json` that
   * has a `name` (the first directory wins a name claimed twice).
   */
  private workspacePackages(): Map<string, string> {
    if (this.packages) return this.packages;
    const dirs = new Set<string>();
    const globs = workspaceGlobs(this.manifest('.'), this.read('pnpm-workspace.yaml'));
    for (const glob of globs.include) for (const d of this.expand(glob)) dirs.add(d);
    for (const glob of globs.exclude) for (const d of this.expand(glob)) dirs.delete(d);
    for (const d of this.tsConfig('.')?.references ?? []) dirs.add(d);
    this.packages = new Map();
    for (const dir of [...dirs].sort()) {
      const name = this.manifest(dir)?.name;
      if (typeof name === 'string' && !this.packages.has(name)) this.packages.set(name, dir);
    }
    return this.packages;
  }

  /** The directories a workspace glob matches: literal segments, `*` within a segment, `**` for any depth (up to 4). */
  private expand(glob: string): string[] {
    let dirs = ['.'];
    for (const segment of glob.split('/')) {
      if (segment === '**') {
        const all = new Set(dirs);
        let level = dirs;
        for (let depth = 0; depth < 4 && level.length > 0; depth++) {
          level = level.flatMap((d) => this.subdirectories(d).map((s) => posix.join(d, s)));
          for (const d of level) all.add(d);
        }
        dirs = [...all];
      } else if (segment.includes('*')) {
        const pattern = new RegExp(`^${segment.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*')}$`);
        dirs = dirs.flatMap((d) => this.subdirectories(d).filter((s) => pattern.test(s)).map((s) => posix.join(d, s)));
      } else if (segment !== '.') {
        dirs = dirs.map((d) => posix.join(d, segment)).filter((d) => this.kind(d) === 'dir');
      }
    }
    return dirs.filter((d) => !d.startsWith('..'));
  }

  /**
   * A package's target (`./dist/index.d.ts`) as a file of the repository: a build's output is not in it, so a target
   * under the package tsconfig's `outDir` is looked for under its `rootDir` first (else `src/`), a declaration file
   * by its source's name; then the target as written.
   */
  private packageFile(dir: string, target: string): string | null {
    const path = posix.join(dir, target);
    if (dir !== '.' && !path.startsWith(`${dir}/`)) return null;
    const stem = path.replace(/\.d\.([mc]?)ts$/, '.$1js');
    const config = this.tsConfig(dir);
    const out = config?.outDir ?? null;
    const sources = config?.rootDir ?? posix.join(dir, 'src');
    const candidates = out !== null && stem.startsWith(`${out}/`) ? [`${sources}${stem.slice(out.length)}`] : [];
    // Without a tsconfig that says so, the usual output folders stand for `src/`.
    const built = /^(dist|lib|build|out)\//.exec(dir === '.' ? stem : stem.slice(dir.length + 1));
    if (out === null && built) candidates.push(posix.join(dir, 'src', (dir === '.' ? stem : stem.slice(dir.length + 1)).slice(built[0].length)));
    candidates.push(stem);
    for (const candidate of candidates) {
      const found = this.nodeFile(candidate);
      if (found) return found;
    }
    return null;
  }

  private manifest(dir: string): PackageManifest | null {
    let manifest = this.manifests.get(dir);
    if (manifest === undefined) {
      manifest = null;
      const text = this.read(posix.join(dir, 'package.json'));
      try {
        const parsed: unknown = text === null ? null : JSON.parse(text);
        if (isRecord(parsed)) manifest = parsed;
      } catch {
        // Not JSON: no package here.
      }
      this.manifests.set(dir, manifest);
    }
    return manifest;
  }

  private nodeFile(base: string): string | null {
    if (base.startsWith('..')) return null;
    const stem = base.replace(/\.(m|c)?jsx?$/, '');
    const candidates = [
      base,
      ...(stem !== base ? [`${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, `${stem}.cts`] : []),
      ...NODE_EXTENSIONS.map((ext) => `${base}${ext}`),
      ...NODE_EXTENSIONS.map((ext) => `${base}/index${ext}`),
    ];
    return candidates.find((c) => this.kind(c) === 'file') ?? null;
  }

  /**
   * Relative (`.models`, `..pkg.mod`) from the importing file's package; absolute from the source roots (see
   * `pythonRoots`). A namespace package (a directory without `__init__.py`) needs nothing more: its modules are files.
   */
  private python(fromPath: string, module: string): string | null {
    const dots = /^\.*/.exec(module)![0].length;
    const rest = module.slice(dots).replaceAll('.', '/');
    let bases: string[];
    if (dots > 0) {
      let dir = posix.dirname(fromPath);
      for (let i = 1; i < dots; i++) {
        // Above the root: not in the repository.
        if (dir === '.') return null;
        dir = posix.dirname(dir);
      }
      bases = [dir];
    } else {
      bases = this.pythonRoots(posix.dirname(fromPath));
    }
    for (const base of bases) {
      const path = posix.join(base, rest);
      if (path.startsWith('..')) continue;
      for (const candidate of rest ? [`${path}.py`, `${path}/__init__.py`] : [`${path}/__init__.py`]) {
        if (this.kind(candidate) === 'file') return candidate;
      }
    }
    return null;
  }

  /**
   * Where absolute Python imports start, first to last: the project of the importing file (the nearest directory up
   * with a `pyproject.toml`, `setup.py` or `setup.cfg`) and its `src/`, the root and its `src/`, and the members of a
   * uv workspace the root's `pyproject.toml` declares (`[tool.uv.workspace] members`), each and its `src/`.
   */
  private pythonRoots(dir: string): string[] {
    let project = dir;
    while (project !== '.' && !PYTHON_PROJECT_FILES.some((f) => this.kind(`${project}/${f}`) === 'file')) project = posix.dirname(project);
    const cached = this.pythonRootsByProject.get(project);
    if (cached) return cached;
    if (this.pythonMembers === undefined) {
      const members = uvWorkspaceMembers(this.read('pyproject.toml'));
      this.pythonMembers = [...new Set(members.flatMap((glob) => this.expand(glob)))].sort();
    }
    const roots = [...new Set([project, '.', ...this.pythonMembers].flatMap((d) => [d, posix.join(d, 'src')]))];
    this.pythonRootsByProject.set(project, roots);
    return roots;
  }

  /**
   * Rust's module tree (2018 layout), within the crate of `fromPath`: the nearest directory up with a `Cargo.toml` (else
   * the root), its modules under `src/` from `lib.rs` (else `main.rs`); a file of `src/bin/`, `tests/`, `examples/` or
   * `benches/` (`<name>.rs`, `<name>/main.rs`) is a crate root of its own. `module` is what the Rust query captures:
   * - a `mod name;` declaration, as written (`pub mod name;`): `name.rs` or `name/mod.rs` among the declaring module's
   *   children — beside a crate root or a `mod.rs`, under `a/` for `a.rs`;
   * - a `use` path (`crate::a::b::C`, `self::x`, `super::super::x`, or a group's `crate::a::b`): the file of the deepest
   *   module along it — `src/a/b.rs` or `src/a/b/mod.rs`, else `src/a.rs` (`b` is an item of `a`), else the crate
   *   root. A path from a child module of the file's module (`mod a; use a::B;`) is relative to it; any other
   *   (`std::…`, `::x`, another crate's) is outside. A path into the importing file itself resolves to nothing.
   */
  private rust(fromPath: string, module: string): string | null {
    const root = this.rustRoot(fromPath);
    const own: RustModule = { file: fromPath, dir: this.rustDir(fromPath, root) };
    const declared = /(?:^|[\s)])mod\s+(?:r#)?(\w+)\s*;$/.exec(module.trim());
    if (declared) return this.rustChild(own.dir, declared[1])?.file ?? null;
    const segments = module
      .replace(/\s+/g, '')
      .split('::')
      .map((s) => s.replace(/^r#/, ''));
    let at: RustModule | null = own;
    let i = 0;
    if (segments[0] === 'crate') {
      at = root;
      i = 1;
    } else if (segments[0] === 'self' || segments[0] === 'super') {
      if (segments[0] === 'self') i = 1;
      for (; segments[i] === 'super' && at; i++) at = this.rustParent(at, root);
    } else if (!this.rustChild(own.dir, segments[0])) {
      return null;
    }
    if (!at) return null;
    for (; i < segments.length; i++) {
      const child = this.rustChild(at.dir, segments[i]);
      if (!child) break;
      at = child;
    }
    return at.file === fromPath ? null : at.file;
  }

  /** The crate root module of `fromPath` (see `rust`), or null when it is in no crate's sources. */
  private rustRoot(fromPath: string): RustModule | null {
    let crate = posix.dirname(fromPath);
    while (crate !== '.' && this.kind(`${crate}/Cargo.toml`) !== 'file') crate = posix.dirname(crate);
    const parts = (crate === '.' ? fromPath : fromPath.slice(crate.length + 1)).split('/');
    const depth = parts[0] === 'src' && parts[1] === 'bin' ? 2 : RUST_TARGET_DIRS.includes(parts[0]) ? 1 : 0;
    if (depth > 0 && parts.length > depth) {
      const dir = posix.join(crate, ...parts.slice(0, depth));
      if (parts.length === depth + 1) return { file: fromPath, dir };
      const main = posix.join(dir, parts[depth], 'main.rs');
      return this.kind(main) === 'file' ? { file: main, dir: posix.dirname(main) } : null;
    }
    if (parts.length === 1 && parts[0] === 'build.rs') return { file: fromPath, dir: crate };
    if (parts[0] !== 'src') return null;
    const src = posix.join(crate, 'src');
    const candidates = [`${src}/lib.rs`, `${src}/main.rs`];
    const file = candidates.includes(fromPath) ? fromPath : candidates.find((c) => this.kind(c) === 'file');
    return file ? { file, dir: src } : null;
  }

  /** Where the files of the modules `file` declares are: its own directory for a crate root or `mod.rs`, else `a/` for `a.rs`. */
  private rustDir(file: string, root: RustModule | null): string {
    return file === root?.file || RUST_DIR_OWNERS.has(posix.basename(file)) ? posix.dirname(file) : file.replace(/\.rs$/, '');
  }

  /** The module `name` declared by the module whose children are in `dir`: `name.rs` or `name/mod.rs`. */
  private rustChild(dir: string, name: string): RustModule | null {
    const file = this.firstFile([posix.join(dir, `${name}.rs`), posix.join(dir, name, 'mod.rs')]);
    return file ? { file, dir: posix.join(dir, name) } : null;
  }

  /** `super` of a module: the module whose children are in its directory's parent (none above a crate root). */
  private rustParent(module: RustModule, root: RustModule | null): RustModule | null {
    if (module.file === root?.file || posix.basename(module.file) === 'lib.rs' || posix.basename(module.file) === 'main.rs') return null;
    const dir = posix.dirname(module.dir);
    if (root && dir === root.dir) return root;
    if (dir === '.') return null;
    const file = this.firstFile([`${dir}/mod.rs`, `${dir}.rs`]);
    return file ? { file, dir } : null;
  }

  /**
   * A class by its package path under the usual source roots; a static import (`a.b.Util.round`) or a nested class
   * (`a.b.Outer.Inner`) by the file of its class (a capitalised segment, the innermost first).
   */
  private java(module: string): string | null {
    const segments = module.split('.');
    for (let n = segments.length; n > 0; n--) {
      if (n < segments.length && !/^[A-Z]/.test(segments[n - 1])) continue;
      const path = segments.slice(0, n).join('/');
      const found = this.firstFile(JAVA_ROOTS.map((root) => `${root}${path}.java`));
      if (found) return found;
    }
    return null;
  }

  /** The first of `candidates` (paths in the repository) that is a file. */
  private firstFile(candidates: readonly string[]): string | null {
    for (const candidate of candidates) {
      const path = posix.normalize(candidate);
      if (!path.startsWith('..') && this.kind(path) === 'file') return path;
    }
    return null;
  }

  /**
   * A package of a module in the repository: its directory. The modules are the one whose `go.mod` is nearest up from
   * the importing file, the root's, those `go.work` uses, and the local directories their `replace` directives name;
   * a module at `a/b` whose path ends in `/a/b` tells where the repository's other paths are (`…/c` at `c/`: a
   * repository of several modules without a `go.work`). The longest module path that prefixes the import wins.
   */
  private go(fromPath: string, module: string): string | null {
    for (const [path, dir] of this.goModules(posix.dirname(fromPath))) {
      if (path === 'std') {
        // The standard library's own go.mod: an import path is its directory.
        if (this.kind(posix.join(dir, module)) === 'dir') return `${posix.join(dir, module)}/`;
        continue;
      }
      if (module !== path && !module.startsWith(`${path}/`)) continue;
      const found = posix.join(dir, module.slice(path.length + 1));
      if (found === '.') return './';
      if (this.kind(found) === 'dir') return `${found}/`;
    }
    return null;
  }

  /** The modules an import from a file of `dir` may name, as [module path, directory], the longest path first. */
  private goModules(dir: string): Array<[string, string]> {
    let nearest = dir;
    while (nearest !== '.' && this.kind(`${nearest}/go.mod`) !== 'file') nearest = posix.dirname(nearest);
    const key = nearest;
    let modules = this.goModulesByDir.get(key);
    if (modules) return modules;
    const found = new Map<string, string>();
    const add = (moduleDir: string) => {
      const mod = this.goMod(moduleDir);
      if (!mod) return;
      if (!found.has(mod.path)) found.set(mod.path, moduleDir);
      for (const [path, target] of mod.replaces) if (!found.has(path) && this.goMod(target)) found.set(path, target);
    };
    add(nearest);
    add('.');
    for (const used of goWorkUses(this.read('go.work'))) add(used);
    // Where the repository's root is among import paths, from any module at a directory its path ends with.
    for (const [path, moduleDir] of [...found]) {
      if (moduleDir !== '.' && path.endsWith(`/${moduleDir}`) && !found.has(path.slice(0, -moduleDir.length - 1))) {
        found.set(path.slice(0, -moduleDir.length - 1), '.');
      }
    }
    modules = [...found].sort((a, b) => b[0].length - a[0].length);
    this.goModulesByDir.set(key, modules);
    return modules;
  }

  /** `dir/go.mod`: its module path and its `replace` directives to local directories (as paths in the repository). */
  private goMod(dir: string): GoMod | null {
    const cached = this.goMods.get(dir);
    if (cached !== undefined) return cached;
    const text = this.read(posix.join(dir, 'go.mod'));
    const path = text && /^module\s+"?([^\s"]+)"?/m.exec(text)?.[1];
    const mod: GoMod | null = path ? { path, replaces: goReplaces(text, dir) } : null;
    this.goMods.set(dir, mod);
    return mod;
  }

  /** The nearest `tsconfig.json` up from `dir`. */
  private nearestTsConfig(dir: string): TsConfig | null {
    let found = this.nearestConfigs.get(dir);
    if (found === undefined) {
      found = this.tsConfig(dir) ?? (dir !== '.' && dir !== '' ? this.nearestTsConfig(posix.dirname(dir)) : null);
      this.nearestConfigs.set(dir, found);
    }
    return found;
  }

  /** `dir`'s `tsconfig.json` (or the config file `path` names), its relative `extends` followed (up to 8 deep): what the resolver reads of it. */
  private tsConfig(dir: string, path = posix.join(dir, 'tsconfig.json'), depth = 0): TsConfig | null {
    const key = posix.normalize(path);
    const cached = this.configs.get(key);
    if (cached !== undefined) return cached;
    let config: TsConfig | null = null;
    const text = this.read(key);
    if (text !== null) {
      try {
        const json = JSON.parse(stripJsonComments(text)) as unknown;
        const own = isRecord(json) ? json : {};
        const at = posix.dirname(key);
        const base =
          typeof own.extends === 'string' && own.extends.startsWith('.') && depth < 8
            ? this.tsConfig(at, own.extends.endsWith('.json') ? posix.join(at, own.extends) : `${posix.join(at, own.extends)}.json`, depth + 1)
            : null;
        const options = isRecord(own.compilerOptions) ? own.compilerOptions : {};
        const relative = (name: string) => (typeof options[name] === 'string' ? posix.join(at, options[name]) : undefined);
        const baseUrl = relative('baseUrl');
        const paths = isRecord(options.paths)
          ? Object.entries(options.paths).filter((e): e is [string, string[]] => Array.isArray(e[1]))
          : undefined;
        config = {
          baseUrl: baseUrl ?? base?.baseUrl ?? null,
          paths: paths ?? base?.paths ?? [],
          // `paths` are relative to `baseUrl` when it is set, else to the config that declares them.
          pathsBase: paths ? (baseUrl ?? base?.baseUrl ?? at) : (base?.pathsBase ?? at),
          outDir: relative('outDir') ?? base?.outDir ?? null,
          rootDir: relative('rootDir') ?? base?.rootDir ?? null,
          references: (Array.isArray(own.references) ? own.references : [])
            .map((r) => (isRecord(r) && typeof r.path === 'string' ? posix.join(at, r.path) : null))
            .filter((r): r is string => r !== null)
            .map((r) => (r.endsWith('.json') ? posix.dirname(r) : r)),
        };
      } catch {
        config = null;
      }
    }
    this.configs.set(key, config);
    return config;
  }

  /** The names of the directories in `dir` (dependencies' and hidden ones left out). */
  private subdirectories(dir: string): string[] {
    try {
      return readdirSync(posix.join(this.root, dir), { withFileTypes: true })
        .filter((e) => e.isDirectory() && e.name !== 'node_modules' && !e.name.startsWith('.'))
        .map((e) => e.name);
    } catch {
      return [];
    }
  }

  private kind(path: string): 'file' | 'dir' | null {
    const normal = posix.normalize(path);
    let kind = this.kinds.get(normal);
    if (kind === undefined) {
      try {
        const stat = statSync(posix.join(this.root, normal), { throwIfNoEntry: false });
        kind = stat?.isFile() ? 'file' : stat?.isDirectory() ? 'dir' : null;
      } catch {
        kind = null;
      }
      this.kinds.set(normal, kind);
    }
    return kind;
  }

  private read(path: string): string | null {
    if (this.kind(path) !== 'file') return null;
    try {
      return readFileSync(posix.join(this.root, path), 'utf8');
    } catch {
      return null;
    }
  }
}

/** What makes a directory a Python project's root (the precise tier's scip-python reads them too). */
export const PYTHON_PROJECT_FILES = ['pyproject.toml', 'setup.py', 'setup.cfg'];

/** The member globs of a uv workspace in a `pyproject.toml` (`[tool.uv.workspace]`, `members = [...]`, one line or several). */
function uvWorkspaceMembers(text: string | null): string[] {
  const section = text && /^\[tool\.uv\.workspace\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(text)?.[1];
  const list = section && /^members\s*=\s*\[([^\]]*)\]/m.exec(section)?.[1];
  if (!list) return [];
  return [...list.matchAll(/["']([^"']+)["']/g)].map((m) => m[1].replace(/^\.\//, '').replace(/\/+$/, '')).filter((g) => g && !g.startsWith('..'));
}

/** What the resolver reads of a `go.mod`. */
interface GoMod {
  path: string;
  /** Module path → the repository directory a `replace … => ./dir` sends it to. */
  replaces: Array<[string, string]>;
}

/** The directories a `go.work` uses (`use ./a` or a `use ( … )` block), as paths in the repository. */
function goWorkUses(text: string | null): string[] {
  if (text === null) return [];
  const uses: string[] = [];
  for (const [, block, single] of text.matchAll(/^use\s*(?:\(([^)]*)\)|(\S+))/gm)) {
    for (const entry of (block ?? single ?? '').split('\n')) {
      const dir = entry.replace(/\/\/.*$/, '').trim().replace(/^"|"$/g, '');
      if (dir && !posix.isAbsolute(dir)) uses.push(posix.normalize(dir));
    }
  }
  return uses.filter((d) => !d.startsWith('..'));
}

/** A `go.mod`'s `replace` directives to local directories (`=> ./x`, `=> ../x`), relative to the repository. */
function goReplaces(text: string, dir: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [, path, target] of text.matchAll(/^(?:replace\s+|\s+)(\S+)(?:\s+v\S+)?\s+=>\s+(\.\.?\/\S*)\s*$/gm)) {
    const local = posix.join(dir, target);
    if (!local.startsWith('..')) out.push([path, local]);
  }
  return out;
}

/** A Rust module: its file, and the directory of the files of the modules it declares. */
interface RustModule {
  file: string;
  dir: string;
}

/** Rust files whose `mod name;` are beside them; directories whose `.rs` files (or `<name>/main.rs`) are crate roots. */
const RUST_DIR_OWNERS = new Set(['mod.rs', 'lib.rs', 'main.rs']);
const RUST_TARGET_DIRS = ['tests', 'examples', 'benches'];

/** What the resolver reads of a `tsconfig.json`, its paths relative to the repository. */
interface TsConfig {
  baseUrl: string | null;
  paths: Array<[string, string[]]>;
  pathsBase: string;
  outDir: string | null;
  rootDir: string | null;
  /** The directories of its project `references`. */
  references: string[];
}

/** Where Java sources start (a package path is appended), C/C++ include directories (besides the including file's). */
const JAVA_ROOTS = ['', 'src/', 'src/main/java/', 'src/test/java/'];
const C_ROOTS = ['', 'include/', 'src/'];

const NODE_EXTENSIONS = ['.ts', '.tsx', '.d.ts', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts'];

/** `tsconfig.json` is JSON with comments and trailing commas. */
function stripJsonComments(text: string): string {
  return text
    .replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_, string: string | undefined) => string ?? '')
    .replace(/,(\s*[}\]])/g, '$1');
}
