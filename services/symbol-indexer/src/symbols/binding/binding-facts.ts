import { BatchCache, groupBy } from '../helpers.js';
import type { ReceiverCache } from './receiver-types.js';
import type { ImportRow, SymbolRow, SymbolStore } from '../index/symbol.store.js';
import { TypeGraph } from './type-graph.js';

/** Scopes (sets of repositories) whose facts are kept at once. */
const SCOPES = 8;
/** Facts kept per scope; past it the scope's are read again from the start. */
const FACTS_MAX = 200_000;
/** Imports read per lookup of the importers of some files (the first by path). */
const IMPORTERS_READ = 10_000;
/** Files read per directory (the first by path). */
const DIRECTORY_FILES = 20_000;

/** A class-like definition's lines in a file. */
export interface ClassLines {
  name: string;
  line: number;
  endLine: number;
}

/**
 * What binding a reference reads of the index besides the occurrences themselves, among the repositories of one scope:
 * the type hierarchy, the files that name each class, which names are type aliases, the interfaces declaring a member
 * name, what receivers denote, each file's module aliases, classes, importers and default export, each directory's
 * files. Every answer about a member needs some of these, and the answers of one neighbourhood need the same ones (a
 * class's family, its files' imports).
 */
export class ScopeFacts {
  readonly types: TypeGraph;
  /** Per class name, the files that name it (`repository\0path`). */
  readonly mentions: BatchCache<Set<string>>;
  readonly aliases: BatchCache<boolean>;
  /** Per name: some type-like definition (class, interface, struct, trait, type, enum) has it. */
  readonly typeNames: BatchCache<boolean>;
  readonly interfaces: BatchCache<Set<string>>;
  /** What receivers denote (`f()`, `Foo.opts`). */
  readonly receivers: ReceiverCache = new Map();
  /** Per file (`repository\0path`): the local names bound to whole modules (`import * as ns`, `import pkg`). */
  readonly namespaces: BatchCache<Set<string>>;
  /** Per file (`repository\0path`): its class-like definitions (which class a line is in). */
  readonly classes: BatchCache<ClassLines[]>;
  /** Per file or Go package (`repository\0path`, `repository\0dir/`): the imports that resolve to it. */
  readonly importers: BatchCache<ImportRow[]>;
  /** Per file (`repository\0path`): the definition it exports as its default (`import x from` binds it), if any. */
  readonly defaultExports: BatchCache<SymbolRow[]>;
  /** Per directory (`repository\0dir/`, the root `repository\0`): the files directly in it (a Go package's), the first by path. */
  readonly directoryFiles: BatchCache<string[]>;
  /** Per definition (`ownerKey`): the definition it is written in (a member's class, or the function whose result type holds it). */
  readonly owners: BatchCache<SymbolRow | undefined>;

  constructor(store: SymbolStore, scope: readonly string[] | null) {
    this.types = new TypeGraph(store, scope);
    this.mentions = new BatchCache(
      (names) => store.filesMentioning(names, scope),
      () => new Set(),
    );
    this.aliases = new BatchCache(
      async (names) => new Map([...(await store.typeAliasesOf(names, scope))].map((n) => [n, true])),
      () => false,
    );
    this.typeNames = new BatchCache(
      async (names) => new Map((await store.typesDefined(names, scope)).map((d) => [d.name, true])),
      () => false,
    );
    this.interfaces = new BatchCache(
      async (names) => new Map(await Promise.all(names.map(async (n) => [n, await store.interfacesDeclaring(n, scope)] as const))),
      () => new Set(),
    );
    this.namespaces = new BatchCache(
      byFile(
        async (repositoryId, paths, out) => {
          for (const imported of await store.namespaceImportsOf(repositoryId, paths)) {
            for (const b of imported.bindings) {
              if (b.name === '*' && b.alias) out.get(`${repositoryId}\0${imported.path}`)?.add(b.alias);
            }
          }
        },
        () => new Set<string>(),
      ),
      () => new Set(),
    );
    this.classes = new BatchCache(
      byFile(
        async (repositoryId, paths, out) => {
          for (const c of await store.classesIn(repositoryId, paths)) out.get(`${repositoryId}\0${c.path}`)?.push(c);
        },
        () => [] as ClassLines[],
      ),
      () => [],
    );
    this.importers = new BatchCache(
      byFile(
        async (repositoryId, targets, out) => {
          for (const i of await store.importersOf(repositoryId, targets, IMPORTERS_READ)) out.get(`${repositoryId}\0${i.target}`)?.push(i);
        },
        () => [] as ImportRow[],
      ),
      () => [],
    );
    this.defaultExports = new BatchCache(
      eachFile((repositoryId, path) => store.defaultExportOf(repositoryId, path)),
      () => [],
    );
    this.directoryFiles = new BatchCache(
      eachFile((repositoryId, dir) => store.filesIn(repositoryId, dir, DIRECTORY_FILES)),
      () => [],
    );
    this.owners = new BatchCache(
      async (keys) => {
        const out = new Map<string, SymbolRow>();
        const wanted = keys.map((key) => {
          const [repositoryId, path, ordinal] = key.split('\0');
          return { repositoryId: repositoryId, path: path, ordinal: Number(ordinal) };
        });
        for (const [repositoryId, list] of groupBy(wanted, (w) => w.repositoryId)) {
          for (const row of await store.symbolsByOrdinal(repositoryId, list)) out.set(`${repositoryId}\0${row.path}\0${row.ordinal}`, row);
        }
        return out;
      },
      () => undefined,
    );
  }

  /** How many facts it holds. */
  get size(): number {
    return (
      this.types.size +
      this.mentions.size +
      this.aliases.size +
      this.typeNames.size +
      this.interfaces.size +
      this.receivers.size +
      this.namespaces.size +
      this.classes.size +
      this.importers.size +
      this.defaultExports.size +
      this.directoryFiles.size +
      this.owners.size
    );
  }
}

/** The key of the definition a symbol is written in (its `parent`), for `ScopeFacts.owners`. */
export function ownerKey(symbol: Pick<SymbolRow, 'repositoryId' | 'path' | 'parent'>): string {
  return `${symbol.repositoryId}\0${symbol.path}\0${symbol.parent}`;
}

/** A fetch of per-file values (`repository\0path` keys) made one query per repository. */
function byFile<V>(
  fill: (repositoryId: string, paths: string[], out: Map<string, V>) => Promise<void>,
  empty: () => V,
): (keys: string[]) => Promise<Map<string, V>> {
  return async (keys) => {
    const out = new Map(keys.map((k) => [k, empty()]));
    for (const [repositoryId, files] of groupBy(keys, (k) => k.slice(0, k.indexOf('\0')))) {
      await fill(
        repositoryId,
        files.map((k) => k.slice(k.indexOf('\0') + 1)),
        out,
      );
    }
    return out;
  };
}

/** A fetch of per-file values (`repository\0path` keys) made one lookup per file, side by side. */
function eachFile<V>(fetch: (repositoryId: string, path: string) => Promise<V>): (keys: string[]) => Promise<Map<string, V>> {
  return async (keys) =>
    new Map(
      await Promise.all(
        keys.map(async (key) => {
          const at = key.indexOf('\0');
          return [key, await fetch(key.slice(0, at), key.slice(at + 1))] as const;
        }),
      ),
    );
}

/**
 * Facts per scope, kept while the index stays as it is: the store counts its writes (`generation`, in the database, so
 * that what another replica writes counts too), and a new count drops everything kept. One read of the count per answer.
 */
export class BindingFacts {
  private generation: number | undefined;
  private readonly scopes = new Map<string, ScopeFacts>();

  constructor(private readonly store: SymbolStore) {}

  async of(scope: readonly string[] | null): Promise<ScopeFacts> {
    const generation = await this.store.generation();
    // Counts only grow: an older one read late (another pooled connection) keeps what is kept.
    if (this.generation === undefined || generation > this.generation) {
      this.scopes.clear();
      this.generation = generation;
    }
    const key = scope === null ? '*' : [...scope].sort().join(',');
    let facts = this.scopes.get(key);
    if (!facts || facts.size > FACTS_MAX) {
      this.scopes.delete(key);
      if (this.scopes.size >= SCOPES) this.scopes.delete(this.scopes.keys().next().value!);
      facts = new ScopeFacts(this.store, scope);
    }
    // Most recently used last.
    this.scopes.delete(key);
    this.scopes.set(key, facts);
    return facts;
  }
}
