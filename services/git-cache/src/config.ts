import { join, resolve } from 'node:path';
import { z } from 'zod';
import { CommonEnv, commonSettings, DataDirEnv, dataDir, env, parseEnv, type CommonSettings } from '@sextant/runtime';

const HOUR = 3_600_000;

/** Every environment variable of the git-cache service (documented in the README table). */
export const GitCacheEnv = CommonEnv.extend(DataDirEnv.shape).extend({
  GIT_CACHE_DIR: z.string().min(1).optional(),
  GIT_CACHE_MAX_BYTES: env.int(1_000_000, Number.MAX_SAFE_INTEGER).default(10 * 1024 ** 3),
  GIT_CACHE_REFRESH_AFTER_MS: env.int(0, 365 * 24 * HOUR).default(24 * HOUR),
  GIT_CACHE_EVICT_AFTER_MS: env.int(60_000, 365 * 24 * HOUR).default(7 * 24 * HOUR),
  GIT_CLONE_TIMEOUT_MS: env.int(1_000, 3_600_000).default(120_000),
  GIT_ALLOWED_HOSTS: env.hosts().default(['github.com']),
  GIT_ALLOW_FILE_URLS: env.bool().default(false),
  GIT_CASE_INSENSITIVE_HOSTS: env.hosts().default([]),
  GREP_ENGINE: z.enum(['auto', 'ripgrep', 'git-grep']).default('auto'),
  GREP_TIMEOUT_MS: env.int(100, 600_000).default(10_000),
  // Below NATS's default max_payload (1 MiB), which every answer must fit in.
  GREP_MAX_RESULT_BYTES: env.int(16 * 1024, 64 * 1024 ** 2).default(768 * 1024),
  GITHUB_API_URL: env.url(['https', 'http']).default('https://api.github.com'),
  GITCODE_MCP_GITHUB_TOKEN: z.string().min(1).optional(),
  GITHUB_TIMEOUT_MS: env.int(100, 120_000).default(10_000),
  GITHUB_RETRIES: env.int(0, 10).default(3),
  GITHUB_MAX_RESULT_BYTES: env.int(16 * 1024, 64 * 1024 ** 2).default(768 * 1024),
  CODEBASE_ROOT: z.string().min(1).optional(),
  REPO_ROOT: z.string().min(1).optional(),
  OPEN_FILE_MAX_LINES: env.int(1, 1_000_000).default(2_000),
  OPEN_FILE_MAX_BYTES: env.int(1_024, 64 * 1024 ** 2).default(64 * 1024),
  SEXTANT_UNREGISTERED_ACCESS: z.enum(['read', 'maintain', 'admin']).default('read'),
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
