import { auditEntrySchema } from '../audit/schemas.js';
import type { ChainHead } from '../audit/chain.js';
import type { AuditEntry } from '../audit/trail.js';
import type { Preset } from '../policy/preset.js';
import type { ChallengeCounts } from '../statistics/store.js';
import type { Environment } from '../verification/challenge.js';
import type { TrustPeriod } from '../verification/challenges/eu-av/trust-record.js';

/** The JOSE `typ` of an evidence pack (docs/evidence.md): a check refuses a JWS of any other kind. */
export const EVIDENCE_TYPE = 'age-provider-evidence+json';

/** The payload's format: a reader refuses a format it does not know rather than misread it. */
export const EVIDENCE_FORMAT = 1;

/** The audit actions that set a website's own rules: its regions and challenges, and its policy rules. */
export const RULE_ACTIONS: readonly string[] = ['website.created', 'website.updated', 'policy.updated'];

/** One environment's counts over a day or a period: by outcome, challenge, country and assurance level. */
export interface EvidenceCounts {
  started: number;
  passed: number;
  refused: number;
  abandoned: number;
  reused: number;
  byChallenge: Record<string, ChallengeCounts>;
  byCountry: Record<string, number>;
  /** verifications per ISO 3166-2 subdivision, where the visitor's was known (US states' laws apply per state) */
  bySubdivision: Record<string, number>;
  byLevel: Record<string, number>;
}

export type EvidenceDay = EvidenceCounts & { date: string; environment: Environment };

/** What an evidence pack states (the signed payload). */
export interface EvidencePayload {
  format: typeof EVIDENCE_FORMAT;
  issuer: string;
  issuedAt: string;
  service: { name: 'age-provider'; version: string };
  website: { id: number; name: string; domain: string };
  period: { from: string; to: string };
  statistics: { days: EvidenceDay[]; totals: Record<Environment, EvidenceCounts> };
  rules: {
    /** the operator's presets in force when the pack was made, with their versions and sources */
    presets: readonly Preset[];
    website: {
      /** the website's own rules when the pack was made */
      now: { regions: string[]; challenges: unknown; rules: unknown };
      /** the entry that set them before the period (if any), then each change during it */
      changes: AuditEntry[];
    };
  };
  audit: {
    chain: string;
    /** the head of the entries before the period (seq 0 and "" when none) */
    start: ChainHead;
    /** the head after the period's last entry (start when the period has none) */
    end: ChainHead;
    /** the chain's head when the pack was made: later entries exist when it is past `end` */
    head: ChainHead | null;
    entries: AuditEntry[];
  };
  euAv: { configured: boolean; trusts: TrustPeriod[] };
  retention: {
    verificationTtlSeconds: number;
    verificationRetentionSeconds: number;
    proofReuseTtlSeconds: number;
    tables: Array<{ table: string; keptUntil: string }>;
  };
}

const count = { type: 'integer', minimum: 0 } as const;
const countsBy = { type: 'object', additionalProperties: count } as const;
const head = {
  type: 'object',
  additionalProperties: false,
  required: ['seq', 'hash'],
  properties: { seq: { type: 'integer', minimum: 0 }, hash: { type: 'string' } },
} as const;
const countsProperties = {
  started: count,
  passed: count,
  refused: count,
  abandoned: count,
  reused: count,
  byChallenge: {
    type: 'object',
    additionalProperties: {
      type: 'object',
      additionalProperties: false,
      required: ['passed', 'refused', 'reused'],
      properties: { passed: count, refused: count, reused: count },
    },
  },
  byCountry: countsBy,
  bySubdivision: countsBy,
  byLevel: countsBy,
} as const;
const counts = {
  type: 'object',
  additionalProperties: false,
  required: Object.keys(countsProperties),
  properties: countsProperties,
} as const;
const day = '^[0-9]{4}-[0-9]{2}-[0-9]{2}$';

/** The payload's shape, checked before anything in it is believed (`evidence verify`). */
export const evidencePayloadSchema = {
  title: 'EvidencePayload',
  type: 'object',
  required: ['format', 'issuer', 'issuedAt', 'service', 'website', 'period', 'statistics', 'rules', 'audit', 'euAv'],
  properties: {
    format: { const: EVIDENCE_FORMAT },
    issuer: { type: 'string' },
    issuedAt: { type: 'string' },
    service: {
      type: 'object',
      required: ['name', 'version'],
      properties: { name: { const: 'age-provider' }, version: { type: 'string' } },
    },
    website: {
      type: 'object',
      required: ['id', 'name', 'domain'],
      properties: { id: { type: 'integer', minimum: 1 }, name: { type: 'string' }, domain: { type: 'string' } },
    },
    period: {
      type: 'object',
      required: ['from', 'to'],
      properties: { from: { type: 'string', pattern: day }, to: { type: 'string', pattern: day } },
    },
    statistics: {
      type: 'object',
      required: ['days', 'totals'],
      properties: {
        days: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['date', 'environment', ...Object.keys(countsProperties)],
            properties: {
              date: { type: 'string', pattern: day },
              environment: { enum: ['LIVE', 'TEST'] },
              ...countsProperties,
            },
          },
        },
        totals: {
          type: 'object',
          additionalProperties: false,
          required: ['LIVE', 'TEST'],
          properties: { LIVE: counts, TEST: counts },
        },
      },
    },
    rules: {
      type: 'object',
      required: ['presets', 'website'],
      properties: {
        presets: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'version', 'rules'],
            properties: { id: { type: 'string' }, version: { type: 'string' }, rules: { type: 'array' } },
          },
        },
        website: {
          type: 'object',
          required: ['now', 'changes'],
          properties: { now: { type: 'object' }, changes: { type: 'array', items: auditEntrySchema } },
        },
      },
    },
    audit: {
      type: 'object',
      required: ['chain', 'start', 'end', 'head', 'entries'],
      properties: {
        chain: { type: 'string' },
        start: head,
        end: head,
        head: { anyOf: [head, { type: 'null' }] },
        entries: { type: 'array', items: auditEntrySchema },
      },
    },
    euAv: {
      type: 'object',
      required: ['configured', 'trusts'],
      properties: { configured: { type: 'boolean' }, trusts: { type: 'array' } },
    },
    retention: { type: 'object' },
  },
} as const;
