import { SECRET_CHANGED, type ChangeOrigin } from '../changes.js';
import { Refusal } from '../refusal.js';
import type { WebhookServices } from './services.js';
import { validator } from '../websites/validation.js';
import { checkWebsiteId, lockWebsiteForChange, websiteAccess } from '../websites/ownership.js';
import { retriedTransaction } from '../store/retry.js';
import { webhookUrlProblem } from './destination.js';
import { enqueueTest, type WebhookEvent } from './events.js';
import { webhookCreateSchema, webhookRotationSchema, WEBHOOKS_PER_WEBSITE } from './schemas.js';
import { newSigningSecret, overlapLasts } from './signature.js';

export interface WebhookInput {
  url: string;
  events: string[];
}

/** What a rotation of the signing secret may say: how long the replaced secret keeps signing. */
export interface RotationInput {
  overlapHours?: number;
}

/** An endpoint as its owner sees it: never its secret. */
export interface Webhook {
  id: number;
  url: string;
  events: WebhookEvent[];
  createdAt: string;
  disabledAt: string | null;
  /** while a rotation's overlap lasts, until when the replaced secret still signs beside the current one */
  previousSecretExpiresAt: string | null;
}

/** What every view of an attempt shows: the delivery log's rows and a message's attempts (inspection.ts). */
export interface AttemptSummary {
  attempt: number;
  attemptedAt: string;
  status: number | null;
  durationMs: number;
  error: string | null;
  nextRetryAt: string | null;
}

/** An attempt's row as those views read it from webhook_attempts. */
export interface AttemptSummaryRow {
  attempt: number;
  attempted_at: Date;
  status: number | null;
  duration_ms: number;
  error: string | null;
  next_retry_at: Date | null;
}

/** One delivery attempt, as the delivery log shows it. */
export interface WebhookDelivery extends AttemptSummary {
  messageId: string;
  event: WebhookEvent;
}

interface WebhookRow {
  id: number;
  url: string;
  events: WebhookEvent[];
  created_at: Date;
  disabled_at: Date | null;
  previous_secret_expires_at: Date | null;
}

const COLUMNS = ['id', 'url', 'events', 'created_at', 'disabled_at', 'previous_secret_expires_at'];
/** Attempts listed per endpoint: the newest, enough to see a failing receiver's pattern. */
const DELIVERIES_LISTED = 100;

const validateCreate = validator<WebhookInput>(webhookCreateSchema, 'body');
const validateRotation = validator<RotationInput>(webhookRotationSchema, 'body');

export const iso = (date: Date | string | null): string | null => (date === null ? null : new Date(date).toISOString());

export const attemptSummaryOf = (row: AttemptSummaryRow): AttemptSummary => ({
  attempt: row.attempt,
  attemptedAt: iso(row.attempted_at)!,
  status: row.status,
  durationMs: row.duration_ms,
  error: row.error,
  nextRetryAt: iso(row.next_retry_at),
});

/** The endpoint as of `now`: an overlap that ended is no longer shown (its secret no longer signs). */
const present = (row: WebhookRow, now: Date): Webhook => ({
  id: Number(row.id),
  url: row.url,
  events: row.events,
  createdAt: iso(row.created_at)!,
  disabledAt: iso(row.disabled_at),
  previousSecretExpiresAt: overlapLasts(row.previous_secret_expires_at && new Date(row.previous_secret_expires_at), now)
    ? iso(row.previous_secret_expires_at)
    : null,
});

const notFound = (): Refusal => new Refusal('not_found', 'Webhook not found.');

/** Registers an endpoint; the answer carries its signing secret, never shown again (it is kept sealed, to sign with). */
export async function createWebhook(
  runtime: WebhookServices,
  webmasterId: number,
  websiteId: number,
  input: WebhookInput,
  origin: ChangeOrigin,
): Promise<Webhook & { secret: string }> {
  const body = validateCreate(input);
  checkWebsiteId(websiteId);
  const problem = webhookUrlProblem(body.url, runtime.config.webhooks.allowPrivateAddresses);
  if (problem) throw new Refusal('invalid', `Invalid url. ${problem}`);
  const secret = newSigningSecret();
  const now = runtime.clock.now();
  return retriedTransaction(runtime.db, async (trx) => {
    await websiteAccess(trx, webmasterId, websiteId);
    // The website's row first (every change's lock order): two registrations racing cannot pass the limit together.
    await lockWebsiteForChange(trx, webmasterId, websiteId);
    const [counted] = await trx('webhooks')
      .where('website_id', websiteId)
      .count<Array<{ count: string | number }>>({ count: '*' });
    if (Number(counted?.count) >= WEBHOOKS_PER_WEBSITE)
      throw new Refusal('conflict', `A website has at most ${WEBHOOKS_PER_WEBSITE} webhooks; delete one first.`);
    const [row] = await trx('webhooks')
      .insert({
        website_id: websiteId,
        url: body.url,
        events: body.events,
        secret_sealed: runtime.sealer.seal(secret),
        created_at: now,
      })
      .returning<WebhookRow[]>(COLUMNS);
    const webhook = present(row!, now);
    await runtime.recordChange(trx, {
      origin,
      webmasterId,
      websiteId,
      at: now,
      action: 'webhook.created',
      before: null,
      after: { id: webhook.id, url: webhook.url, events: webhook.events, secret: SECRET_CHANGED },
    });
    return { ...webhook, secret };
  });
}

/** The website's endpoints, oldest first. */
export async function listWebhooks(
  runtime: WebhookServices,
  webmasterId: number,
  websiteId: number,
): Promise<Webhook[]> {
  checkWebsiteId(websiteId);
  await websiteAccess(runtime.db, webmasterId, websiteId);
  const rows = await runtime.db('webhooks').where('website_id', websiteId).orderBy('id').select<WebhookRow[]>(COLUMNS);
  const now = runtime.clock.now();
  return rows.map((row) => present(row, now));
}

/**
 * Gives the endpoint a new signing secret; the current one becomes the previous and keeps signing beside it for
 * `overlapHours` (WEBHOOK_SECRET_OVERLAP_HOURS unless said; 0: not at all), so a receiver can switch without losing a
 * message. A previous secret still in its overlap is dropped: only two secrets ever sign. Both stay sealed. Under the
 * website's lock (every change's lock order), so two rotations racing run one after the other: the later one's secret
 * is current and the earlier one's is previous. The answer carries the new secret, never shown again.
 */
export async function rotateWebhookSecret(
  runtime: WebhookServices,
  webmasterId: number,
  websiteId: number,
  webhookId: number,
  input: unknown,
  origin: ChangeOrigin,
): Promise<Webhook & { secret: string }> {
  const body = validateRotation(input ?? {});
  checkWebsiteId(websiteId);
  const overlapHours = body.overlapHours ?? runtime.config.webhooks.secretOverlapHours;
  const secret = newSigningSecret();
  return retriedTransaction(runtime.db, async (trx) => {
    await websiteAccess(trx, webmasterId, websiteId);
    await lockWebsiteForChange(trx, webmasterId, websiteId);
    const current = await trx('webhooks')
      .where({ id: webhookId, website_id: websiteId })
      .forNoKeyUpdate()
      .first<{ secret_sealed: string; url: string; disabled_at: Date | null } | undefined>(
        'secret_sealed',
        'url',
        'disabled_at',
      );
    if (!current) throw notFound();
    if (current.disabled_at !== null)
      throw new Refusal('conflict', 'This webhook is disabled: register its URL again instead of rotating its secret.');
    const now = runtime.clock.now();
    const expiresAt = overlapHours > 0 ? new Date(now.getTime() + overlapHours * 3600_000) : null;
    const [row] = await trx('webhooks')
      .where('id', webhookId)
      .update({
        secret_sealed: runtime.sealer.seal(secret),
        previous_secret_sealed: expiresAt && current.secret_sealed,
        previous_secret_expires_at: expiresAt,
      })
      .returning<WebhookRow[]>(COLUMNS);
    const webhook = present(row!, now);
    await runtime.recordChange(trx, {
      origin,
      webmasterId,
      websiteId,
      at: now,
      action: 'webhook.secret_rotated',
      before: { id: webhookId, url: current.url },
      after: { id: webhookId, secret: SECRET_CHANGED, previousSecretExpiresAt: webhook.previousSecretExpiresAt },
    });
    return { ...webhook, secret };
  });
}

/** Deletes the endpoint with its undelivered messages and its delivery log. */
export async function deleteWebhook(
  runtime: WebhookServices,
  webmasterId: number,
  websiteId: number,
  webhookId: number,
  origin: ChangeOrigin,
): Promise<void> {
  checkWebsiteId(websiteId);
  return retriedTransaction(runtime.db, async (trx) => {
    await websiteAccess(trx, webmasterId, websiteId);
    // The website's row before the endpoint's (its delete) and the audit chain's head: every change's lock order.
    await lockWebsiteForChange(trx, webmasterId, websiteId);
    const [deleted] = await trx('webhooks')
      .where({ id: webhookId, website_id: websiteId })
      .delete()
      .returning<WebhookRow[]>(COLUMNS);
    if (!deleted) throw notFound();
    await runtime.recordChange(trx, {
      origin,
      webmasterId,
      websiteId,
      at: runtime.clock.now(),
      action: 'webhook.deleted',
      before: { id: webhookId, url: deleted.url, events: deleted.events },
      after: null,
    });
  });
}

/** The newest attempts to deliver to the endpoint, newest first. */
export async function listDeliveries(
  runtime: WebhookServices,
  webmasterId: number,
  websiteId: number,
  webhookId: number,
): Promise<WebhookDelivery[]> {
  checkWebsiteId(websiteId);
  await websiteAccess(runtime.db, webmasterId, websiteId);
  const hook = await runtime.db('webhooks').where({ id: webhookId, website_id: websiteId }).first('id');
  if (!hook) throw notFound();
  const rows = await runtime
    .db('webhook_attempts as attempt')
    .join('webhook_messages as message', 'message.id', 'attempt.message_id')
    .where('message.webhook_id', webhookId)
    .orderBy([
      { column: 'attempt.attempted_at', order: 'desc' },
      { column: 'attempt.id', order: 'desc' },
    ])
    .limit(DELIVERIES_LISTED)
    .select<Array<AttemptSummaryRow & { message_id: string; type: WebhookEvent }>>(
      'message.message_id',
      'message.type',
      'attempt.attempt',
      'attempt.attempted_at',
      'attempt.status',
      'attempt.duration_ms',
      'attempt.error',
      'attempt.next_retry_at',
    );
  return rows.map((row) => ({ messageId: row.message_id, event: row.type, ...attemptSummaryOf(row) }));
}

/** Queues a `webhook.test` message for the endpoint; it is delivered in the background like any other. */
export async function testWebhook(
  runtime: WebhookServices,
  webmasterId: number,
  websiteId: number,
  webhookId: number,
): Promise<{ queued: true }> {
  checkWebsiteId(websiteId);
  return retriedTransaction(runtime.db, async (trx) => {
    await websiteAccess(trx, webmasterId, websiteId);
    if (!(await enqueueTest(trx, websiteId, webhookId, runtime.clock.now()))) {
      throw new Refusal('not_found', 'Webhook not found, or disabled after its receiver answered 410 Gone.');
    }
    return { queued: true };
  });
}
