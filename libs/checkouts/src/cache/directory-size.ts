import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Bytes on disk under `dir` (allocated blocks, symlinks not followed). */
export async function directorySize(dir: string): Promise<number> {
  let total = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop()!;
    const names = await readdir(current).catch(() => [] as string[]);
    const infos = await Promise.all(
      names.map((n) =>
        lstat(join(current, n)).then(
          (s) => ({ n, s }),
          () => undefined,
        ),
      ),
    );
    for (const info of infos) {
      if (!info) continue;
      total += info.s.blocks * 512;
      if (info.s.isDirectory()) pending.push(join(current, info.n));
    }
  }
  return total;
}
