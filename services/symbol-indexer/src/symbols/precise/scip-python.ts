import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { VENDORED_DIRECTORIES } from '@sextant/checkouts';
import { PYTHON_PROJECT_FILES } from '../binding/import-resolver.js';
import type { ScipIndexer } from './scip-indexer.js';

/** The indexer's entry point, from the installed package (a dependency of this service). */
const MAIN = join(dirname(createRequire(import.meta.url).resolve('@sourcegraph/scip-python/package.json')), 'index.js');

/** Files that configure pyright: the generated one takes their place. */
const PYRIGHT_CONFIGS = new Set(['pyrightconfig.json', 'scip-pyrightconfig.json']);

/** How deep under the root a project (a workspace member) is looked for. */
const PROJECT_DEPTH = 2;

/**
 * `@sourcegraph/scip-python` (pyright). Pyright reads its configuration from the root it indexes, and a
 * `pyproject.toml`'s `[tool.pyright]` may narrow what it indexes (or fail to parse): the root it is given is a
 * directory of links to the checkout's top-level entries beside a generated `pyrightconfig.json` (which pyright
 * prefers to `pyproject.toml`), so nothing is written into the checkout and the documents' paths are the checkout's.
 * The configuration includes every Python file outside vendored and hidden directories and adds each project's
 * `src/` to the import roots (pyright does not, and recall on a src layout fell to 0.65 without). The environment
 * given is empty: the indexer does not ask this machine's pip what is installed (it is not the repository's), and
 * `--project-version` is given because the root is not a git checkout.
 */
export function scipPython(projectName: string, version: string): ScipIndexer {
  return {
    name: 'scip-python',
    main: MAIN,
    async arguments(checkout, temp, output) {
      const root = join(temp, 'root');
      await mkdir(root);
      for (const entry of await readdir(checkout)) {
        if (entry === '.git' || PYRIGHT_CONFIGS.has(entry)) continue;
        await symlink(join(checkout, entry), join(root, entry));
      }
      await writeFile(join(root, 'pyrightconfig.json'), JSON.stringify(await generatedConfig(checkout)));
      const environment = join(temp, 'environment.json');
      await writeFile(environment, '[]');
      return [
        'index',
        '--cwd',
        root,
        '--project-name',
        projectName.replace(/[^\w.-]+/g, '_') || 'repository',
        '--project-version',
        version,
        '--environment',
        environment,
        '--output',
        output,
        '--quiet',
      ];
    },
  };
}

async function generatedConfig(checkout: string): Promise<object> {
  return {
    include: ['.'],
    exclude: ['**/.*', ...VENDORED_DIRECTORIES.map((d) => `**/${d}`)],
    extraPaths: await sourceRoots(checkout),
  };
}

/**
 * The `src/` directories of the checkout's Python projects (the root's, and those of directories up to PROJECT_DEPTH
 * below it with a project file, as the search tier's import resolver recognizes a project), relative.
 */
async function sourceRoots(checkout: string): Promise<string[]> {
  const roots: string[] = [];
  const visit = async (relative: string, depth: number): Promise<void> => {
    const entries = await readdir(join(checkout, relative), { withFileTypes: true }).catch(() => []);
    const names = new Set(entries.map((e) => e.name));
    const hasSrc = entries.some((e) => e.name === 'src' && e.isDirectory());
    if (hasSrc && (relative === '' || PYTHON_PROJECT_FILES.some((f) => names.has(f)))) roots.push(join(relative, 'src'));
    if (depth >= PROJECT_DEPTH) return;
    for (const e of entries) {
      if (!e.isDirectory() || e.name.startsWith('.') || e.name === 'src' || VENDORED_DIRECTORIES.includes(e.name)) continue;
      await visit(join(relative, e.name), depth + 1);
    }
  };
  await visit('', 0);
  return roots;
}
