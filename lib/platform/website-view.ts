import type { PlatformServices } from './services.js';
import { listOAuth2Configs, type Environment, type OAuth2Configuration, type Website } from '../websites/index.js';

/** A website as the platform shows it: the website (with its keys) and its OAuth2 configuration per environment. */
export interface WebsiteOverview {
  website: Website;
  oauth2: Partial<Record<Environment, OAuth2Configuration>>;
}

/** The webmaster's websites with their OAuth2 configurations, read in one query; an environment without one is left out. */
export async function overviewsOf(
  runtime: PlatformServices,
  webmasterId: number,
  websites: Website[],
): Promise<WebsiteOverview[]> {
  const configs = await listOAuth2Configs(
    runtime,
    webmasterId,
    websites.map((website) => website.id),
  );
  return websites.map((website) => ({ website, oauth2: configs.get(website.id) ?? {} }));
}
