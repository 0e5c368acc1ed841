import type { Knex } from 'knex';
import * as initial from './001_initial.js';
import * as interactionProgress from './002_interaction_progress.js';
import * as domainVerification from './003_domain_verification.js';
import * as visitorPasskeys from './004_visitor_passkeys.js';
import * as clientChangeFeed from './005_client_change_feed.js';
import * as websitePolicies from './006_website_policies.js';
import * as statistics from './007_statistics.js';
import * as webhooks from './008_webhooks.js';
import * as auditTrail from './009_audit_trail.js';
import * as signInCodes from './010_sign_in_codes.js';
import * as formEffects from './011_form_effects.js';
import * as domainVerifiedBy from './012_domain_verified_by.js';
import * as webmasterAccess from './013_webmaster_access.js';
import * as secondFactors from './014_second_factors.js';
import * as team from './015_team.js';
import * as webhookDeliveryUnderFaults from './016_webhook_delivery_under_faults.js';
import * as webhookInspection from './017_webhook_inspection.js';
import * as webmasterPasskeys from './018_webmaster_passkeys.js';
import * as statisticsCounted from './019_statistics_counted.js';
import * as verificationListing from './020_verification_listing.js';
import * as statisticsFunnel from './021_statistics_funnel.js';
import * as evidence from './022_evidence.js';
import * as migrationSteps from './023_migration_steps.js';
import * as webhookSecretRotation from './024_webhook_secret_rotation.js';

/**
 * How a migration changes the schema (docs/upgrading.md): `expand` keeps everything the previous release reads and
 * writes (new tables, new nullable or defaulted columns, new indexes, relaxed constraints), so the previous release
 * keeps serving beside this one during a rolling upgrade and after a way back; `contract` removes or narrows something
 * (a column, a table, a constraint an older build relies on) and is shipped only once no build that needs it runs.
 * A build refuses to start on a database with a contract step it does not know.
 */
export type MigrationStep = 'expand' | 'contract';

interface Migration {
  step: MigrationStep;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** Every migration in order. Listed explicitly so they run the same from sources (tsx) and from dist. */
export const migrations: ReadonlyArray<readonly [name: string, migration: Migration]> = [
  ['001_initial', initial],
  ['002_interaction_progress', interactionProgress],
  ['003_domain_verification', domainVerification],
  ['004_visitor_passkeys', visitorPasskeys],
  ['005_client_change_feed', clientChangeFeed],
  ['006_website_policies', websitePolicies],
  ['007_statistics', statistics],
  ['008_webhooks', webhooks],
  ['009_audit_trail', auditTrail],
  ['010_sign_in_codes', signInCodes],
  ['011_form_effects', formEffects],
  ['012_domain_verified_by', domainVerifiedBy],
  ['013_webmaster_access', webmasterAccess],
  ['014_second_factors', secondFactors],
  ['015_team', team],
  ['016_webhook_delivery_under_faults', webhookDeliveryUnderFaults],
  ['017_webhook_inspection', webhookInspection],
  ['018_webmaster_passkeys', webmasterPasskeys],
  ['019_statistics_counted', statisticsCounted],
  ['020_verification_listing', verificationListing],
  ['021_statistics_funnel', statisticsFunnel],
  ['022_evidence', evidence],
  ['023_migration_steps', migrationSteps],
  ['024_webhook_secret_rotation', webhookSecretRotation],
];
