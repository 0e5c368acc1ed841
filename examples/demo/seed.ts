import { randomBytes } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Refusal } from '../../lib/refusal.js';
import type { Runtime } from '../../lib/app/runtime.js';
import { createWebmaster, findWebmasterByEmail } from '../../lib/webmasters/accounts.js';
import {
  createOAuth2Config,
  createWebsite,
  getOAuth2Config,
  getWebsite,
  listWebsites,
  regenerateOAuth2Credentials,
  updateOAuth2Config,
  vouchForDomain,
  type OAuth2Configuration,
  type Website,
} from '../../lib/websites/index.js';
import type { ChangeOrigin } from '../../lib/changes.js';

export const DEMO_EMAIL = 'demo@example.com';
/**
 * The shop runs on this machine, so its domain is `localhost`, the host its visitors return to; the demo's operator
 * vouches for it (nobody can publish a token for localhost), so visitors see the domain verified.
 */
export const DEMO_WEBSITE = { name: 'Demo shop', domain: 'localhost' };
const isDemoWebsite = (website: Website): boolean =>
  website.name === DEMO_WEBSITE.name && website.domain === DEMO_WEBSITE.domain;

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

/** The audit trail's name for what the demo sets up: the operator, running `npm start`. */
const DEMO_ORIGIN: ChangeOrigin = { actor: { type: 'operator', id: 'npm start (demo)' }, address: null };

/**
 * Creates, or finds again, what the demo needs, through the same services the External API and the operator's CLI
 * use: a webmaster, the "Demo shop" website on localhost with its domain vouched for by the operator, and its TEST
 * OAuth2 configuration with `redirectUri` registered and ACTIVE. Running it again changes nothing but a missing
 * redirect URI or a disabled status. A DATA_DIR from before the demo's website was on localhost remembers a website on
 * demo-shop.example.com: a domain cannot change, so the demo makes its localhost website and leaves that one as it was.
 */
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

  const rememberedWebsite = remembered.websiteId
    ? await unlessAbsent(getWebsite(runtime, webmaster.id, remembered.websiteId))
    : undefined;
  const website =
    (rememberedWebsite && isDemoWebsite(rememberedWebsite) ? rememberedWebsite : undefined) ??
    (await listWebsites(runtime, webmaster.id)).find(isDemoWebsite) ??
    (await createWebsite(runtime, webmaster.id, DEMO_WEBSITE, DEMO_ORIGIN));
  if (rememberedWebsite && rememberedWebsite.id !== website.id) {
    runtime.log.info('the demo website is now on localhost; the one an earlier demo made is left as it was', {
      website_id: website.id,
      earlier_website_id: rememberedWebsite.id,
      earlier_domain: rememberedWebsite.domain,
    });
  }
  // Every start, as the operator would with `age-provider website vouch-domain`; a domain already vouched for is left alone.
  await vouchForDomain(runtime, website.id, DEMO_ORIGIN);

  const existing = await unlessAbsent(getOAuth2Config(runtime, webmaster.id, website.id, 'TEST')).catch(
    (error: unknown) => {
      if (error instanceof Refusal) throw error;
      // The secret was sealed with another SEALING_KEY (a new DATA_DIR on a kept database): new credentials, sealed with ours.
      runtime.log.warn(
        'the demo client secret cannot be unsealed with this SEALING_KEY; regenerating the demo TEST credentials',
      );
      return regenerateOAuth2Credentials(runtime, webmaster.id, website.id, 'TEST', DEMO_ORIGIN);
    },
  );
  let oauth2 =
    existing ??
    (await createOAuth2Config(runtime, webmaster.id, website.id, 'TEST', { redirectUris: [redirectUri] }, DEMO_ORIGIN));
  if (oauth2.status !== 'ACTIVE' || !oauth2.redirectUris.includes(redirectUri)) {
    const redirectUris = oauth2.redirectUris.includes(redirectUri)
      ? oauth2.redirectUris
      : [...oauth2.redirectUris, redirectUri];
    oauth2 = await updateOAuth2Config(
      runtime,
      webmaster.id,
      website.id,
      'TEST',
      { status: 'ACTIVE', redirectUris },
      DEMO_ORIGIN,
    );
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
