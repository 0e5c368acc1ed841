import { expect } from 'chai';
import { useApp, type TestApp } from '../helpers/app.js';
import { signedInWebmaster } from '../helpers/platform.js';
import { Browser, decodeHtml, formOf, formsOf, linkWithText, redirectPaths, type Page } from '../helpers/browser.js';
import { getOAuth2Config, getWebsite } from '../../lib/websites/index.js';

/** A new webmaster, signed in, and the page they land on: their websites. */
async function registered(app: TestApp): Promise<{ client: Browser; landing: Page }> {
  const { client } = await signedInWebmaster(app);
  return { client, landing: await client.open('/platform/websites') };
}

const text = (page: Page): string => decodeHtml(page.html).replace(/\s+/g, ' ');
const websiteIdOf = (page: Page): number => Number(/\/platform\/websites\/(\d+)/.exec(page.url.pathname)?.[1]);
/** The text of the <pre> with this id, as a webmaster copies it. */
const snippet = (page: Page, id: string): string =>
  decodeHtml(new RegExp(`<pre id="${id}"[^>]*><code>([\\s\\S]*?)</code></pre>`).exec(page.html)?.[1] ?? '');

describe('webmasters platform: onboarding, integration, confirmations and form errors', () => {
  const app = useApp();

  it('lands a new webmaster on their websites, where an empty state explains the three steps', async () => {
    const { landing } = await registered(app);
    expect(landing.url.pathname).to.equal('/platform/websites');
    expect(text(landing))
      .to.contain('You have no websites yet.')
      .and.contain('Three steps to verify ages on your website')
      .and.contain('Add your website')
      .and.contain('Enable OAuth2 for TEST')
      .and.contain('Put the verify button on your site');
    expect(landing.html).to.contain('<a href="#create-heading">');
  });

  it('puts every error of a form in a summary at the top, linked to its field, and reports every bad redirect URI', async () => {
    const { client } = await registered(app);
    const refused = await client.post('/platform/websites', {
      name: '',
      domain: 'Not A Domain',
      language: 'fr',
      challenges: ['selfie'],
      regions: '',
    });
    expect(refused.status).to.equal(400);
    const summary = refused.html.indexOf('id="form-errors"');
    expect(summary)
      .to.be.greaterThan(0)
      .and.lessThan(refused.html.indexOf('<form method="post" action="/platform/websites'));
    expect(refused.html)
      .to.match(/<a href="#create-name">Enter a name of 1 to 100 characters/)
      .and.match(/<a href="#create-domain">/);
    expect(formOf(refused, { action: '/platform/websites' }).action.hash).to.equal('#form-errors');

    const created = await client.post('/platform/websites', {
      name: 'Shop',
      domain: 'shop.example.com',
      language: 'fr',
      challenges: ['selfie'],
      regions: '',
    });
    const id = websiteIdOf(created);
    const uris = await client.post(`/platform/websites/${id}/oauth2/test`, {
      redirectUris: 'http://shop.example.com/a\nhttps://shop.example.com/ok\nhttps://user:pw@shop.example.com/b',
    });
    expect(uris.status).to.equal(400);
    const links = [...uris.html.matchAll(/<li><a href="#oauth2-test-redirectUris">([^<]*)<\/a><\/li>/g)].map(
      ([, message]) => decodeHtml(message!),
    );
    expect(links).to.have.length(2);
    expect(links[0]).to.contain('“http://shop.example.com/a” is not accepted');
    expect(links[1]).to.contain('“https://user:pw@shop.example.com/b” is not accepted');
    const nextToField = text(uris).slice(text(uris).lastIndexOf('Redirect URIs'));
    expect(nextToField)
      .to.contain('“http://shop.example.com/a” is not accepted')
      .and.contain('“https://user:pw@shop.example.com/b” is not accepted');
  });

  it("offers the checker script first, with the website's real key, the server check and the CSP the page needs", async () => {
    const { client } = await registered(app);
    const created = await client.post('/platform/websites', {
      name: 'Checked',
      domain: 'checked.example.com',
      language: 'en',
      challenges: ['selfie'],
      regions: '',
    });
    expect(redirectPaths(created)[0]).to.match(/^\/platform\/websites\/\d+\/integrate$/);
    const id = websiteIdOf(created);
    const webmasterId = (
      (await app.provider.db('websites').where({ id }).first('webmaster_id')) as { webmaster_id: number }
    ).webmaster_id;
    const keys = (await getWebsite(app.provider.runtime, webmasterId, id)).keys;
    const live = keys.find((key) => key.environment === 'LIVE')!.publicKey;
    const script = snippet(created, 'checker-live-script');
    expect(script).to.equal(`<script src="${app.provider.config.issuer}/v1/checker.js?key=${live}" async></script>`);
    expect(created.html.indexOf('checker-live-script')).to.be.lessThan(created.html.indexOf('id="oauth2-heading"'));
    const check = snippet(created, 'checker-live-serverCheck');
    expect(check)
      .to.contain("from 'jose'")
      .and.contain(`audience: "${live}"`)
      .and.contain(`issuer: "${app.provider.config.issuer}"`)
      .and.contain(`/v1/oauth2/jwks`)
      .and.contain('payload.environment !== "LIVE"');
    expect(snippet(created, 'checker-live-csp')).to.equal(
      `Content-Security-Policy: script-src 'self' ${app.provider.config.issuer}`,
    );
    // The tag as shown loads the script for that key.
    const loaded = await fetch(`${app.url}/v1/checker.js?key=${live}`);
    expect(loaded.status).to.equal(200);
    expect(loaded.headers.get('content-type')).to.match(/javascript/);
  });

  it('shows ready-to-paste OAuth2 code with the real client id, a state and PKCE verifier made per visitor, no inline style', async () => {
    const { client } = await registered(app);
    const created = await client.post('/platform/websites', {
      name: 'Boutique',
      domain: 'boutique.example.com',
      language: 'fr',
      challenges: ['selfie'],
      regions: '',
    });
    const id = websiteIdOf(created);
    expect(text(created)).to.contain('Enable OAuth2 for an environment in Settings');
    const page = await client.post(`/platform/websites/${id}/oauth2/test`, {
      redirectUris: 'https://boutique.example.com/callback',
    });
    const webmasterId = (
      (await app.provider.db('websites').where({ id }).first('webmaster_id')) as { webmaster_id: number }
    ).webmaster_id;
    const { clientId, clientSecret } = await getOAuth2Config(app.provider.runtime, webmasterId, id, 'TEST');

    const server = snippet(page, 'integrate-test-server');
    expect(server)
      .to.contain(`const CLIENT_ID = "${clientId}";`)
      .and.contain('const REDIRECT_URI = "https://boutique.example.com/callback";')
      .and.contain("randomBytes(32).toString('base64url')")
      .and.contain("code_challenge_method: 'S256'")
      .and.contain('code_verifier: expected.verifier')
      .and.contain('timingSafeEqual')
      .and.contain('app.get("/callback"')
      .and.not.contain(clientSecret);

    const token = snippet(page, 'integrate-test-token');
    expect(token)
      .to.contain(`'${app.provider.config.issuer}/v1/oauth2/token'`)
      .and.contain(`-u '${clientId}:'"$CLIENT_SECRET"`)
      .and.contain("--data-urlencode 'redirect_uri=https://boutique.example.com/callback'")
      .and.not.contain(clientSecret);
    expect(snippet(page, 'integrate-test-resources'))
      .to.contain('/v1/oauth2/resources')
      .and.contain('Authorization: Bearer $ACCESS_TOKEN');
    const button = snippet(page, 'integrate-test-button');
    expect(button)
      .to.contain('Vérifier mon âge avec')
      .and.contain('background: #004db3')
      .and.contain('/static/logo-on-dark.svg')
      .and.contain('<a class="age-provider-button" href="/verify-age"')
      .and.not.contain('style=');
    expect(page.html)
      .to.contain('data-copy="integrate-test-token"')
      .and.contain('<script src="/static/copy.js" defer></script>');
    expect(page.html).to.contain('href="/.well-known/oauth-authorization-server"');

    // The authorization the server code builds starts a real flow (the platform's own page is the documentation a webmaster follows).
    const authorization = new URL('/v1/oauth2/checker', app.url);
    authorization.search = new URLSearchParams({
      client_id: clientId!,
      redirect_uri: 'https://boutique.example.com/callback',
      response_type: 'code',
      scope: 'read',
      state: 'per-visitor',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString();
    const started = await fetch(authorization, { redirect: 'manual' });
    expect(started.status).to.equal(303);
    expect(started.headers.get('location')).to.match(/\/v1\/oauth2\/interaction\//);
    expect((await fetch(`${app.url}/static/copy.js`)).headers.get('content-type')).to.match(/^text\/javascript/);
  });

  it('offers WordPress beside them, with the values to paste into the plugin and its redirect URI, never the secret', async () => {
    const { client } = await registered(app);
    const created = await client.post('/platform/websites', {
      name: 'Cellar',
      domain: 'cellar.example.com',
      language: 'en',
      challenges: ['selfie'],
      regions: '',
    });
    const id = websiteIdOf(created);
    const webmasterId = (
      (await app.provider.db('websites').where({ id }).first('webmaster_id')) as { webmaster_id: number }
    ).webmaster_id;
    const live = (await getWebsite(app.provider.runtime, webmasterId, id)).keys.find(
      (key) => key.environment === 'LIVE',
    )!.publicKey;
    expect(created.html.indexOf('id="wordpress-heading"')).to.be.greaterThan(
      created.html.indexOf('id="oauth2-heading"'),
    );
    expect(snippet(created, 'wordpress-live-wordpress')).to.equal(
      `Service address:    ${app.provider.config.issuer}\nWebsite public key: ${live}`,
    );
    const page = await client.post(`/platform/websites/${id}/oauth2/test`, {
      redirectUris: 'https://cellar.example.com/?age_provider=callback',
    });
    const { clientId, clientSecret } = await getOAuth2Config(app.provider.runtime, webmasterId, id, 'TEST');
    const settings = snippet(page, 'wordpress-test-wordpress');
    expect(settings)
      .to.contain(`OAuth2 client id:         ${clientId}`)
      .and.contain('Redirect URI to register: https://cellar.example.com/?age_provider=callback')
      .and.not.contain(clientSecret);
    expect(page.html).to.contain('data-copy="wordpress-test-wordpress"').and.contain('docs/wordpress.md');
  });

  it('asks before replacing a key or OAuth2 credentials, or deleting the website, saying what stops working and when; makes an API key', async () => {
    const { client } = await registered(app);
    const created = await client.post('/platform/websites', {
      name: 'Shop',
      domain: 'confirm.example.com',
      language: 'en',
      challenges: ['selfie'],
      regions: '',
    });
    const id = websiteIdOf(created);
    await client.post(`/platform/websites/${id}/oauth2/live`, { redirectUris: 'https://confirm.example.com/cb' });
    const withOAuth2 = await client.open(`/platform/websites/${id}/settings`);
    expect(
      formsOf(withOAuth2)
        .map((form) => form.action.pathname)
        .filter((path) => path.endsWith('/regenerate')),
    ).to.deep.equal([]);
    const webmasterId = (
      (await app.provider.db('websites').where({ id }).first('webmaster_id')) as { webmaster_id: number }
    ).webmaster_id;
    const website = await getWebsite(app.provider.runtime, webmasterId, id);
    const liveKey = website.keys.find((key) => key.environment === 'LIVE')!.publicKey;

    const keyPage = await client.open(linkWithText(withOAuth2, 'Regenerate the LIVE key'));
    expect(text(keyPage))
      .to.contain('Regenerate the LIVE key of Shop?')
      .and.contain(`The LIVE public key ${liveKey} stops working at once`);
    expect(linkWithText(keyPage, 'Cancel').pathname).to.equal(`/platform/websites/${id}/settings`);
    expect((await getWebsite(app.provider.runtime, webmasterId, id)).keys).to.deep.equal(website.keys);
    const replaced = await client.submit(formOf(keyPage, { button: 'Regenerate the LIVE key' }));
    expect(text(replaced)).to.contain('The public key was replaced.');
    expect(
      (await getWebsite(app.provider.runtime, webmasterId, id)).keys.find((key) => key.environment === 'LIVE')!
        .publicKey,
    ).not.to.equal(liveKey);

    const before = await getOAuth2Config(app.provider.runtime, webmasterId, id, 'LIVE');
    const credentialsPage = await client.open(linkWithText(withOAuth2, 'Regenerate the LIVE client ID and secret'));
    expect(text(credentialsPage))
      .to.contain('The new client ID and secret work at once.')
      .and.match(
        new RegExp(
          `The current ones \\(client ID ${before.clientId}\\) keep working for 24 hours, until \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC`,
        ),
      )
      .and.contain('Regenerating again within those 24 hours ends the current ones at once.');
    expect(await getOAuth2Config(app.provider.runtime, webmasterId, id, 'LIVE')).to.deep.equal(before);
    await client.submit(formOf(credentialsPage, { button: 'Regenerate the LIVE client ID and secret' }));
    expect((await getOAuth2Config(app.provider.runtime, webmasterId, id, 'LIVE')).clientId).not.to.equal(
      before.clientId,
    );

    const account = await client.open('/platform/account');
    const keys = await client.open(linkWithText(account, 'API keys'));
    const made = await client.submit(formOf(keys, { button: 'Make the key' }), {
      name: 'deploy',
      access: 'write',
      website: 'all',
      expires: 'never',
    });
    expect(text(made)).to.contain('Your new API key').and.contain('deploy').and.contain('Every website');

    // deleting asks first, and only the website's name typed back deletes it
    const settings = await client.open(`/platform/websites/${id}/settings`);
    const confirm = await client.open(linkWithText(settings, 'Delete Shop'));
    expect(text(confirm)).to.contain('Its OAuth2 clients, keys and webhooks stop at once');
    const mismatch = await client.submit(formOf(confirm, { button: 'Delete the website' }), {
      confirm: 'something else',
    });
    expect(mismatch.status).to.equal(400);
    expect(text(mismatch)).to.contain('What you typed does not match: nothing was deleted.');
    const deleted = await client.submit(formOf(mismatch, { button: 'Delete the website' }), { confirm: 'Shop' });
    expect(text(deleted)).to.contain('The website was deleted');
  });
});
