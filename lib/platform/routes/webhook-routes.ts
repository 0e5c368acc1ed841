import { PlatformRoutes } from '../route-table.js';
import type { Context } from 'koa';
import { websiteIdOf, websiteWebhookOf } from '../../websites/identifiers.js';
import { Refusal } from '../../refusal.js';
import { seeOther } from '../../http/see-other.js';
import type { PlatformServices } from '../services.js';
import { SUBSCRIBABLE_EVENTS } from '../../webhooks/events.js';
import {
  createWebhook,
  deleteWebhook,
  listDeliveries,
  listWebhooks,
  rotateWebhookSecret,
  testWebhook,
} from '../../webhooks/endpoints.js';
import { MAX_SECRET_OVERLAP_HOURS } from '../../webhooks/settings.js';
import { originOf, accountOf } from '../authentication.js';
import { formatTimestamp } from '../page.js';
import { newWebsiteSecret } from '../one-time-display.js';
import { renderWebsiteTab, websitePath } from './website-routes.js';

/** Attempts shown per endpoint on the page (the API lists more). */
const DELIVERIES_SHOWN = 10;

const listOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : [];

/** The rotation form's hours as the API's body takes them: digits as a number, anything else as sent (refused there). */
const rotationOf = (body: Record<string, unknown>): { overlapHours?: unknown } => {
  const hours = typeof body.overlapHours === 'string' ? body.overlapHours.trim() : body.overlapHours;
  if (hours === undefined || hours === '') return {};
  return { overlapHours: typeof hours === 'string' && /^\d{1,6}$/.test(hours) ? Number(hours) : hours };
};

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
    rotateFailed?: { webhookId: number; message: string },
  ): Promise<void> {
    const hooks = await listWebhooks(runtime, ownerOf(ctx), websiteId);
    const webhooks = await Promise.all(
      hooks.map(async (hook) => ({
        ...hook,
        createdAt: formatTimestamp(new Date(hook.createdAt)),
        disabledAt: hook.disabledAt && formatTimestamp(new Date(hook.disabledAt)),
        previousSecretExpiresAt:
          hook.previousSecretExpiresAt && formatTimestamp(new Date(hook.previousSecretExpiresAt)),
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
      {
        webhooks,
        events: SUBSCRIBABLE_EVENTS,
        failed,
        rotateFailed,
        overlap: { hours: runtime.config.webhooks.secretOverlapHours, max: MAX_SECRET_OVERLAP_HOURS },
      },
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

  routes.post('/websites/:id/webhooks/:webhook/rotate', 'change', async (ctx) => {
    const { websiteId, webhookId } = hookOf(ctx);
    const input = rotationOf(ctx.request.body as Record<string, unknown>);
    let rotated: { url: string; secret: string };
    try {
      rotated = await rotateWebhookSecret(runtime, ownerOf(ctx), websiteId, webhookId, input, originOf(ctx));
    } catch (error) {
      if (!(error instanceof Refusal) || (error.kind !== 'invalid' && error.kind !== 'conflict')) throw error;
      return show(ctx, websiteId, undefined, 400, { webhookId, message: error.message });
    }
    newWebsiteSecret.hold(ctx, runtime, ownerOf(ctx), {
      websiteId,
      kind: 'webhook',
      label: rotated.url,
      secret: rotated.secret,
    });
    seeOther(ctx, websitePath(websiteId, 'webhooks', 'webhookRotated'), { noStore: true });
  });

  routes.post('/websites/:id/webhooks/:webhook/delete', 'change', async (ctx) => {
    const { websiteId, webhookId } = hookOf(ctx);
    await deleteWebhook(runtime, ownerOf(ctx), websiteId, webhookId, originOf(ctx));
    seeOther(ctx, websitePath(websiteId, 'webhooks', 'webhookDeleted'), { noStore: true });
  });

  return routes;
}
