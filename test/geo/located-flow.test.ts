import { expect } from 'chai';
import type { Context } from 'koa';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Browser, linkWithText } from '../helpers/browser.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../helpers/fixtures.js';
import { accept, callbackOf, continueWithoutSaving, expectPage, submitSandbox } from '../helpers/visitor.js';
import { authorizationUrl, redeem } from '../helpers/relying-party.js';

// A visitor located by a trusted proxy's headers, in a region with its own age threshold, through the whole sandbox flow.

describe('a located visitor through the sandbox flow', () => {
  let app: TestApp;
  let client: ClientFixture;
  /** per request of the app: how many times the country header was read, i.e. how many geo lookups it made */
  const lookups: number[] = [];

  before(async () => {
    app = await startTestApp({
      env: {
        TRUST_PROXY: 'true',
        GEO_COUNTRY_HEADER: 'CF-IPCountry',
        GEO_SUBDIVISION_HEADER: 'X-Region',
        AGE_THRESHOLDS: '{"US-AL":19}',
      },
    });
    // A probe in front of the real chain counts the reads of the country header each request makes.
    app.provider.app.middleware.unshift(async (ctx: Context, next) => {
      let reads = 0;
      const read = ctx.get.bind(ctx);
      ctx.get = (field: string) => {
        if (field.toLowerCase() === 'cf-ipcountry') reads += 1;
        return read(field);
      };
      try {
        await next();
      } finally {
        lookups.push(reads);
      }
    });
    app.server.removeAllListeners('request');
    const handle = app.provider.app.callback();
    app.server.on('request', (request, response) => void handle(request, response));
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    client = await createClientFixture(app.provider.runtime, webmaster.id, {
      environment: 'TEST',
      challenges: ['selfie', 'ticket'],
    });
  });
  after(() => app.close());

  it('proposes the located region, records its threshold, and looks the location up at most once per request', async () => {
    const browser = new Browser(app.url, { headers: { 'CF-IPCountry': 'US', 'X-Region': 'AL' } });
    const choice = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));
    const sandbox = await browser.open(linkWithText(choice, 'Selfie'));
    expect(sandbox.status).to.equal(200);

    const result = expectPage(await submitSandbox(browser, sandbox));
    expect(result.html).to.contain('Your age is verified').and.contain('United States, Alabama');
    const callback = callbackOf(await continueWithoutSaving(browser, result), client);
    const resources = await redeem(app, client, callback.get('code')!);
    expect(resources).to.include({ verified: true, country: 'US', country_subdivision: 'US-AL', age_threshold: 19 });

    expect(lookups).to.include(1);
    expect(Math.max(...lookups)).to.equal(1);
  });
});
