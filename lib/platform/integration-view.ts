import { isLanguage, type Language } from '../i18n/languages.js';
import { translator } from '../i18n/catalogue.js';
import { CHECKER_PATHS } from '../checker/paths.js';
import { OAUTH2_PATHS, SCOPE } from '../oauth2/protocol.js';
import type { Environment } from '../websites/index.js';
import type { WebsiteOverview } from './website-view.js';

/** The ready-to-paste pieces of the checker script for one environment's public key. */
export interface CheckerIntegration {
  environment: Environment;
  publicKey: string;
  scriptTag: string;
  serverCheck: string;
  csp: string;
}

/** The ready-to-paste pieces for one environment whose OAuth2 configuration is active. */
export interface EnvironmentIntegration {
  environment: Environment;
  clientId: string;
  redirectUri: string;
  serverSnippet: string;
  tokenCommand: string;
  resourcesCommand: string;
  buttonSnippet: string;
}

/** What the WordPress plugin's settings page takes for one environment (docs/wordpress.md). */
export interface WordPressIntegration {
  environment: Environment;
  redirectUri: string;
  settings: string;
}

/** Placeholder the webmaster's server replaces; written so it cannot be mistaken for a real value. */
const CODE = 'CODE_FROM_THE_REDIRECT';

/** One argument for a POSIX shell: single-quoted, a quote inside written as '\''. */
const shellQuote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;

const escapeHtml = (value: string): string =>
  value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/**
 * The checker script for each of the website's keys: the one-line tag, the server-side check of the signed result
 * with jose (docs/checker.md), and the Content-Security-Policy the host page needs for it.
 */
export function checkerIntegrationsOf(overview: WebsiteOverview, issuer: string): CheckerIntegration[] {
  return overview.website.keys.map(({ environment, publicKey }) => ({
    environment,
    publicKey,
    scriptTag: `<script src="${escapeHtml(`${issuer}${CHECKER_PATHS.script}?key=${encodeURIComponent(publicKey)}`)}" async></script>`,
    serverCheck: [
      "import { createRemoteJWKSet, jwtVerify } from 'jose';",
      '',
      `const jwks = createRemoteJWKSet(new URL(${JSON.stringify(`${issuer}${OAUTH2_PATHS.jwks}`)}));`,
      '',
      '// The token the page received in the age-provider:success event, posted to your server.',
      'export async function verifyAge(token) {',
      '  const { payload } = await jwtVerify(token, jwks, {',
      `    issuer: ${JSON.stringify(issuer)},`,
      `    audience: ${JSON.stringify(publicKey)},`,
      "    typ: 'age-verification+jwt',",
      '  });',
      `  if (payload.verified !== true || payload.environment !== ${JSON.stringify(environment)}) throw new Error('not verified');`,
      '  return payload;',
      '}',
    ].join('\n'),
    csp: `Content-Security-Policy: script-src 'self' ${new URL(issuer).origin}`,
  }));
}

/**
 * What the website's server runs when a visitor clicks "Verify my age" and when they come back: a fresh state and
 * PKCE verifier per visitor, kept in the visitor's session, never a constant in a link; the callback checks the state
 * and redeems the code with the verifier.
 */
function serverSnippet(issuer: string, clientId: string, redirectUri: string): string {
  const callbackPath = URL.canParse(redirectUri) ? new URL(redirectUri).pathname : '/callback';
  return [
    "import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';",
    '',
    `const ISSUER = ${JSON.stringify(issuer)};`,
    `const CLIENT_ID = ${JSON.stringify(clientId)};`,
    `const REDIRECT_URI = ${JSON.stringify(redirectUri)};`,
    '',
    '// "Verify my age": a new state and PKCE verifier for this visitor, kept in their session.',
    "app.get('/verify-age', (req, res) => {",
    "  const state = randomBytes(32).toString('base64url');",
    "  const verifier = randomBytes(32).toString('base64url');",
    '  req.session.ageProvider = { state, verifier };',
    `  const url = new URL(ISSUER + ${JSON.stringify(OAUTH2_PATHS.authorization)});`,
    '  url.search = new URLSearchParams({',
    `    client_id: CLIENT_ID, redirect_uri: REDIRECT_URI, response_type: 'code', scope: ${JSON.stringify(SCOPE)}, state,`,
    "    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',",
    '  }).toString();',
    '  res.redirect(url.href);',
    '});',
    '',
    '// The visitor comes back: the state must be the one this session made; then redeem the code once.',
    `app.get(${JSON.stringify(callbackPath)}, async (req, res) => {`,
    '  const expected = req.session.ageProvider;',
    '  delete req.session.ageProvider;',
    "  const state = Buffer.from(String(req.query.state ?? ''));",
    '  if (!expected || state.length !== expected.state.length || !timingSafeEqual(state, Buffer.from(expected.state))) {',
    "    return res.status(400).send('Unexpected answer');",
    '  }',
    "  if (!req.query.code) return res.redirect('/?age=declined');",
    `  const token = await fetch(ISSUER + ${JSON.stringify(OAUTH2_PATHS.token)}, {`,
    "    method: 'POST',",
    "    headers: { authorization: 'Basic ' + Buffer.from(CLIENT_ID + ':' + process.env.CLIENT_SECRET).toString('base64') },",
    '    body: new URLSearchParams({',
    "      grant_type: 'authorization_code', code: String(req.query.code), redirect_uri: REDIRECT_URI, code_verifier: expected.verifier,",
    '    }),',
    '  });',
    "  if (!token.ok) return res.redirect('/?age=failed');",
    '  // A token answer means the visitor is verified; Resources tells the details (country, level, expiry).',
    '  req.session.ageVerified = true;',
    "  res.redirect('/');",
    '});',
  ].join('\n');
}

/**
 * The verify button as the integration guide draws it (docs/integration.md), without inline styles: a link to the server route that starts
 * the flow, and the CSS rule for the website's own stylesheet (the service blue #004db3 behind the white logo).
 */
function buttonSnippet(issuer: string, language: Language): string {
  const t = translator(language);
  const label = t('platform.integrate.buttonLabel', { brand: t('brand.name') });
  return [
    `<a class="age-provider-button" href="/verify-age" lang="${language}">`,
    `  <img src="${escapeHtml(`${issuer}/static/logo-on-dark.svg`)}" alt="" width="24" height="24">`,
    `  ${escapeHtml(label)}`,
    '</a>',
    '',
    '/* in your stylesheet */',
    '.age-provider-button { display: inline-flex; align-items: center; gap: .5em; padding: .6em 1.1em; background: #004db3;',
    '  color: #ffffff; border-radius: 6px; font: 600 16px/1.2 system-ui, sans-serif; text-decoration: none; }',
  ].join('\n');
}

/**
 * The server code, token and Resources commands and the button for each active environment, with the real client
 * id and first redirect URI. The secret stays an environment variable: the page never prints it into code to copy.
 */
export function integrationsOf(
  overview: WebsiteOverview,
  issuer: string,
  pageLanguage: Language,
): EnvironmentIntegration[] {
  const language = isLanguage(overview.website.language) ? overview.website.language : pageLanguage;
  return Object.values(overview.oauth2).flatMap((config) => {
    if (config.status !== 'ACTIVE' || !config.clientId || config.redirectUris.length === 0) return [];
    const redirectUri = config.redirectUris[0]!;
    return [
      {
        environment: config.environment,
        clientId: config.clientId,
        redirectUri,
        serverSnippet: serverSnippet(issuer, config.clientId, redirectUri),
        tokenCommand: [
          `curl ${shellQuote(`${issuer}${OAUTH2_PATHS.token}`)} \\`,
          `  -u ${shellQuote(`${config.clientId}:`)}"$CLIENT_SECRET" \\`,
          '  -d grant_type=authorization_code \\',
          `  --data-urlencode ${shellQuote(`code=${CODE}`)} \\`,
          `  --data-urlencode ${shellQuote(`redirect_uri=${redirectUri}`)}`,
        ].join('\n'),
        resourcesCommand: `curl ${shellQuote(`${issuer}${OAUTH2_PATHS.resources}`)} \\\n  -H "Authorization: Bearer $ACCESS_TOKEN"`,
        buttonSnippet: buttonSnippet(issuer, language),
      },
    ];
  });
}

/**
 * The address the WordPress plugin receives the visitor back on (integrations/wordpress: `/?age_provider=callback`,
 * whatever the permalinks), for a WordPress at the root of the website's domain; the plugin's settings show the exact one.
 */
export function wordpressRedirectUri(domain: string): string {
  const scheme = domain === 'localhost' || domain.endsWith('.localhost') ? 'http' : 'https';
  return `${scheme}://${domain}/?age_provider=callback`;
}

/**
 * The values to paste into the WordPress plugin's settings, per environment: the service's address, the public key,
 * and with OAuth2 enabled the client id and the plugin's redirect URI to register. The secret is never printed.
 */
export function wordpressIntegrationsOf(
  overview: WebsiteOverview,
  issuer: string,
  pageLanguage: Language,
): WordPressIntegration[] {
  const t = translator(pageLanguage);
  const redirectUri = wordpressRedirectUri(overview.website.domain);
  return overview.website.keys.map(({ environment, publicKey }) => {
    const config = overview.oauth2[environment];
    const lines: Array<[string, string]> = [
      [t('platform.integrate.wordpressService'), issuer],
      [t('platform.integrate.wordpressKey'), publicKey],
    ];
    if (config?.status === 'ACTIVE' && config.clientId) {
      lines.push(
        [t('platform.integrate.wordpressClientId'), config.clientId],
        [t('platform.integrate.wordpressRedirect'), redirectUri],
      );
    }
    const width = Math.max(...lines.map(([label]) => label.length)) + 2;
    return {
      environment,
      redirectUri,
      settings: lines.map(([label, value]) => `${`${label}:`.padEnd(width)}${value}`).join('\n'),
    };
  });
}
