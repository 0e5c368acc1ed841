import type { Knex } from 'knex';
import type { RuleOrigin } from '../policy/rule.js';
import { sha256 } from '../security/hashing.js';
import type { Database } from '../store/database.js';
import { CHECKER_CLIENT_PREFIX } from '../websites/clients.js';
import type { Environment } from './challenge.js';
import { uidPrefix } from './verifications.js';

/**
 * How a flow ended without a verification (docs/verifications.md "Outcomes"):
 * - `refused`: the check's refusal ended the flow (the sandbox's test_outcome=refuse, a sandbox level below the
 *   website's minimum); a refusal after which the visitor may try another check ends the flow only when they do;
 * - `abandoned`: the visitor declined the prompt or cancelled;
 * - `unavailable`: no check could run for the request;
 * - `expired`: the interaction expired with no ending (the visitor closed the window, or left after a refusal).
 */
export type FlowEndingOutcome = 'refused' | 'abandoned' | 'unavailable' | 'expired';

export interface FlowEnding {
  websiteId: number;
  environment: Environment;
  clientId: string;
  outcome: Exclude<FlowEndingOutcome, 'expired'>;
  /** the challenge that refused, when one did */
  challenge: string | null;
  startedAt: Date;
  endedAt: Date;
  /** the policy rules in force for the flow (presets with their versions, the website's own) */
  policy: RuleOrigin[];
}

/**
 * The insert recording a flow's ending, run inside the statement that ends the interaction (flow-storage.ts): no
 * statement more. Its id, of a verification uid's form, is drawn from the interaction's, so two submits racing to end
 * one interaction (a double click on Cancel) insert one ending: the second finds it and inserts nothing.
 */
export const flowEndingInsert = (db: Database, interactionUid: string, ending: FlowEnding): Knex.QueryBuilder =>
  db('flow_endings')
    .insert({
      uid: `${uidPrefix(ending.environment)}${sha256(`ended:${interactionUid}`).slice(0, 32)}`,
      website_id: ending.websiteId,
      environment: ending.environment,
      client_id: ending.clientId,
      outcome: ending.outcome,
      challenge: ending.challenge,
      started_at: ending.startedAt,
      ended_at: ending.endedAt,
      policy: JSON.stringify(ending.policy),
    })
    .onConflict('uid')
    .ignore()
    .returning('uid');

/**
 * Records as `expired` every interaction past its expiry that has no result (nothing ended it) and no verification
 * waiting for the visitor (a pass left on the result page is a verification, not returned to the website). Run by
 * the sweep of expired interactions before it deletes them, off every visitor's request. The ending's id is drawn
 * from the interaction's, so two instances sweeping at once record it once.
 */
export async function recordExpiredFlows(db: Database, now: Date): Promise<void> {
  await db.raw(
    `INSERT INTO flow_endings (uid, website_id, environment, client_id, outcome, started_at, ended_at)
     SELECT CASE COALESCE(config.environment, key.environment) WHEN 'TEST' THEN 'test_' ELSE 'vrf_' END
              || substr(encode(sha256(convert_to('expired:' || interaction.id, 'UTF8')), 'hex'), 1, 32),
            COALESCE(config.website_id, key.website_id), COALESCE(config.environment, key.environment),
            interaction.payload->'params'->>'client_id', 'expired',
            to_timestamp((interaction.payload->>'iat')::double precision), interaction.expires_at
       FROM oidc_payloads interaction
       LEFT JOIN oauth2_credentials credential ON credential.client_id = interaction.payload->'params'->>'client_id'
       LEFT JOIN oauth2_configs config ON config.id = credential.config_id
       LEFT JOIN website_keys key ON ? || key.public_key = interaction.payload->'params'->>'client_id'
      WHERE interaction.type = 'Interaction' AND interaction.expires_at <= ?
        AND interaction.payload->'result' IS NULL
        AND COALESCE(config.website_id, key.website_id) IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM interaction_progress progress WHERE progress.uid = interaction.id AND progress.verification_uid IS NOT NULL)
     ON CONFLICT (uid) DO NOTHING`,
    [CHECKER_CLIENT_PREFIX, now],
  );
}
