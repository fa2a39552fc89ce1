export { parseRepository, localIdentity, looksLikeLocator, checkRefName, type LocatorPolicy, type RepositoryLocator } from './repository/locator.js';
export { GitError, ProcessGitRunner, classifyGitFailure, type GitFailureKind, type GitRunner } from './git/git-runner.js';
export { explainGitFailure, repositoryNotFound } from './git/git-errors.js';
export { closestNames, parseLsRemote } from './git/refs.js';
export { LauncherSpawner } from './process/launcher.js';
export {
  runToCompletion,
  spawnWithin,
  type BudgetedChild,
  type ExitStatus,
  type OutputHandlers,
  type RunningChild,
  type RunOptions,
  type RunResult,
  type SpawnRequest,
  type Spawner,
} from './process/spawner.js';
export { CloneCache, type Checkout, type CloneCacheOptions, type CloneCacheStats } from './cache/clone-cache.js';
export {
  atJobCommit,
  gitProtocols,
  persistentCheckouts,
  type PersistentCheckouts,
  type PinnedRepository,
} from './cache/persistent-checkouts.js';
export { changedFiles, type FileChange } from './git/changes.js';
export {
  newWalkStats,
  VENDORED_DIRECTORIES,
  walkFiles,
  type SkipReason,
  type SkippedFile,
  type WalkedFile,
  type WalkOptions,
  type WalkStats,
} from './files/walker.js';
export { directoriesOf, directoriesUnder, TreeWatcher, type WatchedChanges } from './files/tree-watcher.js';
export { languageOf } from './files/languages.js';
export { isBinary, readRegularFileSync, type NotRead } from './files/read-files.js';
