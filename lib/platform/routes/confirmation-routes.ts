import Router from '@koa/router';
import type { Context } from 'koa';
import { addSeconds } from '../../clock.js';
import type { PlatformServices } from '../services.js';
import { describeApiToken } from '../../webmasters/api-tokens.js';
import { CREDENTIAL_GRACE_SECONDS, getOAuth2Config, getWebsite } from '../../websites/index.js';
import { websiteEnvironmentOf } from '../../websites/identifiers.js';
import { PLATFORM_PATH, webmasterOf } from '../authentication.js';
import { formatTimestamp, renderPage } from '../page.js';

/** A catalogue key with its parameters: the page translates it. */
interface Message {
  key: string;
  params?: Record<string, string | number>;
}

/** What the confirmation page says and where its one button posts. */
interface Confirmation {
  heading: Message;
  /** what stops working, and when */
  consequences: Message[];
  button: Message;
  action: string;
  back: string;
}

const render = (ctx: Context, confirmation: Confirmation): void => renderPage(ctx, 'confirm.njk', { confirmation });

/**
 * The pages that ask before an irreversible change (a new website key, new OAuth2 credentials, a new API token): each
 * says what stops working and when, and posts to the route that makes the change. The pages' buttons link here.
 */
export function confirmationRoutes(runtime: PlatformServices): Router {
  const router = new Router();
  const ownerOf = (ctx: Context): number => webmasterOf(ctx)!.id;
  const environmentOf = (ctx: Context) => websiteEnvironmentOf({ website_id: ctx.params.id, environment: ctx.params.environment });
  const websitePath = (id: number) => `${PLATFORM_PATH}/websites/${id}`;

  router.get('/websites/:id/keys/:environment/regenerate', async (ctx) => {
    const { websiteId, environment } = environmentOf(ctx);
    const website = await getWebsite(runtime, ownerOf(ctx), websiteId);
    const key = website.keys.find((candidate) => candidate.environment === environment);
    render(ctx, {
      heading: { key: 'platform.confirm.key.heading', params: { environment, name: website.name } },
      consequences: [
        { key: 'platform.confirm.key.stops', params: { environment, key: key?.publicKey ?? '' } },
        { key: 'platform.confirm.key.then' },
      ],
      button: { key: 'platform.keys.regenerate', params: { environment } },
      action: `${websitePath(websiteId)}/keys/${environment.toLowerCase()}/regenerate`,
      back: `${websitePath(websiteId)}/settings`,
    });
  });

  router.get('/websites/:id/oauth2/:environment/regenerate', async (ctx) => {
    const { websiteId, environment } = environmentOf(ctx);
    const website = await getWebsite(runtime, ownerOf(ctx), websiteId);
    const config = await getOAuth2Config(runtime, ownerOf(ctx), websiteId, environment);
    const graceEnds = formatTimestamp(addSeconds(runtime.clock.now(), CREDENTIAL_GRACE_SECONDS));
    render(ctx, {
      heading: { key: 'platform.confirm.credentials.heading', params: { environment, name: website.name } },
      consequences: [
        { key: 'platform.confirm.credentials.new' },
        { key: 'platform.confirm.credentials.grace', params: { clientId: config.clientId ?? '', date: graceEnds } },
        { key: 'platform.confirm.credentials.again' },
      ],
      button: { key: 'platform.oauth2.regenerate', params: { environment } },
      action: `${websitePath(websiteId)}/oauth2/${environment.toLowerCase()}/regenerate`,
      back: `${websitePath(websiteId)}/settings`,
    });
  });

  router.get('/account/token/regenerate', async (ctx) => {
    const active = await describeApiToken(runtime.db, ownerOf(ctx));
    render(ctx, {
      heading: { key: 'platform.confirm.token.heading' },
      consequences: active
        ? [{ key: 'platform.confirm.token.stops', params: { date: formatTimestamp(active.createdAt) } }, { key: 'platform.confirm.token.then' }]
        : [{ key: 'platform.confirm.token.none' }],
      button: { key: 'platform.account.generate' },
      action: `${PLATFORM_PATH}/account/token`,
      back: `${PLATFORM_PATH}/account`,
    });
  });

  return router;
}
