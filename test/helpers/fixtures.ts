import type { ChangeOrigin } from '../../lib/changes.js';
import { randomBytes } from 'node:crypto';
import type { AgeProviderOptions } from '../../lib/app/app.js';
import type { Runtime } from '../../lib/app/runtime.js';
import { issueApiToken } from '../../lib/webmasters/api-tokens.js';
import { createWebmaster } from '../../lib/webmasters/accounts.js';
import type { Environment } from '../../lib/verification/challenge.js';
import { createOAuth2Config, createWebsite } from '../../lib/websites/index.js';
import { startTestApp, type TestApp } from './app.js';

/** What the audit trail records for changes a test's setup makes through the services: the operator, named "test". */
export const TEST_ORIGIN: ChangeOrigin = { actor: { type: 'operator', id: 'test' }, address: null };

export interface WebmasterFixture {
  id: number;
  email: string;
  password: string;
  apiToken: string;
}

export async function createWebmasterFixture(
  runtime: Runtime,
  email = `wm-${randomBytes(4).toString('hex')}@example.test`,
): Promise<WebmasterFixture> {
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const webmaster = await createWebmaster(runtime.db, { email, password });
  return {
    id: webmaster.id,
    email: webmaster.email,
    password,
    apiToken: await issueApiToken(runtime.db, runtime.clock, webmaster.id, TEST_ORIGIN),
  };
}

export interface ClientFixture {
  websiteId: number;
  environment: Environment;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** the website's public keys (for GET /v1/requirement) */
  keys: Record<Environment, string>;
}

/** A website owned by `webmasterId` with an ACTIVE OAuth2 configuration in `environment`, made by the same services as the API. */
export async function createClientFixture(
  runtime: Runtime,
  webmasterId: number,
  options: {
    environment?: Environment;
    redirectUris?: string[];
    name?: string;
    domain?: string;
    language?: string;
    challenges?: string[];
    regions?: string[];
  } = {},
): Promise<ClientFixture> {
  const environment = options.environment ?? 'TEST';
  const redirectUris = options.redirectUris ?? ['http://localhost:4000/callback'];
  const website = await createWebsite(
    runtime,
    webmasterId,
    {
      name: options.name ?? 'Example Site',
      domain: options.domain ?? 'example.test',
      ...(options.language !== undefined ? { language: options.language } : {}),
      ...(options.challenges !== undefined ? { challenges: options.challenges } : {}),
      ...(options.regions !== undefined ? { regions: options.regions } : {}),
    },
    TEST_ORIGIN,
  );
  const config = await createOAuth2Config(runtime, webmasterId, website.id, environment, { redirectUris }, TEST_ORIGIN);
  const keys = Object.fromEntries(website.keys.map((key) => [key.environment, key.publicKey])) as Record<
    Environment,
    string
  >;
  return {
    websiteId: website.id,
    environment,
    clientId: config.clientId!,
    clientSecret: config.clientSecret!,
    redirectUri: redirectUris[0]!,
    keys,
  };
}

/** The app (with `appOptions`) and one webmaster's website with an ACTIVE OAuth2 configuration made with `clientOptions`. */
export async function startAppWithClient(
  clientOptions: Parameters<typeof createClientFixture>[2] = {},
  appOptions: AgeProviderOptions = {},
  listen: Parameters<typeof startTestApp>[1] = {},
): Promise<{ app: TestApp; client: ClientFixture }> {
  const app = await startTestApp(appOptions, listen);
  try {
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    return { app, client: await createClientFixture(app.provider.runtime, webmaster.id, clientOptions) };
  } catch (error) {
    await app.close();
    throw error;
  }
}
