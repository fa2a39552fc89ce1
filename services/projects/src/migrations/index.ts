import { CreateProjects1732200000000 } from './1732200000000-create-projects.js';
import { CreateApiKeys1764000000000 } from './1764000000000-create-api-keys.js';
import { CreateAuditLog1764100000000 } from './1764100000000-create-audit-log.js';
import { AuditLogRequestId1764210000000 } from './1764210000000-audit-log-request-id.js';

/** In order. A migration, once released, is never edited: add a new one. */
export const MIGRATIONS = [
  CreateProjects1732200000000,
  CreateApiKeys1764000000000,
  CreateAuditLog1764100000000,
  AuditLogRequestId1764210000000,
];
