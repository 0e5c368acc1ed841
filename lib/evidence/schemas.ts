import { periodQuerySchema } from '../statistics/days.js';

/**
 * The longest period one evidence pack covers, in days: a year, the span of an annual audit; a longer one is several
 * packs, each signed (docs/decisions/evidence.md).
 */
export const EVIDENCE_MAX_DAYS = 366;

/** Query of GET /external/website/{website_id}/evidence (query values arrive as text). */
export const evidenceQuerySchema = periodQuerySchema('EvidenceQuery', EVIDENCE_MAX_DAYS);

/** A JWS in the flattened JSON serialization (RFC 7515 §7.2.2): what the API answers and the export writes. */
export const evidencePackSchema = {
  title: 'EvidencePack',
  description:
    "The evidence pack: a JWS (flattened JSON serialization) signed with a key of the service's JWKS (/v1/oauth2/jwks); the payload, base64url-encoded JSON, is described in docs/evidence.md.",
  type: 'object',
  additionalProperties: false,
  required: ['protected', 'payload', 'signature'],
  properties: {
    protected: {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]+$',
      description: 'base64url of the JOSE header: alg, kid, typ "age-provider-evidence+json".',
    },
    payload: { type: 'string', pattern: '^[A-Za-z0-9_-]+$', description: 'base64url of the JSON document.' },
    signature: { type: 'string', pattern: '^[A-Za-z0-9_-]+$' },
  },
} as const;
