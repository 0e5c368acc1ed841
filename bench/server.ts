/**
 * The benchmarked service, in a process of its own (so the load generator does not share its event loop):
 * the real app on a loopback port with a fresh database (embedded, or a new PostgreSQL database when DATABASE_URL
 * is set), a seeded TEST client, and a count of SQL statements per endpoint. Driven over IPC by bench/run.ts.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startTestApp } from '../test/helpers/app.js';
import { createClientFixture, createWebmasterFixture } from '../test/helpers/fixtures.js';
import { endpointOf, type FromServer, type ToServer } from './protocol.js';

const send = (message: FromServer): void => void process.send!(message);

const REDIRECT_URI = 'http://127.0.0.1:9/callback'; // never contacted: the flows stop at the redirect

const app = await startTestApp({ trustProxy: true, env: {} });
const { runtime } = app.provider;
const webmaster = await createWebmasterFixture(runtime);
const client = await createClientFixture(runtime, webmaster.id, {
  environment: 'TEST',
  name: 'Bench shop',
  domain: 'bench.example.com',
  redirectUris: [REDIRECT_URI],
});

// SQL statements are attributed to the request whose handling issued them (async context), else to "background".
const requestEndpoint = new AsyncLocalStorage<string>();
let counts: Record<string, number> | undefined;
runtime.db.on('query', () => {
  if (!counts) return;
  const endpoint = requestEndpoint.getStore() ?? 'background';
  counts[endpoint] = (counts[endpoint] ?? 0) + 1;
});
const handle = app.provider.app.callback();
app.server.removeAllListeners('request');
app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
  void requestEndpoint.run(endpointOf(request.url ?? '/'), () => handle(request, response));
});

process.on('message', (message: ToServer) => void answer(message));

async function answer(message: ToServer): Promise<void> {
  if (message.type === 'count-sql') counts = {};
  if (message.type === 'report-sql') send({ type: 'sql', counts: counts ?? {} });
  if (message.type === 'stop') {
    await app.close();
    process.disconnect();
  }
}

send({
  type: 'ready',
  target: {
    url: app.url,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    redirectUri: client.redirectUri,
    publicKey: client.keys.TEST,
  },
});
