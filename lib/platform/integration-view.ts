import { isLanguage, type Language } from '../i18n/languages.js';
import { translator } from '../i18n/catalogue.js';
import { OAUTH2_PATHS, SCOPE } from '../oauth2/protocol.js';
import type { Environment } from '../websites/index.js';
import type { WebsiteOverview } from './website-view.js';

/** The ready-to-paste pieces for one environment whose OAuth2 configuration is active. */
export interface EnvironmentIntegration {
  environment: Environment;
  clientId: string;
  redirectUri: string;
  authorizationUrl: string;
  tokenCommand: string;
  resourcesCommand: string;
  buttonSnippet: string;
}

/** Placeholders the webmaster's server replaces; written so they cannot be mistaken for real values. */
const STATE = 'RANDOM_STATE_FROM_YOUR_SERVER';
const CODE = 'CODE_FROM_THE_REDIRECT';

/** One argument for a POSIX shell: single-quoted, a quote inside written as '\''. */
const shellQuote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;

const escapeHtml = (value: string): string =>
  value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/**
 * The verify button as the integration guide draws it (docs/integration.md): the service blue #004db3 behind the white logo, the label in the
 * website's language. Inline styles, so it works pasted into any page (it is shown here as text, never rendered).
 */
function buttonSnippet(issuer: string, authorizationUrl: string, language: Language): string {
  const t = translator(language);
  const label = t('platform.integrate.buttonLabel', { brand: t('brand.name') });
  return [
    `<a href="${escapeHtml(authorizationUrl)}" target="_blank" lang="${language}"`,
    '   style="display:inline-flex;align-items:center;gap:.5em;padding:.6em 1.1em;background:#004db3;color:#ffffff;'
      + 'border-radius:6px;font:600 16px/1.2 system-ui,sans-serif;text-decoration:none">',
    `  <img src="${escapeHtml(`${issuer}/static/logo-on-dark.svg`)}" alt="" width="24" height="24">`,
    `  ${escapeHtml(label)}`,
    '</a>',
  ].join('\n');
}

/**
 * Authorization URL, token and Resources commands and the button for each active environment, with the real client
 * id and first redirect URI. The secret stays a shell variable: the page never prints it into a command to copy.
 */
export function integrationsOf(overview: WebsiteOverview, issuer: string, pageLanguage: Language): EnvironmentIntegration[] {
  const language = isLanguage(overview.website.language) ? overview.website.language : pageLanguage;
  return Object.values(overview.oauth2).flatMap((config) => {
    if (config.status !== 'ACTIVE' || !config.clientId || config.redirectUris.length === 0) return [];
    const redirectUri = config.redirectUris[0]!;
    const query = new URLSearchParams({ client_id: config.clientId, redirect_uri: redirectUri, response_type: 'code', scope: SCOPE, state: STATE });
    const authorizationUrl = `${issuer}${OAUTH2_PATHS.authorization}?${query.toString()}`;
    return [{
      environment: config.environment,
      clientId: config.clientId,
      redirectUri,
      authorizationUrl,
      tokenCommand: [
        `curl ${shellQuote(`${issuer}${OAUTH2_PATHS.token}`)} \\`,
        `  -u ${shellQuote(`${config.clientId}:`)}"$CLIENT_SECRET" \\`,
        '  -d grant_type=authorization_code \\',
        `  --data-urlencode ${shellQuote(`code=${CODE}`)} \\`,
        `  --data-urlencode ${shellQuote(`redirect_uri=${redirectUri}`)}`,
      ].join('\n'),
      resourcesCommand: `curl ${shellQuote(`${issuer}${OAUTH2_PATHS.resources}`)} \\\n  -H "Authorization: Bearer $ACCESS_TOKEN"`,
      buttonSnippet: buttonSnippet(issuer, authorizationUrl, language),
    }];
  });
}
