import { PlatformRoutes } from '../route-table.js';
import type { Context } from 'koa';
import { textField } from '../../http/form.js';
import { seeOther } from '../../http/see-other.js';
import { translator, type Translate } from '../../i18n/catalogue.js';
import { browserLanguage } from '../../i18n/negotiate.js';
import type { PlatformServices } from '../services.js';
import { ASSURANCE_LEVELS, CHALLENGE_NAMES } from '../../verification/challenge.js';
import { websiteIdOf } from '../../websites/identifiers.js';
import {
  getWebsite,
  getWebsitePolicy,
  PolicyRefusal,
  updateWebsitePolicy,
  type PolicyProblem,
  type WebsitePolicyInput,
} from '../../websites/index.js';
import { originOf, PLATFORM_PATH, accountOf } from '../authentication.js';
import { renderPage } from '../page.js';
import { policyRows } from '../policy-view.js';
import {
  formErrorsOf,
  formRulesFromBody,
  formRulesOf,
  rulesOfForm,
  type FormError,
  type FormRule,
} from '../policy-form.js';

/** What the page shows again after a refusal: the editor that was used, as it was filled in, and every problem. */
type Refused =
  | { editor: 'form'; rules: FormRule[]; errors: FormError[] }
  | { editor: 'json'; text: string; errors: string[]; detail?: string };

/** A problem of the JSON editor in the webmaster's language; a schema problem adds the validator's sentence, which names the field. */
function jsonErrorOf(problem: PolicyProblem, t: Translate): string {
  if (problem.kind === 'loosens')
    return t('platform.policy.error.loosens', { rule: problem.rule + 1, field: problem.field, region: problem.region });
  if (problem.kind === 'idle') return t('platform.policy.error.idle', { rule: problem.rule + 1 });
  return t('platform.policy.error.invalid');
}

/**
 * A website's policy page (docs/policies.md): the rule in force in each region and why, and the website's own rules
 * edited as a form (the default) or as JSON, both refused exactly as PUT /external/website/{website_id}/policy
 * refuses them (the same service), every problem listed.
 */
export function policyRoutes(runtime: PlatformServices): PlatformRoutes {
  const routes = new PlatformRoutes();
  const ownerOf = (ctx: Context): number => accountOf(ctx);
  const websiteOf = (ctx: Context): number => websiteIdOf({ website_id: ctx.params.id }).websiteId;

  async function show(ctx: Context, websiteId: number, refused?: Refused, status = 200): Promise<void> {
    const website = await getWebsite(runtime, ownerOf(ctx), websiteId);
    const policy = await getWebsitePolicy(runtime, ownerOf(ctx), websiteId);
    const formErrors = refused?.editor === 'form' ? refused.errors : [];
    renderPage(
      ctx,
      'policy.njk',
      {
        website,
        policy,
        rows: policyRows(policy, browserLanguage(ctx)),
        challengeNames: CHALLENGE_NAMES,
        levels: ASSURANCE_LEVELS,
        formRules: refused?.editor === 'form' ? refused.rules : formRulesOf(policy.rules),
        formErrors,
        errorOf: Object.fromEntries(formErrors.map((error) => [error.id, error.message])),
        rulesText: refused?.editor === 'json' ? refused.text : JSON.stringify(policy.rules, null, 2),
        jsonErrors: refused?.editor === 'json' ? refused.errors : [],
        jsonDetail: refused?.editor === 'json' ? refused.detail : undefined,
        saved: ctx.query.saved === 'policy',
      },
      status,
    );
  }

  /** Saves `rules`; a refusal of the service re-renders the editor used, with `describe`'s errors (400). */
  async function save(
    ctx: Context,
    websiteId: number,
    rules: unknown,
    describe: (problems: PolicyProblem[]) => Refused,
  ): Promise<void> {
    try {
      await updateWebsitePolicy(runtime, ownerOf(ctx), websiteId, { rules } as WebsitePolicyInput, originOf(ctx));
    } catch (error) {
      if (!(error instanceof PolicyRefusal)) throw error;
      return show(ctx, websiteId, describe(error.problems), 400);
    }
    seeOther(ctx, `${PLATFORM_PATH}/websites/${websiteId}/policy?saved=policy`, { noStore: true });
  }

  routes.get('/websites/:id/policy', 'view', (ctx) => show(ctx, websiteOf(ctx)));

  routes.post('/websites/:id/policy', 'change', async (ctx) => {
    const websiteId = websiteOf(ctx);
    const body: unknown = ctx.request.body;
    const t = translator(browserLanguage(ctx));
    if (typeof (body as Record<string, unknown> | undefined)?.rules === 'string') {
      const text = textField(body, 'rules');
      let rules: unknown;
      try {
        rules = JSON.parse(text.trim() === '' ? '[]' : text);
      } catch {
        return show(ctx, websiteId, { editor: 'json', text, errors: [t('platform.policy.error.json')] }, 400);
      }
      return save(ctx, websiteId, rules, (problems) => ({
        editor: 'json',
        text,
        errors: [...new Set(problems.map((problem) => jsonErrorOf(problem, t)))],
        detail: problems.find((problem) => problem.kind === 'schema')?.message,
      }));
    }
    const form = formRulesFromBody(body);
    // Every rule the page showed must come back: a post cut short would otherwise remove the rules it lost.
    if (textField(body, 'rules-shown') !== String(form.length)) {
      const policy = await getWebsitePolicy(runtime, ownerOf(ctx), websiteId);
      const errors = [{ id: 'policy-form', message: t('platform.policy.form.error.body') }];
      return show(ctx, websiteId, { editor: 'form', rules: formRulesOf(policy.rules), errors }, 400);
    }
    const { rules, slots } = rulesOfForm(form);
    return save(ctx, websiteId, rules, (problems) => ({
      editor: 'form',
      rules: form,
      errors: formErrorsOf(problems, slots, t),
    }));
  });

  return routes;
}
