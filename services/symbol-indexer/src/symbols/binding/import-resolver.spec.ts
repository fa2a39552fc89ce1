import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { extract, Grammars, parsedLanguages } from '@sextant/parsing';
import { ImportResolver } from './import-resolver.js';

const made: string[] = [];

/** A checkout on disk with these files (path → content; a file's content does not matter unless a resolver reads it). */
function checkout(files: Record<string, string> | string[]): ImportResolver {
  const root = mkdtempSync(join(tmpdir(), 'sextant-imports-'));
  made.push(root);
  for (const [path, text] of Array.isArray(files) ? files.map((f) => [f, ''] as const) : Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return new ImportResolver(root);
}

/** Each case: [importing file, module string, expected target]. */
function expect(resolver: ImportResolver, scheme: string, cases: Array<[string, string, string | null]>): void {
  for (const [from, module, target] of cases) {
    assert.equal(resolver.resolve(scheme, from, module), target, `${scheme}: ${module} from ${from}`);
  }
}

describe('ImportResolver', () => {
  after(() => {
    for (const root of made) rmSync(root, { recursive: true, force: true });
  });

  it('resolves TS/JS relative paths: extensions, `.js` written for `.ts`, index files, not above the root', () => {
    const resolver = checkout([
      'src/app.ts',
      'src/lib/math.ts',
      'src/view.tsx',
      'src/legacy.js',
      'src/esm.mts',
      'src/types.d.ts',
      'src/util/index.ts',
      'src/util/other.ts',
      'src/helpers/index.js',
    ]);
    expect(resolver, 'node', [
      ['src/app.ts', './lib/math', 'src/lib/math.ts'],
      ['src/app.ts', './lib/math.js', 'src/lib/math.ts'],
      ['src/app.ts', './view', 'src/view.tsx'],
      ['src/app.ts', './view.jsx', 'src/view.tsx'],
      ['src/app.ts', './legacy', 'src/legacy.js'],
      ['src/app.ts', './legacy.js', 'src/legacy.js'],
      ['src/app.ts', './esm.mjs', 'src/esm.mts'],
      ['src/app.ts', './types', 'src/types.d.ts'],
      ['src/app.ts', './util', 'src/util/index.ts'],
      ['src/app.ts', './helpers', 'src/helpers/index.js'],
      ['src/util/other.ts', '.', 'src/util/index.ts'],
      ['src/util/other.ts', '../lib/math', 'src/lib/math.ts'],
      ['src/lib/math.ts', '../../src/view', 'src/view.tsx'],
      ['src/app.ts', './missing', null],
      ['src/app.ts', '../../outside', null],
      // No tsconfig: a bare name is a package from the registry (or Node's own).
      ['src/app.ts', 'react', null],
      ['src/app.ts', 'node:fs', null],
    ]);
  });

  it('resolves tsconfig `paths` and `baseUrl` from the nearest tsconfig.json (comments and trailing commas allowed)', () => {
    const resolver = checkout({
      'tsconfig.json': `{
        // paths are relative to baseUrl
        "compilerOptions": {
          "baseUrl": "src", /* a comment */
          "paths": { "@lib/*": ["lib/*", "fallback/*"], "@config": ["config/main.ts"], "a/*/a": ["odd/*"], },
        },
      }`,
      'src/app.ts': '',
      'src/lib/math.ts': '',
      'src/fallback/only.ts': '',
      'src/config/main.ts': '',
      'src/util/index.ts': '',
      'src/odd/index.ts': '',
      'packages/web/tsconfig.json': '{ "compilerOptions": { "paths": { "~/*": ["./app/*"] } } }',
      'packages/web/app/page.ts': '',
      'packages/web/app/data.ts': '',
    });
    expect(resolver, 'node', [
      ['src/app.ts', '@lib/math', 'src/lib/math.ts'],
      ['src/app.ts', '@lib/only', 'src/fallback/only.ts'],
      ['src/app.ts', '@config', 'src/config/main.ts'],
      ['src/app.ts', 'util', 'src/util/index.ts'],
      ['src/app.ts', 'lib/math.js', 'src/lib/math.ts'],
      ['src/app.ts', '@lib/none', null],
      ['src/app.ts', 'react', null],
      // `a/*/a` does not match `a/a`: its prefix and suffix would overlap.
      ['src/app.ts', 'a/a', null],
      // Without baseUrl, paths are relative to their tsconfig.json; the nearest one is used, not the root's.
      ['packages/web/app/page.ts', '~/data', 'packages/web/app/data.ts'],
      ['src/app.ts', '~/data', null],
      ['packages/web/app/page.ts', '@lib/math', null],
      ['packages/web/app/page.ts', 'lodash', null],
    ]);
  });

  it('follows a tsconfig `extends` (relative) for `paths` and `baseUrl`, relative to the config that declares them', () => {
    const resolver = checkout({
      'config/tsconfig.base.json': '{ "compilerOptions": { "baseUrl": "..", "paths": { "#shared/*": ["shared/*"] } } }',
      'app/tsconfig.json': '{ "extends": "../config/tsconfig.base", "compilerOptions": { "outDir": "dist" } }',
      'app/main.ts': '',
      'shared/log.ts': '',
    });
    expect(resolver, 'node', [
      ['app/main.ts', '#shared/log', 'shared/log.ts'],
      ['app/main.ts', 'shared/log', 'shared/log.ts'],
    ]);
  });

  it('resolves packages of npm/yarn/pnpm workspaces by name to their sources: exports, subpaths, patterns, outDir → rootDir', () => {
    const manifest = (m: object) => JSON.stringify(m);
    const resolver = checkout({
      'package.json': manifest({ name: 'root', workspaces: ['libs/*', 'apps/web', '!libs/ignored'] }),
      // A compiled library: exports point into dist/, which is not in the repository; its tsconfig maps dist/ to src/.
      'libs/core/package.json': manifest({
        name: '@acme/core',
        exports: {
          '.': { types: './dist/index.d.ts', import: './dist/index.js' },
          './errors': { import: './dist/errors.js' },
          './feature/*': './dist/features/*.js',
        },
      }),
      'libs/core/tsconfig.json': '{ "extends": "../../tsconfig.base.json", "compilerOptions": { "rootDir": "src", "outDir": "dist" } }',
      'tsconfig.base.json': '{ "compilerOptions": { "strict": true } }',
      'libs/core/src/index.ts': '',
      'libs/core/src/errors.ts': '',
      'libs/core/src/internal.ts': '',
      'libs/core/src/features/auth.ts': '',
      // Plain JavaScript, committed as it runs; `main` only.
      'libs/legacy/package.json': manifest({ name: 'legacy-utils', main: 'lib/main.js' }),
      'libs/legacy/lib/main.js': '',
      'libs/legacy/lib/extra.js': '',
      // types to dist/ without a tsconfig: the usual output folder stands for src/.
      'apps/web/package.json': manifest({ name: 'web', types: './dist/app.d.ts' }),
      'apps/web/src/app.ts': '',
      'apps/web/src/page.ts': '',
      'apps/other/package.json': manifest({ name: 'other' }),
      'apps/other/index.ts': '',
    });
    expect(resolver, 'node', [
      ['apps/web/src/page.ts', '@acme/core', 'libs/core/src/index.ts'],
      ['apps/web/src/page.ts', '@acme/core/errors', 'libs/core/src/errors.ts'],
      ['apps/web/src/page.ts', '@acme/core/feature/auth', 'libs/core/src/features/auth.ts'],
      // Not exported: Node refuses the import, and so does the resolver.
      ['apps/web/src/page.ts', '@acme/core/internal', null],
      ['apps/web/src/page.ts', '@acme/core/feature/none', null],
      ['apps/web/src/page.ts', 'legacy-utils', 'libs/legacy/lib/main.js'],
      ['apps/web/src/page.ts', 'legacy-utils/lib/extra', 'libs/legacy/lib/extra.js'],
      ['libs/core/src/index.ts', 'web', 'apps/web/src/app.ts'],
      // apps/other is not a workspace (only apps/web is), a package from the registry is not in the repository.
      ['libs/core/src/index.ts', 'other', null],
      ['libs/core/src/index.ts', 'react', null],
      ['libs/core/src/index.ts', '@acme/cor', null],
    ]);
    const yarn = checkout({
      'package.json': manifest({ private: true, workspaces: { packages: ['packages/**'] } }),
      'packages/ui/button/package.json': manifest({ name: '@ui/button', exports: './index.js' }),
      'packages/ui/button/index.ts': '',
      'src/app.ts': '',
    });
    expect(yarn, 'node', [['src/app.ts', '@ui/button', 'packages/ui/button/index.ts']]);
    const pnpm = checkout({
      'package.json': manifest({ name: 'mono' }),
      'pnpm-workspace.yaml': "# pnpm\npackages:\n  - 'tools/*'   # the tools\n  - \"!tools/old\"\ncatalog:\n  - 'x/*'\n",
      'tools/cli/package.json': manifest({ name: 'cli', source: 'src/cli.ts', main: 'dist/cli.cjs' }),
      'tools/cli/src/cli.ts': '',
      'tools/old/package.json': manifest({ name: 'old' }),
      'tools/old/index.ts': '',
      'x/y/package.json': manifest({ name: 'y' }),
      'x/y/index.ts': '',
      'src/app.ts': '',
    });
    expect(pnpm, 'node', [
      ['src/app.ts', 'cli', 'tools/cli/src/cli.ts'],
      ['src/app.ts', 'old', null],
      ['src/app.ts', 'y', null],
    ]);
  });

  it('resolves packages that the root tsconfig names as project references', () => {
    const resolver = checkout({
      'tsconfig.json': '{ "files": [], "references": [{ "path": "./pkgs/a" }, { "path": "pkgs/b/tsconfig.json" }] }',
      'pkgs/a/package.json': JSON.stringify({ name: 'a', types: 'out/index.d.ts' }),
      'pkgs/a/tsconfig.json': '{ "compilerOptions": { "outDir": "out", "rootDir": "lib" } }',
      'pkgs/a/lib/index.ts': '',
      'pkgs/b/package.json': JSON.stringify({ name: 'b', main: 'index.js' }),
      'pkgs/b/index.ts': '',
    });
    expect(resolver, 'node', [
      ['pkgs/b/index.ts', 'a', 'pkgs/a/lib/index.ts'],
      ['pkgs/a/lib/index.ts', 'b', 'pkgs/b/index.ts'],
    ]);
  });

  it('resolves Python relative imports from the package, absolute ones from the root or src/', () => {
    const resolver = checkout([
      'top.py',
      'app/__init__.py',
      'app/models.py',
      'app/api/__init__.py',
      'app/api/views.py',
      'app/api/serializers.py',
      'src/lib/__init__.py',
      'src/lib/core.py',
    ]);
    expect(resolver, 'python', [
      ['app/api/views.py', '.serializers', 'app/api/serializers.py'],
      ['app/api/views.py', '..models', 'app/models.py'],
      ['app/api/views.py', '.', 'app/api/__init__.py'],
      ['app/api/views.py', '..', 'app/__init__.py'],
      ['app/api/views.py', '...top', 'top.py'],
      // Above the repository's root.
      ['app/api/views.py', '....top', null],
      ['app/api/views.py', '.missing', null],
      ['top.py', 'app.models', 'app/models.py'],
      ['top.py', 'app.api', 'app/api/__init__.py'],
      ['app/models.py', 'app.api.views', 'app/api/views.py'],
      ['top.py', 'lib.core', 'src/lib/core.py'],
      ['top.py', 'lib', 'src/lib/__init__.py'],
      ['top.py', 'os.path', null],
      ['top.py', 'requests', null],
    ]);
  });

  it("resolves absolute Python imports from the importing file's project (and its src/), then uv workspace members", () => {
    const resolver = checkout({
      'pyproject.toml': '[project]\nname = "mono"\n\n[tool.uv.workspace]\nmembers = [\n  "packages/*",  # every package\n]\nexclude = ["x"]\n\n[tool.other]\nmembers = ["nope"]\n',
      'packages/billing/pyproject.toml': '[project]\nname = "billing"\n',
      'packages/billing/src/billing/__init__.py': '',
      'packages/billing/src/billing/invoice.py': '',
      'packages/billing/tests/test_invoice.py': '',
      'packages/users/setup.py': '',
      'packages/users/users/__init__.py': '',
      'packages/users/users/models.py': '',
      // A namespace package (no __init__.py) under a project of its own, outside the workspace.
      'services/api/setup.cfg': '',
      'services/api/acme/api/routes.py': '',
      'services/api/main.py': '',
      'nope/nope.py': '',
    });
    expect(resolver, 'python', [
      ['packages/billing/tests/test_invoice.py', 'billing.invoice', 'packages/billing/src/billing/invoice.py'],
      ['packages/billing/src/billing/invoice.py', 'users.models', 'packages/users/users/models.py'],
      ['packages/users/users/models.py', 'billing', 'packages/billing/src/billing/__init__.py'],
      ['services/api/main.py', 'acme.api.routes', 'services/api/acme/api/routes.py'],
      ['services/api/main.py', 'billing.invoice', 'packages/billing/src/billing/invoice.py'],
      // services/api is not a workspace member: only its own files see its packages.
      ['packages/users/users/models.py', 'acme.api.routes', null],
      ['services/api/main.py', 'nope', null],
    ]);
  });

  it('binds a module a Python `from` import takes as a namespace of its own file', () => {
    const resolver = checkout(['app/__init__.py', 'app/models.py', 'app/api/__init__.py', 'app/api/views.py']);
    const imported = (module: string, names: string[]) => ({
      module,
      line: 1,
      reexport: false,
      bindings: names.map((name) => ({ name, alias: name === 'models' ? 'm' : name })),
    });
    // `from .. import models as m, VERSION`: the package, and `models` (a module) bound to `m`; VERSION is a name.
    assert.deepEqual(
      resolver.resolveAll('python', 'app/api/views.py', imported('..', ['models', 'VERSION'])).map((i) => [i.module, i.target, i.bindings]),
      [
        [
          '..',
          'app/__init__.py',
          [
            { name: 'models', alias: 'm' },
            { name: 'VERSION', alias: 'VERSION' },
          ],
        ],
        ['..models', 'app/models.py', [{ name: '*', alias: 'm' }]],
      ],
    );
    assert.deepEqual(
      resolver.resolveAll('python', 'app/api/views.py', imported('app', ['api'])).map((i) => [i.module, i.target]),
      [
        ['app', 'app/__init__.py'],
        ['app.api', 'app/api/__init__.py'],
      ],
    );
    // Other schemes resolve the import as it is.
    assert.equal(resolver.resolveAll('node', 'app/x.ts', imported('./models', ['models'])).length, 1);
  });

  it('resolves Go packages of the module go.mod declares to their directory', () => {
    const resolver = checkout({
      'go.mod': 'module example.com/shop // the shop\n\ngo 1.22\n',
      'main.go': '',
      'internal/cart/cart.go': '',
      'cmd/server/main.go': '',
    });
    expect(resolver, 'go', [
      ['cmd/server/main.go', 'example.com/shop/internal/cart', 'internal/cart/'],
      ['cmd/server/main.go', 'example.com/shop', './'],
      ['main.go', 'example.com/shop/cmd/server', 'cmd/server/'],
      ['main.go', 'example.com/shop/internal/missing', null],
      ['main.go', 'example.com/shopping/internal/cart', null],
      ['main.go', 'fmt', null],
      ['main.go', 'net/http', null],
      ['main.go', 'github.com/sirupsen/logrus', null],
    ]);
    // No go.mod: nothing is in the module.
    expect(checkout(['internal/cart/cart.go']), 'go', [['main.go', 'internal/cart', null]]);
  });

  it('resolves Go packages across the modules of a repository: go.work, nested go.mod, local replace directives', () => {
    // Several modules and no go.mod at the root; a module's path ending in its directory places the others.
    const multi = checkout({
      'api/go.mod': 'module github.com/acme/shop/api\n\nrequire github.com/acme/shop/core v0.0.0\n',
      'api/server/server.go': '',
      'api/main.go': '',
      'core/go.mod': 'module github.com/acme/shop/core\n',
      'core/cart/cart.go': '',
      'tools/go.mod': 'module example.org/tools\n\nreplace (\n\tgithub.com/acme/shop/core => ../core\n\texample.org/vendored v1.0.0 => ./third_party/vendored\n)\nreplace example.org/gone => ../../outside\n',
      'tools/gen/gen.go': '',
      'tools/third_party/vendored/go.mod': 'module example.org/vendored\n',
      'tools/third_party/vendored/v.go': '',
    });
    expect(multi, 'go', [
      ['api/main.go', 'github.com/acme/shop/api/server', 'api/server/'],
      ['api/main.go', 'github.com/acme/shop/api', 'api/'],
      ['api/server/server.go', 'github.com/acme/shop/core/cart', 'core/cart/'],
      ['tools/gen/gen.go', 'example.org/tools/gen', 'tools/gen/'],
      ['tools/gen/gen.go', 'github.com/acme/shop/core/cart', 'core/cart/'],
      ['tools/gen/gen.go', 'example.org/vendored', 'tools/third_party/vendored/'],
      ['tools/gen/gen.go', 'example.org/gone', null],
      ['api/main.go', 'github.com/acme/shop/missing', null],
      ['api/main.go', 'fmt', null],
    ]);
    // go.work: the modules it uses, whatever their paths.
    const work = checkout({
      'go.work': 'go 1.22\n\nuse (\n\t./svc // the service\n\t"./lib"\n)\nuse ./cmd\n',
      'svc/go.mod': 'module svc.example/x\n',
      'svc/handler/h.go': '',
      'lib/go.mod': 'module lib.example/y\n',
      'lib/strings/s.go': '',
      'cmd/go.mod': 'module cmd.example/z\n',
      'cmd/main.go': '',
    });
    expect(work, 'go', [
      ['cmd/main.go', 'svc.example/x/handler', 'svc/handler/'],
      ['cmd/main.go', 'lib.example/y/strings', 'lib/strings/'],
      ['svc/handler/h.go', 'cmd.example/z', 'cmd/'],
      ['svc/handler/h.go', 'lib.example/y/none', null],
    ]);
  });

  it('resolves Java classes by package under the usual source roots, static imports and nested classes by their class', () => {
    const resolver = checkout([
      'src/main/java/com/shop/Cart.java',
      'src/main/java/com/shop/util/Money.java',
      'src/test/java/com/shop/CartTest.java',
      'src/org/acme/Plain.java',
      'com/root/Top.java',
    ]);
    expect(resolver, 'java', [
      ['src/main/java/com/shop/Cart.java', 'com.shop.util.Money', 'src/main/java/com/shop/util/Money.java'],
      ['src/test/java/com/shop/CartTest.java', 'com.shop.Cart', 'src/main/java/com/shop/Cart.java'],
      ['src/main/java/com/shop/Cart.java', 'com.shop.CartTest', 'src/test/java/com/shop/CartTest.java'],
      ['src/main/java/com/shop/Cart.java', 'org.acme.Plain', 'src/org/acme/Plain.java'],
      ['src/main/java/com/shop/Cart.java', 'com.root.Top', 'com/root/Top.java'],
      ['src/main/java/com/shop/Cart.java', 'com.shop.util.Money.round', 'src/main/java/com/shop/util/Money.java'],
      ['src/main/java/com/shop/Cart.java', 'com.shop.util.Money.Currency', 'src/main/java/com/shop/util/Money.java'],
      ['src/main/java/com/shop/Cart.java', 'com.shop.util.Missing', null],
      // A package (of `import com.shop.util.*;`) is no file.
      ['src/main/java/com/shop/Cart.java', 'com.shop.util', null],
      ['src/main/java/com/shop/Cart.java', 'java.util.List', null],
      ['src/main/java/com/shop/Cart.java', 'org.junit.jupiter.api.Test', null],
    ]);
  });

  it('resolves C includes beside the file, then under the include directories; <system> headers are outside', () => {
    const resolver = checkout(['src/cart.c', 'src/cart.h', 'src/util/helpers.h', 'include/shop/money.h', 'config.h']);
    expect(resolver, 'c', [
      ['src/cart.c', 'cart.h', 'src/cart.h'],
      ['src/cart.c', 'util/helpers.h', 'src/util/helpers.h'],
      ['src/cart.c', 'shop/money.h', 'include/shop/money.h'],
      ['src/cart.c', '../include/shop/money.h', 'include/shop/money.h'],
      ['src/cart.c', 'config.h', 'config.h'],
      ['include/shop/money.h', 'cart.h', 'src/cart.h'],
      ['src/cart.c', '../../etc/passwd', null],
      ['src/cart.c', 'stdio.h', null],
      ['src/cart.c', '<stdio.h>', null],
      ['src/cart.c', '<shop/money.h>', null],
    ]);
  });

  it('resolves Ruby requires beside the file, then under lib/', () => {
    const resolver = checkout(['lib/shop/cart.rb', 'lib/shop/money.rb', 'app/models/user.rb', 'config.rb']);
    expect(resolver, 'ruby', [
      ['lib/shop/cart.rb', 'money', 'lib/shop/money.rb'],
      ['lib/shop/cart.rb', './money.rb', 'lib/shop/money.rb'],
      ['app/models/user.rb', '../../lib/shop/cart', 'lib/shop/cart.rb'],
      ['app/models/user.rb', 'shop/money', 'lib/shop/money.rb'],
      ['app/models/user.rb', 'config', 'config.rb'],
      ['app/models/user.rb', 'json', null],
      ['app/models/user.rb', 'active_record', null],
    ]);
  });

  describe('rust', () => {
    const crate = () =>
      checkout([
        'Cargo.toml',
        'src/lib.rs',
        'src/main.rs',
        'src/a.rs',
        'src/a/b.rs',
        'src/a/c/mod.rs',
        'src/a/c/d.rs',
        'src/net/mod.rs',
        'src/net/tcp.rs',
        'src/bin/tool.rs',
        'src/bin/helper.rs',
        'tests/it.rs',
        'tests/common/mod.rs',
        'crates/core/Cargo.toml',
        'crates/core/src/lib.rs',
        'crates/core/src/x.rs',
      ]);

    it('resolves `mod name;` to name.rs or name/mod.rs beside a crate root or mod.rs, under a/ for a.rs', () => {
      expect(crate(), 'rust', [
        ['src/lib.rs', 'mod a;', 'src/a.rs'],
        ['src/lib.rs', 'pub mod net;', 'src/net/mod.rs'],
        ['src/main.rs', 'pub(crate) mod a;', 'src/a.rs'],
        ['src/a.rs', 'mod b;', 'src/a/b.rs'],
        ['src/a.rs', 'pub mod c;', 'src/a/c/mod.rs'],
        ['src/a/c/mod.rs', 'mod d;', 'src/a/c/d.rs'],
        ['src/net/mod.rs', 'mod tcp;', 'src/net/tcp.rs'],
        ['src/bin/tool.rs', 'mod helper;', 'src/bin/helper.rs'],
        ['tests/it.rs', 'mod common;', 'tests/common/mod.rs'],
        ['crates/core/src/lib.rs', 'mod x;', 'crates/core/src/x.rs'],
        // Not beside a non-mod.rs file (2018 layout), nor a missing file.
        ['src/a.rs', 'mod tcp;', null],
        ['src/net/tcp.rs', 'mod b;', null],
        ['src/lib.rs', 'mod missing;', null],
      ]);
    });

    it('resolves `crate::` paths to the deepest module file along them, within the nearest Cargo.toml', () => {
      expect(crate(), 'rust', [
        ['src/net/tcp.rs', 'crate::a::b::C', 'src/a/b.rs'],
        ['src/net/tcp.rs', 'crate::a::b', 'src/a/b.rs'],
        ['src/net/tcp.rs', 'crate::a::c::d::E', 'src/a/c/d.rs'],
        ['src/net/tcp.rs', 'crate::a::c::Item', 'src/a/c/mod.rs'],
        // `Item` is an item of `a`, not a module of its own.
        ['src/net/tcp.rs', 'crate::a::Item', 'src/a.rs'],
        ['src/a.rs', 'crate::net', 'src/net/mod.rs'],
        ['src/a.rs', 'crate::Thing', 'src/lib.rs'],
        ['src/a.rs', 'crate', 'src/lib.rs'],
        ['src/main.rs', 'crate::a::b::C', 'src/a/b.rs'],
        ['src/bin/tool.rs', 'crate::helper::H', 'src/bin/helper.rs'],
        ['crates/core/src/lib.rs', 'crate::x::Y', 'crates/core/src/x.rs'],
        // The inner crate's modules, not the outer one's: `crate::a` is an item of its own root (the file itself).
        ['crates/core/src/lib.rs', 'crate::a::b::C', null],
        ['crates/core/src/x.rs', 'crate::a::b::C', 'crates/core/src/lib.rs'],
        // main.rs is the root of its own crate.
        ['src/main.rs', 'crate::Thing', null],
      ]);
    });

    it('resolves `self::` and `super::` from the file’s module, and a path from one of its child modules', () => {
      expect(crate(), 'rust', [
        ['src/a.rs', 'self::b::C', 'src/a/b.rs'],
        ['src/a.rs', 'self::c', 'src/a/c/mod.rs'],
        ['src/a/c/mod.rs', 'self::d::E', 'src/a/c/d.rs'],
        ['src/a/c/mod.rs', 'super::b::C', 'src/a/b.rs'],
        ['src/a/c/d.rs', 'super::super::Thing', 'src/a.rs'],
        ['src/a/c/d.rs', 'super::super::super::net::tcp', 'src/net/tcp.rs'],
        ['src/a/c/d.rs', 'super', 'src/a/c/mod.rs'],
        ['src/a.rs', 'super::Thing', 'src/lib.rs'],
        ['src/net/tcp.rs', 'super::super::a', 'src/a.rs'],
        ['src/lib.rs', 'super::x', null],
        ['src/a/b.rs', 'super::super::super::x', null],
        // Rust 2018: a path may start at a child module (`mod a; use a::b::C;`).
        ['src/lib.rs', 'a::b::C', 'src/a/b.rs'],
        ['src/a.rs', 'b::C', 'src/a/b.rs'],
        ['src/a.rs', 'c', 'src/a/c/mod.rs'],
        ['src/a.rs', 'net::tcp', null],
        // Into the importing file itself (an inline module): nothing to link.
        ['src/a.rs', 'self::inline::X', null],
      ]);
    });

    it('keeps the standard library and other crates outside', () => {
      expect(crate(), 'rust', [
        ['src/lib.rs', 'std::collections::HashMap', null],
        ['src/lib.rs', 'core::fmt', null],
        ['src/lib.rs', '::std::io', null],
        ['src/lib.rs', 'serde::Deserialize', null],
        ['src/lib.rs', 'serde', null],
        ['src/a.rs', 'std', null],
      ]);
    });

    it('takes the repository root as the crate without a Cargo.toml', () => {
      expect(checkout(['src/lib.rs', 'src/util.rs', 'src/util/fmt.rs']), 'rust', [
        ['src/lib.rs', 'mod util;', 'src/util.rs'],
        ['src/lib.rs', 'crate::util::fmt::pad', 'src/util/fmt.rs'],
        ['src/util/fmt.rs', 'crate::Root', 'src/lib.rs'],
        ['src/util/fmt.rs', 'super::helper', 'src/util.rs'],
      ]);
    });

    it('resolves what the Rust query captures', async () => {
      assert.equal(parsedLanguages().get('rust')?.resolver, 'rust');
      const grammar = await new Grammars().get('rust');
      assert.ok(grammar && !('error' in grammar), JSON.stringify(grammar));
      const source = [
        'mod a;',
        'pub mod net;',
        'use crate::a::b::C;',
        'pub use self::net::tcp::{Stream, Listener as L, self};',
        'use super::*;',
        'use std::collections::HashMap;',
        'mod tests { use super::*; use crate::a::c::d::E; }',
      ].join('\n');
      const resolver = crate();
      const found = extract(grammar, source, 1_000).imports.map((i) => ({
        module: i.module,
        reexport: i.reexport,
        bindings: i.bindings.map((b) => `${b.name}:${b.alias}`).sort(),
        target: resolver.resolve('rust', 'src/lib.rs', i.module),
      }));
      assert.deepEqual(found, [
        { module: 'mod a;', reexport: false, bindings: ['*:a'], target: 'src/a.rs' },
        { module: 'pub mod net;', reexport: false, bindings: ['*:net'], target: 'src/net/mod.rs' },
        { module: 'crate::a::b::C', reexport: false, bindings: ['C:C'], target: 'src/a/b.rs' },
        { module: 'self::net::tcp', reexport: true, bindings: ['*:tcp', 'Listener:L', 'Stream:Stream'], target: 'src/net/tcp.rs' },
        // `super` of a crate root: nothing.
        { module: 'super', reexport: false, bindings: ['*:'], target: null },
        { module: 'std::collections::HashMap', reexport: false, bindings: ['HashMap:HashMap'], target: null },
        // In an inline module only a path from `crate` (its `super` is the file itself).
        { module: 'crate::a::c::d::E', reexport: false, bindings: ['E:E'], target: 'src/a/c/d.rs' },
      ]);
    });
  });
});
