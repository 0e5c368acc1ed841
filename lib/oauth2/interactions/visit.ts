import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';
import { cspOf } from '../../http/security-headers.js';
import type { Language } from '../../i18n/languages.js';
import { negotiateLanguage } from '../../i18n/negotiate.js';
import type { Runtime } from '../../runtime.js';
import { ASSURANCE_LEVELS, type AssuranceLevel, type ChallengeName, type Environment } from '../../verification/challenge.js';
import { availableChallenges, parseRequestedChallenges } from '../../verification/availability.js';
import { compileSchema } from '../../http/form.js';
import type { ChallengeRegistry } from '../../verification/registry.js';
import { findClientWebsite, type ClientWebsite } from '../clients.js';
import type { Flow } from '../paths.js';
import type { InteractionLimits } from './limits.js';
import { interactionPaths, type InteractionPaths } from './paths.js';
import { readProgress, type Progress } from './progress.js';
import { setVisitorLanguage, VisitorError } from '../../http/visitor-errors.js';

/** What the interaction pages share: built once when the router is mounted. */
export interface InteractionServices {
  runtime: Runtime;
  provider: Provider;
  registry: ChallengeRegistry;
  limits: InteractionLimits;
}

export type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

/** The authorization parameters the pages use (the authorization endpoint validated them; test_* only for TEST clients). */
interface VisitParams {
  client_id: string;
  redirect_uri: string;
  flow?: Flow;
  language?: string;
  challenges?: string;
  test_outcome?: 'pass' | 'refuse';
  test_level?: AssuranceLevel;
  test_country?: string;
  test_subdivision?: string;
}

const validateParams = compileSchema<VisitParams>({
  type: 'object',
  required: ['client_id', 'redirect_uri'],
  properties: {
    client_id: { type: 'string' },
    redirect_uri: { type: 'string' },
    flow: { type: 'string', enum: ['checker', 'login'], nullable: true },
    language: { type: 'string', nullable: true },
    challenges: { type: 'string', nullable: true },
    test_outcome: { type: 'string', enum: ['pass', 'refuse'], nullable: true },
    test_level: { type: 'string', enum: [...ASSURANCE_LEVELS], nullable: true },
    test_country: { type: 'string', nullable: true },
    test_subdivision: { type: 'string', nullable: true },
  },
});

/** One visitor's authorization as the pages see it. */
export interface Visit {
  uid: string;
  interaction: Interaction;
  params: VisitParams;
  flow: Flow;
  client: ClientWebsite;
  environment: Environment;
  language: Language;
  expiresAt: Date;
  progress: Progress;
  paths: InteractionPaths;
  /** the challenges this visitor may choose from (ARCHITECTURE §6.3) */
  challenges: ChallengeName[];
}

/**
 * Loads the interaction this browser is in and checks it is the one in the URL (oidc-provider finds it by its
 * cookie only). An unknown, expired or foreign interaction, or a website that can no longer verify, is a visitor error page.
 */
export async function loadVisit(ctx: Context, services: InteractionServices): Promise<Visit> {
  const { runtime, provider, registry } = services;
  const uid = String(ctx.params['uid']);
  let interaction: Interaction;
  try {
    interaction = await provider.interactionDetails(ctx.req, ctx.res);
  } catch (error) {
    if (error instanceof errors.SessionNotFound) throw new VisitorError('expired', 400);
    throw error;
  }
  if (interaction.uid !== uid) throw new VisitorError('expired', 400);
  const params: unknown = { ...interaction.params };
  if (!validateParams(params)) throw new VisitorError('bad_request', 400);

  const client = await findClientWebsite(runtime.db, runtime.clock, params.client_id);
  if (!client) throw new VisitorError('website', 400);
  const language = negotiateLanguage(params.language, client.website.language, ctx.get('Accept-Language'));
  setVisitorLanguage(ctx, language);
  // Forms here may end in a redirect to the website; browsers check form-action along the redirect chain.
  cspOf(ctx)['form-action']?.push(new URL(params.redirect_uri).origin);

  const environment = client.environment;
  return {
    uid,
    interaction,
    params,
    flow: params.flow ?? 'checker',
    client,
    environment,
    language,
    expiresAt: new Date(interaction.exp * 1000),
    progress: await readProgress(runtime.db, runtime.clock, uid),
    paths: interactionPaths(uid),
    challenges: availableChallenges(client.website.challenges, parseRequestedChallenges(params.challenges), (name) => registry.offers(environment, name)),
  };
}
