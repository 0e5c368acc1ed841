import type { Context, DefaultState } from 'koa';
import type Provider from 'oidc-provider';
import type { AdapterPayload } from 'oidc-provider';
import { cspOf } from '../../http/security-headers.js';
import type { Language } from '../../i18n/languages.js';
import { ignoredLanguage, negotiateLanguage } from '../../i18n/negotiate.js';
import type { OAuth2Services } from '../services.js';
import type { ChallengeName, Environment } from '../../verification/challenge.js';
import { parseRequestedChallenges } from '../../verification/availability.js';
import { challengesUnder } from '../../policy/offer.js';
import { websiteRule } from '../../policy/resolve.js';
import type { EffectiveRule } from '../../policy/rule.js';
import type { ChallengeRegistry } from '../../verification/challenge.js';
import type { ClientWebsite } from '../../websites/clients.js';
import { findClientWebsite } from '../clients.js';
import type { Flow } from '../protocol.js';
import type { RequestParameterValues } from '../request-parameters.js';
import type { InteractionLimits } from './limits.js';
import { interactionPaths, type InteractionPaths } from './paths.js';
import { modelPayload } from '../../store/oidc-payloads.js';
import { NOTHING_YET, readVisitRows, type InteractionRow, type Progress } from './progress.js';
import { setVisitorLanguage, VisitorError } from '../../http/visitor-errors.js';

/** What the interaction pages share: built once when the router is mounted. */
export interface InteractionServices {
  runtime: OAuth2Services;
  provider: Provider;
  registry: ChallengeRegistry;
  limits: InteractionLimits;
  /** whether passkeys can work at this issuer, so the pages offer them (passkeysWorkAt) */
  passkeys: boolean;
}

export type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

/**
 * The authorization parameters the pages use, as oidc-provider accepted them: it resolved client_id and the exact
 * redirect_uri, and ran our validators (request-parameters.ts) before it created the interaction.
 */
type VisitParams = RequestParameterValues & { client_id: string; redirect_uri: string };

/** A page of the interaction: everything it needs is in the visit. */
export type PageHandler = (visit: Visit) => Promise<void>;

/** The interaction pages' Koa state: the visit, loaded before any page runs (surface.ts). */
export interface VisitState extends DefaultState {
  visit: Visit;
}

/**
 * One visitor's authorization as the pages see it, for one request: what oidc-provider's `ctx.oidc` is to its own
 * actions. Every page function takes it alone.
 */
export interface Visit {
  /** the request being answered */
  ctx: Context;
  /** what every page shares */
  services: InteractionServices;
  uid: string;
  interaction: Interaction;
  params: VisitParams;
  flow: Flow;
  client: ClientWebsite;
  environment: Environment;
  language: Language;
  expiresAt: Date;
  progress: Progress;
  /** a TEST client's test_outcome: the interaction skips every page (test-outcome.ts) */
  testOutcome: VisitParams['test_outcome'];
  paths: InteractionPaths;
  /** the rule in force for this website where the geo resolver places the visitor (docs/policies.md) */
  rule: EffectiveRule;
  /** the challenges this visitor may choose from, as that rule allows and orders them */
  challenges: ChallengeName[];
}

/** oidc-provider's Interaction model, built from its stored payload as its own find does. */
type InteractionModel = new (payload: AdapterPayload) => Interaction;

/**
 * What provider.interactionDetails checks, on the interaction row the page already read (so the page costs no
 * statement of its own): the browser's interaction cookie (signed with the provider's keys, which are the app's)
 * names this interaction, it has not expired, and the provider's session it started in, if any, still has the same
 * visitor. Anything else is the visitor's expired page.
 */
async function interactionOfThisBrowser(
  ctx: Context,
  provider: Provider,
  uid: string,
  row: InteractionRow | undefined,
): Promise<Interaction> {
  const payload = modelPayload('Interaction', uid, row);
  if (!payload || ctx.cookies.get(provider.cookieName('interaction')) !== uid) throw new VisitorError('expired', 400);
  const interaction = new (provider.Interaction as unknown as InteractionModel)(payload);
  if (interaction.isExpired) throw new VisitorError('expired', 400);
  if (interaction.session?.uid) {
    const session = await provider.Session.findByUid(interaction.session.uid);
    if (session?.accountId !== interaction.session.accountId) throw new VisitorError('expired', 400);
  }
  return interaction;
}

/**
 * Loads the interaction this browser is in and checks it is the one in the URL (oidc-provider finds it by its
 * cookie only). An unknown, expired or foreign interaction, or a website that can no longer verify, is a visitor error page.
 */
export async function loadVisit(ctx: Context, services: InteractionServices): Promise<Visit> {
  const { runtime, provider, registry } = services;
  const uid = String(ctx.params['uid']);
  // One statement: the interaction in the URL, its progress and its verification. oidc-provider still finds the
  // interaction by its cookie, and gets this row only when the two name the same one.
  const rows = await readVisitRows(runtime.db, runtime.clock, uid);
  const interaction = await interactionOfThisBrowser(ctx, provider, uid, rows.interaction);
  const params = interaction.params as VisitParams;

  const client = await findClientWebsite(runtime, params.client_id);
  if (!client) {
    throw new VisitorError('website', 400, {
      developer: {
        error: 'invalid_client',
        description: 'the client is unknown or no longer active',
        parameter: 'client_id',
        value: params.client_id,
      },
    });
  }
  const language = negotiateLanguage(params.language, client.website.language, ctx.get('Accept-Language'));
  const ignored = ignoredLanguage(params.language);
  if (ignored)
    runtime.log.info('language parameter ignored', {
      client_id: params.client_id,
      language: params.language,
      reason: ignored,
      negotiated: language,
    });
  setVisitorLanguage(ctx, language);
  // Forms here may end in a redirect to the website; browsers check form-action along the redirect chain.
  cspOf(ctx)['form-action']?.push(new URL(params.redirect_uri).origin);

  const environment = client.environment;
  const testOutcome = environment === 'TEST' ? params.test_outcome : undefined;
  const rule = websiteRule(runtime, client.website, await runtime.geo.locate(ctx));
  return {
    ctx,
    services,
    uid,
    interaction,
    params,
    flow: params.flow ?? 'checker',
    client,
    environment,
    language,
    expiresAt: new Date(interaction.exp * 1000),
    // An interaction that skips every page never keeps progress.
    progress: testOutcome ? NOTHING_YET : rows.progress,
    testOutcome,
    paths: interactionPaths(uid),
    rule,
    challenges: challengesUnder(
      rule,
      registry,
      environment,
      client.website.challenges,
      parseRequestedChallenges(params.challenges),
      runtime.clock.now(),
    ),
  };
}
