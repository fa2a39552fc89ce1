import { ServiceError } from '@sextant/work';
import type { RepositoryLocator } from '../repository/locator.js';
import { GitError } from './git-runner.js';

/** What a repository the remote does not serve answers, whether it does not exist or is private (and what a hidden one answers). */
export function repositoryNotFound(locator: RepositoryLocator): ServiceError {
  return ServiceError.of('not_found', `Repository ${locator.display} was not found (or it is private and the server has no access to it).`);
}

/** Turns a classified git failure into the tool error a client sees: each failure its own message, no stderr dump. */
export function explainGitFailure(
  error: unknown,
  context: { locator: RepositoryLocator; ref?: string | undefined; operation: string; timeoutMs: number },
): unknown {
  if (!(error instanceof GitError)) return error;
  const { locator, ref, operation } = context;
  const what = locator.display;
  switch (error.kind) {
    case 'repository_not_found':
      return repositoryNotFound(locator);
    case 'ref_not_found':
      return ServiceError.of('not_found', `Ref "${ref}" was not found in ${what}.`, {
        fields: { ref_name: 'not found' },
      });
    case 'auth':
      return ServiceError.of('forbidden', `Access to ${what} was denied by the remote.`);
    case 'unreachable':
      return ServiceError.of('unavailable', `Could not reach ${locator.host} to ${operation} ${what}.`);
    case 'timeout':
      return ServiceError.of(
        'timeout',
        `The ${operation} of ${what} took longer than ${Math.round(context.timeoutMs / 1000)} s and was stopped.`,
      );
    case 'disk_full':
      return error;
    case 'other':
    default:
      return ServiceError.of('api_error', `git ${operation} of ${what} failed: ${error.message}`);
  }
}
