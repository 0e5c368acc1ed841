import { PlatformRoutes } from '../route-table.js';
import type { Context } from 'koa';
import { Refusal } from '../../refusal.js';
import { LANGUAGE_CHOICES } from '../../i18n/languages.js';
import type { PlatformServices } from '../services.js';
import { WEBSITE_CHALLENGES } from '../../verification/challenge.js';
import { websiteEnvironmentOf, websiteIdOf } from '../../websites/identifiers.js';
import {
  createOAuth2Config,
  createWebsite,
  ENVIRONMENTS,
  getDomainVerification,
  getWebsite,
  listWebsites,
  regenerateOAuth2Credentials,
  regenerateWebsiteKey,
  updateOAuth2Config,
  updateWebsite,
} from '../../websites/index.js';
import { originOf, PLATFORM_PATH, accountOf, takeInvitationReturn } from '../authentication.js';
import { renderPage } from '../page.js';
import { seeOther } from '../../http/see-other.js';
import {
  oauth2CreateForm,
  oauth2UpdateForm,
  websiteCreateForm,
  websiteUpdateForm,
  type FieldErrors,
  type ParsedForm,
} from '../website-forms.js';
import { overviewsOf, type WebsiteOverview } from '../website-view.js';
import { newWebsiteSecret } from '../one-time-display.js';
import { daysBetween, legend, lastDays, overviewStatistics, statisticsCsv } from '../statistics-view.js';
import { websiteStatistics } from '../../statistics/statistics.js';
import { translator } from '../../i18n/catalogue.js';
import { checkerIntegrationsOf, integrationsOf, wordpressIntegrationsOf } from '../integration-view.js';
import { browserLanguage } from '../../i18n/negotiate.js';

/** What the page says after a successful change (?saved=...), from a fixed list so the query cannot inject text. */
const NOTICES = [
  'created',
  'website',
  'key',
  'oauth2',
  'credentials',
  'webhook',
  'webhookDeleted',
  'webhookTest',
  'redelivered',
  'webhookRotated',
] as const;
export type Notice = (typeof NOTICES)[number];

/** The sections of a website's page, each a page of its own behind the same tab navigation (no script needed). */
export const TABS = ['overview', 'verifications', 'integrate', 'settings', 'webhooks', 'activity'] as const;
export type Tab = (typeof TABS)[number];

/** The path of a website's section, with the notice of what was just saved. */
export const websitePath = (id: number, tab: Tab = 'overview', saved?: Notice): string =>
  `${PLATFORM_PATH}/websites/${id}${tab === 'overview' ? '' : `/${tab}`}${saved ? `?saved=${saved}` : ''}`;

/** A form that failed: which one, the values to show again, and the problems (per field, or one for the whole form). */
export interface FailedForm {
  form: string;
  values: object;
  fields: FieldErrors;
  message?: string;
}

const OPTIONS = { languages: LANGUAGE_CHOICES, challenges: WEBSITE_CHALLENGES, environments: ENVIRONMENTS, tabs: TABS };

/**
 * Renders one section of a website's page: the website, its OAuth2 configurations, the notice of what was just saved
 * and a secret made by the previous request, shown this once. A page within a section (one webhook message) names
 * its own view and the tab it sits under.
 */
export async function renderWebsiteTab(
  ctx: Context,
  runtime: PlatformServices,
  websiteId: number,
  section: Tab | { tab: Tab; view: string },
  variables: Record<string, unknown> | ((overview: WebsiteOverview) => Record<string, unknown>) = {},
  status = 200,
): Promise<void> {
  const { tab, view } = typeof section === 'string' ? { tab: section, view: `website-${section}.njk` } : section;
  const webmasterId = accountOf(ctx);
  const [overview] = await overviewsOf(runtime, webmasterId, [await getWebsite(runtime, webmasterId, websiteId)]);
  const held = newWebsiteSecret.take(ctx, runtime, webmasterId);
  renderPage(
    ctx,
    view,
    {
      ...OPTIONS,
      tab,
      overview,
      path: websitePath(websiteId),
      notice: NOTICES.find((notice) => notice === ctx.query.saved),
      newSecret: held?.websiteId === websiteId ? held : undefined,
      ...(typeof variables === 'function' ? variables(overview!) : variables),
    },
    status,
  );
}

/** The websites overview and each website's sections: overview, integrate, settings (the forms that change it). */
export function websiteRoutes(runtime: PlatformServices): PlatformRoutes {
  const routes = new PlatformRoutes();
  const ownerOf = (ctx: Context): number => accountOf(ctx);

  async function showList(ctx: Context, failed?: FailedForm, status = 200): Promise<void> {
    const overviews = await overviewsOf(runtime, ownerOf(ctx), await listWebsites(runtime, ownerOf(ctx)));
    renderPage(
      ctx,
      'websites.njk',
      {
        ...OPTIONS,
        freeChallenges: runtime.challenges.freeChallenges(),
        overviews,
        failed,
        deleted: ctx.query.saved === 'deleted',
      },
      status,
    );
  }

  async function showSettings(ctx: Context, websiteId: number, failed?: FailedForm, status = 200): Promise<void> {
    const domainVerification = await getDomainVerification(runtime, ownerOf(ctx), websiteId);
    await renderWebsiteTab(ctx, runtime, websiteId, 'settings', { failed, domainVerification }, status);
  }

  /**
   * The statistics of the period the query asks (`from`, `to`: any range the API accepts), else of the last days
   * ending today (UTC). A range the API refuses shows the last days, with why.
   */
  const periodStatistics = async (ctx: Context, websiteId: number) => {
    const recent = lastDays(runtime.clock.now().toISOString().slice(0, 10));
    const asked =
      typeof ctx.query.from === 'string' || typeof ctx.query.to === 'string'
        ? { from: ctx.query.from, to: ctx.query.to }
        : undefined;
    if (asked) {
      try {
        const { days: counted } = await websiteStatistics(runtime, ownerOf(ctx), websiteId, asked);
        const { from, to } = asked as { from: string; to: string };
        return { days: daysBetween(from, to), counted, range: { from, to } };
      } catch (error) {
        if (!(error instanceof Refusal) || error.kind !== 'invalid') throw error;
        const { days: counted } = await websiteStatistics(runtime, ownerOf(ctx), websiteId, {
          from: recent[0],
          to: recent.at(-1),
        });
        return { days: recent, counted, range: { from: recent[0]!, to: recent.at(-1)! }, problem: error.message };
      }
    }
    const { days: counted } = await websiteStatistics(runtime, ownerOf(ctx), websiteId, {
      from: recent[0],
      to: recent.at(-1),
    });
    return { days: recent, counted, range: { from: recent[0]!, to: recent.at(-1)! } };
  };

  /**
   * Runs a form's change: field problems re-render the page with them (400); a refusal from the service (a rule the
   * fields alone cannot show, e.g. a second configuration for an environment) is shown above the form. Refusals that
   * are about the website itself (another webmaster's: 401, missing: 404) end on the error page.
   */
  async function submit<T>(
    ctx: Context,
    form: string,
    parsed: ParsedForm<T>,
    change: (input: T) => Promise<string>,
    show: (failed: FailedForm, status: number) => Promise<void>,
  ): Promise<void> {
    if (Object.keys(parsed.errors).length > 0)
      return show({ form, values: parsed.input as object, fields: parsed.errors }, 400);
    let location: string;
    try {
      location = await change(parsed.input);
    } catch (error) {
      if (!(error instanceof Refusal) || (error.kind !== 'invalid' && error.kind !== 'conflict')) throw error;
      return show({ form, values: parsed.input as object, fields: {}, message: error.message }, 400);
    }
    seeOther(ctx, location, { noStore: true });
  }

  const websiteOf = (ctx: Context): number => websiteIdOf({ website_id: ctx.params.id }).websiteId;
  const environmentOf = (ctx: Context) =>
    websiteEnvironmentOf({ website_id: ctx.params.id, environment: ctx.params.environment });
  /** A new client secret, held for the page the redirect opens. */
  const holdClientSecret = (ctx: Context, websiteId: number, environment: string, secret: string | undefined): void => {
    if (secret)
      newWebsiteSecret.hold(ctx, runtime, ownerOf(ctx), { websiteId, kind: 'client', label: environment, secret });
  };

  // Every sign-in lands here: an invitation opened before signing in is where the invitee meant to go.
  routes.get('/websites', 'view', (ctx) => {
    const invitation = takeInvitationReturn(ctx);
    return invitation ? seeOther(ctx, invitation, { noStore: true }) : showList(ctx);
  });

  routes.post('/websites', 'change', (ctx) =>
    submit(
      ctx,
      'create',
      websiteCreateForm(ctx.request.body),
      async (input) =>
        websitePath((await createWebsite(runtime, ownerOf(ctx), input, originOf(ctx))).id, 'integrate', 'created'),
      (failed, status) => showList(ctx, failed, status),
    ),
  );

  routes.get('/websites/:id', 'view', async (ctx) => {
    const websiteId = websiteOf(ctx);
    const { days, counted, range, problem } = await periodStatistics(ctx, websiteId);
    const language = browserLanguage(ctx);
    const t = translator(language);
    await renderWebsiteTab(
      ctx,
      runtime,
      websiteId,
      'overview',
      { statistics: overviewStatistics(counted, days, language, t), legend: legend(t), range, rangeProblem: problem },
      problem ? 400 : 200,
    );
  });

  routes.get('/websites/:id/statistics.csv', 'view', async (ctx) => {
    const websiteId = websiteOf(ctx);
    const { counted, problem } = await periodStatistics(ctx, websiteId);
    if (problem) throw new Refusal('invalid', problem);
    ctx.body = statisticsCsv(counted);
    ctx.type = 'text/csv; charset=utf-8';
    ctx.set('Content-Disposition', `attachment; filename="website-${websiteId}-statistics.csv"`);
    ctx.set('Cache-Control', 'no-store');
  });

  routes.get('/websites/:id/integrate', 'view', async (ctx) => {
    await renderWebsiteTab(ctx, runtime, websiteOf(ctx), 'integrate', (overview) => ({
      checkers: checkerIntegrationsOf(overview, runtime.config.issuer),
      integrations: integrationsOf(overview, runtime.config.issuer, browserLanguage(ctx)),
      wordpress: wordpressIntegrationsOf(overview, runtime.config.issuer, browserLanguage(ctx)),
    }));
  });

  routes.get('/websites/:id/settings', 'view', (ctx) => showSettings(ctx, websiteOf(ctx)));

  routes.post('/websites/:id', 'change', async (ctx) => {
    const websiteId = websiteOf(ctx);
    await submit(
      ctx,
      'website',
      websiteUpdateForm(ctx.request.body),
      async (input) => {
        await updateWebsite(runtime, ownerOf(ctx), websiteId, input, originOf(ctx));
        return websitePath(websiteId, 'settings', 'website');
      },
      (failed, status) => showSettings(ctx, websiteId, failed, status),
    );
  });

  routes.post('/websites/:id/keys/:environment/regenerate', 'change', async (ctx) => {
    const { websiteId, environment } = environmentOf(ctx);
    await regenerateWebsiteKey(runtime, ownerOf(ctx), websiteId, environment, originOf(ctx));
    seeOther(ctx, websitePath(websiteId, 'settings', 'key'), { noStore: true });
  });

  routes.post('/websites/:id/oauth2/:environment', 'change', async (ctx) => {
    const { websiteId, environment } = environmentOf(ctx);
    await submit(
      ctx,
      `oauth2-${environment}`,
      oauth2CreateForm(ctx.request.body),
      async (input) => {
        const created = await createOAuth2Config(runtime, ownerOf(ctx), websiteId, environment, input, originOf(ctx));
        holdClientSecret(ctx, websiteId, environment, created.clientSecret);
        return websitePath(websiteId, 'integrate', 'oauth2');
      },
      (failed, status) => showSettings(ctx, websiteId, failed, status),
    );
  });

  routes.post('/websites/:id/oauth2/:environment/update', 'change', async (ctx) => {
    const { websiteId, environment } = environmentOf(ctx);
    await submit(
      ctx,
      `oauth2-${environment}`,
      oauth2UpdateForm(ctx.request.body),
      async (input) => {
        await updateOAuth2Config(runtime, ownerOf(ctx), websiteId, environment, input, originOf(ctx));
        return websitePath(websiteId, 'settings', 'oauth2');
      },
      (failed, status) => showSettings(ctx, websiteId, failed, status),
    );
  });

  routes.post('/websites/:id/oauth2/:environment/regenerate', 'change', async (ctx) => {
    const { websiteId, environment } = environmentOf(ctx);
    await submit(
      ctx,
      `credentials-${environment}`,
      { input: {}, errors: {} },
      async () => {
        const regenerated = await regenerateOAuth2Credentials(
          runtime,
          ownerOf(ctx),
          websiteId,
          environment,
          originOf(ctx),
        );
        holdClientSecret(ctx, websiteId, environment, regenerated.clientSecret);
        return websitePath(websiteId, 'settings', 'credentials');
      },
      (failed, status) => showSettings(ctx, websiteId, failed, status),
    );
  });

  return routes;
}
