/**
 * The one code-aware tokenizer of search, used alike for the index and for
 * queries: identifiers kept whole and split into their words (camelCase,
 * PascalCase, snake_case, kebab-case, letters and digits), lower-cased and
 * lightly stemmed; English stop words dropped. `parseHTTPResponse2` gives
 * `parsehttpresponse2`, `parse`, `http`, `response`, `2`.
 */

/** Runs of letters, digits, `_` and `$` (any script): the raw words of code and prose alike. */
const WORD = /[\p{L}\p{N}_$]+/gu;
/** The words inside an identifier: `HTTPServer` → HTTP, Server; `v2Api` → v, 2, Api. */
const PART = /\p{Lu}+(?![\p{Ll}])|\p{Lu}?\p{Ll}+|\p{N}+|\p{L}+/gu;
const MAX_TOKEN = 64;

/** Words too common in questions to mean anything (identifiers made of them still count whole). */
const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by can could did do does doing for from had has have how i if in into is it its ' +
    'me my no not of on or our should so than that the their them then there these they this those to too us was we ' +
    'were what when where which while who whom why will with would you your'
  ).split(' '),
);

/** `retries` → `retry`, `handlers` → `handler`, `parsing` → `pars`, `called` → `call`: suffixes only, on words of 5+ letters. */
export function stem(word: string): string {
  if (word.length < 5 || !/^\p{Ll}+$/u.test(word)) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (/(ches|shes|xes|zes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is')) return word.slice(0, -1);
  if (word.endsWith('ing') && word.length >= 6) return word.slice(0, -3);
  if (word.endsWith('ed') && word.length >= 6) return word.slice(0, -2);
  return word;
}

/** The tokens of `text`, in order, with repeats (term frequency counts). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    if (word.length > MAX_TOKEN * 4) continue;
    const whole = word.toLowerCase().replace(/^[_$]+|[_$]+$/g, '');
    const parts = [...word.matchAll(PART)].map((p) => p[0].toLowerCase());
    if (parts.length <= 1) {
      if (whole && whole.length <= MAX_TOKEN && !STOP_WORDS.has(whole)) out.push(stem(whole));
      continue;
    }
    // A compound identifier: itself (exact matches rank first) and each of its words.
    if (whole.length <= MAX_TOKEN) out.push(whole);
    for (const part of parts) if (part.length <= MAX_TOKEN && !STOP_WORDS.has(part)) out.push(stem(part));
  }
  return out;
}

/** The words of a path (`src/http/retryPolicy.ts` → src, http, retry, policy, retrypolicy, ts). */
export function pathTokens(path: string): string[] {
  return tokenize(path.replace(/[/._-]+/g, ' '));
}
