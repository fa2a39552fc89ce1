import type { GrepRepository, ListRepositoryRefs, OpenFile, SearchRepositories } from '@sextant/contracts';
import { accessRefusal, LOCAL_PRINCIPAL, type RegisteredRepository, type ToolAccess } from '@sextant/contracts';
import { BusRequestError } from '@sextant/messaging';
import type { ReadableRepositoryIds, RegistryClient } from '@sextant/registry-client';
import { currentPrincipal, ServiceError } from '@sextant/work';
import { repositoryMissing, type FileReader } from './files/file-reader.js';
import type { GitHubSearch } from './github/github-search.js';
import { DEFAULT_MAX_RESULT_BYTES, type GrepEngine, type GrepQuery } from './grep/collector.js';
import {
  type CloneCache,
  explainGitFailure,
  type GitRunner,
  parseLsRemote,
  checkRefName,
  looksLikeLocator,
  parseRepository,
  repositoryNotFound,
  type LocatorPolicy,
  type RepositoryLocator,
} from '@sextant/checkouts';

export interface GitCacheServiceDeps {
  cache: CloneCache;
  engine: GrepEngine;
  git: GitRunner;
  github: GitHubSearch;
  files: FileReader;
  policy: LocatorPolicy;
  grepTimeoutMs: number;
  /** Size budget of one grep answer (GREP_MAX_RESULT_BYTES); default 768 KiB. */
  grepMaxResultBytes?: number;
  lsRemoteTimeoutMs: number;
  /** Registered repositories and workspaces (workspace-registry, over the bus). */
  registry: Pick<RegistryClient, 'repositories' | 'workspace' | 'freshness'>;
  /** The registered repositories the caller may read (issue #13). */
  readable: Pick<ReadableRepositoryIds, 'readable'>;
  /** Who may use the tools on repositories that are not registered: remote URLs, CODEBASE_ROOT directories (SEXTANT_UNREGISTERED_ACCESS). */
  unregistered: ToolAccess;
}

/**
 * What a git tool works on: a remote repository (through the clone cache;
 * `ref`: the registered branch, used when the call names none), or a
 * registered local workspace, searched as its working tree.
 */
type Target = ({ kind: 'remote'; locator: RepositoryLocator; ref?: string } | { kind: 'local'; dir: string }) & {
  /** How answers name it: a registered repository's name, else the reference as the caller spelled it. */
  name: string;
  /** A workspace this call registered (auto-discovery). */
  discovered?: boolean;
};

const EXTENSION = /^[\p{L}\p{M}\p{N}_+-]{1,32}$/u;
/** A directory path: any printable names (any script) but glob syntax, which ripgrep and git would interpret. */
const DIRECTORY = /^[^\p{Cc}\p{Cf}*?[\]{}!\\/]+(\/[^\p{Cc}\p{Cf}*?[\]{}!\\/]+)*$/u;

function notARepository(repository: string): ServiceError {
  return ServiceError.of(
    'not_found',
    `"${repository}" is neither a repository URL (https://host/owner/repo, git@github.com:owner/repo.git, github:owner/repo) ` +
      'nor the id or name of a registered repository (list_repositories shows them).',
    { repository },
  );
}

/**
 * A workspace this call auto-discovered: its indexing has just started. A
 * local workspace is read as its working tree, so the answer is complete.
 */
const DISCOVERED = { indexing_status: 'indexing' } as const;

/** The four git-cache tools, over the clone cache, a grep engine, git, GitHub search and the safe file reader. */
export class GitCacheService {
  constructor(private readonly deps: GitCacheServiceDeps) {}

  async grep(input: GrepRepository.Request): Promise<GrepRepository.Response> {
    const target = await this.target(input.repository, input.workspace);
    // `HEAD` is the remote's default branch, as when no ref is named.
    const named = input.ref_name === undefined || input.ref_name === 'HEAD' ? undefined : checkRefName(input.ref_name);
    const query = this.grepQuery(input);
    if (target.kind === 'local') {
      if (named !== undefined) {
        throw ServiceError.invalid({
          ref_name: `${target.name} is a local workspace, searched as its working tree; ref_name applies to remote repositories`,
        });
      }
      const ref = await this.deps.git.run(['symbolic-ref', '--short', '-q', 'HEAD'], { cwd: target.dir }).catch(() => '');
      return {
        repo: target.name,
        ...(await this.deps.engine.search(target.dir, query)),
        ...(ref.trim() ? { ref: ref.trim() } : {}),
        ...(target.discovered ? DISCOVERED : {}),
      };
    }
    return this.deps.cache.withCheckout(target.locator, named ?? target.ref, async (checkout) => {
      const found = await this.deps.engine.search(checkout.dir, query);
      return { repo: target.name, ...found, ref: checkout.ref };
    });
  }

  async listRefs(input: ListRepositoryRefs.Request): Promise<ListRepositoryRefs.Response> {
    const target = await this.target(input.repository, input.workspace);
    if (target.kind === 'local') {
      const output = await this.deps.git.run(['for-each-ref', '--format=%(objectname)%09%(refname)', 'refs/heads', 'refs/tags'], {
        cwd: target.dir,
      });
      return { ...parseLsRemote(output), ...(target.discovered ? DISCOVERED : {}) };
    }
    const { locator } = target;
    let output: string;
    try {
      output = await this.deps.git.run(['ls-remote', '--heads', '--tags', locator.url], { timeoutMs: this.deps.lsRemoteTimeoutMs });
    } catch (error) {
      throw explainGitFailure(error, { locator, operation: 'list the refs of', timeoutMs: this.deps.lsRemoteTimeoutMs });
    }
    return parseLsRemote(output);
  }

  /**
   * The repository a git tool names: a `workspace` (resolved by the registry
   * with its rules and errors), a URL form (cloned; no registry needed), or
   * the id or name of a registered repository. `repository` and `workspace`
   * together must name the same one.
   */
  private async target(repository: string | undefined, workspace: string | undefined): Promise<Target> {
    if (workspace !== undefined) {
      const { repository: resolved, discovered } = await this.workspaceRepository(workspace, repository, 'repository');
      return { ...this.targetOf(resolved), discovered };
    }
    if (repository === undefined) throw ServiceError.invalid({ repository: 'required: a repository URL or name, or a workspace' });
    // Only what could be a registered name or id is looked up; anything else is refused as the locator it is not.
    if (looksLikeLocator(repository) || !REGISTERED_NAME.test(repository)) {
      const locator = parseRepository(repository, this.deps.policy);
      await this.mayUseUrl(repository);
      return { kind: 'remote', locator, name: repository };
    }
    const [registered] = await this.deps.registry.repositories([repository]);
    if (registered) {
      await this.mayRead(registered, repository);
      return this.targetOf(registered);
    }
    return { kind: 'remote', locator: this.unregistered(repository), name: repository };
  }

  /** A reference nobody registered: its locator, when it is one and the unregistered rule lets the caller use it. */
  private unregistered(reference: string): RepositoryLocator {
    let locator: RepositoryLocator;
    try {
      locator = parseRepository(reference, this.deps.policy);
    } catch {
      throw notARepository(reference);
    }
    this.mayUseUnregistered();
    return locator;
  }

  /**
   * A tool's `workspace`, resolved by the registry (with its rules and errors), when the caller may read it; a
   * repository named beside it (in `field`) must be the same one.
   */
  private async workspaceRepository(workspace: string, repository: string | undefined, field: string) {
    const resolved = await this.deps.registry.workspace(workspace);
    await this.mayRead(resolved.repository, workspace);
    if (repository !== undefined) {
      const [named] = await this.deps.registry.repositories([repository]);
      if (named?.id !== resolved.repository.id) {
        throw ServiceError.invalid({
          [field]: `"${repository}" is not the repository of workspace ${workspace} (${resolved.repository.name})`,
        });
      }
    }
    return resolved;
  }

  /** A registered repository the caller may not read answers like one nobody registered (`hidden`). */
  private async mayRead(repository: RegisteredRepository, reference: string): Promise<void> {
    const readable = await this.deps.readable.readable();
    if (readable && !readable.has(repository.id)) throw this.hidden(reference);
  }

  /**
   * A URL: for a caller who may not read everything, the URL of a registered
   * repository is that repository (its projects decide); any other, the
   * unregistered rule.
   */
  private async mayUseUrl(url: string): Promise<void> {
    if (await this.deps.readable.readable()) {
      const [registered] = await this.deps.registry.repositories([url]);
      if (registered) return this.mayRead(registered, url);
    }
    this.mayUseUnregistered();
  }

  /**
   * What a reference to a repository the caller may not read answers: what
   * it would answer if nobody had registered it. A name that is no locator
   * is "neither a URL nor a registered name"; a URL is first subject to the
   * unregistered rule, then answers as a remote that does not serve it (a
   * missing or private repository: GitHub's own answer to a stranger).
   */
  private hidden(reference: string): ServiceError {
    return repositoryNotFound(this.unregistered(reference));
  }

  /**
   * A directory of the server (`<CODEBASE_ROOT>/<repo>`, REPO_ROOT): one
   * that is a registered repository is that repository (its projects
   * decide, and one the caller may not read answers like a missing
   * directory); any other, the unregistered rule.
   */
  private async mayOpenDirectory(directory: string, repo: string): Promise<void> {
    const readable = await this.deps.readable.readable();
    if (readable) {
      const [registered] = await this.deps.registry.repositories([directory]);
      if (registered && readable.has(registered.id)) return;
      if (registered) {
        this.mayUseUnregistered();
        throw repositoryMissing(repo);
      }
    }
    this.mayUseUnregistered();
  }

  /** Unregistered repositories (URLs, CODEBASE_ROOT directories) are open to the callers SEXTANT_UNREGISTERED_ACCESS names. */
  private mayUseUnregistered(): void {
    const refusal = accessRefusal('A repository that is not registered', this.deps.unregistered, currentPrincipal() ?? LOCAL_PRINCIPAL);
    if (refusal) throw new ServiceError(refusal);
  }

  private targetOf(repository: RegisteredRepository): Target {
    if (repository.kind === 'local') return { kind: 'local', dir: repository.locator, name: repository.name };
    return {
      kind: 'remote',
      locator: parseRepository(repository.locator, this.deps.policy),
      ref: repository.ref ?? undefined,
      name: repository.name,
    };
  }

  searchRepositories(input: SearchRepositories.Request): Promise<SearchRepositories.Response> {
    return this.deps.github.search(input);
  }

  /**
   * A file of the repository `repo` (or `workspace`) names, as every other tool names it: a registered repository
   * (id, name, URL, workspace path) the caller may read — a workspace from its working tree, a remote one from its
   * clone at the commit its index reflects (or `ref`'s head) —, else a directory under CODEBASE_ROOT (every `repo`
   * means REPO_ROOT when that is set), else a repository URL, cloned.
   */
  async openFile(input: OpenFile.Request): Promise<OpenFile.Response> {
    const window = { path: input.path, startLine: input.startLine, endLine: input.endLine };
    if (this.deps.files.singleRepository) return this.openDirectory(input.repo ?? '', window);
    const repository = await this.registeredFile(input.repo, input.workspace);
    if (repository === undefined) {
      // Not a registered repository the caller may read: a directory of the server, or a URL.
      const repo = input.repo!;
      if (!looksLikeLocator(repo)) return this.openDirectory(repo, window);
      const locator = parseRepository(repo, this.deps.policy);
      await this.mayUseUrl(repo);
      return this.deps.cache.withCheckout(locator, input.ref === undefined ? undefined : checkRefName(input.ref), (checkout) =>
        this.deps.files.openIn(checkout.dir, { ...window, repo, commit: checkout.commit }),
      );
    }
    const target = this.targetOf(repository);
    if (target.kind === 'local') {
      if (input.ref !== undefined) {
        throw ServiceError.invalid({
          ref: `${target.name} is a local workspace, read as its working tree; ref applies to remote repositories`,
        });
      }
      return this.deps.files.open(target.dir, { ...window, repo: target.name, commit: null });
    }
    if (input.ref !== undefined) {
      return this.deps.cache.withCheckout(target.locator, checkRefName(input.ref), (checkout) =>
        this.deps.files.openIn(checkout.dir, { ...window, repo: repository.name, commit: checkout.commit }),
      );
    }
    const [freshness] = await this.deps.registry.freshness([repository.id]);
    const indexed = freshness?.indexed_commit ?? undefined;
    return this.deps.cache.withCheckout(target.locator, target.ref, async (checkout) => {
      const request = { ...window, repo: repository.name };
      if (indexed === undefined || indexed === checkout.commit)
        return this.deps.files.openIn(checkout.dir, { ...request, commit: checkout.commit });
      const blob = await this.blobAt(checkout.dir, indexed, input.path);
      // A commit the clone no longer has (the branch was rewritten): the file as the branch has it now, and its commit says so.
      if (blob === undefined) return this.deps.files.openIn(checkout.dir, { ...request, commit: checkout.commit });
      return this.deps.files.openBlob(blob, { ...request, commit: indexed });
    });
  }

  /** A directory of the server: `<CODEBASE_ROOT>/<repo>`, or REPO_ROOT. */
  private async openDirectory(repo: string, window: Pick<OpenFile.Request, 'path' | 'startLine' | 'endLine'>): Promise<OpenFile.Response> {
    const directory = this.deps.files.directoryOf(repo);
    await this.mayOpenDirectory(directory, repo);
    return this.deps.files.open(directory, { ...window, repo, commit: null });
  }

  /**
   * The registered repository `open_file` names, when the caller may read it: by `workspace` (with the rules and
   * errors of every tool's), or by any spelling the registry knows `repo` by. Undefined: none, or one the caller
   * may not read — which then answers as a directory or URL nobody registered would.
   */
  private async registeredFile(repo: string | undefined, workspace: string | undefined): Promise<RegisteredRepository | undefined> {
    if (workspace !== undefined) return (await this.workspaceRepository(workspace, repo, 'repo')).repository;
    // git-cache also runs without a registry (a URL or a CODEBASE_ROOT directory needs none): then nothing is registered.
    const [repository] = await this.deps.registry.repositories([repo!]).catch((error: unknown) => {
      if (error instanceof BusRequestError && error.error.code === 'unavailable') return [null];
      throw error;
    });
    const readable = repository ? await this.deps.readable.readable() : undefined;
    return repository && (!readable || readable.has(repository.id)) ? repository : undefined;
  }

  /**
   * The content of `path` at `commit` in the clone at `dir`, read from git's objects; undefined when the clone does
   * not have that commit and cannot fetch it. A shallow clone holds its branch's head only: an older commit (the
   * branch moved since it was indexed) is fetched alone, as git's protocol v2 allows. A path that is not a regular
   * file there (a directory, a symbolic link, a submodule) is refused.
   */
  private async blobAt(dir: string, commit: string, path: string): Promise<Buffer | undefined> {
    this.deps.files.checkPath(path);
    const clean = path.replace(/^(\.\/)+/, '');
    const list = () => this.deps.git.run(['ls-tree', '-z', commit, '--', clean], { cwd: dir }).catch(() => undefined);
    let listing = await list();
    if (listing === undefined) {
      // Two callers may fetch at once (one loses git's shallow lock): whichever fetched, the commit is then here.
      await this.deps.git
        .run(['fetch', '-q', '--no-tags', '--depth=1', 'origin', commit], { cwd: dir, timeoutMs: this.deps.lsRemoteTimeoutMs })
        .catch(() => undefined);
      listing = await list();
      if (listing === undefined) return undefined;
    }
    const entry = /^(\d+) (\w+) ([0-9a-f]+)\t/.exec(listing);
    if (!entry) throw ServiceError.of('not_found', `File "${path}" was not found at ${commit.slice(0, 12)}.`, { path });
    const [, mode, type, object] = entry;
    if (type !== 'blob' || mode === '120000') {
      const what = type === 'tree' ? 'a directory' : type === 'commit' ? 'a submodule' : 'a symbolic link';
      throw ServiceError.invalid({ path: `"${path}" is ${what} at ${commit.slice(0, 12)}; only regular files can be opened` });
    }
    return Buffer.from(await this.deps.git.run(['cat-file', 'blob', object], { cwd: dir }), 'utf8');
  }

  private grepQuery(input: GrepRepository.Request): GrepQuery {
    const fields: Record<string, string> = {};
    const extensions = (input.file_extensions ?? []).map((e) => e.replace(/^\*?\./, ''));
    extensions.forEach((ext, i) => {
      if (!EXTENSION.test(ext))
        fields[`file_extensions.${i}`] = `"${ext}" is not a file extension (letters, digits, _ + -; matched in any case)`;
    });
    const dirs = (input.exclude_dirs ?? []).map((d) => d.replace(/^\.\//, '').replace(/\/+$/, ''));
    dirs.forEach((dir, i) => {
      if (!DIRECTORY.test(dir) || dir.split('/').some((s) => s === '..' || s === '.') || dir.startsWith('-')) {
        fields[`exclude_dirs.${i}`] =
          `"${dir}" is not a plain relative directory path (no glob characters * ? [ ] { } ! \\, no "." or "..")`;
      }
    });
    if (Object.keys(fields).length > 0) throw ServiceError.invalid(fields);
    return {
      pattern: input.pattern,
      caseSensitive: input.case_sensitive,
      useRegex: input.use_regex,
      fileExtensions: extensions,
      excludeDirs: dirs,
      contextLines: input.context_lines,
      maxMatches: input.max_matches,
      timeoutMs: this.deps.grepTimeoutMs,
      maxResultBytes: this.deps.grepMaxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
    };
  }
}

/** A registered repository's id or name (`backend`, `github.com/o/r`): word characters, dots, dashes and slashes, no `..`. */
const REGISTERED_NAME = /^(?!-)(?!.*\.\.)[\p{L}\p{N}_.-]+(\/[\p{L}\p{N}_.-]+)*$/u;
