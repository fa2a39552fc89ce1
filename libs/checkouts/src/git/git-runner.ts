import { ServiceError, workBudgets } from '@sextant/work';
import { runToCompletion, type Spawner } from '../process/spawner.js';

/**
 * Runs git with arguments as an array (never through a shell), with a time
 * budget, and with every knob that could make downloaded content execute
 * turned off: no hooks, no fsmonitor, no system/global config, no prompts,
 * only the transports the service allows.
 */
export interface GitRunner {
  run(args: readonly string[], options?: { cwd?: string; timeoutMs?: number }): Promise<string>;
}

export type GitFailureKind = 'repository_not_found' | 'ref_not_found' | 'unreachable' | 'auth' | 'disk_full' | 'timeout' | 'other';

/** A failed git command, classified from its stderr so each failure gets its own message. */
export class GitError extends Error {
  constructor(
    readonly kind: GitFailureKind,
    readonly stderr: string,
    readonly args: readonly string[],
  ) {
    super(`git ${args[0] ?? ''} failed (${kind}): ${firstLine(stderr)}`);
    this.name = 'GitError';
  }
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.startsWith('fatal:') || l.startsWith('error:')) ??
    text.trim().split('\n')[0] ??
    ''
  ).slice(0, 300);
}

/** Reads git's (LC_ALL=C) stderr. Order matters: disk space and auth before the generic "not found". */
export function classifyGitFailure(stderr: string): GitFailureKind {
  const s = stderr.toLowerCase();
  if (s.includes('no space left on device') || s.includes('disk quota exceeded')) return 'disk_full';
  if (s.includes('remote branch') && s.includes('not found')) return 'ref_not_found';
  if (s.includes("couldn't find remote ref") || s.includes('invalid refspec')) return 'ref_not_found';
  if (s.includes('authentication failed') || s.includes('could not read username') || s.includes('permission denied') || s.includes(' 403'))
    return 'auth';
  if (
    s.includes('repository not found') ||
    s.includes('does not appear to be a git repository') ||
    s.includes('no such repository') ||
    (s.includes('repository') && s.includes('not found')) ||
    s.includes('not exported') ||
    s.includes('access denied')
  )
    return 'repository_not_found';
  if (
    s.includes('could not resolve host') ||
    s.includes('connection refused') ||
    s.includes('unable to connect') ||
    s.includes('failed to connect') ||
    s.includes('unable to access') ||
    s.includes('network is unreachable') ||
    s.includes('connection timed out') ||
    s.includes('the remote end hung up')
  )
    return 'unreachable';
  return 'other';
}

export interface GitRunnerOptions {
  /** Transports git may use (GIT_ALLOW_PROTOCOL). */
  protocols: readonly string[];
  defaultTimeoutMs: number;
  /** PATH and HOME for git; nothing else of the service's environment reaches it. */
  baseEnv: { PATH: string | undefined; HOME: string | undefined };
  spawner: Spawner;
}

const HARDENING = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'protocol.ext.allow=never',
  '-c',
  'advice.detachedHead=false',
  '-c',
  'credential.helper=',
  '-c',
  'core.symlinks=true',
  // A registered workspace may belong to another user (a volume mounted into the container, which runs as user 1000):
  // git's ownership check guards against a repository's config running commands, which the settings above already
  // turn off, so it would only refuse to read it.
  '-c',
  'safe.directory=*',
  // A fetch may start `git gc --auto`; detached, it would outlive the command's timeout and the entry's lock, and
  // still be writing under .git when the cache evicts the clone. In the foreground it is part of the fetch.
  '-c',
  'gc.autoDetach=false',
  '-c',
  'maintenance.autoDetach=false',
];

/** Commands that talk to a remote: they run under the process's `clones` budget. */
const REMOTE_COMMANDS = new Set(['clone', 'fetch', 'ls-remote']);

export class ProcessGitRunner implements GitRunner {
  private readonly env: NodeJS.ProcessEnv;

  constructor(private readonly options: GitRunnerOptions) {
    this.env = {
      ...options.baseEnv,
      LC_ALL: 'C',
      GIT_TERMINAL_PROMPT: '0',
      GIT_ASKPASS: 'false',
      SSH_ASKPASS: 'false',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_ALLOW_PROTOCOL: options.protocols.join(':'),
      GIT_PROTOCOL_FROM_USER: '0',
      GIT_LFS_SKIP_SMUDGE: '1',
    };
  }

  async run(args: readonly string[], options: { cwd?: string; timeoutMs?: number } = {}): Promise<string> {
    const request = { command: 'git', args: [...HARDENING, ...args], cwd: options.cwd, env: this.env };
    const result = await runToCompletion(this.options.spawner, request, {
      timeoutMs: options.timeoutMs ?? this.options.defaultTimeoutMs,
      budget: REMOTE_COMMANDS.has(args[0] ?? '') ? workBudgets.clones : undefined,
    }).catch((error: Error) => {
      if (error instanceof ServiceError) throw error; // its caller is gone
      throw new GitError('other', error.message, args);
    });
    if (result.timedOut) throw new GitError('timeout', result.stderr || 'killed after its time budget', args);
    if (result.code !== 0)
      throw new GitError(classifyGitFailure(result.stderr), result.stderr || `exit ${result.code ?? result.signal}`, args);
    return result.stdout;
  }
}
