import { text, Workspace } from '../common.js';

export const GIT_LIMITS = {
  maxMatchesDefault: 500,
  maxMatchesMax: 10_000,
  contextLinesMax: 20,
  patternMax: 1000,
  perPageDefault: 30,
  perPageMax: 100,
  openFileMaxLines: 2000,
  /** Largest line number a request may name. */
  lineMax: 1_000_000_000,
} as const;

/** A git tool's `workspace`: resolved by the registry (tools.md, "Workspaces"); it may stand for `repository`. */
export const GitWorkspace = Workspace.describe(
  'Absolute path of a registered workspace (or one auto-discovery may register): the repository to use when "repository" is left out; ' +
    'with "repository", both must name the same one. A local workspace is searched as its working tree.',
);

/** `https://github.com/o/r`, `git@github.com:o/r.git`, `github:o/r`, an allowed git URL, or a registered repository name. */
export const RepositoryLocator = text(1, 1024).describe(
  'Repository: https://github.com/{owner}/{repo}, git@github.com:{owner}/{repo}.git, github:{owner}/{repo}, ' +
    'an https/git URL on a host in GIT_ALLOWED_HOSTS, or the id or name of a registered repository (list_repositories). ' +
    'Required unless "workspace" is given.',
);
