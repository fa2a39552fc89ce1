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

/** The git tools do not resolve workspaces yet: the field is accepted by the schema (every tool takes it) and refused by the service. */
export const GitWorkspace = Workspace.describe('Not taken by the git tools yet: a value is refused; name the repository instead.');

/** `https://github.com/o/r`, `git@github.com:o/r.git`, `github:o/r`, an allowed git URL, or a registered repository name. */
export const RepositoryLocator = text(1, 1024).describe(
  'Repository: https://github.com/{owner}/{repo}, git@github.com:{owner}/{repo}.git, github:{owner}/{repo}, ' +
    'an https/git URL on a host in GIT_ALLOWED_HOSTS, or the name of a registered repository.',
);
