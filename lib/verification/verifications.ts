import { addSeconds, epochSeconds } from '../clock.js';
import { randomToken } from '../security/hashing.js';
import type { Knex } from 'knex';
import type { Database } from '../store/database.js';
import { runPrepared, type PreparedStatement } from '../store/prepared.js';
import { liveGrantJoin } from '../../adapters/knex.js';
import type { AssuranceLevel, Environment } from './challenge.js';

/** A verification shared with one website (spec 2.3), linked to the grant of the authorization that produced it. */
export interface Verification {
  uid: string;
  websiteId: number;
  environment: Environment;
  method: string;
  assuranceLevel: AssuranceLevel;
  ageThreshold: number;
  country: string;
  countrySubdivision: string | null;
  verified: boolean;
  reused: boolean;
  verifiedAt: Date;
  expiresAt: Date;
}

/** What a website reads about a verification (Resources' JSON and the signed token alike), as of `now` (epoch seconds). */
export function verificationResult(verification: Verification, now: number) {
  const expiresAt = epochSeconds(verification.expiresAt);
  return {
    verified: verification.verified,
    uid: verification.uid,
    country: verification.country,
    country_subdivision: verification.countrySubdivision,
    assurance_level: verification.assuranceLevel,
    age_threshold: verification.ageThreshold,
    reused: verification.reused,
    expires_at: expiresAt,
    expires_in: expiresAt - now,
  };
}

/** `startedAt`: when the flow that produced it began (the statistics' time to result); absent when not known. */
export type NewVerification = Omit<Verification, 'uid' | 'expiresAt'> & { ttlSeconds: number; startedAt?: Date };

export interface VerificationRow {
  uid: string;
  website_id: number;
  environment: Environment;
  method: string;
  assurance_level: AssuranceLevel;
  age_threshold: number;
  country: string;
  country_subdivision: string | null;
  verified: boolean;
  reused: boolean;
  verified_at: Date;
  expires_at: Date;
}

/** A verifications row (or its to_jsonb, where timestamps are text) as a Verification. */
export const verificationFromRow = (row: VerificationRow): Verification => ({
  uid: row.uid,
  websiteId: row.website_id,
  environment: row.environment,
  method: row.method,
  assuranceLevel: row.assurance_level,
  ageThreshold: row.age_threshold,
  country: row.country,
  countrySubdivision: row.country_subdivision,
  verified: row.verified,
  reused: row.reused,
  verifiedAt: new Date(row.verified_at),
  expiresAt: new Date(row.expires_at),
});

/** Public uids are opaque; sandbox ones start with `test_` (ARCHITECTURE §6.1). */
const newUid = (environment: Environment): string => randomToken(16, environment === 'TEST' ? 'test_' : 'vrf_');

/**
 * A new verification's insert, returning its row, inside the statement that records it: with the grant carrying it,
 * linked to `grantId` (outcome.ts), or with the progress of the interaction that waits to hand it over (progress.ts).
 */
export function verificationInsert(db: Database, input: NewVerification, grantId: string | null = null): Knex.QueryBuilder {
  return db('verifications')
    .insert({
      uid: newUid(input.environment),
      website_id: input.websiteId,
      environment: input.environment,
      method: input.method,
      assurance_level: input.assuranceLevel,
      age_threshold: input.ageThreshold,
      country: input.country,
      country_subdivision: input.countrySubdivision,
      verified: input.verified,
      reused: input.reused,
      verified_at: input.verifiedAt,
      expires_at: addSeconds(input.verifiedAt, input.ttlSeconds),
      started_at: input.startedAt ?? null,
      grant_id: grantId,
    })
    .returning('*');
}

/** What an access token stands for at Resources: its client and the verification behind it. */
export interface BearerVerification {
  clientId: string;
  verification: Verification;
}

/**
 * Resources' one statement (docs/decisions.md "Resources in one statement"), prepared once per connection: the access
 * token by its stored key, unexpired, whose grant still exists (a replayed code deletes it), whose client still
 * resolves (an ACTIVE configuration with a current or in-grace credential, or the current public key of an internal
 * checker client), with the verification its `claim` names. No row when any of that fails; the verification may
 * have expired.
 */
const BEARER_VERIFICATION: PreparedStatement = {
  name: 'verifications_of_bearer',
  text: `SELECT verification.*, token.payload->>'clientId' AS client_id
           FROM oidc_payloads token
           ${liveGrantJoin('JOIN', 'token.grant_id', '$1')}
           JOIN verifications verification ON verification.uid = token.payload->'extra'->>$2
          WHERE token.type = 'AccessToken' AND token.id = $3 AND token.expires_at > $1
            AND (token.payload->>'exp')::bigint > $4
            AND (EXISTS (SELECT 1 FROM oauth2_credentials credential JOIN oauth2_configs config ON config.id = credential.config_id
                          WHERE credential.client_id = token.payload->>'clientId' AND config.status = 'ACTIVE'
                            AND (credential.superseded_at IS NULL OR credential.valid_until > $1))
              OR EXISTS (SELECT 1 FROM website_keys website_key WHERE 'checker_' || website_key.public_key = token.payload->>'clientId'))`,
};

export async function findBearerVerification(db: Database, tokenKey: string, claim: string, now: Date): Promise<BearerVerification | undefined> {
  // `exp` is the provider's own claim, set and judged (isExpired) on the provider's clock, the system's.
  const [row] = await runPrepared<VerificationRow & { client_id: string }>(db, BEARER_VERIFICATION, [now, claim, tokenKey, epochSeconds(new Date())]);
  return row ? { clientId: row.client_id, verification: verificationFromRow(row) } : undefined;
}

export async function findVerificationByGrant(db: Database, grantId: string): Promise<Verification | undefined> {
  const row = await db<VerificationRow>('verifications').where('grant_id', grantId).first();
  return row ? verificationFromRow(row) : undefined;
}
