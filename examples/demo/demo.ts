import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAgeProvider, type AgeProvider, type AgeProviderOptions } from '../../lib/app/app.js';
import { knexAdapter } from '../../adapters/knex.js';
import { loadConfig } from '../../lib/app/config.js';
import { startRelyingParty, type RunningRelyingParty } from '../relying-party/server.js';
import { relyingPartySettings } from '../relying-party/settings.js';
import { seedDemo, type DemoSeed } from './seed.js';

export interface DemoOptions extends AgeProviderOptions {
  /** the relying party's port; default PORT + 1 (0 when PORT is 0) */
  relyingPartyPort?: number;
}

export interface Demo {
  provider: AgeProvider;
  /** age-provider's base URL (its issuer) */
  providerUrl: string;
  relyingPartyUrl: string;
  seed: DemoSeed;
  /** milliseconds from the call to both servers answering */
  startupMs: number;
  close(): Promise<void>;
}

const listen = (server: Server, port: number, host: string): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });

const stop = async (server: Server): Promise<void> => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
};

const origin = (host: string, port: number): string => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

/**
 * The demo's public name for a loopback listener: `localhost`, which browsers treat as a secure context and WebAuthn
 * accepts as relying-party id (an IP address it refuses), so passkeys work in the demo as they would in production.
 */
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const publicOrigin = (host: string, port: number): string => origin(LOOPBACK.has(host) ? 'localhost' : host, port);

/**
 * What `npm start` runs: age-provider as `age-provider serve` would run it (same settings, same database), the demo
 * records seeded through the real services, and the demo relying party on PORT + 1 wired to the TEST client.
 */
export async function startDemo(options: DemoOptions = {}): Promise<Demo> {
  const started = Date.now();
  const { relyingPartyPort, ...providerOptions } = options;
  const env = providerOptions.env ?? process.env;
  // The demo is one process: on PostgreSQL it may keep its keys in DATA_DIR (SINGLE_INSTANCE).
  const {
    env: _env,
    clock: _clock,
    logger: _logger,
    db: _db,
    geo: _geo,
    branding: _branding,
    domainProbe: _probe,
    ...given
  } = providerOptions;
  const settings = { singleInstance: true, ...given };

  // Both ports are bound before the provider is built, so its issuer names the real port even when PORT is 0.
  const { config: wanted } = await loadConfig(settings, env);
  const providerServer = createServer();
  const relyingPartyServer = createServer();
  let provider: AgeProvider | undefined;
  try {
    const port = await listen(providerServer, wanted.port, wanted.host);
    // Without ISSUER, the address it defaults to (http://HOST:PORT), named as a browser should reach it.
    const issuer = given.issuer === undefined && !env.ISSUER?.trim() ? publicOrigin(wanted.host, port) : wanted.issuer;
    // The shop is reached by the same name as age-provider, so the redirect host matches what the visitor sees.
    const siteUrl = publicOrigin(
      wanted.host,
      await listen(relyingPartyServer, relyingPartyPort ?? (wanted.port === 0 ? 0 : port + 1), wanted.host),
    );

    provider = await createAgeProvider({ ...providerOptions, ...settings, env, port, issuer }, knexAdapter);
    const handle = provider.app.callback();
    providerServer.on('request', (request, response) => void handle(request, response));

    const seed = await seedDemo(provider.runtime, `${siteUrl}/callback`);
    const relyingParty: RunningRelyingParty = await startRelyingParty(
      relyingPartySettings({
        AGE_PROVIDER_URL: provider.config.issuer,
        CLIENT_ID: seed.oauth2.clientId,
        CLIENT_SECRET: seed.oauth2.clientSecret,
        PUBLIC_KEY: seed.publicKey,
        HOST: wanted.host,
        PORT: new URL(siteUrl).port,
        SITE_URL: siteUrl,
        SITE_LANGUAGE: env.SITE_LANGUAGE,
      }),
      relyingPartyServer,
    );

    const running = provider;
    return {
      provider: running,
      providerUrl: running.config.issuer,
      relyingPartyUrl: siteUrl,
      seed,
      startupMs: Date.now() - started,
      async close() {
        await relyingParty.close();
        await stop(providerServer);
        await running.close();
      },
    };
  } catch (error) {
    if (relyingPartyServer.listening) await stop(relyingPartyServer);
    if (providerServer.listening) await stop(providerServer);
    await provider?.close();
    throw error;
  }
}
