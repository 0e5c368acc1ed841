import { Browser } from './browser.js';
import { requestToken, readResources } from './relying-party.js';
import { walkSandbox } from './visitor.js';

export interface FlowClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/**
 * One whole flow against the service at `base` over real HTTP: the pages as a visitor (sandbox challenge), the code,
 * the token (a POST) and Resources. Throws, saying what went wrong, unless every step answered as it should.
 */
export async function wholeFlow(base: string, client: FlowClient): Promise<void> {
  const visitor = new Browser(base, { headers: { 'accept-language': 'en' } });
  const authorization = new URLSearchParams({
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    state: 'flow',
  });
  const landing = await walkSandbox(
    visitor,
    await visitor.open(`/v1/oauth2/checker?${authorization.toString()}`),
    new URL(client.redirectUri).origin,
  );
  const code = landing.location?.searchParams.get('code');
  if (!code) throw new Error(`no code: ${visitor.trail()}`);
  const token = await requestToken({ url: base }, { code, client });
  if (token.status !== 200) throw new Error(`token: ${token.status} ${await token.text()}`);
  const { access_token: accessToken } = (await token.json()) as { access_token: string };
  const resources = await readResources({ url: base }, accessToken);
  const body = await resources.text();
  if (resources.status !== 200 || !body.includes('"verified":true'))
    throw new Error(`resources: ${resources.status} ${body}`);
}

/** A flow's failure in one line: the message and the connection error under it, if any. */
export const describeFailure = (error: unknown): string => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return `${(error as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`.slice(0, 400);
};
