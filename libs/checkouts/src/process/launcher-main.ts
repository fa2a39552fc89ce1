/**
 * The launcher process (see launcher.ts): a small Node process that spawns
 * ripgrep and git for the git-cache service and relays their output over IPC.
 * It exits when its parent goes away, killing whatever it started.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { LauncherReply, LauncherRequest } from './launcher.js';

const children = new Map<number, ChildProcess>();
const send = (reply: LauncherReply) => process.send?.(reply);

process.on('message', (request: LauncherRequest) => {
  if (request.op === 'kill') {
    children.get(request.id)?.kill('SIGKILL');
    return;
  }
  const { id, command, args, cwd, env } = request;
  let child: ChildProcess;
  try {
    child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    send({ id, error: (error as Error).message, code: (error as NodeJS.ErrnoException).code });
    return;
  }
  children.set(id, child);
  child.stdout!.on('data', (chunk: Buffer) => send({ id, stdout: chunk }));
  child.stderr!.on('data', (chunk: Buffer) => send({ id, stderr: chunk }));
  child.once('error', (error: NodeJS.ErrnoException) => {
    children.delete(id);
    send({ id, error: error.message, code: error.code });
  });
  child.once('close', (code, signal) => {
    if (!children.delete(id)) return;
    send({ id, exit: { code, signal } });
  });
});

// Ctrl-C in a terminal signals the whole process group: the parent stops on it and then disconnects, which ends this
// process; dying at once instead failed the parent's calls in hand and raced its close (ERR_IPC_DISCONNECTED).
process.on('SIGINT', () => undefined);

process.on('disconnect', () => {
  for (const child of children.values()) child.kill('SIGKILL');
  process.exit(0);
});
