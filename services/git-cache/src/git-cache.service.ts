import type { GrepRepository, ListRepositoryRefs, OpenFile, SearchRepositories } from '@sextant/contracts';
import { ServiceError } from '@sextant/messaging';
import type { FileReader } from './files/file-reader.js';
import type { GitHubSearch } from './github/github-search.js';
import { DEFAULT_MAX_RESULT_BYTES, type GrepEngine, type GrepQuery } from './grep/collector.js';
import {
  type CloneCache,
  explainGitFailure,
  type GitRunner,
  parseLsRemote,
  checkRefName,
  parseRepository,
  type LocatorPolicy,
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
}

const EXTENSION = /^[\p{L}\p{M}\p{N}_+-]{1,32}$/u;
/** A directory path: any printable names (any script) but glob syntax, which ripgrep and git would interpret. */
const DIRECTORY = /^[^\p{Cc}\p{Cf}*?[\]{}!\\/]+(\/[^\p{Cc}\p{Cf}*?[\]{}!\\/]+)*$/u;

/** The four git-cache tools, over the clone cache, a grep engine, git, GitHub search and the safe file reader. */
export class GitCacheService {
  constructor(private readonly deps: GitCacheServiceDeps) {}

  async grep(input: GrepRepository.Request): Promise<GrepRepository.Response> {
    refuseWorkspace(input.workspace);
    const locator = parseRepository(input.repository, this.deps.policy);
    // `HEAD` is the remote's default branch, as when no ref is named.
    const ref = input.ref_name === undefined || input.ref_name === 'HEAD' ? undefined : checkRefName(input.ref_name);
    const query = this.grepQuery(input);
    return this.deps.cache.withCheckout(locator, ref, async (checkout) => {
      const found = await this.deps.engine.search(checkout.dir, query);
      return { ...found, ref: checkout.ref };
    });
  }

  async listRefs(input: ListRepositoryRefs.Request): Promise<ListRepositoryRefs.Response> {
    refuseWorkspace(input.workspace);
    const locator = parseRepository(input.repository, this.deps.policy);
    let output: string;
    try {
      output = await this.deps.git.run(['ls-remote', '--heads', '--tags', locator.url], { timeoutMs: this.deps.lsRemoteTimeoutMs });
    } catch (error) {
      throw explainGitFailure(error, { locator, operation: 'list the refs of', timeoutMs: this.deps.lsRemoteTimeoutMs });
    }
    return parseLsRemote(output);
  }

  searchRepositories(input: SearchRepositories.Request): Promise<SearchRepositories.Response> {
    return this.deps.github.search(input);
  }

  /**
   * `repo` is a directory under CODEBASE_ROOT (or ignored under REPO_ROOT).
   * When it is a repository locator (`github:o/r`, a URL) and no REPO_ROOT is
   * set, the file is read from that repository's clone in the cache.
   */
  async openFile(input: OpenFile.Request): Promise<OpenFile.Response> {
    if (this.deps.files.singleRepository || !looksLikeLocator(input.repo)) return this.deps.files.open(input);
    const locator = parseRepository(input.repo, this.deps.policy);
    return this.deps.cache.withCheckout(locator, undefined, (checkout) => this.deps.files.openIn(checkout.dir, input));
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

/**
 * The git tools do not resolve workspaces through the registry yet: a
 * `workspace` is refused, never accepted and ignored.
 */
function refuseWorkspace(workspace: string | undefined): void {
  if (workspace === undefined) return;
  throw ServiceError.invalid({
    workspace: 'the git tools do not take a workspace yet; leave it out and name the repository (a URL or github:owner/repo)',
  });
}

function looksLikeLocator(repo: string): boolean {
  return /^(github:|git@|[a-z][a-z0-9+.-]*:\/\/)/i.test(repo);
}
