import { z } from 'zod';
import { defineInternal } from '../tool.js';

/**
 * Internal (not tools): how the gateway hands symbol-indexer a SCIP index uploaded with `POST /scip` (issue 36, ADR
 * 0056). An index is larger than a bus message (NATS `max_payload`, 1 MiB by default), so it crosses in parts: `begin`
 * checks the caller, the repository and the commit before a byte is sent; each `part` is kept in symbol-indexer's
 * database (any replica may take any part); `finish` checks, decodes and stores the whole index, or refuses it and
 * keeps nothing. Every request carries the uploader's principal.
 */

/** Bytes of the index per part: base64 in JSON makes 4/3 of it, well under 1 MiB. */
export const PART_BYTES = 512 * 1024;

/** A commit as git names it in full: 40 hex digits (SHA-1) or 64 (SHA-256). */
const Commit = z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, 'a full commit id: 40 or 64 lowercase hex digits');

const UploadId = z.string().uuid();

export const BEGIN_SUBJECT = 'symbol-indexer.scip-upload-begin.v1';
const BeginRequest = z.strictObject({
  repository: z.string().min(1).max(2_048).describe('registered repository: id, name or clone URL'),
  commit: Commit,
  /** The body's length when the client declared it (Content-Length); checked against the cap before any part. */
  bytes: z.int().min(0).optional(),
});
const BeginResponse = z.object({
  upload_id: UploadId,
  repository: z.string(),
  /** The largest index this server takes (`SYMBOLS_PRECISE_MAX_INDEX_BYTES`): the gateway stops reading past it. */
  max_bytes: z.int(),
});
export const begin = defineInternal({ name: 'scip-upload-begin', subject: BEGIN_SUBJECT, input: BeginRequest, output: BeginResponse });
export type BeginResponse = z.output<typeof BeginResponse>;

export const PART_SUBJECT = 'symbol-indexer.scip-upload-part.v1';
const PartRequest = z.strictObject({
  upload_id: UploadId,
  part: z.int().min(0),
  data: z
    .string()
    .max(Math.ceil(PART_BYTES / 3) * 4)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64'),
});
const PartResponse = z.object({ bytes: z.int().describe('bytes of the index received so far') });
export const part = defineInternal({ name: 'scip-upload-part', subject: PART_SUBJECT, input: PartRequest, output: PartResponse });

export const FINISH_SUBJECT = 'symbol-indexer.scip-upload-finish.v1';
const FinishRequest = z.strictObject({
  upload_id: UploadId,
  /** How many parts were sent (0 to `parts - 1`); a part missing refuses the upload. */
  parts: z.int().min(0),
  /** True: the gateway gave up (the client went away, the body was too large): drop what arrived. */
  cancel: z.boolean().optional(),
});
const FinishResponse = z.object({
  repository: z.string(),
  commit: z.string(),
  tool: z.string().describe('the indexer the index names (its tool_info)'),
  bytes: z.int(),
  documents: z.int(),
  occurrences: z.int(),
  symbols: z.int(),
  duration_ms: z.number().describe('checking, decoding and storing it'),
});
export const finish = defineInternal({ name: 'scip-upload-finish', subject: FINISH_SUBJECT, input: FinishRequest, output: FinishResponse });
export type FinishResponse = z.output<typeof FinishResponse>;
