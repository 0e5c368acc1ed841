import { schedulePeriodic } from '../periodic.js';
import type { Database } from '../store/database.js';
import { retriedTransaction } from '../store/retry.js';
import { disableAsChange, lockEndpointWebsite, mailOwners, type EndpointSite, type OwnersMail } from './disabling.js';
import { giveUp, GIVEN_UP_ENDPOINT_DISABLED } from './outbox.js';
import type { WebhookServices } from './services.js';

/** Messages one endpoint may have waiting; beyond it the oldest are given up (docs/webhooks.md "Limits"). */
export const BACKLOG_LIMIT = 10_000;
/** The upkeep runs every this many looks at the outbox: every minute at the default 2 s. */
const MAINTENANCE_EVERY_POLLS = 30;

/** What the outbox's upkeep runs on: the worker's services and pool, and the operator's mail server if any. */
export interface MaintenanceInput extends OwnersMail {
  runtime: WebhookServices;
  db: Database;
}

/** What one round of upkeep did. */
export interface Upkeep {
  /** endpoints disabled for failing WEBHOOK_DISABLE_AFTER_HOURS */
  disabled: number[];
  /** messages given up because their endpoint was disabled while they were written */
  leftovers: number;
  /** messages given up because their endpoint's backlog was over BACKLOG_LIMIT */
  overBacklog: number;
}

const ids = async (query: Promise<Array<{ id: number | string }>>): Promise<number[]> =>
  (await query).map((row) => Number(row.id));

/**
 * One round of the outbox's upkeep, by one instance or several at once (each step takes the endpoint's row lock first
 * and is idempotent):
 * - an endpoint failing without a success for WEBHOOK_DISABLE_AFTER_HOURS is disabled, its messages given up, the
 *   disabling recorded as a change of the website (its audit trail, a `webhook.disabled` event to its other
 *   endpoints) and mailed to the account's owners;
 * - a message written for an endpoint while it was being disabled (its writer's snapshot still saw it enabled) is
 *   given up, so none stays scheduled for ever and the retention sweep removes it in time;
 * - an endpoint's backlog over BACKLOG_LIMIT loses its oldest messages, each given up with the reason.
 */
export async function maintainOutbox(input: MaintenanceInput): Promise<Upkeep> {
  const { runtime, db } = input;
  const now = runtime.clock.now();
  const hours = runtime.config.webhooks.disableAfterHours;
  const failing = await ids(
    db('webhooks')
      .whereNull('disabled_at')
      .where('failing_since', '<=', new Date(now.getTime() - hours * 3600_000))
      .select('id'),
  );
  const disabled: number[] = [];
  for (const webhookId of failing) if (await disableFailing(input, webhookId, now)) disabled.push(webhookId);

  let leftovers = 0;
  const withLeftovers = await ids(
    db('webhooks as hook')
      .whereNotNull('hook.disabled_at')
      .whereExists((pending) => {
        pending
          .from('webhook_messages as message')
          .whereRaw('message.webhook_id = hook.id')
          .whereNotNull('message.next_attempt_at')
          .whereNull('message.given_up_at');
      })
      .select('hook.id'),
  );
  for (const webhookId of withLeftovers)
    leftovers += await retriedTransaction(db, async (trx) => {
      await trx('webhooks').where('id', webhookId).forNoKeyUpdate().first('id');
      return giveUp(trx.from('webhook_messages').where('webhook_id', webhookId), now, GIVEN_UP_ENDPOINT_DISABLED);
    });

  let overBacklog = 0;
  const crowded = await ids(
    db('webhook_messages')
      .whereNotNull('next_attempt_at')
      .whereNull('given_up_at')
      .groupBy('webhook_id')
      .havingRaw('count(*) > ?', [BACKLOG_LIMIT])
      .select('webhook_id as id'),
  );
  for (const webhookId of crowded)
    overBacklog += await retriedTransaction(db, async (trx) => {
      await trx('webhooks').where('id', webhookId).forNoKeyUpdate().first('id');
      const oldest = trx('webhook_messages')
        .where('webhook_id', webhookId)
        .whereNotNull('next_attempt_at')
        .whereNull('given_up_at')
        .orderBy('id', 'desc')
        .offset(BACKLOG_LIMIT)
        .select('id');
      return giveUp(trx.from('webhook_messages').whereIn('id', oldest), now, `backlog over ${BACKLOG_LIMIT} messages`);
    });
  if (disabled.length > 0 || leftovers > 0 || overBacklog > 0)
    runtime.log.info('webhook outbox upkeep', { disabled, leftovers, overBacklog });
  return { disabled, leftovers, overBacklog };
}

/** Disables one failing endpoint as a change of its website (its row first), then mails the account's owners. */
async function disableFailing(input: MaintenanceInput, webhookId: number, now: Date): Promise<boolean> {
  const { runtime, db } = input;
  const hours = runtime.config.webhooks.disableAfterHours;
  const cutoff = new Date(now.getTime() - hours * 3600_000);
  const disabled = await retriedTransaction(db, async (trx): Promise<EndpointSite | undefined> => {
    const site = await lockEndpointWebsite(trx, webhookId);
    if (!site) return undefined;
    // Still failing under the lock: a success recorded meanwhile keeps it.
    const still = await trx('webhooks')
      .where('id', webhookId)
      .whereNull('disabled_at')
      .where('failing_since', '<=', cutoff)
      .forNoKeyUpdate()
      .first<{ failing_since: Date } | undefined>('failing_since');
    if (!still) return undefined;
    const failingSince = new Date(still.failing_since).toISOString();
    return (await disableAsChange(runtime, trx, site, now, 'failing', { failingSince })) ? site : undefined;
  });
  if (!disabled) return false;
  runtime.log.warn('webhook endpoint disabled: failing without a success', {
    webhookId,
    websiteId: disabled.websiteId,
    hours,
  });
  await mailOwners(runtime, db, input, disabled, 'failing');
  return true;
}

/** The upkeep every MAINTENANCE_EVERY_POLLS poll intervals, by every instance (each step is safe to run concurrently). */
export function scheduleOutboxMaintenance(input: MaintenanceInput): void {
  schedulePeriodic(input.runtime, {
    name: 'keeping the webhook outbox',
    everyMs: MAINTENANCE_EVERY_POLLS * input.runtime.config.webhooks.pollIntervalMs,
    run: async () => {
      await maintainOutbox(input);
    },
  });
}
