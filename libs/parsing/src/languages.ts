import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExtractOptions } from './extract-options.js';

/**
 * A language Sextant parses. Each is one folder under
 * `libs/parsing/languages/<name>/`: `language.json` names the grammar package
 * and its `.wasm`, and its query — one file, or several read as one (C++
 * adds to C's, TypeScript and JavaScript share their imports and
 * references) — captures definitions, supertypes, imports, references and
 * locals (see any `tags.scm` for the capture names). `<name>` is the language
 * `languageOf` (@sextant/checkouts) gives a file. What the query cannot say is
 * data here too (the fields below, `ExtractOptions`): no code tests a
 * language's name, the import resolver's schemes aside (ADR 0057). Adding a
 * language is adding a folder, its file extensions to `languageOf`'s table
 * and, for a grammar not yet installed, its package (toy-language.spec.ts).
 */
export interface LanguageSpec {
  name: string;
  wasmPath: string;
  /** The query's files, read in order as one query. */
  queryPaths: string[];
  options: ExtractOptions;
  /** How its imports name files (a scheme of the symbol indexer's ImportResolver), if they do. */
  resolver: string | null;
  /**
   * Which accesses of a member (`x.name`) are its references: `hierarchy` (default), through any class of its
   * family — supertypes and subtypes, as TypeScript's and Java's find-references list overrides and
   * implementations; `nearest`, through the class and the subtypes that inherit it without redefining it — the
   * definition the access resolves to, as Python's language servers (jedi) answer.
   */
  memberBinding: 'hierarchy' | 'nearest';
  /**
   * A member access whose object's type the file does not say, when another class defines a member of that name:
   * `mentions` (default) binds it in the files that name a class of the member's family; `omit` leaves it out, as
   * a language server that cannot infer the object's type does (jedi).
   */
  untypedMembers: 'mentions' | 'omit';
  /**
   * Types satisfy interfaces without declaring it (Go): an access through an object typed as an interface that
   * declares the member's name is a reference of every member of that name, as gopls lists them.
   */
  implicitInterfaces: boolean;
  /**
   * A `type` definition names other types (TypeScript's `type X = A | B`): an access through an object of such a
   * type binds as one of unknown type, since its members are those of the types it names.
   */
  typeAliases: boolean;
  /**
   * A file's top-level names are its package's, the package being its folder (Go): every file of the language in the
   * folder sees them without an import, and an import names the folder (a key ending in `/`, `packageKey`).
   */
  packageScope: boolean;
  /**
   * A top-level definition is also named through its module (`store.New`, `pkg.models.User`): the folder of a
   * `packageScope` language, else the file's path without its extension (and `/__init__`), as Python reads it.
   */
  moduleQualified: boolean;
  /** What a supertype written in a definition (`@supertype`) is to it: `extends` (default), or `embeds` (Go's struct embedding). */
  supertypeRelation: 'extends' | 'embeds';
  /** The name of a class's constructor (`constructor` in JavaScript), if it has one: not a member its accesses name. */
  constructorName: string | null;
  /**
   * A property at the top level outside any definition is a member of a type without a name written there (a cast's
   * `as { error: E }`): it is used there if at all (TypeScript's and JavaScript's object types).
   */
  typeLiterals: boolean;
}

interface LanguageJson {
  grammar: { package: string; wasm: string };
  query: string | string[];
  options?: ExtractOptions;
  resolver?: string;
  memberBinding?: 'hierarchy' | 'nearest';
  untypedMembers?: 'mentions' | 'omit';
  implicitInterfaces?: boolean;
  typeAliases?: boolean;
  packageScope?: boolean;
  moduleQualified?: boolean;
  supertypeRelation?: 'extends' | 'embeds';
  constructorName?: string;
  typeLiterals?: boolean;
}

/** The folder of the language folders (beside `src/` and `dist/`). */
export const LANGUAGES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'languages');

let table: ReadonlyMap<string, LanguageSpec> | undefined;

/** Every parsed language, by name, read from the language folders once. */
export function parsedLanguages(): ReadonlyMap<string, LanguageSpec> {
  return (table ??= readLanguages(LANGUAGES_DIR));
}

/**
 * The languages of a folder of language folders (each `<name>/language.json` and its query), by name: Sextant's own
 * (`LANGUAGES_DIR`), or another made the same way (a test's toy language reusing an installed grammar).
 */
export function readLanguages(dir: string): ReadonlyMap<string, LanguageSpec> {
  const require = createRequire(import.meta.url);
  const specs = new Map<string, LanguageSpec>();
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const folder = join(dir, entry.name);
    const json = JSON.parse(readFileSync(join(folder, 'language.json'), 'utf8')) as LanguageJson;
    const grammarDir = dirname(require.resolve(`${json.grammar.package}/package.json`));
    specs.set(entry.name, {
      name: entry.name,
      wasmPath: join(grammarDir, json.grammar.wasm),
      queryPaths: [json.query].flat().map((file) => join(folder, file)),
      options: json.options ?? {},
      resolver: json.resolver ?? null,
      memberBinding: json.memberBinding ?? 'hierarchy',
      untypedMembers: json.untypedMembers ?? 'mentions',
      implicitInterfaces: json.implicitInterfaces ?? false,
      typeAliases: json.typeAliases ?? false,
      packageScope: json.packageScope ?? false,
      moduleQualified: json.moduleQualified ?? false,
      supertypeRelation: json.supertypeRelation ?? 'extends',
      constructorName: json.constructorName ?? null,
      typeLiterals: json.typeLiterals ?? false,
    });
  }
  return specs;
}

/**
 * Which languages see each other's names: those whose imports resolve by the same scheme (TypeScript, TSX and
 * JavaScript; C and C++); any other language only its own. A class `User` in Python is not `User` in TypeScript.
 */
export function nameSpaceOf(language: string | null): string {
  const spec = language === null ? undefined : parsedLanguages().get(language);
  return spec?.resolver ?? language ?? '';
}

/** Whether `language` has package scope (`LanguageSpec.packageScope`): false for a language Sextant does not parse. */
export function hasPackageScope(language: string | null): boolean {
  return language !== null && parsedLanguages().get(language)?.packageScope === true;
}

/** The parsed languages whose spec says `has`, by name, sorted. */
export function languagesWhere(has: (spec: LanguageSpec) => boolean): string[] {
  return [...parsedLanguages().values()]
    .filter(has)
    .map((spec) => spec.name)
    .sort();
}
