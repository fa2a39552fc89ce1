import { readdir, readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';

/**
 * The packages of a monorepo's workspaces (npm and Yarn `workspaces` in the root package.json, pnpm's
 * `pnpm-workspace.yaml`), as TypeScript `paths`: each package's name mapped to its sources. A bare checkout has no
 * `node_modules`, so without them an import of a sibling package (`import { ServiceError } from '@sextant/work'`)
 * resolves to nothing and the compiler sees none of its uses: the precise tier saw 3 of the 35 files that import
 * `ServiceError` in this repository.
 *
 * A package's entry is where its `types`, `main` or `exports["."]` say, with a build directory read as `src` (the
 * checkout has sources, not builds) and without an extension (the compiler tries `.ts`, `.tsx`, `.d.ts`, `.js`), then
 * `src/index` and `index`; a subpath import (`@scope/pkg/x`) is looked for under `src/` and then the package's root.
 */
export async function workspacePaths(root: string): Promise<Record<string, string[]>> {
  const paths: Record<string, string[]> = {};
  for (const dir of await packageDirectories(root)) {
    const manifest = await readJson(join(root, dir, 'package.json'));
    const name = typeof manifest?.name === 'string' ? manifest.name : undefined;
    if (!manifest || !name || name in paths) continue;
    const at = (p: string) => join(root, dir, p);
    const entries = [...new Set([...declaredEntries(manifest).flatMap(sourcesOf), 'src/index', 'index'])];
    paths[name] = entries.map(at);
    paths[`${name}/*`] = [at('src/*'), at('*')];
  }
  return paths;
}

/** Most package directories read; a workspace glob matching more is cut there. */
const MAX_PACKAGES = 2_000;
/** How deep a `**` in a workspace glob looks. */
const MAX_GLOB_DEPTH = 4;
const SKIPPED = new Set(['node_modules', '.git']);

/** The directories (relative, `/`-separated) the root's workspace globs name that hold a package.json. */
async function packageDirectories(root: string): Promise<string[]> {
  const manifest = await readJson(join(root, 'package.json'));
  const declared = manifest?.workspaces;
  // npm: an array; Yarn also `{ packages: [...] }`.
  const listed: unknown = Array.isArray(declared) ? declared : (declared as { packages?: unknown } | undefined)?.packages;
  const globs = [
    ...(Array.isArray(listed) ? (listed as unknown[]) : []),
    ...pnpmPackages(await readFile(join(root, 'pnpm-workspace.yaml'), 'utf8').catch(() => '')),
  ].filter((g): g is string => typeof g === 'string' && !g.startsWith('!'));
  const found = new Set<string>();
  for (const glob of globs) {
    for (const dir of await expand(root, posix.normalize(glob.replace(/^\.\//, '')).split('/').filter(Boolean), '', 0)) {
      if (found.size >= MAX_PACKAGES) break;
      if (await readJson(join(root, dir, 'package.json'))) found.add(dir);
    }
  }
  return [...found].sort();
}

/** The directories matching a glob's segments under `base` (only `*` and `**` are special; `..` leaves nothing). */
async function expand(root: string, segments: string[], base: string, depth: number): Promise<string[]> {
  if (segments.length === 0) return base ? [base] : [];
  const [head, ...rest] = segments;
  if (head === '..') return [];
  if (!head.includes('*')) return expand(root, rest, posix.join(base, head), depth);
  const children = (await readdir(join(root, base), { withFileTypes: true }).catch(() => []))
    .filter((e) => e.isDirectory() && !SKIPPED.has(e.name) && !e.name.startsWith('.'))
    .map((e) => posix.join(base, e.name));
  const out: string[] = [];
  if (head === '**') {
    out.push(...(await expand(root, rest, base, depth)));
    if (depth < MAX_GLOB_DEPTH) for (const child of children) out.push(...(await expand(root, segments, child, depth + 1)));
    return out;
  }
  const pattern = new RegExp(`^${head.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
  for (const child of children) if (pattern.test(posix.basename(child))) out.push(...(await expand(root, rest, child, depth)));
  return out;
}

/** The `packages:` list of a pnpm-workspace.yaml (its items, quoted or not; the rest of the file is not read). */
function pnpmPackages(yaml: string): string[] {
  const out: string[] = [];
  let inPackages = false;
  for (const line of yaml.split('\n')) {
    if (/^packages:\s*$/.test(line)) inPackages = true;
    else if (/^\S/.test(line)) inPackages = false;
    else if (inPackages) {
      const item = /^\s+-\s+['"]?([^'"#]+?)['"]?\s*(#.*)?$/.exec(line);
      if (item) out.push(item[1]);
    }
  }
  return out;
}

/** The entry files a package.json names, in the order a compiler reads them. */
function declaredEntries(manifest: Record<string, unknown>): string[] {
  const out: string[] = [];
  const add = (value: unknown) => {
    if (typeof value === 'string') out.push(value);
    else if (value && typeof value === 'object') for (const key of ['types', 'import', 'require', 'default']) add((value as Record<string, unknown>)[key]);
  };
  add(manifest.types);
  add(manifest.typings);
  const exports = manifest.exports;
  add(typeof exports === 'object' && exports !== null && '.' in exports ? (exports as Record<string, unknown>)['.'] : exports);
  add(manifest.main);
  return out;
}

/**
 * `./dist/index.d.ts` → `src/index`, then `dist/index`: a build directory read as the sources first, the extension left
 * to the compiler. An entry outside the package names nothing.
 */
function sourcesOf(entry: string): string[] {
  const bare = posix.normalize(entry.replace(/^\.\//, '')).replace(/(\.d)?\.(ts|tsx|mts|cts|js|mjs|cjs|jsx)$/, '');
  if (bare.startsWith('..') || posix.isAbsolute(bare)) return [];
  return [bare.replace(/^(dist|build|lib|out)\//, 'src/'), bare];
}

async function readJson(file: string): Promise<Record<string, unknown> | undefined> {
  try {
    const value: unknown = JSON.parse(await readFile(file, 'utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
