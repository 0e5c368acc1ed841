import { PlatformRoutes } from '../route-table.js';
import type { Context } from 'koa';
import { seeOther } from '../../http/see-other.js';
import { browserLanguage } from '../../i18n/negotiate.js';
import { Refusal } from '../../refusal.js';
import type { PlatformServices } from '../services.js';
import { websiteIdOf } from '../../websites/identifiers.js';
import {
  getWebsite,
  getWebsitePolicy,
  PolicyLoosening,
  updateWebsitePolicy,
  type WebsitePolicyInput,
} from '../../websites/index.js';
import { originOf, PLATFORM_PATH, accountOf } from '../authentication.js';
import { renderPage } from '../page.js';
import { policyRows } from '../policy-view.js';

/**
 * What the editor shows after a refusal: the text as sent, and why, in the webmaster's language (a translation key
 * and its values); a schema refusal adds the validator's sentence, which names the field.
 */
interface EditorRefusal {
  text: string;
  key: string;
  params?: Record<string, string | number>;
  detail?: string;
}

/**
 * A website's policy page (docs/policies.md): the rule in force in each region and why, and an editor for the
 * website's own rules, refused exactly as PUT /external/website/{website_id}/policy refuses them (the same service).
 */
export function policyRoutes(runtime: PlatformServices): PlatformRoutes {
  const routes = new PlatformRoutes();
  const ownerOf = (ctx: Context): number => accountOf(ctx);
  const websiteOf = (ctx: Context): number => websiteIdOf({ website_id: ctx.params.id }).websiteId;

  async function show(ctx: Context, websiteId: number, refusal?: EditorRefusal, status = 200): Promise<void> {
    const website = await getWebsite(runtime, ownerOf(ctx), websiteId);
    const policy = await getWebsitePolicy(runtime, ownerOf(ctx), websiteId);
    renderPage(
      ctx,
      'policy.njk',
      {
        website,
        policy,
        rows: policyRows(policy, browserLanguage(ctx)),
        rulesText: refusal?.text ?? JSON.stringify(policy.rules, null, 2),
        refusal,
        saved: ctx.query.saved === 'policy',
      },
      status,
    );
  }

  routes.get('/websites/:id/policy', 'view', (ctx) => show(ctx, websiteOf(ctx)));

  routes.post('/websites/:id/policy', 'change', async (ctx) => {
    const websiteId = websiteOf(ctx);
    const text = String((ctx.request.body as Record<string, unknown> | undefined)?.rules ?? '');
    let rules: unknown;
    try {
      rules = JSON.parse(text.trim() === '' ? '[]' : text);
    } catch {
      return show(ctx, websiteId, { text, key: 'platform.policy.error.json' }, 400);
    }
    try {
      await updateWebsitePolicy(runtime, ownerOf(ctx), websiteId, { rules } as WebsitePolicyInput, originOf(ctx));
    } catch (error) {
      if (error instanceof PolicyLoosening) {
        return show(
          ctx,
          websiteId,
          {
            text,
            key: 'platform.policy.error.loosens',
            params: { rule: error.rule + 1, field: error.field, region: error.region },
          },
          400,
        );
      }
      if (!(error instanceof Refusal) || error.kind !== 'invalid') throw error;
      return show(ctx, websiteId, { text, key: 'platform.policy.error.invalid', detail: error.message }, 400);
    }
    seeOther(ctx, `${PLATFORM_PATH}/websites/${websiteId}/policy?saved=policy`, { noStore: true });
  });

  return routes;
}
