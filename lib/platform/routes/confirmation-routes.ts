import { PlatformRoutes } from '../route-table.js';
import type { Context } from 'koa';
import { addSeconds } from '../../clock.js';
import type { PlatformServices } from '../services.js';
import { CREDENTIAL_GRACE_SECONDS, getOAuth2Config, getWebsite } from '../../websites/index.js';
import { websiteEnvironmentOf, websiteIdOf } from '../../websites/identifiers.js';
import { accountOf, PLATFORM_PATH, webmasterOf } from '../authentication.js';
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
  /** a destructive change asks for a word typed back (the website's name, the account's address): `name` is expected */
  typed?: { label: string; params: { name: string } };
}

/** A typed confirmation that did not match comes back here with ?mismatch=1 (lib/platform/routes/way-out-routes.ts). */
const render = (ctx: Context, confirmation: Confirmation): void =>
  renderPage(
    ctx,
    'confirm.njk',
    { confirmation, mismatch: ctx.query.mismatch === '1' },
    ctx.query.mismatch === '1' ? 400 : 200,
  );

/**
 * The pages that ask before an irreversible change (a new website key, new OAuth2 credentials, deleting a website,
 * closing the account): each
 * says what stops working and when, and posts to the route that makes the change. The pages' buttons link here.
 */
export function confirmationRoutes(runtime: PlatformServices): PlatformRoutes {
  const routes = new PlatformRoutes();
  const ownerOf = (ctx: Context): number => accountOf(ctx);
  const environmentOf = (ctx: Context) =>
    websiteEnvironmentOf({ website_id: ctx.params.id, environment: ctx.params.environment });
  const websitePath = (id: number) => `${PLATFORM_PATH}/websites/${id}`;

  routes.get('/websites/:id/keys/:environment/regenerate', 'change', async (ctx) => {
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

  routes.get('/websites/:id/oauth2/:environment/regenerate', 'change', async (ctx) => {
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

  routes.get('/websites/:id/delete', 'change', async (ctx) => {
    const website = await getWebsite(runtime, ownerOf(ctx), websiteIdOf({ website_id: ctx.params.id }).websiteId);
    render(ctx, {
      heading: { key: 'platform.confirm.delete.heading', params: { name: website.name } },
      consequences: [{ key: 'platform.confirm.delete.stops' }, { key: 'platform.confirm.delete.kept' }],
      button: { key: 'platform.confirm.delete.button' },
      action: `${websitePath(website.id)}/delete`,
      back: `${websitePath(website.id)}/settings`,
      typed: { label: 'platform.confirm.delete.type', params: { name: website.name } },
    });
  });

  routes.get('/account/close', 'ownership', (ctx) => {
    const { account } = webmasterOf(ctx)!;
    render(ctx, {
      heading: { key: 'platform.confirm.close.heading', params: { email: account!.email } },
      consequences: [
        { key: 'platform.confirm.close.erased', params: { email: account!.email } },
        { key: 'platform.confirm.close.audit' },
      ],
      button: { key: 'platform.confirm.close.button' },
      action: `${PLATFORM_PATH}/account/close`,
      back: `${PLATFORM_PATH}/account`,
      typed: { label: 'platform.confirm.close.type', params: { name: account!.email } },
    });
  });

  return routes;
}
