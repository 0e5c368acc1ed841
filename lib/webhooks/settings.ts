import type { SettingsSection } from '../config/settings.js';

/** How webhooks are delivered (docs/webhooks.md). */
export interface WebhookSettings {
  /**
   * Webhook URLs may use http and reach private, loopback and link-local addresses: for an operator whose receivers
   * live on their own network (or a developer's machine). Off, only https to public addresses is ever contacted.
   */
  allowPrivateAddresses: boolean;
  /** milliseconds one delivery may take, connecting and answering included */
  timeoutMs: number;
  /** milliseconds between two looks at the outbox for messages due */
  pollIntervalMs: number;
  /** attempts one instance keeps in flight at once, all endpoints together */
  concurrency: number;
  /** attempts one instance keeps in flight at once for one endpoint: a slow endpoint never fills the worker */
  endpointConcurrency: number;
  /** PostgreSQL connections of the delivery worker's own pool, apart from the pool visitors' requests use */
  databaseConnections: number;
  /** hours an endpoint may fail without a single success before it is disabled */
  disableAfterHours: number;
  /** hours the secret a rotation replaces keeps signing beside the new one, unless the rotation says otherwise */
  secretOverlapHours: number;
}

/** The longest overlap of a rotation: a week covers any deployment of a receiver; a longer one keeps a leaked secret alive. */
export const MAX_SECRET_OVERLAP_HOURS = 168;

export const webhookSettings: SettingsSection<WebhookSettings> = {
  spec: {
    allowPrivateAddresses: { env: 'WEBHOOK_ALLOW_PRIVATE_ADDRESSES', schema: { type: 'boolean' }, default: false },
    timeoutMs: {
      env: 'WEBHOOK_TIMEOUT_MS',
      schema: { type: 'integer', minimum: 1000, maximum: 30000 },
      default: 10000,
    },
    pollIntervalMs: {
      env: 'WEBHOOK_POLL_INTERVAL_MS',
      schema: { type: 'integer', minimum: 50, maximum: 3600000 },
      default: 2000,
    },
    concurrency: {
      env: 'WEBHOOK_CONCURRENCY',
      schema: { type: 'integer', minimum: 1, maximum: 1000 },
      default: 32,
    },
    endpointConcurrency: {
      env: 'WEBHOOK_ENDPOINT_CONCURRENCY',
      schema: { type: 'integer', minimum: 1, maximum: 100 },
      default: 4,
    },
    databaseConnections: {
      env: 'WEBHOOK_DATABASE_CONNECTIONS',
      schema: { type: 'integer', minimum: 1, maximum: 20 },
      default: 2,
    },
    disableAfterHours: {
      env: 'WEBHOOK_DISABLE_AFTER_HOURS',
      schema: { type: 'integer', minimum: 1, maximum: 8760 },
      default: 120,
    },
    secretOverlapHours: {
      env: 'WEBHOOK_SECRET_OVERLAP_HOURS',
      schema: { type: 'integer', minimum: 0, maximum: MAX_SECRET_OVERLAP_HOURS },
      default: 24,
    },
  },
};
