import Router from '@koa/router';
import type { Context } from 'koa';
import { pathValues } from '../../external/path-values.js';
import { HttpError } from '../../http/errors.js';
import { LANGUAGE_CHOICES } from '../../i18n/languages.js';
import type { Runtime } from '../../runtime.js';
import { WEBSITE_CHALLENGES } from '../../verification/challenge.js';
import {
  createOAuth2Config, createWebsite, ENVIRONMENTS, getDomainVerification, getWebsite, listWebsites, regenerateOAuth2Credentials,
  regenerateWebsiteKey, updateOAuth2Config, updateWebsite,
} from '../../websites/index.js';
import { originOf, PLATFORM_PATH, webmasterOf } from '../authentication.js';
import { renderPage } from '../page.js';
import { seeOther } from '../../http/see-other.js';
import {
  oauth2CreateForm, oauth2UpdateForm, websiteCreateForm, websiteUpdateForm, type FieldErrors, type ParsedForm,
} from '../website-forms.js';
import { hasSecrets, overviewsOf } from '../website-view.js';
import { integrationsOf } from '../integration-view.js';
import { browserLanguage } from '../../i18n/negotiate.js';

/** What the page says after a successful change (?saved=...), from a fixed list so the query cannot inject text. */
const NOTICES = ['created', 'website', 'key', 'oauth2', 'credentials'] as const;

/** A form that failed: which one, the values to show again, and the problems (per field, or one for the whole form). */
interface FailedForm {
  form: string;
  values: object;
  fields: FieldErrors;
  message?: string;
}

const OPTIONS = { languages: LANGUAGE_CHOICES, challenges: WEBSITE_CHALLENGES, environments: ENVIRONMENTS };

/** The websites overview and each website's page: keys, OAuth2 configurations, and the forms that change them. */
export function websiteRoutes(runtime: Runtime): Router {
  const router = new Router();
  const ownerOf = (ctx: Context): number => webmasterOf(ctx)!.id;
  const websitePath = (id: number, saved?: (typeof NOTICES)[number]) => `${PLATFORM_PATH}/websites/${id}${saved ? `?saved=${saved}` : ''}`;

  const pageOptions = (ctx: Context) => ({
    ...OPTIONS,
    freeChallenges: runtime.challenges.freeChallenges(),
    showSecrets: ctx.query.secrets === 'shown',
    notice: NOTICES.find((notice) => notice === ctx.query.saved),
  });

  async function showList(ctx: Context, failed?: FailedForm, status = 200): Promise<void> {
    const overviews = await overviewsOf(runtime, ownerOf(ctx), await listWebsites(runtime, ownerOf(ctx)));
    renderPage(ctx, 'websites.njk', { ...pageOptions(ctx), overviews, secrets: hasSecrets(overviews), failed }, status);
  }

  async function showWebsite(ctx: Context, websiteId: number, failed?: FailedForm, status = 200): Promise<void> {
    const overviews = await overviewsOf(runtime, ownerOf(ctx), [await getWebsite(runtime, ownerOf(ctx), websiteId)]);
    const domainVerification = await getDomainVerification(runtime, ownerOf(ctx), websiteId);
    const integrations = integrationsOf(overviews[0]!, runtime.config.issuer, browserLanguage(ctx));
    renderPage(ctx, 'website.njk', { ...pageOptions(ctx), overview: overviews[0], secrets: hasSecrets(overviews), failed, integrations, domainVerification }, status);
  }

  /**
   * Runs a form's change: field problems re-render the page with them (400); a refusal from the service (a rule the
   * fields alone cannot show, e.g. a second configuration for an environment) is shown above the form. Refusals that
   * are about the website itself (another webmaster's: 401, missing: 404) end on the error page.
   */
  async function submit<T>(
    ctx: Context, form: string, parsed: ParsedForm<T>, change: (input: T) => Promise<string>,
    show: (failed: FailedForm, status: number) => Promise<void>,
  ): Promise<void> {
    if (Object.keys(parsed.errors).length > 0) return show({ form, values: parsed.input as object, fields: parsed.errors }, 400);
    let location: string;
    try {
      location = await change(parsed.input);
    } catch (error) {
      if (!(error instanceof HttpError) || error.status !== 400) throw error;
      return show({ form, values: parsed.input as object, fields: {}, message: error.message }, 400);
    }
    seeOther(ctx, location, { noStore: true });
  }

  const websiteIdOf = (ctx: Context): number => pathValues('website', { website_id: ctx.params.id }).websiteId;
  const environmentOf = (ctx: Context) => pathValues('environment', { website_id: ctx.params.id, environment: ctx.params.environment });

  router.get('/websites', (ctx) => showList(ctx));

  router.post('/websites', (ctx) =>
    submit(ctx, 'create', websiteCreateForm(ctx.request.body), async (input) => websitePath((await createWebsite(runtime, ownerOf(ctx), input, originOf(ctx))).id, 'created'),
      (failed, status) => showList(ctx, failed, status)));

  router.get('/websites/:id', (ctx) => showWebsite(ctx, websiteIdOf(ctx)));

  router.post('/websites/:id', async (ctx) => {
    const websiteId = websiteIdOf(ctx);
    await submit(ctx, 'website', websiteUpdateForm(ctx.request.body),
      async (input) => {
        await updateWebsite(runtime, ownerOf(ctx), websiteId, input, originOf(ctx));
        return websitePath(websiteId, 'website');
      },
      (failed, status) => showWebsite(ctx, websiteId, failed, status));
  });

  router.post('/websites/:id/keys/:environment/regenerate', async (ctx) => {
    const { websiteId, environment } = environmentOf(ctx);
    await regenerateWebsiteKey(runtime, ownerOf(ctx), websiteId, environment, originOf(ctx));
    seeOther(ctx, websitePath(websiteId, 'key'), { noStore: true });
  });

  router.post('/websites/:id/oauth2/:environment', async (ctx) => {
    const { websiteId, environment } = environmentOf(ctx);
    await submit(ctx, `oauth2-${environment}`, oauth2CreateForm(ctx.request.body), async (input) => {
      await createOAuth2Config(runtime, ownerOf(ctx), websiteId, environment, input, originOf(ctx));
      return websitePath(websiteId, 'oauth2');
    }, (failed, status) => showWebsite(ctx, websiteId, failed, status));
  });

  router.post('/websites/:id/oauth2/:environment/update', async (ctx) => {
    const { websiteId, environment } = environmentOf(ctx);
    await submit(ctx, `oauth2-${environment}`, oauth2UpdateForm(ctx.request.body), async (input) => {
      await updateOAuth2Config(runtime, ownerOf(ctx), websiteId, environment, input, originOf(ctx));
      return websitePath(websiteId, 'oauth2');
    }, (failed, status) => showWebsite(ctx, websiteId, failed, status));
  });

  router.post('/websites/:id/oauth2/:environment/regenerate', async (ctx) => {
    const { websiteId, environment } = environmentOf(ctx);
    await submit(ctx, `credentials-${environment}`, { input: {}, errors: {} }, async () => {
      await regenerateOAuth2Credentials(runtime, ownerOf(ctx), websiteId, environment, originOf(ctx));
      return websitePath(websiteId, 'credentials');
    }, (failed, status) => showWebsite(ctx, websiteId, failed, status));
  });

  return router;
}
