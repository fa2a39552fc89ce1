import { join, resolve } from 'node:path';
import { z } from 'zod';
import { CommonEnv, commonSettings, DataDirEnv, dataDir, env, parseEnv, type CommonSettings } from '@sextant/runtime';

const HOUR = 3_600_000;

/** Every environment variable of the git-cache service (described here: `npm run docs` writes docs/configuration.md from it). */
export const GitCacheEnv = CommonEnv.extend(DataDirEnv.shape).extend({
  GIT_CACHE_DIR: z.string().min(1).optional().meta({ description: 'clone cache root', default: '`<SEXTANT_DATA_DIR>/git-cache`' }),
  GIT_CACHE_MAX_BYTES: env
    .int(1_000_000, Number.MAX_SAFE_INTEGER)
    .default(10 * 1024 ** 3)
    .describe("total size of this process's clones; least-recently-used clones are evicted past it"),
  GIT_CACHE_REFRESH_AFTER_MS: env
    .int(0, 365 * 24 * HOUR)
    .default(24 * HOUR)
    .describe('a branch checkout older than this is fetched again (tags never are)'),
  GIT_CACHE_EVICT_AFTER_MS: env
    .int(60_000, 365 * 24 * HOUR)
    .default(7 * 24 * HOUR)
    .describe('clones unused this long are deleted'),
  GIT_CLONE_TIMEOUT_MS: env.int(1_000, 3_600_000).default(120_000),
  GIT_ALLOWED_HOSTS: env.hosts().default(['github.com']),
  GIT_ALLOW_FILE_URLS: env.bool().default(false),
  GIT_CASE_INSENSITIVE_HOSTS: env.hosts().default([]),
  GREP_ENGINE: z
    .enum(['auto', 'ripgrep', 'git-grep'])
    .default('auto')
    .describe('`auto` (ripgrep from `@vscode/ripgrep` or `rg` on PATH, else `git grep`), `ripgrep`, `git-grep`'),
  GREP_TIMEOUT_MS: env.int(100, 600_000).default(10_000).describe('budget of one grep; past it → `timeout`'),
  // Below NATS's default max_payload (1 MiB), which every answer must fit in.
  GREP_MAX_RESULT_BYTES: env
    .int(16 * 1024, 64 * 1024 ** 2)
    .default(768 * 1024)
    .describe(
      'size budget of one grep answer; past it the answer is cut (`truncated: true`, a note says why); keep it under NATS `max_payload`',
    ),
  GITHUB_API_URL: env
    .url(['https', 'http'])
    .default('https://api.github.com')
    .describe('GitHub REST base URL (GitHub Enterprise: `https://host/api/v3`)'),
  GITCODE_MCP_GITHUB_TOKEN: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'GitHub token for `search_repositories`; never logged', default: 'unset (unauthenticated)' }),
  GITHUB_TIMEOUT_MS: env.int(100, 120_000).default(10_000).describe('per-attempt timeout of GitHub calls'),
  GITHUB_RETRIES: env.int(0, 10).default(3).describe('retries of GitHub calls (exponential backoff)'),
  GITHUB_MAX_RESULT_BYTES: env
    .int(16 * 1024, 64 * 1024 ** 2)
    .default(768 * 1024)
    .describe(
      'size budget of one `search_repositories` answer; past it repositories are left out (`truncated: true`); keep it under NATS `max_payload`',
    ),
  CODEBASE_ROOT: z
    .string()
    .min(1)
    .optional()
    .meta({
      description:
        "directory with one checkout per repository: `open_file`'s `repo` may name one of its directories (registered repositories, workspaces and URLs are read from where Sextant keeps them)",
      default: 'the clone cache',
    }),
  REPO_ROOT: z.string().min(1).optional().describe('single-repository mode: `open_file` reads from this directory whatever `repo` says'),
  OPEN_FILE_MAX_LINES: env
    .int(1, 1_000_000)
    .default(2_000)
    .describe('cap on the lines one `open_file` returns (past it `truncated: true`, and `next` names the range to ask for next)'),
  OPEN_FILE_MAX_BYTES: env
    .int(1_024, 64 * 1024 ** 2)
    .default(64 * 1024)
    .meta({
      description: 'the same for its bytes; keep it under NATS `max_payload`',
      details:
        "512 KiB until issue 39: one answer was ~130k tokens of an agent's context ([ADR 0011](adr/0011-bounded-answers-and-direct-tool-calls.md)).",
    }),
  SEXTANT_UNREGISTERED_ACCESS: z
    .enum(['read', 'maintain', 'admin'])
    .default('read')
    .meta({
      description:
        'who may use `grep_repository`, `list_repository_refs` and `open_file` on repositories that are not registered: `read` (any caller), `maintain` or `admin`',
      details:
        'unregistered repositories are URLs and `CODEBASE_ROOT` directories; a registered repository, by any name or URL, follows its projects ([ADR 0031](adr/0031-tool-access-and-project-roles.md)).',
    }),
});

export interface GitCacheConfig extends CommonSettings {
  cache: { root: string; maxBytes: number; refreshAfterMs: number; evictAfterMs: number; cloneTimeoutMs: number };
  allowedHosts: string[];
  allowFileUrls: boolean;
  /** Hosts besides github.com whose owner and repository names are case-insensitive (ADR 0044). */
  caseInsensitiveHosts: string[];
  grep: { engine: 'auto' | 'ripgrep' | 'git-grep'; timeoutMs: number; maxResultBytes: number };
  github: { apiUrl: string; token: string | undefined; timeoutMs: number; retries: number; maxResultBytes: number };
  files: { codebaseRoot: string; repoRoot: string | undefined; maxLines: number; maxBytes: number };
  /** PATH and HOME handed to git and ripgrep (their environment is otherwise built from scratch). */
  childEnv: { PATH: string | undefined; HOME: string | undefined };
  /** Who may use the git tools on unregistered repositories: any caller (`read`), maintainers, or admins. */
  unregisteredAccess: 'read' | 'maintain' | 'admin';
}

export function loadConfig(environment: NodeJS.ProcessEnv): GitCacheConfig {
  const e = parseEnv(GitCacheEnv, environment);
  const cacheRoot = resolve(e.GIT_CACHE_DIR ?? join(dataDir(e.SEXTANT_DATA_DIR, environment), 'git-cache'));
  return {
    ...commonSettings(e),
    cache: {
      root: cacheRoot,
      maxBytes: e.GIT_CACHE_MAX_BYTES,
      refreshAfterMs: e.GIT_CACHE_REFRESH_AFTER_MS,
      evictAfterMs: e.GIT_CACHE_EVICT_AFTER_MS,
      cloneTimeoutMs: e.GIT_CLONE_TIMEOUT_MS,
    },
    allowedHosts: e.GIT_ALLOWED_HOSTS,
    allowFileUrls: e.GIT_ALLOW_FILE_URLS,
    caseInsensitiveHosts: e.GIT_CASE_INSENSITIVE_HOSTS,
    grep: { engine: e.GREP_ENGINE, timeoutMs: e.GREP_TIMEOUT_MS, maxResultBytes: e.GREP_MAX_RESULT_BYTES },
    github: {
      apiUrl: e.GITHUB_API_URL.replace(/\/+$/, ''),
      token: e.GITCODE_MCP_GITHUB_TOKEN,
      timeoutMs: e.GITHUB_TIMEOUT_MS,
      retries: e.GITHUB_RETRIES,
      maxResultBytes: e.GITHUB_MAX_RESULT_BYTES,
    },
    files: {
      codebaseRoot: resolve(e.CODEBASE_ROOT ?? cacheRoot),
      repoRoot: e.REPO_ROOT ? resolve(e.REPO_ROOT) : undefined,
      maxLines: e.OPEN_FILE_MAX_LINES,
      maxBytes: e.OPEN_FILE_MAX_BYTES,
    },
    childEnv: { PATH: environment.PATH, HOME: environment.HOME },
    unregisteredAccess: e.SEXTANT_UNREGISTERED_ACCESS,
  };
}
