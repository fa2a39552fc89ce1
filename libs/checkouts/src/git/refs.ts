/** Branches and tags of `git ls-remote --heads --tags` output, sorted; peeled tag lines (`^{}`) are left out. */
export function parseLsRemote(output: string): { branches: string[]; tags: string[] } {
  const branches: string[] = [];
  const tags: string[] = [];
  for (const line of output.split('\n')) {
    const name = line.split('\t')[1];
    if (!name || name.endsWith('^{}')) continue;
    if (name.startsWith('refs/heads/')) branches.push(name.slice('refs/heads/'.length));
    else if (name.startsWith('refs/tags/')) tags.push(name.slice('refs/tags/'.length));
  }
  return { branches: branches.sort(), tags: tags.sort() };
}

/**
 * The `limit` names closest to `wanted`, for "did you mean" messages: by edit
 * distance, ignoring case, with names that contain `wanted` (or that it
 * contains) first. Names further than half their length away are left out.
 */
export function closestNames(wanted: string, names: readonly string[], limit = 5): string[] {
  const target = wanted.toLowerCase();
  return names
    .map((name) => {
      const lower = name.toLowerCase();
      const related = lower.includes(target) || target.includes(lower);
      return { name, related, distance: editDistance(target, lower) };
    })
    .filter((c) => c.related || c.distance <= Math.max(2, Math.floor(Math.max(c.name.length, target.length) / 2)))
    .sort((a, b) => Number(b.related) - Number(a.related) || a.distance - b.distance || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map((c) => c.name);
}

/** Levenshtein distance, two rows. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
