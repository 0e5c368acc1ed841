import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../../../helpers/app.js';
import { createClientFixture, createWebmasterFixture } from '../../../helpers/fixtures.js';
import { readResources, requestToken } from '../../../oauth2/helpers/oauth2.js';
import { operatorEnv, upstreamClients } from './operator.js';
import { UpstreamProvider } from './upstream.js';
import { authorizationUrl } from '../../../helpers/relying-party.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

describe('AgeKey in a real browser (Debian chromium): the fragment answer comes back through our relay script', function () {
  this.timeout(60_000);
  let upstream: UpstreamProvider;
  let app: TestApp;
  let browser: Browser;

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`      skipped: ${CHROMIUM} is missing (install Debian's chromium: apt-get install -y chromium)`);
      this.skip();
    }
    upstream = await UpstreamProvider.listen('localhost');
    app = await startTestApp({ env: operatorEnv(upstream.issuer) });
    upstream.start(upstreamClients(app.url));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await upstream?.close();
  });

  it('a LIVE visitor with an AgeKey ends in Resources with method agekey, without a CSP violation', async () => {
    const { id } = await createWebmasterFixture(app.provider.runtime);
    const client = await createClientFixture(app.provider.runtime, id, { environment: 'LIVE' });
    const page = await browser.newPage({ locale: 'en-GB' });
    const cspViolations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    // The website itself is not served here: its callback page answers from the test.
    await page.route(`${client.redirectUri}**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/plain', body: 'website' }),
    );

    await page.goto(
      authorizationUrl(app.url, client, 'checker', { scope: undefined, state: 'rp', challenges: 'agekey' }),
    );
    await page.getByRole('button', { name: 'Accept' }).click();
    await page.getByRole('link', { name: 'Continue to AgeKey' }).click();
    await page.waitForURL(/\/result$/);
    expect(new URL(page.url()).hash, 'the answer left the address bar').to.equal('');
    await page.getByRole('button', { name: /Continue/ }).click();
    await page.waitForURL(`${client.redirectUri}**`);

    const code = new URL(page.url()).searchParams.get('code');
    expect(code).to.be.a('string');
    const token = (await (await requestToken(app, { code: code!, client })).json()) as { access_token: string };
    const { resources } = (await (await readResources(app, token.access_token)).json()) as {
      resources: Record<string, unknown>;
    };
    expect(resources).to.include({ verified: true, assurance_level: 'STANDARD' });
    expect(await app.provider.db('verifications').where('uid', String(resources['uid'])).first('method')).to.deep.equal(
      { method: 'agekey' },
    );
    expect(cspViolations).to.deep.equal([]);
  });
});
