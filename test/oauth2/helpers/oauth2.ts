import { randomBytes } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../../helpers/fixtures.js';
import { newGrant } from '../../../lib/oauth2/grants.js';
import { endInteraction } from '../../../lib/oauth2/flow-storage.js';
import { verificationInsert, type NewVerification } from '../../../lib/verification/verifications.js';
import { Browser, locationOf } from '../../helpers/browser.js';
import { MovableClock } from './clock.js';
import { authorizationUrl, requestToken } from '../../helpers/relying-party.js';

// What a website's server does (the token request, Resources) is the relying party's: the tests here use it as is.
export { authorizationUrl, readResources, requestToken, type TokenRequest } from '../../helpers/relying-party.js';

export interface OAuth2TestApp {
  app: TestApp;
  clock: MovableClock;
  webmasterId: number;
  client(options?: Parameters<typeof createClientFixture>[2]): Promise<ClientFixture>;
}

export async function startOAuth2App(env: NodeJS.ProcessEnv = {}): Promise<OAuth2TestApp> {
  const clock = new MovableClock();
  const app = await startTestApp({ clock, env });
  const webmaster = await createWebmasterFixture(app.provider.runtime);
  return {
    app,
    clock,
    webmasterId: webmaster.id,
    client: (options) => createClientFixture(app.provider.runtime, webmaster.id, options),
  };
}

/** startOAuth2App with one caller of each surface: a website's client and another webmaster's External API token. */
export async function startOAuth2AppWithCallers(): Promise<{
  harness: OAuth2TestApp;
  client: ClientFixture;
  apiToken: string;
}> {
  const harness = await startOAuth2App();
  try {
    const client = await harness.client();
    const apiToken = (await createWebmasterFixture(harness.app.provider.runtime)).apiToken;
    return { harness, client, apiToken };
  } catch (error) {
    await harness.app.close();
    throw error;
  }
}

/** The interaction uid from the provider's redirect to the interaction pages. */
export function interactionUid(response: Response): string {
  expect(response.status, 'authorization redirects to the interaction').to.equal(303);
  const match = /^\/v1\/oauth2\/interaction\/([^/]+)$/.exec(locationOf(response).pathname);
  if (!match?.[1]) throw new Error(`not an interaction URL: ${response.headers.get('location')}`);
  return match[1];
}

/**
 * Test-only stand-in for the interaction pages: records a verification, links it to a fresh grant, and finishes the
 * interaction exactly the way the pages do (a new grant linked to the verification, the result with login + consent),
 * reading the interaction from the browser's own signed cookie. Returns where the browser goes next.
 */
export async function completeInteraction(
  app: TestApp,
  browser: Browser,
  uid: string,
  client: ClientFixture,
  verification: Partial<NewVerification> = {},
): Promise<string> {
  const { provider, runtime } = app.provider;
  const [created] = (await verificationInsert(runtime.db, {
    websiteId: client.websiteId,
    environment: client.environment,
    challenge: 'ticket',
    assuranceLevel: 'STRICT',
    ageThreshold: 18,
    country: 'DE',
    countrySubdivision: 'DE-BY',
    verified: true,
    reused: false,
    verifiedAt: runtime.clock.now(),
    ttlSeconds: 3600,
    policy: [],
    ...verification,
  })) as Array<{ uid: string }>;
  const accountId = `visitor_${randomBytes(8).toString('hex')}`;
  const req = new IncomingMessage(new Socket());
  req.url = `/v1/oauth2/interaction/${uid}`;
  req.method = 'GET';
  req.headers = { cookie: browser.cookies.header(new URL(req.url, app.url)), host: new URL(app.url).host };
  // As the pages end an interaction: the grant, its link to the verification and the result in one statement.
  return endInteraction(runtime.db, runtime.clock, {
    interaction: await provider.interactionDetails(req, new ServerResponse(req)),
    grant: {
      model: newGrant(provider, { accountId, clientId: client.clientId }),
      verification: { link: created!.uid },
    },
    result: (grantId) => ({ login: { accountId }, consent: { grantId } }),
  });
}

export interface Authorized {
  code: string;
  state: string | null;
  callback: URL;
  browser: Browser;
}

export interface AuthorizeOptions {
  /** authorization request parameters to add or override (undefined removes one) */
  query?: Record<string, string | undefined>;
  entry?: Parameters<typeof authorizationUrl>[2];
  verification?: Partial<NewVerification>;
}

/** A whole authorization: entry point, interaction (test completer), resume, back to the redirect_uri with a code. */
export async function authorize(
  app: TestApp,
  client: ClientFixture,
  options: AuthorizeOptions = {},
): Promise<Authorized> {
  const browser = new Browser(app.url);
  const uid = interactionUid(
    await browser.request(authorizationUrl('', client, options.entry ?? 'checker', options.query)),
  );
  const returnTo = await completeInteraction(app, browser, uid, client, options.verification);
  const resumed = await browser.request(returnTo);
  expect(resumed.status, 'resume redirects to the website').to.equal(303);
  const callback = locationOf(resumed);
  expect(`${callback.origin}${callback.pathname}`).to.equal(client.redirectUri);
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code in ${callback.href}`);
  return { code, state: callback.searchParams.get('state'), callback, browser };
}

export interface TokenBody {
  token_type: string;
  access_token: string;
  expires_in: number;
  expires_at: number;
}

export async function issueToken(app: TestApp, client: ClientFixture): Promise<TokenBody> {
  const { code } = await authorize(app, client);
  const response = await requestToken(app, { code, client });
  expect(response.status).to.equal(200);
  return (await response.json()) as TokenBody;
}

/**
 * Whether the token endpoint at `url` authenticates the pair: with a made-up code, an authenticated client gets
 * invalid_grant, an unknown, disabled or lapsed one invalid_client (client authentication runs before the grant).
 */
export async function tokenEndpointAccepts(
  url: string,
  pair: { clientId?: string | null; clientSecret?: string | null },
  redirectUri: string,
): Promise<boolean> {
  const response = await fetch(`${url}/v1/oauth2/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${Buffer.from(`${pair.clientId!}:${pair.clientSecret!}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: 'made-up-code', redirect_uri: redirectUri }),
  });
  const { error } = (await response.json()) as { error: string };
  expect(error).to.be.oneOf(['invalid_grant', 'invalid_client']);
  return error === 'invalid_grant';
}

/** startOAuth2App for the enclosing `describe` (started before its tests, closed after), like useApp. */
export function useOAuth2App(env: NodeJS.ProcessEnv = {}): OAuth2TestApp {
  let started: OAuth2TestApp | undefined;
  before(async () => {
    started = await startOAuth2App(env);
  });
  after(() => started?.app.close());
  return new Proxy({} as OAuth2TestApp, {
    get(_, property) {
      if (!started) throw new Error('the app is used before its before() hook has started it');
      return Reflect.get(started, property);
    },
  });
}
