/** The relying party's settings, from environment variables (see examples/relying-party/README in the main README). */

export const SITE_LANGUAGES = ['de', 'en', 'es', 'fr', 'it', 'pt'] as const;
export type SiteLanguage = (typeof SITE_LANGUAGES)[number];

export interface RelyingPartySettings {
  /** base URL of the age-provider service, e.g. http://127.0.0.1:3000: its issuer (checked against `iss` on return) */
  ageProviderUrl: string;
  clientId: string;
  clientSecret: string;
  /** the website's public key (LIVE or TEST) for the requirement endpoint */
  publicKey: string;
  /** this site's own base URL; the callback is `${siteUrl}/callback` and must be a registered redirect URI */
  siteUrl: string;
  port: number;
  host: string;
  language: SiteLanguage;
  /** keys signing this site's cookies; one random key per process when not configured */
  cookieKeys: string[];
}

export class RelyingPartySettingsError extends Error {
  override name = 'RelyingPartySettingsError';
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name]?.trim();
  if (!value) throw new RelyingPartySettingsError(`${name} is required`);
  return value;
}

function httpUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new RelyingPartySettingsError(`${name} must be an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new RelyingPartySettingsError(`${name} must be an http(s) URL`);
  return url.origin + url.pathname.replace(/\/$/, '');
}

/**
 * AGE_PROVIDER_URL, CLIENT_ID, CLIENT_SECRET and PUBLIC_KEY are required; PORT (4000), HOST (127.0.0.1),
 * SITE_URL (http://HOST:PORT), SITE_LANGUAGE (en) and COOKIE_KEYS (comma-separated) are optional.
 */
export function relyingPartySettings(env: NodeJS.ProcessEnv): RelyingPartySettings {
  const port = Number(env.PORT ?? 4000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new RelyingPartySettingsError('PORT must be a port number');
  const host = env.HOST?.trim() || '127.0.0.1';
  const language = (env.SITE_LANGUAGE?.trim() || 'en') as SiteLanguage;
  if (!SITE_LANGUAGES.includes(language))
    throw new RelyingPartySettingsError(`SITE_LANGUAGE must be one of ${SITE_LANGUAGES.join(', ')}`);
  const cookieKeys = (env.COOKIE_KEYS ?? '')
    .split(',')
    .map((key) => key.trim())
    .filter(Boolean);
  if (cookieKeys.some((key) => key.length < 32))
    throw new RelyingPartySettingsError('COOKIE_KEYS entries must be at least 32 characters');
  return {
    ageProviderUrl: httpUrl('AGE_PROVIDER_URL', required(env, 'AGE_PROVIDER_URL')),
    clientId: required(env, 'CLIENT_ID'),
    clientSecret: required(env, 'CLIENT_SECRET'),
    publicKey: required(env, 'PUBLIC_KEY'),
    siteUrl: httpUrl('SITE_URL', env.SITE_URL?.trim() || `http://${host.includes(':') ? `[${host}]` : host}:${port}`),
    port,
    host,
    language,
    cookieKeys,
  };
}
