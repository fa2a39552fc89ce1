/**
 * What the `node` import scheme reads of a monorepo's manifests: which directories are workspace packages
 * (npm/yarn `workspaces`, `pnpm-workspace.yaml`), and which files a package's `package.json` sends a bare specifier
 * to (`exports`, else `types`/`main`). Pure functions over manifests already read; the resolver finds the files.
 */

/** The parts of a `package.json` the resolver reads. */
export interface PackageManifest {
  name?: unknown;
  exports?: unknown;
  source?: unknown;
  types?: unknown;
  typings?: unknown;
  module?: unknown;
  main?: unknown;
  workspaces?: unknown;
}

/**
 * The workspace globs of a repository's root: `package.json` `workspaces` (an array, or yarn's `{packages: [...]}`) and
 * `pnpm-workspace.yaml` `packages:` (a YAML list of strings); negated ones (`!dir`) exclude what they match.
 */
export function workspaceGlobs(root: PackageManifest | null, pnpmWorkspace: string | null): { include: string[]; exclude: string[] } {
  const globs: string[] = [];
  const declared = root?.workspaces;
  const list = Array.isArray(declared) ? declared : isRecord(declared) && Array.isArray(declared.packages) ? declared.packages : [];
  for (const g of list) if (typeof g === 'string') globs.push(g);
  if (pnpmWorkspace !== null) {
    let inPackages = false;
    for (const line of pnpmWorkspace.split('\n')) {
      if (/^\S/.test(line)) inPackages = /^packages\s*:/.test(line);
      else if (inPackages) {
        const item = /^\s+-\s*(['"]?)([^'"#]*?)\1\s*(?:#.*)?$/.exec(line);
        if (item?.[2]) globs.push(item[2]);
      }
    }
  }
  const clean = (g: string) => g.replace(/^\.\//, '').replace(/\/+$/, '');
  return {
    include: globs.filter((g) => !g.startsWith('!')).map(clean).filter((g) => g !== ''),
    exclude: globs.filter((g) => g.startsWith('!')).map((g) => clean(g.slice(1))).filter((g) => g !== ''),
  };
}

/** A bare specifier's package name and subpath (`.` or `./sub`): `@scope/pkg/a/b` → [`@scope/pkg`, `./a/b`]. */
export function splitSpecifier(module: string): [string, string] | null {
  const m = /^((?:@[^/@.][^/]*\/)?[^/@.][^/]*)(\/.*)?$/.exec(module);
  return m ? [m[1], m[2] ? `.${m[2]}` : '.'] : null;
}

/** Conditions in the order a reader of sources wants them: the source or its types first, then what runs. */
const CONDITIONS = ['source', 'types', 'import', 'module', 'node', 'require', 'default'];

/**
 * The paths (relative to the package, as written: `./dist/index.js`) a package sends `subpath` to, best first:
 * its `exports` entry for the subpath (exact, else a `*` pattern), each condition's target; without `exports`, the
 * root's `source`/`types`/`typings`/`module`/`main` fields, and a subpath as a path into the package. `exports` that
 * does not name the subpath hides it (Node refuses such an import): nothing.
 */
export function packageTargets(manifest: PackageManifest, subpath: string): string[] {
  const { exports } = manifest;
  if (exports === undefined || exports === null) {
    if (subpath !== '.') return [subpath];
    return [manifest.source, manifest.types, manifest.typings, manifest.module, manifest.main, './index'].filter(
      (t): t is string => typeof t === 'string',
    );
  }
  const subpaths = isRecord(exports) && Object.keys(exports).some((k) => k.startsWith('.'));
  if (!subpaths) return subpath === '.' ? conditionTargets(exports) : [];
  const map = exports;
  if (subpath in map) return conditionTargets(map[subpath]);
  for (const [key, value] of Object.entries(map)) {
    const star = key.indexOf('*');
    if (star < 0) continue;
    const [head, tail] = [key.slice(0, star), key.slice(star + 1)];
    if (subpath.length >= key.length - 1 && subpath.startsWith(head) && subpath.endsWith(tail)) {
      const matched = subpath.slice(head.length, subpath.length - tail.length);
      return conditionTargets(value).map((t) => t.replaceAll('*', matched));
    }
  }
  return [];
}

/** The string targets of an `exports` value (a string, an array of fallbacks, nested conditions), best condition first. */
function conditionTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(conditionTargets);
  if (!isRecord(value)) return [];
  const keys = Object.keys(value).sort((a, b) => rank(a) - rank(b));
  return keys.flatMap((k) => conditionTargets(value[k]));
}

const rank = (condition: string) => {
  const i = CONDITIONS.indexOf(condition);
  return i < 0 ? CONDITIONS.length : i;
};

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
