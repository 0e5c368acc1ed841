import type { RecordChange } from '../changes.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Sealer } from '../security/sealing.js';
import type { Database } from '../store/database.js';
import type { WebhookSettings } from './settings.js';

/** What the webhooks' endpoints and their delivery take, in their own terms (lib/app/runtime.ts satisfies them). */
export interface WebhookServices {
  db: Database;
  clock: Clock;
  log: Logger;
  /** an endpoint's signing secret is kept sealed */
  sealer: Sealer;
  /** an endpoint added or removed is a change of its website (lib/changes.ts) */
  recordChange: RecordChange;
  config: { readonly webhooks: WebhookSettings };
  /** the delivery's timer is stopped on close */
  onClose(task: () => Promise<void> | void): void;
}
