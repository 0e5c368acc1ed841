import { expect } from 'chai';
import { useApp, type TestApp } from '../helpers/app.js';
import { createWebmasterFixture } from '../helpers/fixtures.js';
import { getOAuth2Config, getWebsite, listWebsites } from '../../lib/websites/index.js';
import { Browser, decodeHtml, redirectPaths, type Page } from '../helpers/browser.js';

async function signedIn(app: TestApp): Promise<{ client: Browser; webmasterId: number }> {
  const webmaster = await createWebmasterFixture(app.provider.runtime);
  const client = new Browser(app.url);
  await client.open('/platform/signin');
  const page = await client.post('/platform/signin', { email: webmaster.email, password: webmaster.password });
  expect(redirectPaths(page)).to.deep.equal(['/platform/websites']);
  return { client, webmasterId: webmaster.id };
}

const websiteIdOf = (page: Page): number => Number(/\/platform\/websites\/(\d+)/.exec(page.url.pathname)?.[1]);
const text = (page: Page): string => decodeHtml(page.html);

describe('webmasters platform: websites, keys and OAuth2 through the website services', () => {
  const app = useApp();

  it('creates a website through the form, with the default challenges preselected and both public keys', async () => {
    const { client, webmasterId } = await signedIn(app);
    const empty = await client.open('/platform/websites');
    expect(empty.html).to.contain('You have no websites yet.');
    expect(empty.html)
      .to.match(/value="selfie"\s+checked/)
      .and.match(/value="credit_card">/);
    const created = await client.post('/platform/websites', {
      name: 'My Shop',
      domain: 'shop.example.com',
      language: 'fr',
      challenges: ['selfie', 'ticket'],
      regions: 'DE, US-TX',
    });
    expect(created.status).to.equal(200);
    expect(redirectPaths(created)[0]).to.match(/^\/platform\/websites\/\d+\/integrate$/);
    expect(created.html).to.contain('The website was added');
    const [website] = await listWebsites(app.provider.runtime, webmasterId);
    expect(website).to.deep.include({
      name: 'My Shop',
      domain: 'shop.example.com',
      language: 'fr',
      challenges: ['selfie', 'ticket'],
      regions: ['DE', 'US-TX'],
    });
    for (const key of website!.keys) expect(created.html).to.contain(key.publicKey);

    const list = await client.open('/platform/websites');
    expect(list.html)
      .to.contain('My Shop')
      .and.contain(website!.keys[0]!.publicKey)
      .and.contain(website!.keys[1]!.publicKey);
    expect(list.headers.get('cache-control')).to.equal('no-store');
  });

  it('shows every validation error next to its field, keeps what was typed, and stores nothing', async () => {
    const { client, webmasterId } = await signedIn(app);
    await client.open('/platform/websites');
    const page = await client.post('/platform/websites', {
      name: '',
      domain: 'https://Shop.example.com/path',
      language: 'xx',
      regions: 'DE, ZZ',
    });
    expect(page.status).to.equal(400);
    expect(page.html).to.match(/id="create-name"[^>]*aria-invalid="true"/);
    expect(text(page))
      .to.contain('Enter a name of 1 to 100 characters')
      .and.contain('Enter a lower-case host name such as example.com')
      .and.contain('Choose one of the languages in the list.')
      .and.contain('Choose at least one age check.')
      .and.contain('Use upper-case country codes');
    expect(page.html).to.contain('value="https://Shop.example.com/path"').and.contain('value="DE, ZZ"');
    for (const field of ['name', 'domain', 'language', 'challenges', 'regions'])
      expect(page.html).to.contain(`id="create-${field}-error"`);
    expect(await listWebsites(app.provider.runtime, webmasterId)).to.deep.equal([]);
  });

  it('refuses a name with a bidirectional control (the same schema as the API), explained next to the field', async () => {
    const { client, webmasterId } = await signedIn(app);
    await client.open('/platform/websites');
    const page = await client.post('/platform/websites', {
      name: 'Shop \u202epohs',
      domain: 'bidi.example.com',
      language: 'auto',
      challenges: ['selfie'],
      regions: '',
    });
    expect(page.status).to.equal(400);
    expect(text(page)).to.contain('without line breaks or text-direction control characters');
    expect(await listWebsites(app.provider.runtime, webmasterId)).to.deep.equal([]);
  });

  it('edits a website (never its domain) and refuses an invalid edit without changing anything', async () => {
    const { client, webmasterId } = await signedIn(app);
    await client.open('/platform/websites');
    const created = await client.post('/platform/websites', {
      name: 'Blog',
      domain: 'blog.example.com',
      language: 'auto',
      challenges: ['selfie'],
      regions: '',
    });
    const id = websiteIdOf(created);
    const edited = await client.post(`/platform/websites/${id}`, {
      name: 'Blog 2',
      language: 'de',
      challenges: ['email_age', 'credit_card'],
      regions: 'IT',
      domain: 'evil.example.com',
    });
    expect(redirectPaths(edited)).to.deep.equal([`/platform/websites/${id}/settings`]);
    expect(edited.html).to.contain('The settings were saved.');
    const saved = await getWebsite(app.provider.runtime, webmasterId, id);
    expect(saved).to.deep.include({
      name: 'Blog 2',
      domain: 'blog.example.com',
      language: 'de',
      challenges: ['email_age', 'credit_card'],
      regions: ['IT'],
    });

    const refused = await client.post(`/platform/websites/${id}`, {
      name: 'x'.repeat(101),
      language: 'de',
      challenges: ['email_age'],
      regions: 'it',
    });
    expect(refused.status).to.equal(400);
    expect(refused.html).to.contain('id="website-name-error"').and.contain('id="website-regions-error"');
    expect(await getWebsite(app.provider.runtime, webmasterId, id)).to.deep.equal(saved);
  });

  it('creates and updates OAuth2 per environment, shows a new secret once, regenerates credentials and keys', async () => {
    const { client, webmasterId } = await signedIn(app);
    await client.open('/platform/websites');
    const id = websiteIdOf(
      await client.post('/platform/websites', {
        name: 'App',
        domain: 'app.example.com',
        language: 'auto',
        challenges: ['selfie'],
        regions: '',
      }),
    );

    const invalid = await client.post(`/platform/websites/${id}/oauth2/test`, {
      redirectUris: 'http://app.example.com/callback',
    });
    expect(invalid.status).to.equal(400);
    expect(text(invalid)).to.contain('“http://app.example.com/callback” is not accepted');
    expect(invalid.html).to.contain('id="oauth2-test-redirectUris-error"');

    const created = await client.post(`/platform/websites/${id}/oauth2/test`, {
      redirectUris: 'https://app.example.com/callback\r\nhttp://localhost:3000/cb',
    });
    expect(created.html).to.contain('The OAuth2 configuration was saved.');
    const config = await getOAuth2Config(app.provider.runtime, webmasterId, id, 'TEST');
    expect(config).to.deep.include({
      status: 'ACTIVE',
      redirectUris: ['https://app.example.com/callback', 'http://localhost:3000/cb'],
    });
    // The new secret, in full, in the box of what was just made: once, on the page the creation lands on. As the
    // specification's API returns an ACTIVE configuration's secret, a member who may see secrets can show it again in
    // the summary (docs/team.md "Secrets on the platform"); a viewer never (test/team/roles.test.ts).
    expect(redirectPaths(created)).to.deep.equal([`/platform/websites/${id}/integrate`]);
    expect(created.html)
      .to.contain(config.clientId)
      .and.contain(`<code>${config.clientSecret}</code>`)
      .and.contain('as the External API returns it');
    expect(created.html).to.contain('data-copy="new-secret"');
    for (const path of [
      `/platform/websites/${id}/integrate?saved=oauth2`,
      `/platform/websites/${id}`,
      `/platform/websites/${id}/settings?secrets=shown`,
    ]) {
      const page = await client.open(path);
      expect(page.html, path).to.not.contain('data-copy="new-secret"');
    }
    const list = (await client.open('/platform/websites')).html;
    expect(list)
      .to.contain(config.clientId)
      .and.match(new RegExp(`<details class="secret">.*?<code>${config.clientSecret}</code>`, 's'));

    const again = await client.post(`/platform/websites/${id}/oauth2/test`, {
      redirectUris: 'https://app.example.com/other',
    });
    expect(again.status).to.equal(400);
    expect(again.html).to.contain('already has an OAuth2 configuration');

    const regenerated = await client.post(`/platform/websites/${id}/oauth2/test/regenerate`);
    expect(regenerated.html).to.contain('New client credentials were generated.');
    const rotated = await getOAuth2Config(app.provider.runtime, webmasterId, id, 'TEST');
    expect(rotated.clientId).not.to.equal(config.clientId);
    expect(regenerated.html)
      .to.contain(`<code>${rotated.clientSecret}</code>`)
      .and.contain('Your new TEST client secret');
    // Another webmaster's browser never gets it, even with the cookie that carried it.
    expect((await (await signedIn(app)).client.open(`/platform/websites/${id}/settings`)).html).to.not.contain(
      rotated.clientSecret,
    );

    const badStatus = await client.post(`/platform/websites/${id}/oauth2/test/update`, {
      status: 'PAUSED',
      redirectUris: 'https://app.example.com/callback',
    });
    expect(badStatus.status).to.equal(400);
    expect(badStatus.html)
      .to.match(/id="oauth2-test-status"[^>]*aria-invalid="true"/)
      .and.contain('Choose Active or Disabled.');
    expect(await getOAuth2Config(app.provider.runtime, webmasterId, id, 'TEST')).to.deep.equal(rotated);

    const disabled = await client.post(`/platform/websites/${id}/oauth2/test/update`, {
      status: 'DISABLED',
      redirectUris: 'https://ignored.example.com/',
    });
    expect(disabled.html).to.contain('Disabled');
    expect(await getOAuth2Config(app.provider.runtime, webmasterId, id, 'TEST')).to.deep.equal({
      environment: 'TEST',
      status: 'DISABLED',
      redirectUris: ['https://app.example.com/callback', 'http://localhost:3000/cb'],
    });
    expect(disabled.html).not.to.contain(`${id}/oauth2/test/regenerate`);
    const refusedRegenerate = await client.post(`/platform/websites/${id}/oauth2/test/regenerate`);
    expect(refusedRegenerate.status).to.equal(400);
    expect(refusedRegenerate.html).to.contain('only be regenerated while the OAuth2 configuration is ACTIVE');

    const before = await getWebsite(app.provider.runtime, webmasterId, id);
    const keyPage = await client.post(`/platform/websites/${id}/keys/live/regenerate`);
    expect(keyPage.html).to.contain('The public key was replaced.');
    const after = await getWebsite(app.provider.runtime, webmasterId, id);
    expect(after.keys.find((key) => key.environment === 'LIVE')!.publicKey).not.to.equal(
      before.keys.find((key) => key.environment === 'LIVE')!.publicKey,
    );
    expect(after.keys.find((key) => key.environment === 'TEST')).to.deep.equal(
      before.keys.find((key) => key.environment === 'TEST'),
    );
  });

  it("refuses another webmaster's website in every form and page, changing nothing", async () => {
    const owner = await signedIn(app);
    await owner.client.open('/platform/websites');
    const id = websiteIdOf(
      await owner.client.post('/platform/websites', {
        name: 'Mine',
        domain: 'mine.example.com',
        language: 'auto',
        challenges: ['selfie'],
        regions: '',
      }),
    );
    await owner.client.post(`/platform/websites/${id}/oauth2/live`, { redirectUris: 'https://mine.example.com/cb' });
    const snapshot = async () => ({
      website: await getWebsite(app.provider.runtime, owner.webmasterId, id),
      oauth2: await getOAuth2Config(app.provider.runtime, owner.webmasterId, id, 'LIVE'),
    });
    const before = await snapshot();

    const intruder = await signedIn(app);
    await intruder.client.open('/platform/websites');
    const attempts: Array<[string, Record<string, string>]> = [
      [`/platform/websites/${id}`, { name: 'Hacked', language: 'de', challenges: 'selfie', regions: '' }],
      [`/platform/websites/${id}/keys/live/regenerate`, {}],
      [`/platform/websites/${id}/oauth2/test`, { redirectUris: 'https://evil.example.com/cb' }],
      [
        `/platform/websites/${id}/oauth2/live/update`,
        { status: 'ACTIVE', redirectUris: 'https://evil.example.com/cb' },
      ],
      [`/platform/websites/${id}/oauth2/live/regenerate`, {}],
    ];
    for (const [path, fields] of attempts) {
      const page = await intruder.client.post(path, fields);
      expect(page.status, path).to.equal(401);
      expect(page.html, path).not.to.contain(before.oauth2.clientId!);
    }
    const view = await intruder.client.open(`/platform/websites/${id}?secrets=shown`);
    expect(view.status).to.equal(401);
    expect(view.html).not.to.contain('Mine').and.not.to.contain(before.oauth2.clientSecret!);
    expect((await intruder.client.open('/platform/websites')).html).not.to.contain('mine.example.com');
    expect(await snapshot()).to.deep.equal(before);
  });

  it('answers 404 for a website that does not exist and 400 for a malformed id or environment', async () => {
    const { client } = await signedIn(app);
    expect((await client.open('/platform/websites/999999')).status).to.equal(404);
    expect((await client.open('/platform/websites/abc')).status).to.equal(400);
    await client.open('/platform/websites');
    expect((await client.post('/platform/websites/1/keys/prod/regenerate')).status).to.equal(400);
  });
});
