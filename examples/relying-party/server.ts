/**
 * A tiny website that asks age-provider to verify its visitors: the "Verify my age" button, the OAuth2 callback,
 * and the result. Run it against a running age-provider:
 *
 *   AGE_PROVIDER_URL=http://127.0.0.1:3000 CLIENT_ID=... CLIENT_SECRET=... PUBLIC_KEY=... PORT=3001 \
 *     npx tsx examples/relying-party/server.ts
 *
 * `npm start` (examples/demo) starts it for you with a seeded TEST client.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRelyingPartyApp } from './app.js';
import { relyingPartySettings, RelyingPartySettingsError, type RelyingPartySettings } from './settings.js';

export interface RunningRelyingParty {
  server: Server;
  /** where the site answers, e.g. http://127.0.0.1:3001 */
  url: string;
  close(): Promise<void>;
}

/** Listens on settings.host:settings.port (0 picks a free port; then siteUrl must already name the real one). */
export async function startRelyingParty(
  settings: RelyingPartySettings,
  server: Server = createServer(),
): Promise<RunningRelyingParty> {
  const handle = createRelyingPartyApp(settings).callback();
  server.on('request', (request, response) => void handle(request, response));
  if (!server.listening) {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(settings.port, settings.host, resolve);
    });
  }
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://${settings.host.includes(':') ? `[${settings.host}]` : settings.host}:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const settings = relyingPartySettings(process.env);
    const site = await startRelyingParty(settings);
    console.log(
      `relying party on ${site.url} (callback ${settings.siteUrl}/callback, age provider ${settings.ageProviderUrl})`,
    );
    const stop = () => void site.close();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (error) {
    if (!(error instanceof RelyingPartySettingsError)) throw error;
    console.error(`relying party: ${error.message}`);
    process.exitCode = 1;
  }
}
