/**
 * Whole flows, one after another on WORKERS concurrent visitors, against age-provider at BASE (https, trusted
 * through NODE_EXTRA_CA_CERTS: a process of its own), on keep-alive connections (fetch's pool), until its stdin
 * closes. Each flow: the pages as a visitor, the code, the token (a POST) and Resources. Prints one JSON object:
 * the flows that passed and, for each that did not, what went wrong (an unexpected answer or a connection error).
 */
import { describeFailure, wholeFlow } from '../helpers/whole-flow.js';

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

await Promise.all(
  Array.from({ length: workers }, async () => {
    while (!stopping) {
      await wholeFlow(base, { ...client, redirectUri: REDIRECT_URI }).then(
        () => {
          passed++;
        },
        (error: unknown) => {
          failures.push(describeFailure(error));
        },
      );
    }
  }),
);
console.log(JSON.stringify({ passed, failures }));
