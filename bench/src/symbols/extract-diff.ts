/**
 * bench/symbols/extract-diff — whether a change to extraction changed what it extracts: every parsed file under a
 * folder, its `extract` (symbols, imports, references) and, at a sample of names (the first word of every 7th line, six per file),
 * `localDefinitionAt` with its uses, written as JSON lines; given an earlier dump, the files whose output differs.
 * Made to show a refactor left extraction as it was (issue 41: a dump from main, one from the branch, 0 differences).
 * Usage: npm run bench:extract-diff -- <folder> --out <dump.jsonl> [--against <earlier.jsonl>]
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { languageOf } from '@sextant/checkouts';
import { extract, Grammars, localDefinitionAt, parsedLanguages } from '@sextant/parsing';

/** Generous: a slow machine must not turn a file's budget into a difference. */
const TIMEOUT_MS = 60_000;
const SAMPLE_EVERY = 7;
/** Each sample parses the file again: a few per file. */
const SAMPLES = 6;

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile()) out.push(path);
  }
  return out.sort();
}

async function main(): Promise<void> {
  const root = process.argv[2];
  const out = argument('--out');
  if (!root || !out) throw new Error('usage: extract-diff <folder> --out <dump.jsonl> [--against <earlier.jsonl>]');
  const grammars = new Grammars();
  const lines: string[] = [];
  for (const path of filesUnder(root)) {
    const language = languageOf(path);
    if (!language || !parsedLanguages().has(language)) continue;
    const grammar = await grammars.get(language);
    if (!grammar || 'error' in grammar) throw new Error(grammar?.error ?? `no grammar for ${language}`);
    const source = readFileSync(path, 'utf8');
    const locals: unknown[] = [];
    source.split('\n').forEach((text, row) => {
      if (row % SAMPLE_EVERY !== 0 || locals.length >= SAMPLES) return;
      const word = /[\p{L}_$][\p{L}\p{N}_$]*/u.exec(text)?.[0];
      if (word) locals.push([row + 1, word, localDefinitionAt(grammar, source, row + 1, undefined, TIMEOUT_MS, word, true) ?? null]);
    });
    lines.push(JSON.stringify({ path: relative(root, path), language, extraction: extract(grammar, source, TIMEOUT_MS), locals }));
  }
  writeFileSync(out, `${lines.join('\n')}\n`);
  console.log(`${lines.length} files dumped to ${out}`);
  const against = argument('--against');
  if (!against) return;
  const earlier = new Map(
    readFileSync(against, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => [(JSON.parse(line) as { path: string }).path, line]),
  );
  const now = new Map(lines.map((line) => [(JSON.parse(line) as { path: string }).path, line]));
  const differing = [...new Set([...earlier.keys(), ...now.keys()])].filter((path) => earlier.get(path) !== now.get(path));
  for (const path of differing.slice(0, 20)) console.log(`differs: ${path}`);
  console.log(`${differing.length} differences in ${now.size} files (against ${earlier.size})`);
  if (differing.length > 0) process.exitCode = 1;
}

await main();
