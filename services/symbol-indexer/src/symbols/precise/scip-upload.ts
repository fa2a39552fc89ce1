import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { ScipUpload } from '@sextant/contracts';
import { Database, sql } from '@sextant/persistence';
import type { ReadableRepositoryIds, RegistryClient } from '@sextant/registry-client';
import { currentPrincipal, ServiceError } from '@sextant/work';
import type { PreciseStore } from './precise.store.js';
import { decodeScipIndex, type ScipLimits } from './scip-index.js';

const T = { uploads: '"symbol_indexer"."scip_uploads"', parts: '"symbol_indexer"."scip_upload_parts"' };

/** An upload no part or finish came for in this long is abandoned; the next upload to begin removes it. */
const ABANDONED_AFTER = '1 hour';

const SQL = {
  begin: sql('scip-upload.begin', `INSERT INTO ${T.uploads} (id, repository_id, commit, principal) VALUES ($1, $2, $3, $4)`),
  abandoned: sql('scip-upload.abandoned', `DELETE FROM ${T.uploads} WHERE created_at < now() - interval '${ABANDONED_AFTER}'`),
  find: sql(
    'scip-upload.find',
    `SELECT u.repository_id AS "repositoryId", u.commit, u.principal,
            (SELECT coalesce(sum(length(p.data)), 0)::bigint FROM ${T.parts} p WHERE p.upload_id = u.id) AS "bytes"
     FROM ${T.uploads} u WHERE u.id = $1`,
  ),
  part: sql(
    'scip-upload.part',
    `INSERT INTO ${T.parts} (upload_id, part, data) VALUES ($1, $2, $3) ON CONFLICT (upload_id, part) DO UPDATE SET data = $3`,
  ),
  parts: sql('scip-upload.parts', `SELECT part, data FROM ${T.parts} WHERE upload_id = $1 ORDER BY part`),
  drop: sql('scip-upload.drop', `DELETE FROM ${T.uploads} WHERE id = $1`),
};

interface Upload {
  repositoryId: string;
  commit: string;
  principal: string;
  bytes: string | number;
}

/** Documents one uploaded index may hold at most (as the precise stage's). */
const MAX_DOCUMENTS = 200_000;

/**
 * SCIP indexes uploaded for a repository's commit (`POST /scip`, issue 36, ADR 0056), for languages the precise stage
 * does not index itself (scip-go, scip-java, rust-analyzer, scip-clang, …). The caller must maintain a project holding
 * the repository (or be an admin), and the commit must be the one the repository is indexed at. The index arrives in
 * parts kept in the database, is checked and decoded whole by the decoder the precise stage uses, and replaces the
 * repository's precise tier in one transaction; anything refused stores nothing.
 */
export class ScipUploads {
  private readonly log = new Logger('ScipUploads');

  constructor(
    private readonly deps: {
      db: Database;
      store: PreciseStore;
      registry: RegistryClient;
      access: ReadableRepositoryIds;
      limits: Pick<ScipLimits, 'maxBytes' | 'maxOccurrences'>;
    },
  ) {}

  async begin(input: { repository: string; commit: string; bytes?: number }): Promise<ScipUpload.BeginResponse> {
    const { maxBytes } = this.deps.limits;
    if (input.bytes !== undefined && input.bytes > maxBytes) {
      throw tooLarge(input.bytes, maxBytes);
    }
    const [repository] = await this.deps.registry.repositories([input.repository]);
    const readable = await this.deps.access.readable();
    // One the caller may not read answers as one that does not exist (names do not leak).
    if (!repository || (readable && !readable.has(repository.id))) {
      throw ServiceError.of('not_found', `No registered repository is "${input.repository}". Nothing was stored.`, {
        repository: input.repository,
      });
    }
    const maintained = await this.deps.access.maintained();
    if (maintained && !maintained.has(repository.id)) {
      throw ServiceError.of(
        'forbidden',
        `Uploading a SCIP index for ${repository.name} needs a maintainer of one of its projects (or an admin). Nothing was stored.`,
        { repository: repository.name },
      );
    }
    const [fresh] = await this.deps.registry.freshness([repository.id]);
    const indexed = fresh?.indexed_commit ?? null;
    if (indexed !== input.commit) {
      throw ServiceError.of(
        'not_found',
        indexed === null
          ? `${repository.name} is not indexed yet: index it (sync_repo), then upload the SCIP index of the commit it is indexed at. Nothing was stored.`
          : `${repository.name} is indexed at ${indexed}, not at ${input.commit}: upload the index of that commit (or sync_repo to index ${input.commit} first). Nothing was stored.`,
        { repository: repository.name, commit: input.commit, indexed_commit: indexed },
      );
    }
    await this.deps.db.run(SQL.abandoned, []);
    const id = randomUUID();
    await this.deps.db.run(SQL.begin, [id, repository.id, input.commit, caller()]);
    return { upload_id: id, repository: repository.name, max_bytes: maxBytes };
  }

  async part(input: { upload_id: string; part: number; data: string }): Promise<{ bytes: number }> {
    const upload = await this.upload(input.upload_id);
    const data = Buffer.from(input.data, 'base64');
    const bytes = Number(upload.bytes) + data.length;
    if (bytes > this.deps.limits.maxBytes) {
      await this.deps.db.run(SQL.drop, [input.upload_id]);
      throw tooLarge(bytes, this.deps.limits.maxBytes);
    }
    await this.deps.db.run(SQL.part, [input.upload_id, input.part, data]);
    return { bytes };
  }

  async finish(input: { upload_id: string; parts: number; cancel?: boolean }): Promise<ScipUpload.FinishResponse> {
    const started = performance.now();
    const upload = await this.upload(input.upload_id);
    try {
      if (input.cancel) throw ServiceError.of('invalid_input', 'The upload was cancelled. Nothing was stored.');
      const rows = (await this.deps.db.run<{ part: number; data: Buffer }>(SQL.parts, [input.upload_id])).rows;
      if (rows.length !== input.parts || rows.some((r, i) => r.part !== i)) {
        throw ServiceError.of(
          'invalid_input',
          `The SCIP index arrived incomplete (${rows.length} of ${input.parts} parts). Nothing was stored.`,
          {
            parts: input.parts,
            received: rows.length,
          },
        );
      }
      const bytes = Buffer.concat(rows.map((r) => r.data));
      const index = decodeScipIndex(bytes, { ...this.deps.limits, maxDocuments: MAX_DOCUMENTS });
      const [repository] = await this.deps.registry.repositories([upload.repositoryId]);
      if (!repository) throw ServiceError.of('not_found', 'The repository is no longer registered. Nothing was stored.');
      await this.deps.store.replaceUploaded(upload.repositoryId, upload.commit, index);
      const ms = Math.round(performance.now() - started);
      this.log.log(
        `${repository.name}: precise tier from an upload (${index.tool}) by ${upload.principal}: ${index.documents.length} documents, ${index.occurrenceCount} occurrences, ${bytes.length} bytes in ${ms} ms`,
      );
      return {
        repository: repository.name,
        commit: upload.commit,
        tool: index.tool,
        bytes: bytes.length,
        documents: index.documents.length,
        occurrences: index.occurrenceCount,
        symbols: index.symbols.length,
        duration_ms: ms,
      };
    } finally {
      await this.deps.db.run(SQL.drop, [input.upload_id]);
    }
  }

  /** The upload `id`, begun by this caller; another's, or one finished or abandoned, is `not_found`. */
  private async upload(id: string): Promise<Upload> {
    const upload = (await this.deps.db.run<Upload>(SQL.find, [id])).rows[0];
    if (!upload || upload.principal !== caller()) {
      throw ServiceError.of(
        'not_found',
        `No SCIP upload ${id} is in progress (it finished, was refused or abandoned). Nothing was stored.`,
        {
          upload_id: id,
        },
      );
    }
    return upload;
  }
}

/** Who the request is for, as an upload remembers it (one caller's upload takes no part of another's). */
function caller(): string {
  const principal = currentPrincipal();
  return principal ? `${principal.kind}:${principal.id}` : 'local';
}

function tooLarge(bytes: number, maxBytes: number): ServiceError {
  return ServiceError.of(
    'invalid_input',
    `The SCIP index was refused: it is ${bytes} bytes or more, over the limit of ${maxBytes} (SYMBOLS_PRECISE_MAX_INDEX_BYTES). Nothing was stored.`,
    { bytes, max_bytes: maxBytes },
  );
}
