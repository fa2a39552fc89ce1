import type { GitRunner } from './git-runner.js';

/** How a file differs between two commits. */
export interface FileChange {
  path: string;
  status: 'added' | 'modified' | 'deleted';
}

const STATUS: Record<string, FileChange['status']> = { A: 'added', M: 'modified', T: 'modified', D: 'deleted' };

/**
 * The files that differ between commits `from` and `to` of the checkout in
 * `dir` (renames as a deletion and an addition, so an index drops the old
 * path). Undefined when git cannot tell — typically `from` is not in this
 * shallow clone any more — and the caller compares contents instead.
 */
export async function changedFiles(git: GitRunner, dir: string, from: string, to: string): Promise<FileChange[] | undefined> {
  let output: string;
  try {
    output = await git.run(['diff', '--name-status', '-z', '--no-renames', '--no-ext-diff', '--no-textconv', from, to, '--'], {
      cwd: dir,
    });
  } catch {
    return undefined;
  }
  const fields = output.split('\0');
  const changes: FileChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const status = STATUS[fields[i].charAt(0)];
    if (status) changes.push({ path: fields[i + 1], status });
  }
  return changes;
}
