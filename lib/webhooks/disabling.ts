import type { Knex } from 'knex';
import type { ChangeOrigin } from '../changes.js';
import { FALLBACK_LANGUAGE, isLanguage } from '../i18n/languages.js';
import { translator } from '../i18n/catalogue.js';
import type { Mailer } from '../mail/mailer.js';
import type { Database } from '../store/database.js';
import { retriedTransaction } from '../store/retry.js';
import { lockWebsiteForChange } from '../websites/ownership.js';
import {
  disableEndpoint,
  recordAttempt,
  type AttemptRecord,
  type ClaimedMessage,
  type RecordedAttempt,
} from './outbox.js';
import type { WebhookServices } from './services.js';

/**
 * Why an endpoint was disabled, as its `webhook.disabled` event and audit entry name it: its receiver answered 410
 * Gone, or it failed without a success for WEBHOOK_DISABLE_AFTER_HOURS.
 */
export type DisableReason = 'gone' | 'failing';

/** Where an account's owners hear that an endpoint was disabled. */
export interface OwnersMail {
  /** absent when no SMTP_URL is configured: the disabling is then in the audit trail, the event and the log only */
  mailer: Mailer | undefined;
  /** the operator's name, in the mails */
  brand: string;
}

/** An endpoint and its website, whose row the transaction that read it holds locked. */
export interface EndpointSite {
  webhookId: number;
  websiteId: number;
  accountId: number;
  /** the website's name and language, for the owners' mail */
  website: string;
  language: string;
  url: string;
}

/** Who disables an endpoint: the delivery, on the operator's behalf (the audit trail's actor). */
const DELIVERY: ChangeOrigin = { actor: { type: 'operator', id: 'webhook delivery' }, address: null };

/**
 * Reads the endpoint's website and locks its row: the first lock of every change of a website
 * (lockWebsiteForChange), taken before the endpoint's own. Undefined when the endpoint is gone.
 */
export async function lockEndpointWebsite(trx: Knex.Transaction, webhookId: number): Promise<EndpointSite | undefined> {
  const site = await trx('webhooks as hook')
    .join('websites as website', 'website.id', 'hook.website_id')
    .where('hook.id', webhookId)
    .first<{ website_id: number; account_id: number; name: string; language: string; url: string } | undefined>(
      'hook.website_id',
      'website.webmaster_id as account_id',
      'website.name',
      'website.language',
      'hook.url',
    );
  if (!site) return undefined;
  await lockWebsiteForChange(trx, Number(site.account_id), Number(site.website_id));
  return {
    webhookId,
    websiteId: Number(site.website_id),
    accountId: Number(site.account_id),
    website: site.name,
    language: site.language,
    url: site.url,
  };
}

/**
 * Disables the endpoint as a change of its website, in the caller's transaction after lockEndpointWebsite: the endpoint
 * is disabled and its waiting messages given up (disableEndpoint), and the change recorded. Its listeners
 * (lib/app/changes.ts) write the audit entry and a `webhook.disabled` message for each of the website's other enabled
 * endpoints subscribed to it (this one is disabled already: it gets none). False when it was disabled already:
 * nothing is recorded twice.
 */
export async function disableAsChange(
  runtime: Pick<WebhookServices, 'recordChange' | 'config'>,
  trx: Knex.Transaction,
  site: EndpointSite,
  at: Date,
  reason: DisableReason,
  before: Record<string, unknown> = {},
): Promise<boolean> {
  const words =
    reason === 'gone'
      ? 'the receiver answered 410 Gone'
      : `no successful delivery for ${runtime.config.webhooks.disableAfterHours} hours`;
  if (!(await disableEndpoint(trx, site.webhookId, at, words))) return false;
  await runtime.recordChange(trx, {
    origin: DELIVERY,
    webmasterId: site.accountId,
    websiteId: site.websiteId,
    at,
    action: 'webhook.disabled',
    before: { id: site.webhookId, url: site.url, ...before },
    after: { id: site.webhookId, url: site.url, disabledAt: at.toISOString(), reason },
  });
  return true;
}

/** An attempt's record, and the endpoint it disabled (a 410 answer). */
export type RecordedGone = RecordedAttempt & { disabled?: EndpointSite };

/**
 * Records an attempt answered 410 Gone and disables its endpoint as a change of its website, in one transaction: the
 * website's row first, then the endpoint's and its messages (every change's lock order). Concurrent 410 answers of one
 * endpoint disable it once.
 */
export const recordGone = (
  runtime: Pick<WebhookServices, 'recordChange' | 'config'>,
  db: Database,
  message: ClaimedMessage,
  record: AttemptRecord,
): Promise<RecordedGone> =>
  retriedTransaction(db, async (trx) => {
    const site = await lockEndpointWebsite(trx, message.webhookId);
    const recorded = await recordAttempt(trx, message, record);
    if (!site || !recorded.recorded) return recorded;
    return (await disableAsChange(runtime, trx, site, record.attemptedAt, 'gone'))
      ? { ...recorded, disabled: site }
      : recorded;
  });

/**
 * Tells each owner of the account, in the website's language, why, after the disabling committed; a mail that cannot
 * be sent (or owners that cannot be read) is logged, not retried: the audit trail and the event hold the disabling.
 */
export async function mailOwners(
  runtime: Pick<WebhookServices, 'config' | 'log'>,
  db: Database,
  { mailer, brand }: OwnersMail,
  site: EndpointSite,
  reason: DisableReason,
): Promise<void> {
  if (!mailer) return;
  const notMailed = (): void => runtime.log.warn('webhook disabling not mailed', { websiteId: site.websiteId });
  const owners = await db('account_members as member')
    .join('webmasters as webmaster', 'webmaster.id', 'member.webmaster_id')
    .where({ 'member.account_id': site.accountId, 'member.role': 'owner' })
    .whereNull('webmaster.disabled_at')
    .pluck<string[]>('webmaster.email')
    .catch((): string[] => {
      notMailed();
      return [];
    });
  const t = translator(isLanguage(site.language) ? site.language : FALLBACK_LANGUAGE);
  const params = { website: site.website, url: site.url, brand, hours: runtime.config.webhooks.disableAfterHours };
  const text = reason === 'gone' ? t('webhooks.gone.mail.text', params) : t('webhooks.disabled.mail.text', params);
  for (const to of owners)
    await mailer.send({ to, subject: t('webhooks.disabled.mail.subject', params), text }).catch(notMailed);
}
