/**
 * A parse worker (piscina): reads one file, parses it with its language's
 * grammar within the time budget and returns what `extract` found. Runs off
 * the main thread; one grammar instance per worker.
 */
import { isBinary, readRegularFileSync } from '@sextant/checkouts';
import { chunkParsed, chunkText, type Chunk } from './chunk.js';
import { extract } from './extract.js';
import { BudgetExceeded } from './extraction.js';
import { localDefinitionAt, type LocalDefinition } from './locals.js';
import { Grammars } from './grammars.js';
import { packReferences } from './packed.js';
import type { ChunkHook, ChunkOutcome, LocalTask, ParseTask, ParseOutcome, SkipCause } from './pool.js';

const grammars = new Grammars();

export default async function parseFile(task: ParseTask): Promise<ParseOutcome> {
  const grammar = await grammars.get(task.language);
  if (!grammar) return { skipped: 'unsupported_language' };
  if ('error' in grammar) return { skipped: 'grammar_unavailable', reason: grammar.error };
  const bytes = readSource(task);
  if ('skipped' in bytes) return bytes;
  try {
    const { references, ...rest } = extract(grammar, bytes.toString('utf8'), task.timeoutMs);
    return { ...rest, references: packReferences(references), referenceCount: references.length, bytes: bytes.length };
  } catch (error) {
    if (error instanceof BudgetExceeded) return { skipped: 'time_budget', reason: error.message };
    throw error;
  }
}

/** The local a bare name at a position of one file denotes (piscina task `localDefinition`); null: none (or unreadable). */
export async function localDefinition(task: LocalTask): Promise<LocalDefinition | null> {
  const grammar = await grammars.get(task.language);
  if (!grammar || 'error' in grammar) return null;
  const bytes = readSource(task);
  if ('skipped' in bytes) return null;
  try {
    return localDefinitionAt(grammar, bytes.toString('utf8'), task.line, task.column, task.timeoutMs, task.name, task.uses) ?? null;
  } catch (error) {
    if (error instanceof BudgetExceeded) return null;
    throw error;
  }
}

/**
 * Chunks of one file for search (piscina task `chunkFile`): a parsed
 * language by its definitions (`chunkParsed`), anything else — and a parsed
 * file past its budget, or whose grammar failed to load — by its text
 * (`chunkText`), so every text file stays searchable.
 */
export async function chunkFile(task: ParseTask): Promise<ChunkOutcome> {
  const bytes = readSource(task);
  if ('skipped' in bytes) return bytes;
  const source = bytes.toString('utf8');
  const grammar = await grammars.get(task.language);
  let outcome: { chunks: Chunk[]; parsed: boolean } | undefined;
  if (grammar && !('error' in grammar)) {
    try {
      outcome = { chunks: chunkParsed(grammar, source, task.timeoutMs), parsed: true };
    } catch (error) {
      if (!(error instanceof BudgetExceeded)) throw error;
    }
  }
  outcome ??= { chunks: chunkText(task.path, source), parsed: false };
  if (!task.hook) return outcome;
  const hook = await hookOf(task.hook.module);
  return { ...outcome, chunks: hook(outcome.chunks, { path: task.hook.path }, task.hook.options) };
}

const hooks = new Map<string, Promise<ChunkHook>>();

/** A chunk hook module, imported once per worker. */
function hookOf(module: string): Promise<ChunkHook> {
  let hook = hooks.get(module);
  if (!hook) {
    hook = import(module).then((m: { default: ChunkHook }) => m.default);
    hooks.set(module, hook);
  }
  return hook;
}

/**
 * A task's file, read without following a symbolic link or blocking on a FIFO; or why it is not parsed. Read
 * synchronously: the thread has nothing else to do meanwhile, and an asynchronous read's four trips through libuv's
 * thread pool (open, stat, read, close) left the thread idle ~1 ms a file: 12% of the pool's time on a quarter of
 * the bench corpus (read 4.6 s of 36.6 s, one thread; 0.9 s read synchronously).
 * A file past the size limit is not read at all.
 */
function readSource(task: ParseTask): Buffer | { skipped: SkipCause; reason?: string } {
  const bytes = readRegularFileSync(task.path, task.maxBytes);
  if (Buffer.isBuffer(bytes) && isBinary(bytes)) return { skipped: 'binary' };
  return bytes;
}
