import { record } from '../audit/trail.js';
import type { RecordChange } from '../changes.js';
import { announceChange } from '../webhooks/events.js';
import { lockWebsiteForChange } from '../websites/ownership.js';

/**
 * One change, many listeners: every change a service records becomes, in its transaction and in this order, an entry
 * of the audit trail (the website's row, then the chain's head, are locked first) and, when subscribers hear of it, a message in the webhooks'
 * outbox. The services name the change (lib/changes.ts); only this list knows who listens.
 */
export const recordChange: RecordChange = async (trx, change) => {
  // The website's row before the chain's head and the outbox, whichever path comes here: one lock order for every
  // change of a website (a path that locked it first already holds it).
  if (change.websiteId !== null) await lockWebsiteForChange(trx, change.webmasterId, change.websiteId);
  await record(trx, change);
  await announceChange(trx, change);
};
