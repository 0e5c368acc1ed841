import type { Knex } from 'knex';

/** Who made a change: a webmaster on the platform, an API token (its id), or the operator at the command line (its command). */
export type Actor =
  | { type: 'webmaster'; id: number }
  | { type: 'api_token'; id: number }
  | { type: 'operator'; id: string };

/** Who made a change and from which address (none at the command line). */
export interface ChangeOrigin {
  actor: Actor;
  address: string | null;
}

/** What a change shows in place of a secret: that it changed, never its value. */
export const SECRET_CHANGED = '(changed)';

/** One change, as a service records it: what the audit entry and the webhook message are both derived from. */
export interface Change {
  origin: ChangeOrigin;
  webmasterId: number;
  /** the website changed; null for the webmaster's own (the API token) */
  websiteId: number | null;
  at: Date;
  /** e.g. `website.updated`, `oauth2.credentials.regenerated` */
  action: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/**
 * Records a change once, in the caller's transaction; every listener (the audit trail, the webhooks' outbox) derives
 * its own row from it in that transaction, so each exists exactly when the change committed. The composition lists
 * the listeners (lib/app/changes.ts): a service that changes something names the change, not who hears of it.
 */
export type RecordChange = (trx: Knex.Transaction, change: Change) => Promise<void>;
