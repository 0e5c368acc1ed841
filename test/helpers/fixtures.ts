import { randomBytes } from 'node:crypto';
import type { Runtime } from '../../lib/runtime.js';
import { issueApiToken } from '../../lib/webmasters/api-tokens.js';
import { createWebmaster } from '../../lib/webmasters/accounts.js';
import type { Environment } from '../../lib/verification/challenge.js';

// Interim fixtures with direct inserts; they move onto lib/websites services (same signatures) once those exist.

export interface WebmasterFixture {
  id: number;
  email: string;
  password: string;
  apiToken: string;
}

export async function createWebmasterFixture(runtime: Runtime, email = `wm-${randomBytes(4).toString('hex')}@example.test`): Promise<WebmasterFixture> {
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const webmaster = await createWebmaster(runtime.db, { email, password });
  return { id: webmaster.id, email: webmaster.email, password, apiToken: await issueApiToken(runtime.db, runtime.clock, webmaster.id) };
}

export interface ClientFixture {
  websiteId: number;
  environment: Environment;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/** A website owned by `webmasterId` with an ACTIVE OAuth2 configuration in `environment`. */
export async function createClientFixture(
  runtime: Runtime,
  webmasterId: number,
  options: { environment?: Environment; redirectUris?: string[]; name?: string; domain?: string; language?: string; challenges?: string[]; regions?: string[] } = {},
): Promise<ClientFixture> {
  const environment = options.environment ?? 'TEST';
  const redirectUris = options.redirectUris ?? ['http://localhost:4000/callback'];
  const [website] = await runtime.db('websites')
    .insert({
      webmaster_id: webmasterId,
      name: options.name ?? 'Example Site',
      domain: options.domain ?? 'example.test',
      language: options.language ?? 'auto',
      regions: JSON.stringify(options.regions ?? []),
      challenges: JSON.stringify(options.challenges ?? ['selfie', 'email_age', 'ticket']),
    })
    .returning('id');
  const websiteId = (website as { id: number }).id;
  for (const env of ['LIVE', 'TEST']) {
    await runtime.db('website_keys').insert({ website_id: websiteId, environment: env, public_key: `pk_${env.toLowerCase()}_${randomBytes(16).toString('base64url')}` });
  }
  const [config] = await runtime.db('oauth2_configs')
    .insert({ website_id: websiteId, environment, status: 'ACTIVE', redirect_uris: JSON.stringify(redirectUris) })
    .returning('id');
  const clientId = `${environment.toLowerCase()}_${randomBytes(12).toString('base64url')}`;
  const clientSecret = randomBytes(32).toString('base64url');
  await runtime.db('oauth2_credentials').insert({ config_id: (config as { id: number }).id, client_id: clientId, secret_sealed: runtime.sealer.seal(clientSecret) });
  return { websiteId, environment, clientId, clientSecret, redirectUri: redirectUris[0]! };
}
