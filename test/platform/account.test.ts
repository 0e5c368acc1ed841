import { expect } from 'chai';
import { LANGUAGES } from '../../lib/i18n/languages.js';
import { sha256 } from '../../lib/security/hashing.js';
import { startTestApp, useApp, type TestApp } from '../helpers/app.js';
import { Browser, decodeHtml, redirectPaths, type Fields } from '../helpers/browser.js';
import { PLATFORM_PASSWORD, signedInWebmaster } from '../helpers/platform.js';

const TOKEN = /avk_[A-Za-z0-9_-]{43}/g;
let counter = 0;
const newEmail = () => `platform-${Date.now()}-${counter++}@example.test`;
const PASSWORD = PLATFORM_PASSWORD;

/** A new webmaster, signed in, landing on their websites. */
const register = (app: TestApp, email = newEmail()) => signedInWebmaster(app, email);

/** A new webmaster signs in through a raw request (no redirect following); returns the Set-Cookie line of the session. */
async function sessionCookieOfSignIn(app: TestApp, headers: Record<string, string> = {}): Promise<string> {
  const { email } = await signedInWebmaster(app);
  const client = new Browser(app.url, { headers });
  await client.open('/platform/signin');
  const response = await client.request('/platform/signin', { body: { email, password: PASSWORD } });
  expect(response.status).to.equal(303);
  return response.headers.getSetCookie().find((line) => line.startsWith('ap_platform='))!;
}

describe('webmasters platform: accounts, sessions and API keys', () => {
  const app = useApp();

  it('signs a webmaster in, who lands on their websites', async () => {
    const { client, email } = await register(app);
    const page = await client.open('/platform/account');
    expect(page.status).to.equal(200);
    expect(page.html).to.contain('API keys').and.contain(`Signed in as ${email}`).and.contain('as Owner');
    expect(page.headers.get('cache-control')).to.equal('no-store');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).to.contain("script-src 'self'").and.contain("style-src 'self'").and.not.contain('unsafe-inline');
    expect(page.html).not.to.match(/<script>|style="/);
  });

  it('sets the session cookie HttpOnly, SameSite=Lax, on /platform, and stores only its SHA-256', async () => {
    const cookie = await sessionCookieOfSignIn(app);
    expect(cookie)
      .to.match(/; path=\/platform/i)
      .and.match(/samesite=lax/i)
      .and.match(/httponly/i)
      .and.not.match(/secure/i);
    const id = /^ap_platform=([^;]+)/.exec(cookie)![1]!;
    const rows = await app.provider.db('platform_sessions').select('id_hash');
    expect(rows.map((row: { id_hash: string }) => row.id_hash)).not.to.include(id);
    expect(rows.map((row: { id_hash: string }) => row.id_hash)).to.include(sha256(id));
  });

  it('signs in with the right password; a wrong password and an unknown email get the same answer', async () => {
    const { email } = await register(app);
    const client = new Browser(app.url);
    await client.open('/platform/signin');
    const wrongPassword = await client.post('/platform/signin', { email, password: 'wrong password 123' });
    const unknownEmail = await client.post('/platform/signin', { email: newEmail(), password: 'wrong password 123' });
    for (const page of [wrongPassword, unknownEmail]) {
      expect(page.status).to.equal(400);
      expect(page.html).to.contain('Email or password is incorrect.');
    }
    expect(wrongPassword.html.replace(/value="[^"]*"/g, '')).to.equal(unknownEmail.html.replace(/value="[^"]*"/g, ''));
    expect(redirectPaths(await client.open('/platform/account'))).to.deep.equal(['/platform/signin']);
    const signedIn = await client.post('/platform/signin', { email, password: PASSWORD });
    expect(redirectPaths(signedIn)).to.deep.equal(['/platform/websites']);
    expect(signedIn.html).to.contain(`Signed in as ${email}`);
  });

  it('answers a malformed sign-in form (a repeated field, an oversized password, an extra field) like a wrong password', async () => {
    const { email } = await register(app);
    const client = new Browser(app.url);
    await client.open('/platform/signin');
    const malformed: Fields[] = [
      { email: [email, email], password: PASSWORD },
      { email, password: 'x'.repeat(300) },
      { email, password: PASSWORD, admin: 'true' },
    ];
    for (const fields of malformed) {
      const page = await client.post('/platform/signin', fields);
      expect(page.status).to.equal(400);
      expect(page.html).to.contain('Email or password is incorrect.');
    }
    expect(client.cookies.get('ap_platform')).to.equal(undefined);
  });

  it('rotates the session id at sign-in and ends the session at sign-out (POST with CSRF)', async () => {
    const { client, email } = await register(app);
    const first = client.cookies.get('ap_platform');
    await client.post('/platform/signin', { email, password: PASSWORD });
    const second = client.cookies.get('ap_platform');
    expect(second).to.be.a('string').and.not.equal(first);
    const stale = new Browser(app.url);
    stale.cookies.set('ap_platform', first!, app.url);
    expect(redirectPaths(await stale.open('/platform/account'))).to.deep.equal(['/platform/signin']);

    const signedOut = await client.post('/platform/signout');
    expect(redirectPaths(signedOut)).to.deep.equal(['/platform/signin']);
    expect(client.cookies.has('ap_platform')).to.equal(false);
    const replay = new Browser(app.url);
    replay.cookies.set('ap_platform', second!, app.url);
    expect(redirectPaths(await replay.open('/platform/account'))).to.deep.equal(['/platform/signin']);
  });

  it('refuses every form post without the CSRF token (403), changing nothing', async () => {
    const { client, email } = await register(app);
    const before = await app.provider.db('api_tokens').count<{ count: number }[]>('* as count');
    for (const [path, fields] of [
      ['/platform/keys', { name: 'forged', access: 'write', website: 'all', expires: 'never' }],
      ['/platform/signout', {}],
      ['/platform/signin', { email, password: PASSWORD }],
    ] as const) {
      const page = await client.post(path, fields, { csrf: null });
      expect(page.status, path).to.equal(403);
      expect(page.html).to.match(/<h1[^>]*>This form has expired<\/h1>/);
      const forged = await client.post(path, fields, { csrf: 'forged-token' });
      expect(forged.status, path).to.equal(403);
    }
    expect(await app.provider.db('api_tokens').count<{ count: number }[]>('* as count')).to.deep.equal(before);
    expect((await client.open('/platform/account')).status).to.equal(200);
  });

  it('makes named API keys, shows each once, records their use, and revokes them one by one', async () => {
    const { client } = await register(app);
    await client.open('/platform/keys');
    const make = async (name: string, fields: Record<string, string> = {}) => {
      const page = await client.post('/platform/keys', {
        name,
        access: 'write',
        website: 'all',
        expires: 'never',
        ...fields,
      });
      expect(page.status, page.html).to.equal(200);
      expect(page.headers.get('cache-control')).to.equal('no-store');
      const [token] = page.html.match(TOKEN) ?? [];
      expect(token).to.be.a('string');
      expect(decodeHtml(page.html)).to.contain('it is shown only this once').and.contain(name);
      return token!;
    };
    const deploy = await make('deploy script');
    const stats = await make('statistics', { access: 'read', expires: '30' });
    const stored = await app.provider.db('api_tokens').select('token_hash');
    expect(JSON.stringify(stored)).not.to.contain(deploy);

    const later = await client.open('/platform/keys');
    expect(later.html.match(TOKEN), 'shown once').to.equal(null);
    expect(decodeHtml(later.html))
      .to.contain('deploy script')
      .and.contain('statistics')
      .and.contain('Read only')
      .and.match(/Expires on \d{4}-\d\d-\d\d/);

    const api = (bearer: string) =>
      fetch(`${app.url}/external/website`, { headers: { authorization: `Bearer ${bearer}` } });
    const listed = await api(deploy);
    expect(listed.status).to.equal(200);
    expect(await listed.json()).to.deep.equal([]);
    expect((await api(stats)).status).to.equal(200);
    const readOnly = await fetch(`${app.url}/external/website`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stats}`, 'content-type': 'application/json' },
      body: '{"name":"x","domain":"x.example"}',
    });
    expect(readOnly.status).to.equal(403);
    expect((await client.open('/platform/keys')).html).to.match(/Last used on \d{4}-\d\d-\d\d \d\d:\d\d UTC\./);

    const keys = await app.provider
      .db('api_tokens')
      .whereNull('revoked_at')
      .where('name', 'deploy script')
      .select('id');
    const revokedPage = await client.post(`/platform/keys/${keys[0].id}/revoke`);
    expect(revokedPage.status).to.equal(200);
    expect(decodeHtml(revokedPage.html)).to.contain('The key was revoked').and.not.contain('deploy script');
    const revoked = await api(deploy);
    expect(revoked.status).to.equal(401);
    expect(await revoked.json()).to.deep.include({ statusCode: 401, error: 'Unauthorized' });
    expect((await api(stats)).status, 'the other key still works').to.equal(200);
  });

  it('sends strangers from the signed-in pages to the sign-in page, and /platform to the right place', async () => {
    const stranger = new Browser(app.url);
    for (const path of ['/platform/account', '/platform/websites', '/platform']) {
      const page = await stranger.open(path);
      expect(redirectPaths(page), path).to.deep.equal(['/platform/signin']);
      expect(page.html).to.contain('Sign in to the webmasters platform');
    }
    const { client } = await register(app);
    expect(redirectPaths(await client.open('/platform'))).to.deep.equal(['/platform/websites']);
  });
});

describe('webmasters platform: languages', () => {
  const app = useApp();

  it('renders every page in each of the six languages, following Accept-Language', async () => {
    const signInWords: Record<string, string> = {
      de: 'Anmelden',
      en: 'Sign in',
      es: 'Iniciar sesión',
      fr: 'Se connecter',
      it: 'Accedi',
      pt: 'Iniciar sessão',
    };
    for (const language of LANGUAGES) {
      const client = new Browser(app.url, { headers: { 'Accept-Language': `${language};q=0.9, en;q=0.1` } });
      const signIn = await client.open('/platform/signin');
      expect(signIn.html).to.contain(`<html lang="${language}">`).and.contain(signInWords[language]);
      const { email } = await signedInWebmaster(app);
      await client.open('/platform/signin');
      const account = await client.post('/platform/signin', { email, password: PASSWORD });
      expect(account.url.pathname, language).to.equal('/platform/websites');
      await client.open('/platform/keys');
      expect(
        (await client.post('/platform/keys', { name: 'key', access: 'write', website: 'all', expires: 'never' }))
          .status,
        language,
      ).to.equal(200);
      await client.open('/platform/websites');
      const website = await client.post('/platform/websites', {
        name: 'Site',
        domain: 'site.example.com',
        language: 'auto',
        challenges: 'selfie',
        regions: '',
      });
      expect(website.status, language).to.equal(200);
      const invalid = await client.post(`${website.url.pathname.replace(/\/integrate$/, '')}/oauth2/live`, {
        redirectUris: 'ftp://x',
      });
      expect(invalid.status, language).to.equal(400);
      expect(invalid.html).to.contain(`<html lang="${language}">`);
    }
  });
});

describe('webmasters platform: rate limits', () => {
  const app = useApp();

  it('limits sign-in attempts per email (429 with Retry-After), even with the right password', async () => {
    const { email } = await register(app);
    const client = new Browser(app.url);
    await client.open('/platform/signin');
    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect((await client.post('/platform/signin', { email, password: `wrong password ${attempt}` })).status).to.equal(
        400,
      );
    }
    const blocked = await client.post('/platform/signin', { email, password: PASSWORD });
    expect(blocked.status).to.equal(429);
    expect(Number(blocked.headers.get('retry-after'))).to.be.greaterThan(0);
    // The sign-in page itself says so, with the form (and, where mail is configured, the code by email).
    expect(blocked.html)
      .to.contain('Too many wrong passwords were tried for this account')
      .and.contain('action="/platform/signin"');
    expect(client.cookies.has('ap_platform')).to.equal(false);
  });
});

describe('webmasters platform: session expiry and https', () => {
  let app: TestApp;
  let offsetSeconds = 0;
  before(async () => {
    // Behind a TLS-terminating proxy (X-Forwarded-Proto), with a clock the test moves.
    app = await startTestApp({ trustProxy: true, clock: { now: () => new Date(Date.now() + offsetSeconds * 1000) } });
  });
  after(() => app.close());

  it('ends a session after 2 hours without a request, and after 12 hours however active', async () => {
    offsetSeconds = 0;
    const { client: idle } = await register(app);
    const { client: busy } = await register(app);
    offsetSeconds = 2 * 3600 - 60;
    expect((await idle.open('/platform/account')).status).to.equal(200);
    offsetSeconds += 2 * 3600 + 1;
    expect(redirectPaths(await idle.open('/platform/account'))).to.deep.equal(['/platform/signin']);

    for (offsetSeconds = 3600; offsetSeconds < 12 * 3600; offsetSeconds += 3600) {
      expect((await busy.open('/platform/account')).status, `${offsetSeconds} s`).to.equal(200);
    }
    offsetSeconds = 12 * 3600 + 1;
    expect(redirectPaths(await busy.open('/platform/account'))).to.deep.equal(['/platform/signin']);
  });
});

describe('webmasters platform: https issuer', () => {
  let app: TestApp;
  // ISSUER decides: Secure with or without a trusted proxy, whatever the request's own scheme.
  for (const trustProxy of [false, true]) {
    it(`marks the session cookie Secure when the issuer is https (TRUST_PROXY ${trustProxy ? 'on' : 'off'})`, async () => {
      app = await startTestApp({ trustProxy, issuer: 'https://age.example' });
      try {
        const cookie = await sessionCookieOfSignIn(app);
        expect(cookie)
          .to.match(/; secure/i)
          .and.match(/httponly/i)
          .and.match(/samesite=lax/i);
      } finally {
        await app.close();
      }
    });
  }
});
