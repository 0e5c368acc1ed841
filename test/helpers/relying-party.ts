import { expect } from 'chai';
import type { ClientFixture } from './fixtures.js';

/**
 * What a website's server does with us, over real HTTP: exchange a code at the token endpoint (client_secret_basic
 * or _post) and read Resources. Every test that plays the relying party goes through here.
 */

/** The entry points a website sends its visitor to; anything else is a path of its own (a legacy twin). */
type Entry = 'checker' | 'login' | `/${string}`;

/**
 * The authorization request a website sends its visitor to, the one builder of every test's: at `base` (empty for a
 * path on the test's own browser), the `entry` point, with client_id, redirect_uri, response_type=code, scope=read
 * and state=st-42, then `params` (a value adds or overrides one, undefined removes one).
 */
export function authorizationUrl(
  base: string,
  client: Pick<ClientFixture, 'clientId' | 'redirectUri'>,
  entry: Entry = 'checker',
  params: Record<string, string | undefined> = {},
): string {
  const fields = {
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    response_type: 'code',
    scope: 'read',
    state: 'st-42',
    ...params,
  };
  const query = new URLSearchParams(
    Object.entries(fields).filter((field): field is [string, string] => field[1] !== undefined),
  );
  return `${base}${entry.startsWith('/') ? entry : `/v1/oauth2/${entry}`}?${query.toString()}`;
}

/** Where the service under test answers (a TestApp, or anything with its base URL). */
interface Service {
  url: string;
}

export interface TokenRequest {
  code: string;
  client: Pick<ClientFixture, 'clientId' | 'clientSecret' | 'redirectUri'>;
  auth?: 'basic' | 'post';
  /** form fields to add or override; undefined removes one */
  form?: Record<string, string | undefined>;
  path?: string;
}

export async function requestToken(app: Service, request: TokenRequest): Promise<Response> {
  const { client, auth = 'basic' } = request;
  const fields: Record<string, string | undefined> = {
    grant_type: 'authorization_code',
    code: request.code,
    redirect_uri: client.redirectUri,
    ...(auth === 'post' ? { client_id: client.clientId, client_secret: client.clientSecret } : {}),
    ...request.form,
  };
  const body = new URLSearchParams(
    Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (auth === 'basic') {
    const credentials = `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  }
  return fetch(`${app.url}${request.path ?? '/v1/oauth2/token'}`, { method: 'POST', headers, body });
}

export function readResources(
  app: Service,
  accessToken: string | undefined,
  path = '/v1/oauth2/resources',
): Promise<Response> {
  return fetch(
    `${app.url}${path}`,
    accessToken === undefined ? {} : { headers: { authorization: `Bearer ${accessToken}` } },
  );
}

/** The whole back channel after a pass: the token for `code`, then Resources (both must answer 200); the Resources body. */
export async function redeem(
  app: Service,
  client: Pick<ClientFixture, 'clientId' | 'clientSecret' | 'redirectUri'>,
  code: string,
): Promise<Record<string, unknown>> {
  const token = await requestToken(app, { code, client });
  const tokenBody = (await token.json()) as { access_token?: string };
  expect(token.status, JSON.stringify(tokenBody)).to.equal(200);
  const resources = await readResources(app, tokenBody.access_token);
  expect(resources.status).to.equal(200);
  return ((await resources.json()) as { resources: Record<string, unknown> }).resources;
}
