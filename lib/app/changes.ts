import { record } from '../audit/trail.js';
import type { RecordChange } from '../changes.js';
import { announceChange } from '../webhooks/events.js';

/**
 * One change, many listeners: every change a service records becomes, in its transaction and in this order, an entry
 * of the audit trail (the chain's head is locked first) and, when subscribers hear of it, a message in the webhooks'
 * outbox. The services name the change (lib/changes.ts); only this list knows who listens.
 */
export const recordChange: RecordChange = async (trx, change) => {
  await record(trx, change);
  await announceChange(trx, change);
};
