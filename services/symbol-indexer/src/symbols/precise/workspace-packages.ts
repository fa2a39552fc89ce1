import { readdir, readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { isRecord, packageTargets, workspaceGlobs, type PackageManifest } from '../binding/node-packages.js';

/**
 * The packages of a monorepo's workspaces (npm and Yarn `workspaces` in the root package.json, pnpm's
 * `pnpm-workspace.yaml`), as TypeScript `paths`: each package's name mapped to its sources. A bare checkout has no
 * `node_modules`, so without them an import of a sibling package (`import { ServiceError } from '@sextant/work'`)
 * resolves to nothing and the compiler sees none of its uses: the precise tier saw 3 of the 35 files that import
 * `ServiceError` in this repository.
 *
 * The manifests are read as the search tier's import resolver reads them (`workspaceGlobs`, `packageTargets`). A
 * package's entry is where its `exports["."]`, `types` or `main` say, with a build directory read as `src` (the
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
    // The package's own entry, as its manifest names it (`exports` "." first, else `types`/`main`…; see packageTargets).
    const named = packageTargets(manifest, '.').filter((t) => t !== './index');
    const entries = [...new Set([...named.flatMap(sourcesOf), 'src/index', 'index'])];
    paths[name] = entries.map(at);
    paths[`${name}/*`] = [at('src/*'), at('*')];
  }
  return paths;
}

/** Most package directories read; a workspace glob matching more is cut there. */
const MAX_PACKAGES = 2_000;
/** How deep a `**` in a workspace glob looks (as the search tier's resolver). */
const MAX_GLOB_DEPTH = 4;
const SKIPPED = new Set(['node_modules', '.git']);

/** The directories (relative, `/`-separated) the root's workspace globs name (less `!` ones) that hold a package.json. */
async function packageDirectories(root: string): Promise<string[]> {
  const globs = workspaceGlobs(
    (await readJson(join(root, 'package.json'))) ?? null,
    await readFile(join(root, 'pnpm-workspace.yaml'), 'utf8').catch(() => null),
  );
  const expandAll = async (list: string[]) => {
    const out = new Set<string>();
    for (const glob of list) for (const dir of await expand(root, posix.normalize(glob).split('/').filter(Boolean), '', 0)) out.add(dir);
    return out;
  };
  const excluded = await expandAll(globs.exclude);
  const found: string[] = [];
  for (const dir of await expandAll(globs.include)) {
    if (found.length >= MAX_PACKAGES) break;
    if (!excluded.has(dir) && (await readJson(join(root, dir, 'package.json')))) found.push(dir);
  }
  return found.sort();
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
  const pattern = new RegExp(`^${head.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
  for (const child of children) if (pattern.test(posix.basename(child))) out.push(...(await expand(root, rest, child, depth)));
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

async function readJson(file: string): Promise<PackageManifest | undefined> {
  try {
    const value: unknown = JSON.parse(await readFile(file, 'utf8'));
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
