import { fileURLToPath } from 'node:url';

/** Absolute path of a file in the repository (`repoPath('services/projects/dist/main.js')`). */
export function repoPath(relative: string): string {
  return fileURLToPath(new URL(`../../../${relative}`, import.meta.url));
}
