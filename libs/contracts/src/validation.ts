import { z } from 'zod';
import { busError, type BusError } from './errors.js';

/**
 * Turns zod issues into `details.fields`: one entry per bad field, keyed by its
 * dotted path (`repository_ids.3`), with a message a model can act on.
 * Issues about the object as a whole are keyed by `(root)`.
 */
export function fieldErrors(error: z.ZodError, input?: unknown): Record<string, string> {
  // A Map, then own properties: field names are the caller's (`constructor`, `__proto__` are names like any other).
  const fields = new Map<string, string>();
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        fields.set(joinPath([...issue.path, key]), 'unknown field; check the spelling against the tool schema');
      }
      continue;
    }
    const key = joinPath(issue.path);
    if (!fields.has(key)) {
      fields.set(key, issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined ? 'required' : issue.message);
    }
  }
  return Object.fromEntries(fields);
}

function joinPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(root)' : path.map(String).join('.');
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** The `invalid_input` error for a failed parse, naming each bad field. */
export function invalidInput(error: z.ZodError, input?: unknown, what = 'arguments'): BusError {
  return invalidFields(fieldErrors(error, input), what);
}

/** `invalid_input` naming each bad field (`details.fields`: field → problem) and summarizing the first five. */
export function invalidFields(fields: Record<string, string>, what = 'arguments'): BusError {
  const names = Object.keys(fields);
  const summary = names
    .slice(0, 5)
    .map((name) => `${name}: ${Object.hasOwn(fields, name) ? fields[name] : ''}`)
    .join('; ');
  const more = names.length > 5 ? `; and ${names.length - 5} more` : '';
  return busError('invalid_input', `Invalid ${what}: ${summary}${more}.`, { fields });
}

// In `u` mode a surrogate pair is one code point, so this matches only lone surrogates.
const LONE_SURROGATE = /\p{Cs}/u;
const MAX_DEPTH = 32;

/**
 * Text no tool accepts, in any string of the arguments: NUL (Postgres cannot
 * store it, C libraries cut strings at it) and lone surrogates (not Unicode;
 * they would be stored as U+FFFD and come back different). Returns
 * `details.fields` entries, empty when every string is clean.
 */
export function unacceptableText(value: unknown): Record<string, string> {
  // A Map, then own properties: a key `__proto__` of the arguments would otherwise swallow its own finding.
  const fields = new Map<string, string>();
  const visit = (node: unknown, path: string[]): void => {
    if (typeof node === 'string') {
      if (node.includes('\0')) fields.set(joinPath(path), 'must not contain NUL (\\u0000) characters');
      else if (LONE_SURROGATE.test(node)) fields.set(joinPath(path), 'must be valid Unicode text (it holds a lone UTF-16 surrogate)');
    } else if (node !== null && typeof node === 'object' && path.length < MAX_DEPTH) {
      for (const [key, child] of Object.entries(node)) visit(child, [...path, key]);
    }
  };
  visit(value, []);
  return Object.fromEntries(fields);
}

/** Parses or returns the `invalid_input` error; never throws. */
export function safeParseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
): { ok: true; value: z.output<S> } | { ok: false; error: BusError } {
  const badText = unacceptableText(value);
  if (Object.keys(badText).length > 0) return { ok: false, error: invalidFields(badText) };
  const result = schema.safeParse(value);
  return result.success ? { ok: true, value: result.data } : { ok: false, error: invalidInput(result.error, value) };
}

/**
 * Where `reply` departs from `schema` (a contract's `Response`), or undefined when it matches: the dotted path of
 * the first mismatch and zod's word for it. A reply is checked as it leaves the service, before the bus
 * serializes it; a value only JSON makes right (a `Date` where the contract has a string) is checked again as
 * the caller will read it, which costs a round trip through JSON on that path only.
 */
export function replyMismatch(schema: z.ZodType, reply: unknown): { path: string; problem: string } | undefined {
  if (schema.safeParse(reply).success) return undefined;
  const wire = reply === undefined ? undefined : (JSON.parse(JSON.stringify(reply)) as unknown);
  const result = schema.safeParse(wire);
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  const problem = issue.code === 'invalid_type' && valueAt(wire, issue.path) === undefined ? 'missing' : issue.message;
  return { path: joinPath(issue.path), problem };
}
