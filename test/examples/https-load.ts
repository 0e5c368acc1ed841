/**
 * Whole flows, one after another on WORKERS concurrent visitors, against age-provider at BASE (https, trusted
 * through NODE_EXTRA_CA_CERTS: a process of its own), on keep-alive connections (fetch's pool), until its stdin
 * closes. Each flow: the pages as a visitor, the code, the token (a POST) and Resources. Prints one JSON object:
 * the flows that passed and, for each that did not, what went wrong (an unexpected answer or a connection error).
 */
import { Browser } from '../helpers/browser.js';
import { requestToken, readResources } from '../helpers/relying-party.js';
import { walkSandbox } from '../helpers/visitor.js';

const base = process.env.BASE!;
const apiToken = process.env.API_TOKEN!;
const workers = Number(process.env.WORKERS ?? '4');
const REDIRECT_URI = 'https://load.example.test/callback';

async function api<T>(method: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${base}/external${path}`, {
    method,
    headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const website = await api<{ id: number }>('POST', '/website', { name: 'Load shop', domain: 'load.example.test' });
const client = await api<{ clientId: string; clientSecret: string }>('POST', `/website/${website.id}/oauth2/test`, {
  redirectUris: [REDIRECT_URI],
});

let stopping = false;
process.stdin
  .on('end', () => {
    stopping = true;
  })
  .resume();
// Ready: the parent starts its restarts once flows run.
console.error('running');

const failures: string[] = [];
let passed = 0;

async function flow(): Promise<void> {
  const visitor = new Browser(base, { headers: { 'accept-language': 'en' } });
  const authorization = new URLSearchParams({ client_id: client.clientId, redirect_uri: REDIRECT_URI, state: 'load' });
  const landing = await walkSandbox(
    visitor,
    await visitor.open(`/v1/oauth2/checker?${authorization.toString()}`),
    new URL(REDIRECT_URI).origin,
  );
  const code = landing.location?.searchParams.get('code');
  if (!code) throw new Error(`no code: ${visitor.trail()}`);
  const token = await requestToken({ url: base }, { code, client: { ...client, redirectUri: REDIRECT_URI } });
  if (token.status !== 200) throw new Error(`token: ${token.status} ${await token.text()}`);
  const { access_token: accessToken } = (await token.json()) as { access_token: string };
  const resources = await readResources({ url: base }, accessToken);
  const body = await resources.text();
  if (resources.status !== 200 || !body.includes('"verified":true'))
    throw new Error(`resources: ${resources.status} ${body}`);
}

const describe = (error: unknown): string => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return `${(error as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`.slice(0, 400);
};

await Promise.all(
  Array.from({ length: workers }, async () => {
    while (!stopping) {
      await flow().then(
        () => {
          passed++;
        },
        (error: unknown) => {
          failures.push(describe(error));
        },
      );
    }
  }),
);
console.log(JSON.stringify({ passed, failures }));
