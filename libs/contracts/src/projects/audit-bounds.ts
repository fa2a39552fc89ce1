/**
 * The bounds of an audit record (issue 35): what the gateway keeps in memory and hands the projects service, and what
 * the projects service stores. A record copies what a caller sent (its scope, its query), so without them one NUL
 * byte stopped the Postgres trail (Postgres refuses `\u0000` in text and jsonb) and one 100 MB argument was held,
 * sent and inserted whole. Sizes are UTF-8 bytes.
 */
export const AUDIT_LIMITS = {
  /** `at`, `principal`, `principal_id`, `tool`, `code`, `trace_id`, `request_id`, and each of `repositories`. */
  fieldBytes: 256,
  /** `query`. */
  queryBytes: 2_000,
  /** Items of `repositories`. */
  repositories: 50,
  /** Keys of `scope` (the gateway copies eight fields) and the bytes of each key. */
  scopeKeys: 8,
  scopeKeyBytes: 64,
  /** One value of `scope`: a string's bytes; an object's or array's JSON (past it, the JSON itself, cut, as a string). */
  scopeValueBytes: 1_024,
  /** Inside an object or array of `scope`: levels kept, and values visited in all (the rest is named, not copied). */
  scopeDepth: 4,
  scopeNodes: 64,
  /**
   * The whole record as JSON. The caps above keep a record under it by construction (at most ~26 KiB of text, whose
   * JSON escapes at most double); `boundAuditRecord` checks anyway.
   */
  recordBytes: 64 * 1024,
} as const;

// C0 controls (NUL, newline, escape …), DEL, C1 controls, and UTF-16 surrogates without their pair (Postgres refuses
// those in jsonb; a log line would carry them as mojibake).
const UNSAFE = /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `\u0000` as six visible characters: the record says what was there, and no reader of it sees a control. */
function visible(unit: string): string {
  return `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** UTF-8 bytes of one code point written as `char` (one or two UTF-16 units); a lone surrogate counts as U+FFFD. */
function utf8Bytes(codePoint: number): number {
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}

/**
 * `value` with every control character and lone surrogate written as a visible `\uXXXX`, cut to `maxBytes` UTF-8
 * bytes: a cut one ends with `…[truncated N bytes]`, N the bytes of `value` left out, and is `maxBytes` long at most.
 * Reads at most `maxBytes` characters of `value` (and its length in bytes once): O(maxBytes), whatever its size.
 */
export function boundText(value: string, maxBytes: number): string {
  if (value.length <= maxBytes) {
    const clean = value.replace(UNSAFE, visible);
    if (Buffer.byteLength(clean) <= maxBytes) return clean;
  }
  const total = Buffer.byteLength(value);
  // Room for the marker at its longest (every byte left out); what is kept is cut at a whole character.
  const budget = Math.max(0, maxBytes - Buffer.byteLength(`…[truncated ${total} bytes]`));
  let out = '';
  let outBytes = 0;
  let keptBytes = 0;
  for (let i = 0; i < value.length;) {
    const codePoint = value.codePointAt(i)!;
    const units = codePoint > 0xffff ? 2 : 1;
    const unit = value.slice(i, i + units);
    const unsafe =
      units === 1 && (codePoint < 0x20 || (codePoint >= 0x7f && codePoint <= 0x9f) || (codePoint >= 0xd800 && codePoint <= 0xdfff));
    const piece = unsafe ? visible(unit) : unit;
    const pieceBytes = unsafe ? piece.length : utf8Bytes(codePoint);
    if (outBytes + pieceBytes > budget) break;
    out += piece;
    outBytes += pieceBytes;
    keptBytes += utf8Bytes(unsafe && codePoint >= 0xd800 ? 0xfffd : codePoint);
    i += units;
  }
  return `${out}…[truncated ${total - keptBytes} bytes]`;
}

/** A value inside an object or array of a scope: bounded in depth and in values visited, strings bounded. */
function boundNested(value: unknown, depth: number, budget: { nodes: number }): unknown {
  budget.nodes -= 1;
  if (typeof value === 'string') return boundText(value, AUDIT_LIMITS.scopeValueBytes);
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean' || value === null) return value;
  if (typeof value !== 'object') return null;
  if (depth >= AUDIT_LIMITS.scopeDepth) return Array.isArray(value) ? '…[array nested deeper]' : '…[object nested deeper]';
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const item of value) {
      if (budget.nodes <= 0) break;
      items.push(boundNested(item, depth + 1, budget));
    }
    if (items.length < value.length) items.push(`…[${value.length - items.length} more items]`);
    return items;
  }
  const entries: Array<[string, unknown]> = [];
  let more = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (budget.nodes <= 0) {
      more += 1;
      continue;
    }
    entries.push([boundText(key, AUDIT_LIMITS.scopeKeyBytes), boundNested((value as Record<string, unknown>)[key], depth + 1, budget)]);
  }
  if (more > 0) entries.push(['…', `${more} more keys`]);
  return Object.fromEntries(entries);
}

/** One value of a scope: a string bounded; an object or array bounded, serialized and, past the cap, cut as a string. */
function boundScopeValue(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return boundNested(value, 0, { nodes: 1 });
  const bounded = boundNested(value, 0, { nodes: AUDIT_LIMITS.scopeNodes });
  const json = JSON.stringify(bounded);
  return Buffer.byteLength(json) <= AUDIT_LIMITS.scopeValueBytes ? bounded : boundText(json, AUDIT_LIMITS.scopeValueBytes);
}

/** A scope: at most `scopeKeys` keys, each key and value bounded. */
function boundScope(scope: unknown): Record<string, unknown> {
  if (typeof scope !== 'object' || scope === null || Array.isArray(scope)) return {};
  const entries: Array<[string, unknown]> = [];
  for (const key in scope) {
    if (!Object.hasOwn(scope, key)) continue;
    if (entries.length === AUDIT_LIMITS.scopeKeys) {
      entries.push(['…', 'more keys']);
      break;
    }
    entries.push([boundText(key, AUDIT_LIMITS.scopeKeyBytes), boundScopeValue((scope as Record<string, unknown>)[key])]);
  }
  return Object.fromEntries(entries);
}

/** The fields of an audit record, as a caller of `boundAuditRecord` may hold them (any of them unbounded). */
export interface AuditRecordFields {
  at: string;
  principal: string;
  principal_id: string;
  tool: string;
  scope: Record<string, unknown>;
  repositories: string[];
  code: string;
  duration_ms: number;
  trace_id: string | null;
  request_id: string;
  query: string | null;
}

/**
 * The one sanitizer of audit records: every field bounded (AUDIT_LIMITS) and without control characters, so the
 * record fits the projects service's schema and Postgres takes it. The gateway applies it in `AuditTrail.record`,
 * before anything is kept; the projects service applies it again to whatever it is handed. O(size of the result):
 * a field of any size is read only as far as its cap (and measured once).
 */
export function boundAuditRecord(entry: AuditRecordFields): AuditRecordFields {
  const text = (value: unknown, maxBytes: number = AUDIT_LIMITS.fieldBytes) =>
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- any value, whatever its type, is kept as some bounded text.
    boundText(typeof value === 'string' ? value : String(value ?? ''), maxBytes);
  const repositories = Array.isArray(entry.repositories) ? entry.repositories.slice(0, AUDIT_LIMITS.repositories) : [];
  const record: AuditRecordFields = {
    at: text(entry.at),
    principal: text(entry.principal),
    principal_id: text(entry.principal_id),
    tool: text(entry.tool),
    scope: boundScope(entry.scope),
    repositories: repositories.map((r) => text(r)),
    code: text(entry.code),
    duration_ms: typeof entry.duration_ms === 'number' && Number.isFinite(entry.duration_ms) ? entry.duration_ms : 0,
    trace_id: entry.trace_id === null || entry.trace_id === undefined ? null : text(entry.trace_id),
    request_id: text(entry.request_id),
    query: entry.query === null || entry.query === undefined ? null : text(entry.query, AUDIT_LIMITS.queryBytes),
  };
  // Not reached with the caps above (see `recordBytes`); should they change, the record still keeps its bound.
  if (Buffer.byteLength(JSON.stringify(record)) > AUDIT_LIMITS.recordBytes) {
    record.scope = { '…': boundText(JSON.stringify(record.scope), AUDIT_LIMITS.scopeValueBytes) };
    record.repositories = record.repositories.slice(0, 8);
  }
  return record;
}
