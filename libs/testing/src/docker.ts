import { execFile, spawnSync } from 'node:child_process';
import { chownSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoPath } from './paths.js';

/**
 * The Docker client: Debian's (/usr/bin/docker, which builds with BuildKit without a buildx plugin) where present,
 * else `docker` on PATH.
 */
export const DOCKER = existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker';

/** Gives a directory tree to the image's user (uid and gid 1000): git in a container refuses a repository another user owns. */
export function giveToImageUser(path: string): void {
  chownSync(path, 1000, 1000);
  if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) giveToImageUser(join(path, entry));
}

/** Why no container engine answers (undefined when one does): tests that need one say this and fail in CI. */
export function engineMissing(): string | undefined {
  const info = spawnSync(DOCKER, ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 10_000 });
  if (info.status === 0) return undefined;
  return `no container engine answers (${(info.stderr || info.error?.message || 'docker info failed').trim().split('\n')[0]}); start one with deploy/offline/engine.sh start`;
}

const run = promisify(execFile);

/** Runs the Docker client; resolves with its stdout, rejects with its stderr in the message. */
export async function docker(args: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<string> {
  try {
    const { stdout } = await run(DOCKER, args, {
      env: { ...process.env, ...options.env },
      timeout: options.timeoutMs ?? 120_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const failed = error as Error & { stderr?: string; stdout?: string };
    throw new Error(`docker ${args.join(' ')}: ${failed.stderr?.trim() || failed.message}`.slice(0, 4_000));
  }
}

/**
 * The base deploy/Dockerfile builds on: `SEXTANT_NODE_IMAGE`, else the local one deploy/offline/engine.sh builds
 * where nothing can be pulled, else undefined (the Dockerfile's pinned default).
 */
export async function nodeImage(): Promise<string | undefined> {
  if (process.env.SEXTANT_NODE_IMAGE) return process.env.SEXTANT_NODE_IMAGE;
  return (await docker(['image', 'inspect', 'sextant-local/node:22']).then(
    () => true,
    () => false,
  ))
    ? 'sextant-local/node:22'
    : undefined;
}

/** Builds deploy/Dockerfile as `tag` (BuildKit unless `classic`); returns the build's wall time in ms. */
export async function buildImage(tag: string, options: { classic?: boolean; buildArgs?: Record<string, string> } = {}): Promise<number> {
  const base = await nodeImage();
  const args = { ...(base ? { NODE_IMAGE: base } : {}), ...options.buildArgs };
  const started = performance.now();
  await docker(
    [
      'build',
      '-q',
      '-f',
      repoPath('deploy/Dockerfile'),
      ...Object.entries(args).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]),
      '-t',
      tag,
      repoPath('.'),
    ],
    { env: { DOCKER_BUILDKIT: options.classic ? '0' : '1' }, timeoutMs: 900_000 },
  );
  return performance.now() - started;
}
