import { z } from 'zod';
import { GitCacheEnv } from '@sextant/git-cache';
import { envDoc, type EnvDoc } from '@sextant/runtime';

/**
 * The descriptions of git-cache's own variables. They belong on its schema
 * (`.describe()`/`.meta()` in services/git-cache/src/config.ts, as every other
 * service has them); until they move there they are registered on that
 * schema from here, so the reference reads them the same way. Its `GIT_*`
 * variables shared with the indexing services take those descriptions (see
 * `configuration.ts`).
 */
const GIT_CACHE_DOCS: Partial<Record<keyof typeof GitCacheEnv.shape, EnvDoc>> = {
  GIT_CACHE_DIR: { description: 'clone cache root', default: '`<SEXTANT_DATA_DIR>/git-cache`' },
  GIT_CACHE_MAX_BYTES: { description: "total size of this process's clones; least-recently-used clones are evicted past it" },
  GIT_CACHE_REFRESH_AFTER_MS: { description: 'a branch checkout older than this is fetched again (tags never are)' },
  GIT_CACHE_EVICT_AFTER_MS: { description: 'clones unused this long are deleted' },
  GREP_ENGINE: { description: '`auto` (ripgrep from `@vscode/ripgrep` or `rg` on PATH, else `git grep`), `ripgrep`, `git-grep`' },
  GREP_TIMEOUT_MS: { description: 'budget of one grep; past it → `timeout`' },
  GREP_MAX_RESULT_BYTES: {
    description:
      'size budget of one grep answer; past it the answer is cut (`truncated: true`, a note says why); keep it under NATS `max_payload`',
  },
  GITHUB_API_URL: { description: 'GitHub REST base URL (GitHub Enterprise: `https://host/api/v3`)' },
  GITCODE_MCP_GITHUB_TOKEN: { description: 'GitHub token for `search_repositories`; never logged', default: 'unset (unauthenticated)' },
  GITHUB_TIMEOUT_MS: { description: 'per-attempt timeout of GitHub calls' },
  GITHUB_RETRIES: { description: 'retries of GitHub calls (exponential backoff)' },
  GITHUB_MAX_RESULT_BYTES: {
    description:
      'size budget of one `search_repositories` answer; past it repositories are left out (`truncated: true`); keep it under NATS `max_payload`',
  },
  CODEBASE_ROOT: {
    description:
      "directory with one checkout per repository: `open_file`'s `repo` may name one of its directories (registered repositories, workspaces and URLs are read from where Sextant keeps them)",
    default: 'the clone cache',
  },
  REPO_ROOT: { description: 'single-repository mode: `open_file` reads from this directory whatever `repo` says' },
  OPEN_FILE_MAX_LINES: {
    description: 'cap on the lines one `open_file` returns (past it `truncated: true`, and `next` names the range to ask for next)',
  },
  OPEN_FILE_MAX_BYTES: {
    description: 'the same for its bytes; keep it under NATS `max_payload`',
    details:
      "512 KiB until issue 39: one answer was ~130k tokens of an agent's context ([ADR 0011](adr/0011-bounded-answers-and-direct-tool-calls.md)).",
  },
  SEXTANT_UNREGISTERED_ACCESS: {
    description:
      'who may use `grep_repository`, `list_repository_refs` and `open_file` on repositories that are not registered: `read` (any caller), `maintain` or `admin`',
    details:
      'unregistered repositories are URLs and `CODEBASE_ROOT` directories; a registered repository, by any name or URL, follows its projects ([ADR 0031](adr/0031-tool-access-and-project-roles.md)).',
  },
};

/** Registers the descriptions above on git-cache's schema, where none is there yet (once it has its own, its own wins). */
export function describeGitCacheEnv(): void {
  for (const [name, doc] of Object.entries(GIT_CACHE_DOCS)) {
    const field = GitCacheEnv.shape[name as keyof typeof GitCacheEnv.shape] as z.ZodType;
    if (!envDoc(field)) z.globalRegistry.add(field, { ...doc });
  }
}
