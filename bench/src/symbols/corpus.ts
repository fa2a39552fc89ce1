/**
 * bench/symbols' corpus: the npm monorepo of bench/indexing with the machine's Go and Python sources beside it, as one
 * git repository (built once under SEXTANT_BENCH_CORPUS, default the temporary directory, then reused), and its
 * parseable files as the index holds them. Shared by bench:symbols and bench:symbol-storage.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { languageOf, VENDORED_DIRECTORIES } from '@sextant/checkouts';
import { parsedLanguages } from '@sextant/parsing';
import { git } from '@sextant/testing';
import { buildCorpus } from '../grep/corpus.js';
import { buildMonorepo } from '../indexing/monorepo.js';

/** The largest file the symbol indexer parses (its size cap in the bench). */
export const MAX_BYTES = 1024 * 1024;

export interface ParseableFile {
  path: string;
  language: string;
  bytes: number;
}

const vendored = new Set(VENDORED_DIRECTORIES);

/** Parseable files of the corpus, as the index holds them (vendored directories skipped): path, language, bytes. */
function parseable(dir: string): ParseableFile[] {
  const paths = execFileSync('git', ['ls-files', '-z'], { cwd: dir, maxBuffer: 1 << 28 })
    .toString()
    .split('\0')
    .filter(Boolean);
  const files: ParseableFile[] = [];
  for (const path of paths) {
    const language = languageOf(path);
    if (!language || !parsedLanguages().has(language)) continue;
    if (path.split('/').some((part) => vendored.has(part))) continue; // what the walker skips
    const bytes = readFileSync(join(dir, path)).length;
    if (bytes <= MAX_BYTES) files.push({ path, language, bytes });
  }
  return files;
}

/** Other languages' sources on this machine: the Go standard library (`go env GOROOT`), Python's and its installed packages (Debian's python3). */
function systemSources(): Array<{ name: string; dir: string }> {
  const found: Array<{ name: string; dir: string }> = [];
  try {
    const goroot = execFileSync('go', ['env', 'GOROOT']).toString().trim();
    if (existsSync(join(goroot, 'src'))) found.push({ name: 'go', dir: realpathSync(join(goroot, 'src')) });
  } catch {
    // No Go toolchain: the corpus has no Go.
  }
  try {
    // The standard library, then the packages Debian installed (site-packages directories that exist).
    const program = 'import site, sysconfig; print("\\n".join([sysconfig.get_paths()["stdlib"], *site.getsitepackages()]))';
    const [stdlib, ...packages] = execFileSync('/usr/bin/python3', ['-c', program]).toString().trim().split('\n');
    if (stdlib && existsSync(stdlib)) found.push({ name: 'python', dir: realpathSync(stdlib) });
    for (const [i, dir] of packages.filter((d) => existsSync(d)).entries())
      found.push({ name: `python-packages${i}`, dir: realpathSync(dir) });
  } catch {
    // No system Python: the corpus has no Python.
  }
  return found;
}

/** The npm monorepo with the system's other sources beside it, as one git repository (built once, then reused). */
function buildSymbolsRepository(corpusRoot: string, monorepo: string): { dir: string; files: number; languages: string[] } {
  const dir = join(corpusRoot, 'symbols', 'monorepo');
  const done = join(dir, '.sextant-symbols-complete');
  const sources = systemSources();
  const count = () =>
    execFileSync('git', ['ls-files', '-z'], { cwd: dir, maxBuffer: 1 << 28 })
      .toString()
      .split('\0').length - 1;
  const languages = ['npm', ...sources.map((s) => s.name)];
  if (existsSync(done) && readFileSync(done, 'utf8') === languages.join(',')) return { dir, files: count(), languages };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '--initial-branch=main');
  cpSync(monorepo, join(dir, 'npm'), { recursive: true, filter: (src) => !src.startsWith(join(monorepo, '.git')) });
  // Go's and Python's test data hold files that are not meant to parse (and some are not text): kept, as a real tree holds them.
  for (const source of sources) cpSync(source.dir, join(dir, source.name), { recursive: true, dereference: true });
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.name=bench', '-c', 'user.email=bench@sextant.invalid', 'commit', '-q', '-m', 'symbols corpus');
  writeFileSync(done, languages.join(','));
  return { dir, files: count(), languages };
}

/** The corpus, built if need be: its directory, how many files it holds, its source trees, and its parseable files. */
export function symbolsCorpus(): { dir: string; total: number; languages: string[]; files: ParseableFile[] } {
  const corpusRoot = process.env.SEXTANT_BENCH_CORPUS ?? join(tmpdir(), 'sextant-bench-corpus');
  buildCorpus(corpusRoot);
  const { dir, files: total, languages } = buildSymbolsRepository(corpusRoot, buildMonorepo(corpusRoot).dir);
  return { dir, total, languages, files: parseable(dir) };
}
