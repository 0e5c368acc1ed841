import { addSeconds, epochSeconds } from '../clock.js';
import { randomToken } from '../security/hashing.js';
import type { Knex } from 'knex';
import type { Database } from '../store/database.js';
import { liveGrantJoin } from '../store/oidc-payloads.js';
import { runPrepared, type PreparedStatement } from '../store/prepared.js';
import type { RuleOrigin } from '../policy/rule.js';
import { clientResolves } from '../websites/clients.js';
import type { AssuranceLevel, Environment } from './challenge.js';

/** A verification shared with one website, linked to the grant of the authorization that produced it. */
export interface Verification {
  uid: string;
  websiteId: number;
  environment: Environment;
  /** the challenge passed (`simulated` in the sandbox; column `method`) */
  challenge: string;
  assuranceLevel: AssuranceLevel;
  ageThreshold: number;
  country: string;
  countrySubdivision: string | null;
  verified: boolean;
  reused: boolean;
  verifiedAt: Date;
  expiresAt: Date;
  /** the policy rules that applied: presets (with their versions) and the website's own (docs/policies.md) */
  policy: RuleOrigin[];
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

/**
 * `startedAt`: when the flow that produced it began (the statistics' time to result); `clientId`: the OAuth2 client
 * it ran for (the verifications list); each absent when not known.
 */
export type NewVerification = Omit<Verification, 'uid' | 'expiresAt'> & {
  ttlSeconds: number;
  startedAt?: Date;
  clientId?: string;
};

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
  policy: RuleOrigin[];
}

/**
 * The columns a Verification is read from, named in every statement that reads one (never `verification.*`): a
 * column a newer version adds then changes no statement's result, and an instance still running the older version
 * keeps answering while the newer one migrates (lib/store/prepared.ts).
 */
const VERIFICATION_COLUMNS = Object.keys({
  uid: true,
  website_id: true,
  environment: true,
  method: true,
  assurance_level: true,
  age_threshold: true,
  country: true,
  country_subdivision: true,
  verified: true,
  reused: true,
  verified_at: true,
  expires_at: true,
  policy: true,
} satisfies Record<keyof VerificationRow, true>);

/** The verification's columns as a select list of the table under `alias`. */
const verificationColumns = (alias: string): string =>
  VERIFICATION_COLUMNS.map((column) => `${alias}.${column}`).join(', ');

/** The verification under `alias` as one jsonb object of its named columns; null where an outer join found none. */
export const verificationJson = (alias: string): string =>
  `CASE WHEN ${alias}.uid IS NOT NULL THEN jsonb_build_object(${VERIFICATION_COLUMNS.map((column) => `'${column}', ${alias}.${column}`).join(', ')}) END`;

/** A verifications row (or its jsonb, where timestamps are text) as a Verification. */
export const verificationFromRow = (row: VerificationRow): Verification => ({
  uid: row.uid,
  websiteId: row.website_id,
  environment: row.environment,
  challenge: row.method,
  assuranceLevel: row.assurance_level,
  ageThreshold: row.age_threshold,
  country: row.country,
  countrySubdivision: row.country_subdivision,
  verified: row.verified,
  reused: row.reused,
  verifiedAt: new Date(row.verified_at),
  expiresAt: new Date(row.expires_at),
  policy: row.policy,
});

/** Public uids are opaque; sandbox ones start with `test_`, live ones with `vrf_` (a flow's ending too: flow-endings.ts). */
export const uidPrefix = (environment: Environment): string => (environment === 'TEST' ? 'test_' : 'vrf_');
const newUid = (environment: Environment): string => randomToken(16, uidPrefix(environment));

/** A new verification's row, as written by its insert (verificationInsert) or by a conditional one (progress.ts). */
export const verificationRow = (input: NewVerification, grantId: string | null = null): Record<string, Knex.Value> => ({
  uid: newUid(input.environment),
  website_id: input.websiteId,
  environment: input.environment,
  method: input.challenge,
  assurance_level: input.assuranceLevel,
  age_threshold: input.ageThreshold,
  country: input.country,
  country_subdivision: input.countrySubdivision,
  verified: input.verified,
  reused: input.reused,
  verified_at: input.verifiedAt,
  expires_at: addSeconds(input.verifiedAt, input.ttlSeconds),
  policy: JSON.stringify(input.policy),
  started_at: input.startedAt ?? null,
  client_id: input.clientId ?? null,
  grant_id: grantId,
});

/** A new verification's insert, returning its uid, inside the statement that records it with the grant carrying it (outcome.ts). */
export const verificationInsert = (
  db: Database,
  input: NewVerification,
  grantId: string | null = null,
): Knex.QueryBuilder => db('verifications').insert(verificationRow(input, grantId)).returning('uid');

/** What an access token stands for at Resources: its client and the verification behind it. */
export interface BearerVerification {
  clientId: string;
  verification: Verification;
}

/**
 * Resources' one statement (docs/decisions/performance.md "Resources in one statement"), prepared once per connection: the access
 * token by its stored key, unexpired, whose grant still exists (a replayed code deletes it), whose client still
 * resolves (lib/websites/clients.ts clientResolves), with the verification its `claim` names. No row when any of that fails; the verification may
 * have expired.
 */
const BEARER_VERIFICATION: PreparedStatement = {
  name: 'verifications_of_bearer',
  text: `SELECT ${verificationColumns('verification')}, token.payload->>'clientId' AS client_id
           FROM oidc_payloads token
           ${liveGrantJoin('JOIN', 'token.grant_id', '$1')}
           JOIN verifications verification ON verification.uid = token.payload->'extra'->>$2
          WHERE token.type = 'AccessToken' AND token.id = $3 AND token.expires_at > $1
            AND (token.payload->>'exp')::bigint > $4
            AND ${clientResolves("token.payload->>'clientId'", '$1')}`,
};

export async function findBearerVerification(
  db: Database,
  tokenKey: string,
  claim: string,
  now: Date,
): Promise<BearerVerification | undefined> {
  // `exp` is the provider's own claim, set and judged (isExpired) on the provider's clock, the system's.
  const [row] = await runPrepared<VerificationRow & { client_id: string }>(db, BEARER_VERIFICATION, [
    now,
    claim,
    tokenKey,
    epochSeconds(new Date()),
  ]);
  return row ? { clientId: row.client_id, verification: verificationFromRow(row) } : undefined;
}

export async function findVerificationByGrant(db: Database, grantId: string): Promise<Verification | undefined> {
  const row = await db<VerificationRow>('verifications').where('grant_id', grantId).first();
  return row ? verificationFromRow(row) : undefined;
}
