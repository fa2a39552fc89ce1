import { readFile } from 'node:fs/promises';
import { Language, Parser, Query } from 'web-tree-sitter';
import type { ExtractOptions } from './extract-options.js';
import { parsedLanguages, type LanguageSpec } from './languages.js';

/** A grammar ready to use: its parser and its compiled query. */
export interface Grammar {
  name: string;
  parser: Parser;
  query: Query;
  options: ExtractOptions;
}

let runtime: Promise<void> | undefined;

/** Parses as something in every grammar (an identifier, a call, a string). */
const WARM_UP_SOURCE = 'a = b("c")\n';

/**
 * Loads grammars on first use, once per thread. A grammar that fails to
 * load (missing `.wasm`, a query it rejects) is remembered as null: files of
 * that language are kept at file level, with the reason.
 */
export class Grammars {
  private readonly loaded = new Map<string, Promise<Grammar | { error: string }>>();

  /** `languages`: Sextant's (`parsedLanguages`), or another table read the same way (`readLanguages`). */
  constructor(private readonly languages: () => ReadonlyMap<string, LanguageSpec> = parsedLanguages) {}

  /** The grammar of `language`; undefined when Sextant does not parse it; `{error}` when it failed to load. */
  get(language: string): Promise<Grammar | { error: string }> | undefined {
    const spec = this.languages().get(language);
    if (!spec) return undefined;
    let grammar = this.loaded.get(language);
    if (!grammar) {
      grammar = (async () => {
        try {
          await (runtime ??= Parser.init());
          const lang = await Language.load(spec.wasmPath);
          const query = new Query(lang, (await Promise.all(spec.queryPaths.map((path) => readFile(path, 'utf8')))).join('\n'));
          const parser = new Parser();
          parser.setLanguage(lang);
          // One run on a little source at load: the first query over a file costs ~10× the next ones, which no file's budget should pay.
          const warm = parser.parse(WARM_UP_SOURCE);
          if (warm) {
            query.matches(warm.rootNode);
            warm.delete();
          }
          return { name: language, parser, query, options: spec.options };
        } catch (error) {
          return { error: `the ${language} grammar could not be loaded: ${error instanceof Error ? error.message : String(error)}` };
        }
      })();
      this.loaded.set(language, grammar);
    }
    return grammar;
  }
}
