import { PlatformRoutes } from '../route-table.js';
import type { Context } from 'koa';
import { websiteIdOf, websiteWebhookOf } from '../../websites/identifiers.js';
import { Refusal } from '../../refusal.js';
import { seeOther } from '../../http/see-other.js';
import type { PlatformServices } from '../services.js';
import { SUBSCRIBABLE_EVENTS } from '../../webhooks/events.js';
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, testWebhook } from '../../webhooks/endpoints.js';
import { originOf, accountOf } from '../authentication.js';
import { formatTimestamp } from '../page.js';
import { newWebsiteSecret } from '../one-time-display.js';
import { renderWebsiteTab, websitePath } from './website-routes.js';

/** Attempts shown per endpoint on the page (the API lists more). */
const DELIVERIES_SHOWN = 10;

const listOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : [];

/** A website's Webhooks section: its endpoints with their latest deliveries, and the forms to add, test and delete them. */
export function webhookRoutes(runtime: PlatformServices): PlatformRoutes {
  const routes = new PlatformRoutes();
  const ownerOf = (ctx: Context): number => accountOf(ctx);
  const websiteOf = (ctx: Context): number => websiteIdOf({ website_id: ctx.params.id }).websiteId;
  const hookOf = (ctx: Context) => websiteWebhookOf({ website_id: ctx.params.id, webhook_id: ctx.params.webhook });

  async function show(
    ctx: Context,
    websiteId: number,
    failed?: { values: { url: string; events: string[] }; message: string },
    status = 200,
  ): Promise<void> {
    const hooks = await listWebhooks(runtime, ownerOf(ctx), websiteId);
    const webhooks = await Promise.all(
      hooks.map(async (hook) => ({
        ...hook,
        createdAt: formatTimestamp(new Date(hook.createdAt)),
        disabledAt: hook.disabledAt && formatTimestamp(new Date(hook.disabledAt)),
        deliveries: (await listDeliveries(runtime, ownerOf(ctx), websiteId, hook.id))
          .slice(0, DELIVERIES_SHOWN)
          .map((delivery) => ({
            ...delivery,
            attemptedAt: formatTimestamp(new Date(delivery.attemptedAt), { seconds: true }),
            nextRetryAt: delivery.nextRetryAt && formatTimestamp(new Date(delivery.nextRetryAt), { seconds: true }),
          })),
      })),
    );
    await renderWebsiteTab(
      ctx,
      runtime,
      websiteId,
      'webhooks',
      { webhooks, events: SUBSCRIBABLE_EVENTS, failed },
      status,
    );
  }

  routes.get('/websites/:id/webhooks', 'view', (ctx) => show(ctx, websiteOf(ctx)));

  routes.post('/websites/:id/webhooks', 'change', async (ctx) => {
    const websiteId = websiteOf(ctx);
    const body = ctx.request.body as Record<string, unknown>;
    const values = { url: typeof body.url === 'string' ? body.url.trim() : '', events: listOf(body.events) };
    let secret: string;
    try {
      ({ secret } = await createWebhook(runtime, ownerOf(ctx), websiteId, values, originOf(ctx)));
    } catch (error) {
      if (!(error instanceof Refusal) || (error.kind !== 'invalid' && error.kind !== 'conflict')) throw error;
      return show(ctx, websiteId, { values, message: error.message }, 400);
    }
    newWebsiteSecret.hold(ctx, runtime, ownerOf(ctx), { websiteId, kind: 'webhook', label: values.url, secret });
    seeOther(ctx, websitePath(websiteId, 'webhooks', 'webhook'), { noStore: true });
  });

  routes.post('/websites/:id/webhooks/:webhook/test', 'change', async (ctx) => {
    const { websiteId, webhookId } = hookOf(ctx);
    await testWebhook(runtime, ownerOf(ctx), websiteId, webhookId);
    seeOther(ctx, websitePath(websiteId, 'webhooks', 'webhookTest'), { noStore: true });
  });

  routes.post('/websites/:id/webhooks/:webhook/delete', 'change', async (ctx) => {
    const { websiteId, webhookId } = hookOf(ctx);
    await deleteWebhook(runtime, ownerOf(ctx), websiteId, webhookId, originOf(ctx));
    seeOther(ctx, websitePath(websiteId, 'webhooks', 'webhookDeleted'), { noStore: true });
  });

  return routes;
}
