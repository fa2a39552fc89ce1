/**
 * The retrieval evaluation sets of ../shared/eval/retrieval (six real repositories, four languages; their README
 * says how the release check measures): each set's queries are commit subjects, its truth the non-test source files
 * the commit changed. This module reads a set, measures search_code on it the way the release check does, and
 * computes the set's floor, plain whole-file BM25, as an oracle that is not Sextant's code.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { ToolCaller } from '@sextant/testing';

export const SETS = ['fastify', 'hono', 'requests', 'click', 'chi', 'echo'] as const;

/** The extensions a set's files are ranked among (its README's table). */
const EXTENSIONS: Record<(typeof SETS)[number], readonly string[]> = {
  fastify: ['js'],
  hono: ['ts', 'tsx'],
  requests: ['py'],
  click: ['py'],
  chi: ['go'],
  echo: ['go'],
};

export interface RetrievalQuery {
  query: string;
  files: string[];
  /** The query spells a truth file's base name (an easy case). */
  names_file: boolean;
}

export interface RetrievalSet {
  name: (typeof SETS)[number];
  /** The fetched repository at the set's snapshot (a fresh git repository of `git archive <snapshot>`). */
  dir: string;
  extensions: readonly string[];
  queries: RetrievalQuery[];
}

export interface Scores {
  recall: number;
  mrr: number;
}

/**
 * The sets whose repositories are in `root` (`<root>/<set>`, as the sets' README says to prepare them), read from
 * `setsDir`; the names of the missing ones.
 */
export function loadSets(setsDir: string, root: string): { sets: RetrievalSet[]; missing: string[] } {
  const sets: RetrievalSet[] = [];
  const missing: string[] = [];
  for (const name of SETS) {
    const dir = join(root, name);
    if (!existsSync(join(dir, '.git'))) {
      missing.push(name);
      continue;
    }
    const data = JSON.parse(readFileSync(join(setsDir, `${name}.json`), 'utf8')) as { queries: RetrievalQuery[] };
    sets.push({ name, dir, extensions: EXTENSIONS[name], queries: data.queries });
  }
  return { sets, missing };
}

/**
 * R@10 and MRR of ranked file lists against each query's truth, averaged over `queries`. The release check cuts
 * search_code's files at 10 for both; the sets' floors count MRR over BM25's whole ranking (`mrrAt: Infinity`),
 * which is how their README's figures come out.
 */
export function score(queries: readonly RetrievalQuery[], ranked: ReadonlyArray<readonly string[]>, mrrAt = 10): Scores {
  let recall = 0;
  let mrr = 0;
  queries.forEach((q, i) => {
    const top = ranked[i].slice(0, 10);
    const truth = new Set(q.files);
    recall += top.filter((f) => truth.has(f)).length / truth.size;
    const first = ranked[i].slice(0, mrrAt).findIndex((f) => truth.has(f));
    mrr += first < 0 ? 0 : 1 / (first + 1);
  });
  return { recall: recall / queries.length, mrr: mrr / queries.length };
}

/**
 * search_code's files for each query, as the release check ranks them: topK 30, files in the order of their first
 * chunk, only those with one of the set's extensions. With `all`, the scope is every repository indexed (the other
 * sets too), and the set's own files are kept.
 */
export async function searchRanking(call: ToolCaller, set: RetrievalSet, repo: string, mode: string, all = false): Promise<string[][]> {
  const ranked: string[][] = [];
  for (const q of set.queries) {
    const found = await call<{ results: Array<{ repo: string; path: string }> }>('search_code', {
      query: q.query,
      scope: all ? { type: 'all' } : { type: 'repo', repo },
      mode,
      topK: 30,
    });
    if (found.isError) throw new Error(`search_code ${JSON.stringify(q.query)}: ${JSON.stringify(found.body)}`);
    const paths = found.body.results.filter((r) => r.repo === repo).map((r) => r.path);
    ranked.push([...new Set(paths)].filter((p) => set.extensions.includes(extname(p).slice(1))));
  }
  return ranked;
}

/**
 * The floor: BM25 (k1 1.2, b 0.75) over whole files, tokens being lowercase alphanumeric runs (no identifier
 * splitting, no stemming), ranking every file with one of the set's extensions, tests included.
 */
export function bm25Ranking(set: RetrievalSet): string[][] {
  const paths = execFileSync('git', ['ls-files'], { cwd: set.dir, maxBuffer: 1 << 28 })
    .toString()
    .split('\n')
    .filter((p) => p && set.extensions.includes(extname(p).slice(1)));
  const tokens = (text: string) => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const docs = paths.map((path) => {
    const counts = new Map<string, number>();
    const words = tokens(readFileSync(join(set.dir, path), 'utf8'));
    for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
    return { path, counts, length: words.length };
  });
  const df = new Map<string, number>();
  for (const d of docs) for (const w of d.counts.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const avg = docs.reduce((s, d) => s + d.length, 0) / docs.length;
  const [k1, b] = [1.2, 0.75];
  return set.queries.map((q) => {
    const terms = [...new Set(tokens(q.query))];
    return docs
      .map((d) => {
        let s = 0;
        for (const t of terms) {
          const tf = d.counts.get(t) ?? 0;
          if (tf === 0) continue;
          const n = df.get(t)!;
          const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
          s += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * d.length) / avg));
        }
        return { path: d.path, s };
      })
      .filter((r) => r.s > 0)
      .sort((x, y) => y.s - x.s || x.path.localeCompare(y.path))
      .map((r) => r.path);
  });
}
