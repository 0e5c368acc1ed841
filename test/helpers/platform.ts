import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createWebmaster } from '../../lib/webmasters/accounts.js';
import type { TestApp } from './app.js';
import { Browser } from './browser.js';

export const PLATFORM_PASSWORD = 'correct horse battery';

/**
 * A new webmaster (confirmed, no API token), signed in with their password in a fresh browser: the start of most
 * platform tests, now that registering goes through a mailed link (test/platform/registration.test.ts covers that).
 */
export async function signedInWebmaster(
  app: TestApp,
  email = `platform-${randomBytes(5).toString('hex')}@example.test`,
  headers: Record<string, string> = {},
): Promise<{ client: Browser; email: string; id: number; password: string }> {
  const webmaster = await createWebmaster(app.provider.db, { email, password: PLATFORM_PASSWORD });
  const client = new Browser(app.url, { headers });
  await client.open('/platform/signin');
  const signedIn = await client.post('/platform/signin', { email, password: PLATFORM_PASSWORD });
  expect(signedIn.url.pathname, client.trail()).to.equal('/platform/websites');
  return { client, email: webmaster.email, id: webmaster.id, password: PLATFORM_PASSWORD };
}
