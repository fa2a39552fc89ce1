import { readFileSync, statSync } from 'node:fs';
import { posix } from 'node:path';

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
 * (`require_relative`, then `lib/`).
 */
export class ImportResolver {
  private readonly kinds = new Map<string, 'file' | 'dir' | null>();
  private readonly configs = new Map<string, TsPaths | null>();
  private goModule: string | null | undefined;

  constructor(private readonly root: string) {}

  resolve(scheme: string | null, fromPath: string, module: string): string | null {
    switch (scheme) {
      case 'node':
        return this.node(fromPath, module);
      case 'python':
        return this.python(fromPath, module);
      case 'go':
        return this.go(module);
      case 'java':
        return this.firstFile(JAVA_ROOTS.map((root) => `${root}${module.replaceAll('.', '/')}.java`));
      case 'c':
        return module.startsWith('<')
          ? null
          : this.firstFile([posix.join(posix.dirname(fromPath), module), ...C_ROOTS.map((root) => `${root}${module}`)]);
      case 'ruby': {
        const file = module.endsWith('.rb') ? module : `${module}.rb`;
        return this.firstFile([posix.join(posix.dirname(fromPath), file), `lib/${file}`, file]);
      }
      default:
        return null;
    }
  }

  /** Relative paths, `.js` written for `.ts`, extensions, index files, and `tsconfig.json` `baseUrl`/`paths`. */
  private node(fromPath: string, module: string): string | null {
    if (module.startsWith('./') || module.startsWith('../') || module === '.' || module === '..') {
      return this.nodeFile(posix.join(posix.dirname(fromPath), module));
    }
    const config = this.tsPaths(posix.dirname(fromPath));
    if (!config) return null;
    for (const [pattern, targets] of config.paths) {
      const star = pattern.indexOf('*');
      const matched =
        star < 0
          ? module === pattern
            ? ''
            : undefined
          : module.startsWith(pattern.slice(0, star)) && module.endsWith(pattern.slice(star + 1))
            ? module.slice(star, module.length - (pattern.length - star - 1))
            : undefined;
      if (matched === undefined) continue;
      for (const target of targets) {
        const found = this.nodeFile(posix.join(config.baseDir, target.replace('*', matched)));
        if (found) return found;
      }
    }
    return config.baseUrl !== null ? this.nodeFile(posix.join(config.baseUrl, module)) : null;
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

  /** Relative (`.models`, `..pkg.mod`) from the importing file's package; absolute from the root or `src/`. */
  private python(fromPath: string, module: string): string | null {
    const dots = /^\.*/.exec(module)![0].length;
    const rest = module.slice(dots).replaceAll('.', '/');
    let bases: string[];
    if (dots > 0) {
      let dir = posix.dirname(fromPath);
      for (let i = 1; i < dots; i++) dir = posix.dirname(dir);
      bases = [dir];
    } else {
      bases = ['.', 'src'];
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

  /** The first of `candidates` (paths in the repository) that is a file. */
  private firstFile(candidates: readonly string[]): string | null {
    for (const candidate of candidates) {
      const path = posix.normalize(candidate);
      if (!path.startsWith('..') && this.kind(path) === 'file') return path;
    }
    return null;
  }

  /** A package under the module `go.mod` at the root declares: its directory. */
  private go(module: string): string | null {
    if (this.goModule === undefined) {
      const text = this.read('go.mod');
      const name = text && /^module\s+(\S+)/m.exec(text)?.[1];
      this.goModule = name || null;
    }
    if (!this.goModule) return null;
    // The standard library's own go.mod (`module std`): an import path is its directory.
    if (this.goModule === 'std') return this.kind(module) === 'dir' ? `${module}/` : null;
    const prefix = this.goModule;
    if (module !== prefix && !module.startsWith(`${prefix}/`)) return null;
    const dir = module.slice(prefix.length + 1);
    if (dir === '') return './';
    return this.kind(dir) === 'dir' ? `${dir}/` : null;
  }

  /** The `compilerOptions` of the nearest `tsconfig.json` up from `dir` (its `extends` is not followed). */
  private tsPaths(dir: string): TsPaths | null {
    const cached = this.configs.get(dir);
    if (cached !== undefined) return cached;
    let found: TsPaths | null = null;
    const text = this.read(posix.join(dir, 'tsconfig.json'));
    if (text !== null) {
      try {
        const options = (
          JSON.parse(stripJsonComments(text)) as { compilerOptions?: { baseUrl?: string; paths?: Record<string, string[]> } }
        ).compilerOptions;
        const baseDir = posix.join(dir, options?.baseUrl ?? '.');
        found = {
          baseUrl: options?.baseUrl !== undefined ? baseDir : null,
          baseDir,
          paths: Object.entries(options?.paths ?? {}).filter((e): e is [string, string[]] => Array.isArray(e[1])),
        };
      } catch {
        found = null;
      }
    } else if (dir !== '.' && dir !== '') {
      found = this.tsPaths(posix.dirname(dir));
    }
    this.configs.set(dir, found);
    return found;
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

interface TsPaths {
  baseUrl: string | null;
  baseDir: string;
  paths: Array<[string, string[]]>;
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
