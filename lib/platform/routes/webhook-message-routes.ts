import type { Context } from 'koa';
import { describeError } from '../../http/errors.js';
import { seeOther } from '../../http/see-other.js';
import { Refusal } from '../../refusal.js';
import { listWebhooks } from '../../webhooks/endpoints.js';
import { getWebhookMessage, redeliverMessage } from '../../webhooks/inspection.js';
import { websiteWebhookMessageOf } from '../../websites/identifiers.js';
import { accountOf } from '../authentication.js';
import { PlatformRoutes } from '../route-table.js';
import type { PlatformServices } from '../services.js';
import { messageView } from '../webhook-message-view.js';
import { renderWebsiteTab, websitePath } from './website-routes.js';

/** The message a path names: its website, its webhook and its `webhook-id`; malformed values are refused as invalid. */
type MessageTarget = ReturnType<typeof websiteWebhookMessageOf>;

const targetOf = (ctx: Context): MessageTarget =>
  websiteWebhookMessageOf({
    website_id: ctx.params.id,
    webhook_id: ctx.params.webhook,
    message_id: ctx.params.message,
  });

const messagePath = ({ websiteId, webhookId, messageId }: MessageTarget): string =>
  `${websitePath(websiteId, 'webhooks')}/${webhookId}/messages/${messageId}`;

/**
 * One webhook message under a website's Webhooks: what was sent, every attempt with the receiver's answer, and a
 * form that sends it again with the same `webhook-id` (lib/webhooks/inspection.ts, the External API's own functions:
 * tenancy is in their queries).
 */
export function webhookMessageRoutes(runtime: PlatformServices): PlatformRoutes {
  const routes = new PlatformRoutes();

  /** The message's page; `refused` when a redelivery was refused (its endpoint was disabled meanwhile). */
  async function show(ctx: Context, target: MessageTarget, refused?: { status: number }): Promise<void> {
    const { websiteId, webhookId, messageId } = target;
    const message = await getWebhookMessage(runtime, accountOf(ctx), websiteId, webhookId, messageId);
    const hook = (await listWebhooks(runtime, accountOf(ctx), websiteId)).find((one) => one.id === webhookId);
    // Deleted between the two reads: gone, as its message is.
    if (!hook) throw new Refusal('not_found', 'Webhook message not found.');
    await renderWebsiteTab(
      ctx,
      runtime,
      websiteId,
      { tab: 'webhooks', view: 'website-webhook-message.njk' },
      { message: messageView(message), hook, refused: refused !== undefined },
      refused?.status,
    );
  }

  routes.get('/websites/:id/webhooks/:webhook/messages/:message', 'view', (ctx) => show(ctx, targetOf(ctx)));

  routes.post('/websites/:id/webhooks/:webhook/messages/:message/redeliver', 'change', async (ctx) => {
    const target = targetOf(ctx);
    try {
      await redeliverMessage(runtime, accountOf(ctx), target.websiteId, target.webhookId, target.messageId);
    } catch (error) {
      // The only conflict: the endpoint is disabled. The page says so where the button was, with the API's status.
      if (!(error instanceof Refusal) || error.kind !== 'conflict') throw error;
      return show(ctx, target, { status: describeError(error).status });
    }
    seeOther(ctx, `${messagePath(target)}?saved=redelivered`, { noStore: true });
  });

  return routes;
}
