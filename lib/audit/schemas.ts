import { ID_PATTERN } from '../websites/schemas/path-parameters.js';

/** Entries per page of a website's audit list: the default, and the most one request may ask for. */
export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 200;

/** Query of GET /external/website/{website_id}/audit (query values arrive as text). */
export const auditQuerySchema = {
  title: 'AuditQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: {
      type: 'string',
      pattern: '^[1-9][0-9]{0,2}$',
      description: `Entries per page, 1 to ${AUDIT_PAGE_MAX} (default ${AUDIT_PAGE_DEFAULT}).`,
    },
    before: {
      type: 'string',
      pattern: ID_PATTERN,
      description: 'Only entries older than this entry id: the `next` of the previous page.',
    },
  },
} as const;

/** One audit entry, with everything its hash covers (the API's pages and the evidence pack carry them). */
export const auditEntrySchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'chain',
    'seq',
    'webmasterId',
    'websiteId',
    'at',
    'actor',
    'address',
    'action',
    'before',
    'after',
    'previousHash',
    'hash',
  ],
  properties: {
    id: { type: 'integer', minimum: 1 },
    chain: { type: 'string', description: 'website:<id>: every change to the website, hash-linked in seq order.' },
    seq: { type: 'integer', minimum: 1 },
    webmasterId: {
      type: 'integer',
      minimum: 1,
      description: 'The account the website belongs to (part of what the hash covers).',
    },
    websiteId: { type: ['integer', 'null'] },
    at: { type: 'string', description: 'When the change was made (ISO 8601).' },
    actor: {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'id'],
      properties: {
        type: { type: 'string', enum: ['webmaster', 'api_token', 'operator'] },
        id: { type: 'string', description: "The webmaster id, the API token id, or the operator's command." },
      },
    },
    address: { type: ['string', 'null'], description: 'The address the change came from; null at the command line.' },
    action: { type: 'string', examples: ['website.updated', 'oauth2.credentials.regenerated'] },
    before: {
      description: 'What changed, as it was (null for a creation). Secrets are never shown, only "(changed)".',
    },
    after: { description: 'What changed, as it became (null for a deletion).' },
    previousHash: { type: 'string', description: 'The hash of the previous entry of the chain (empty for the first).' },
    hash: {
      type: 'string',
      description: "SHA-256 (hex) of this entry's canonical JSON, previousHash included (docs/audit.md).",
    },
  },
} as const;

export const auditPageSchema = {
  title: 'AuditPage',
  type: 'object',
  additionalProperties: false,
  required: ['entries', 'next'],
  properties: {
    entries: { type: 'array', items: auditEntrySchema, description: 'Newest first.' },
    next: { type: ['integer', 'null'], description: 'Pass as `before` for the next (older) page; null on the last.' },
  },
} as const;
