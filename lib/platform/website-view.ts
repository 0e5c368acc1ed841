import { HttpError } from '../http/errors.js';
import type { Runtime } from '../runtime.js';
import { ENVIRONMENTS, getOAuth2Config, type Environment, type OAuth2Configuration, type Website } from '../websites/index.js';

/** A website as the platform shows it: the website (with its keys) and its OAuth2 configuration per environment. */
export interface WebsiteOverview {
  website: Website;
  oauth2: Partial<Record<Environment, OAuth2Configuration>>;
}

/** Reads each environment's OAuth2 configuration through the service; an environment without one is left out. */
export async function overviewOf(runtime: Runtime, webmasterId: number, website: Website): Promise<WebsiteOverview> {
  const oauth2: WebsiteOverview['oauth2'] = {};
  for (const environment of ENVIRONMENTS) {
    try {
      oauth2[environment] = await getOAuth2Config(runtime, webmasterId, website.id, environment);
    } catch (error) {
      // The website was just read as the webmaster's own, so a 404 here means "no configuration yet".
      if (!(error instanceof HttpError && error.status === 404)) throw error;
    }
  }
  return { website, oauth2 };
}

/** Whether any of these configurations has a client secret to show (the page offers "Show client secrets" only then). */
export const hasSecrets = (overviews: WebsiteOverview[]): boolean =>
  overviews.some((overview) => Object.values(overview.oauth2).some((config) => config.status === 'ACTIVE'));
