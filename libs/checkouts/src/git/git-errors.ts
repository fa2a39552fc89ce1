import { ServiceError } from '@sextant/messaging';
import type { RepositoryLocator } from '../repository/locator.js';
import { GitError } from './git-runner.js';

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
      return ServiceError.of('not_found', `Repository ${what} was not found (or it is private and the server has no access to it).`);
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
    default:
      return ServiceError.of('api_error', `git ${operation} of ${what} failed: ${error.message}`);
  }
}
