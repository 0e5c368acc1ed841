/**
 * A visitor's and a website's whole flow against age-provider at BASE (an https address whose certificate this
 * process trusts through NODE_EXTRA_CA_CERTS, which Node reads only at start: hence a process of its own), plus the
 * forwarding headers a client forges. Prints what it saw as one JSON object for test/examples/deploy.test.ts.
 */
import { Browser } from '../helpers/browser.js';
import { requestToken, readResources } from '../helpers/relying-party.js';
import { walkSandbox } from '../helpers/visitor.js';

const base = process.env.BASE!;
const apiToken = process.env.API_TOKEN!;
const REDIRECT_URI = 'https://shop.example.test/callback';

async function api<T>(method: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${base}/external${path}`, {
    method,
    headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const website = await api<{ id: number; keys: Array<{ environment: string; publicKey: string }> }>('POST', '/website', {
  name: 'Deploy shop',
  domain: 'shop.example.test',
});
const client = await api<{ clientId: string; clientSecret: string }>('POST', `/website/${website.id}/oauth2/test`, {
  redirectUris: [REDIRECT_URI],
});
const publicKey = website.keys.find((key) => key.environment === 'TEST')!.publicKey;

// The visitor, through the pages, and the website's back channel.
const visitor = new Browser(base, { headers: { 'accept-language': 'en' } });
const authorization = new URLSearchParams({ client_id: client.clientId, redirect_uri: REDIRECT_URI, state: 'st-42' });
const landing = await walkSandbox(
  visitor,
  await visitor.open(`/v1/oauth2/checker?${authorization.toString()}`),
  new URL(REDIRECT_URI).origin,
);
const code = landing.location?.searchParams.get('code');
const token = await requestToken({ url: base }, { code: code!, client: { ...client, redirectUri: REDIRECT_URI } });
const { access_token: accessToken } = (await token.json()) as { access_token: string };
const resources = await (await readResources({ url: base }, accessToken)).json();
// Behind TLS the service knows it is https (X-Forwarded-Proto): every cookie it sets is Secure.
const entry = await fetch(`${base}/v1/oauth2/checker?${authorization.toString()}`, { redirect: 'manual' });
const cookies = entry.headers.getSetCookie();

// A client that claims another address, country and request id on every request.
const forged = [];
for (let index = 0; index < 5; index++) {
  const response = await fetch(`${base}/v1/requirement?key=${publicKey}`, {
    headers: {
      'x-forwarded-for': `203.0.113.${index + 1}`,
      forwarded: `for=203.0.113.${index + 1}`,
      'x-real-ip': `203.0.113.${index + 1}`,
      'x-visitor-country': 'JP',
      'x-visitor-subdivision': 'JP-13',
      'x-request-id': `forged-${index}`,
    },
  });
  forged.push({
    status: response.status,
    requestId: response.headers.get('x-request-id'),
    body: (await response.json()) as unknown,
  });
}

console.log(JSON.stringify({ trail: visitor.trail(), code, tokenStatus: token.status, resources, cookies, forged }));
