import { expect } from 'chai';
import { useApp, type TestApp } from '../helpers/app.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../helpers/fixtures.js';
import { Browser, decodeHtml, locationOf, redirectPaths } from '../helpers/browser.js';
import { authorizationUrl, redeem } from '../helpers/relying-party.js';

/** A webmaster signed in on the platform, with a TEST website. */
async function signedIn(app: TestApp): Promise<{ browser: Browser; client: ClientFixture }> {
  const webmaster = await createWebmasterFixture(app.provider.runtime);
  const client = await createClientFixture(app.provider.runtime, webmaster.id, { environment: 'TEST' });
  const browser = new Browser(app.url);
  await browser.open('/platform/signin');
  const page = await browser.post('/platform/signin', { email: webmaster.email, password: webmaster.password });
  expect(redirectPaths(page)).to.deep.equal(['/platform/websites']);
  return { browser, client };
}

/** A TEST flow through the shortcut; the website's callback URL. */
async function shortcut(app: TestApp, client: ClientFixture, query: Record<string, string>): Promise<URL> {
  const browser = new Browser(app.url);
  let next = await browser.request(authorizationUrl('', client, 'checker', { state: 'st', ...query }));
  while (locationOf(next).origin === new URL(app.url).origin) {
    const location = locationOf(next);
    next = await browser.request(location.pathname + location.search);
  }
  return locationOf(next);
}

const textOf = (html: string): string => decodeHtml(html.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');

describe("webmasters platform: a website's Verifications", function () {
  this.timeout(120_000);
  const app = useApp({ env: { VERIFICATION_RETENTION: '86400', VERIFICATION_TTL: '3600' } });

  it('finds a flow by the uid the website received, filters the list, and downloads what the filters select', async () => {
    const { browser, client } = await signedIn(app);
    const uid = String(
      (
        await redeem(
          app,
          client,
          (await shortcut(app, client, { test_outcome: 'pass', test_country: 'DE' })).searchParams.get('code')!,
        )
      ).uid,
    );
    await shortcut(app, client, { test_outcome: 'refuse' });
    const base = `/platform/websites/${client.websiteId}/verifications`;

    const list = await browser.open(base);
    expect(list.status).to.equal(200);
    const text = textOf(list.html);
    expect(text)
      .to.contain(uid)
      .and.contain('Verified')
      .and.contain('Refused')
      .and.contain('listed for 25 hours after they end');

    const found = await browser.open(`${base}?id=${uid}`);
    expect(found.url.pathname).to.equal(`${base}/${uid}`);
    expect(textOf(found.html))
      .to.contain(uid)
      .and.contain('Verified')
      .and.contain(client.clientId)
      .and.contain('DE')
      .and.contain('Returned to the website Yes');

    const missing = await browser.open(`${base}?id=test_doesnotexist`);
    expect(missing.status).to.equal(200);
    expect(textOf(missing.html)).to.contain('No verification test_doesnotexist for this website.');

    const refusedOnly = textOf((await browser.open(`${base}?outcome=refused&environment=&country=`)).html);
    expect(refusedOnly).to.contain('Refused').and.not.contain(uid);
    const bad = await browser.open(`${base}?from=0000-01-01`);
    expect(bad.status).to.equal(400);

    const csv = await browser.request(`${base}.csv?outcome=verified`);
    expect(csv.status).to.equal(200);
    expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
    const lines = (await csv.text()).trimEnd().split('\r\n');
    expect(lines[0]).to.match(/^id,environment,client_id,started_at,completed_at,outcome,challenge/);
    expect(lines.slice(1).map((line) => line.split(',')[0])).to.deep.equal([uid]);
    expect(lines[1]).to.contain(',verified,sandbox,').and.contain(',DE,');
  });

  it("shows another webmaster's verification to no one else", async () => {
    const owner = await signedIn(app);
    const uid = String(
      (
        await redeem(
          app,
          owner.client,
          (await shortcut(app, owner.client, { test_outcome: 'pass' })).searchParams.get('code')!,
        )
      ).uid,
    );
    const intruder = await signedIn(app);
    expect(
      (await intruder.browser.open(`/platform/websites/${owner.client.websiteId}/verifications/${uid}`)).status,
    ).to.equal(401);
    expect(
      (await intruder.browser.request(`/platform/websites/${owner.client.websiteId}/verifications.csv`)).status,
    ).to.equal(401);
    const own = await intruder.browser.open(`/platform/websites/${intruder.client.websiteId}/verifications/${uid}`);
    expect(own.status).to.equal(404);
    expect(own.html).to.not.contain(owner.client.clientId);
  });
});
