import { randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Refusal } from '../../lib/refusal.js';
import type { Runtime } from '../../lib/runtime.js';
import { createWebmaster, findWebmasterByEmail } from '../../lib/webmasters/accounts.js';
import {
  createOAuth2Config, createWebsite, getOAuth2Config, getWebsite, listWebsites, regenerateOAuth2Credentials, updateOAuth2Config, type OAuth2Configuration, type Website,
} from '../../lib/websites/index.js';
import type { ChangeOrigin } from '../../lib/audit/trail.js';

export const DEMO_EMAIL = 'demo@example.com';
export const DEMO_WEBSITE = { name: 'Demo shop', domain: 'demo-shop.example.com' };

/** What the demo remembers between runs, in DATA_DIR/demo.json (mode 600: it holds the webmaster's password). */
interface DemoFile {
  email: string;
  /** absent when the webmaster existed before this file did, so its password is not ours to know */
  password?: string;
  websiteId: number;
}

export interface DemoSeed {
  webmaster: { id: number; email: string; password?: string; created: boolean };
  website: Website;
  /** the website's TEST OAuth2 configuration, ACTIVE, with the relying party's callback registered */
  oauth2: Required<OAuth2Configuration>;
  /** the website's TEST public key (for the requirement endpoint) */
  publicKey: string;
}

async function readDemoFile(file: string): Promise<Partial<DemoFile>> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Partial<DemoFile>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
}

/** Missing or not ours means "not there": the demo then creates its own. */
async function unlessAbsent<T>(lookup: Promise<T>): Promise<T | undefined> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof Refusal && (error.kind === 'not_found' || error.kind === 'not_permitted')) return undefined;
    throw error;
  }
}

/**
 * Creates, or finds again, what the demo needs, through the same services the External API uses: a webmaster,
 * the "Demo shop" website, and its TEST OAuth2 configuration with `redirectUri` registered and ACTIVE.
 * Running it again changes nothing but a missing redirect URI or a disabled status.
 */
/** The audit trail's name for what the demo sets up: the operator, running `npm start`. */
const DEMO_ORIGIN: ChangeOrigin = { actor: { type: 'operator', id: 'npm start (demo)' }, address: null };

export async function seedDemo(runtime: Runtime, redirectUri: string): Promise<DemoSeed> {
  const file = join(runtime.config.dataDir, 'demo.json');
  const remembered = await readDemoFile(file);
  const email = remembered.email ?? DEMO_EMAIL;

  let password = remembered.password;
  let created = false;
  let webmaster = await findWebmasterByEmail(runtime.db, email);
  if (!webmaster) {
    password ??= randomBytes(12).toString('base64url');
    webmaster = await createWebmaster(runtime.db, { email, password });
    created = true;
  }

  const website = (remembered.websiteId ? await unlessAbsent(getWebsite(runtime, webmaster.id, remembered.websiteId)) : undefined)
    ?? (await listWebsites(runtime, webmaster.id)).find((candidate) => candidate.name === DEMO_WEBSITE.name)
    ?? (await createWebsite(runtime, webmaster.id, DEMO_WEBSITE, DEMO_ORIGIN));

  const existing = await unlessAbsent(getOAuth2Config(runtime, webmaster.id, website.id, 'TEST')).catch((error: unknown) => {
    if (error instanceof Refusal) throw error;
    // The secret was sealed with another SEALING_KEY (a new DATA_DIR on a kept database): new credentials, sealed with ours.
    runtime.log.warn('the demo client secret cannot be unsealed with this SEALING_KEY; regenerating the demo TEST credentials');
    return regenerateOAuth2Credentials(runtime, webmaster.id, website.id, 'TEST', DEMO_ORIGIN);
  });
  let oauth2 = existing ?? (await createOAuth2Config(runtime, webmaster.id, website.id, 'TEST', { redirectUris: [redirectUri] }, DEMO_ORIGIN));
  if (oauth2.status !== 'ACTIVE' || !oauth2.redirectUris.includes(redirectUri)) {
    const redirectUris = oauth2.redirectUris.includes(redirectUri) ? oauth2.redirectUris : [...oauth2.redirectUris, redirectUri];
    oauth2 = await updateOAuth2Config(runtime, webmaster.id, website.id, 'TEST', { status: 'ACTIVE', redirectUris }, DEMO_ORIGIN);
  }

  const demoFile: DemoFile = { email, ...(password ? { password } : {}), websiteId: website.id };
  await writeFile(file, `${JSON.stringify(demoFile, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);

  return {
    webmaster: { id: webmaster.id, email, ...(password ? { password } : {}), created },
    website,
    oauth2: oauth2 as Required<OAuth2Configuration>,
    publicKey: website.keys.find((key) => key.environment === 'TEST')!.publicKey,
  };
}
