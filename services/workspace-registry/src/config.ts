import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import {
  type CommonSettings,
  ConfigError,
  dataDir,
  env,
  type IndexerSettings,
  IndexingServiceEnv,
  indexingServiceSettings,
  parseEnv,
} from '@sextant/runtime';

const list = (separator: RegExp) =>
  z.string().transform((v) =>
    v
      .split(separator)
      .map((s) => s.trim())
      .filter(Boolean),
  );

/** Every environment variable of the workspace-registry service (described here; docs/configuration.md is generated: `npm run docs`). */
export const WorkspaceRegistryEnv = IndexingServiceEnv.extend({
  SEXTANT_WORKSPACE: z.string().min(1).optional().meta({
    description: 'the default workspace (a git repository) of tools that name none; `--workspace DIR` of `npm start` sets it',
    default: 'the working directory when it is a git repository',
  }),
  SEXTANT_ALLOWED_ROOTS: list(/[,:]/).optional().meta({
    description:
      'directories (comma-separated) under which an unknown `workspace` is registered on first use; `--allowed-root DIR` sets it',
    default: 'unset: unknown workspaces are `workspace_not_registered`',
  }),
  SEXTANT_AUTO_WORKSPACES_MAX: env
    .int(1, 10_000)
    .default(10)
    .describe('auto-discovered workspaces kept; past it the least recently used idle one is removed, else `workspace_limit_exceeded`'),
  SEXTANT_CHECKOUTS_DIR: z.string().min(1).optional().meta({
    description: 'persistent clones of the remote repositories it indexes (kept across restarts; no size cap or eviction yet)',
    default: '`<SEXTANT_DATA_DIR>/checkouts`',
  }),
  // The default installation's stages; `none`: Discovery and Finalizing only.
  SEXTANT_INDEXING_STAGES: list(/,/)
    .transform((stages) => (stages.length === 1 && stages[0] === 'none' ? [] : stages))
    .default(['symbols', 'vectors'])
    .meta({
      description:
        "indexing stages a job waits for after Discovery, in order (`symbols`: symbol-indexer; `vectors`: vector-search; `precise`: symbol-indexer's scip-typescript and scip-python runs, after `symbols`, not in the default); `none`: Discovery and Finalizing only",
      details: 'a stage no running service serves holds every job until it fails after `SEXTANT_STAGE_STALL_MS` without progress.',
    }),
  SEXTANT_STAGE_STALL_MS: env
    .int(100, 24 * 3_600_000)
    .default(300_000)
    .describe("a job whose current stage finishes no batch for this long fails, naming the stage (is the stage's service running?)"),
  SEXTANT_JOBS_AT_ONCE: env.int(1, 64).default(1).meta({
    description: 'indexing jobs this service runs at once, each for another repository',
    details:
      "a job of a small repository spends most of its time waiting (clones, the stages' batches), so onboarding many runs faster with a few at once ([ADR 0054](adr/0054-org-scale.md)); replicas each run as many.",
  }),
  SEXTANT_PROGRESS_INTERVAL_MS: env.int(50, 60_000).default(250).describe("a job's progress is written at most this often"),
  SEXTANT_HEAD_CACHE_MS: env
    .int(100, 24 * 3_600_000)
    .default(60_000)
    .meta({
      description:
        "the branch heads of indexed repositories (`behind_head` of `list_repositories` and of answers' freshness) are read in the background, a round this long after the last one ended",
      details:
        'a round costs one `git ls-remote` per remote repository (a `git rev-parse` per local one), 4 at a time; requests read what the last round found and never run git.',
    }),
  INDEX_BATCH_FILES: env.int(1, 100_000).default(200).describe('changed files per batch handed to an indexing stage'),
  SEXTANT_WATCH_MAX_DIRECTORIES: env.int(0, 1_000_000).default(20_000).meta({
    description: 'a local workspace with at most this many directories is watched, so a sync looks only at what changed; `0`: no watching',
    details:
      'one inotify watch per directory (`fs.inotify.max_user_watches`); turn watching off for, e.g., a workspace on a network file system changed from other machines ([ADR 0041](adr/0041-watched-workspaces.md)).',
  }),
  SEXTANT_WATCH_SYNC_MS: env
    .int(0, 3_600_000)
    .default(2_000)
    .describe('a watched workspace syncs itself this long after its last edit; `0`: only when a tool asks (`sync_repo`)'),
});

export interface WorkspaceRegistryConfig extends CommonSettings, IndexerSettings {
  database: { url: string | undefined; poolSize: number; connectTimeoutMs: number };
  /** The workspace used when a tool names none: SEXTANT_WORKSPACE (or --workspace), else the working directory when it is a git repository. */
  defaultWorkspace: string | undefined;
  /** Roots under which unknown workspaces are registered on first use; empty: auto-discovery off. */
  allowedRoots: string[];
  autoWorkspacesMax: number;
  /** Persistent clones of remote repositories (kept across restarts). */
  checkoutsDir: string;
  /** Indexing stages a job waits for after Discovery (`symbols`, `vectors`), in order. */
  stages: string[];
  progressIntervalMs: number;
  /** A job whose stage finishes no batch for this long fails (SEXTANT_STAGE_STALL_MS). */
  stageStallMs: number;
  /** Indexing jobs run at once (SEXTANT_JOBS_AT_ONCE). */
  jobsAtOnce: number;
  /** Branch heads are read in the background, a round this long after the last one ended. */
  headCacheMs: number;
  batchFiles: number;
  /** Local workspaces with at most this many directories are watched, so a sync looks only at what changed; 0: none. */
  watchMaxDirectories: number;
  /** A watched workspace syncs itself this long after its last edit; 0: only when a tool asks (sync_repo). */
  watchSyncMs: number;
}

export function loadConfig(environment: NodeJS.ProcessEnv, cwd: string = process.cwd()): WorkspaceRegistryConfig {
  const e = parseEnv(WorkspaceRegistryEnv, environment);
  const defaultWorkspace = e.SEXTANT_WORKSPACE ? resolve(e.SEXTANT_WORKSPACE) : repositoryRootOf(cwd);
  // Roots are compared after realpath, as workspaces are; one that does not exist is a mistake to report now.
  const missing: Record<string, string> = {};
  const allowedRoots = (e.SEXTANT_ALLOWED_ROOTS ?? []).flatMap((root) => {
    try {
      return [realpathSync(resolve(root))];
    } catch {
      missing.SEXTANT_ALLOWED_ROOTS = `is invalid: "${root}" does not exist`;
      return [];
    }
  });
  if (Object.keys(missing).length > 0) throw new ConfigError(missing);
  return {
    ...indexingServiceSettings(e, environment),
    defaultWorkspace,
    allowedRoots,
    autoWorkspacesMax: e.SEXTANT_AUTO_WORKSPACES_MAX,
    checkoutsDir: resolve(e.SEXTANT_CHECKOUTS_DIR ?? join(dataDir(e.SEXTANT_DATA_DIR, environment), 'checkouts')),
    stages: e.SEXTANT_INDEXING_STAGES,
    progressIntervalMs: e.SEXTANT_PROGRESS_INTERVAL_MS,
    stageStallMs: e.SEXTANT_STAGE_STALL_MS,
    jobsAtOnce: e.SEXTANT_JOBS_AT_ONCE,
    headCacheMs: e.SEXTANT_HEAD_CACHE_MS,
    batchFiles: e.INDEX_BATCH_FILES,
    watchMaxDirectories: e.SEXTANT_WATCH_MAX_DIRECTORIES,
    watchSyncMs: e.SEXTANT_WATCH_SYNC_MS,
  };
}

/** The git repository `dir` is in (the nearest ancestor, itself included, holding `.git`), if any: the working directory's default workspace. */
export function repositoryRootOf(dir: string): string | undefined {
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return at;
    if (dirname(at) === at) return undefined;
  }
}
