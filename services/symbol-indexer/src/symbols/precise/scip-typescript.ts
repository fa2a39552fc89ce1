import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { VENDORED_DIRECTORIES } from '@sextant/checkouts';
import type { ScipIndexer } from './scip-indexer.js';
import { workspacePaths } from './workspace-packages.js';

/** The indexer's entry point, from the installed package (a dependency of this service). */
const MAIN = join(dirname(createRequire(import.meta.url).resolve('@sourcegraph/scip-typescript/package.json')), 'dist/src/main.js');

/**
 * `@sourcegraph/scip-typescript`. Its configuration is generated, never the repository's own: every TypeScript file
 * under the root except vendored directories, or every JavaScript file when there is no TypeScript (what the indexer's
 * `--infer-tsconfig` would write at the root: measured better than repositories' own tsconfigs, which leave tests out
 * or index files several times), with a monorepo's workspace packages as `paths`.
 */
export function scipTypescript(javascriptOnly: boolean): ScipIndexer {
  return {
    name: 'scip-typescript',
    main: MAIN,
    async arguments(checkout, temp, output) {
      const config = join(temp, 'tsconfig.json');
      await writeFile(config, JSON.stringify(await generatedConfig(checkout, javascriptOnly)));
      return ['index', '--cwd', checkout, '--output', output, '--no-progress-bar', config];
    },
  };
}

async function generatedConfig(root: string, javascriptOnly: boolean): Promise<object> {
  const paths = await workspacePaths(root);
  return {
    compilerOptions: {
      ...(javascriptOnly ? { allowJs: true } : {}),
      noEmit: true,
      // A monorepo's imports of its own packages, to their sources (a checkout has no node_modules to link them).
      ...(Object.keys(paths).length > 0 ? { paths } : {}),
      // The configuration lives elsewhere: the repository's own type packages are named where they are.
      typeRoots: [join(root, 'node_modules/@types')],
    },
    include: [join(root, '**/*')],
    exclude: VENDORED_DIRECTORIES.map((d) => join(root, '**', d)),
  };
}
