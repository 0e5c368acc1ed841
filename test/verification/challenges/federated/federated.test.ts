import { expect } from 'chai';
import { startTestApp, type TestApp } from '../../../helpers/app.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../../../helpers/fixtures.js';
import { readResources, requestToken } from '../../../oauth2/helpers/oauth2.js';
import { createLogger } from '../../../../lib/log.js';
import { linkWithText, locationOf, type Browser, type Page } from '../../../helpers/browser.js';
import { continueToWebsite, linkToProvider, relayFragment, startVisit, visitorBrowser, visitProvider } from './flow.js';
import { NAMES, operatorEnv, upstreamClients, type Name } from './operator.js';
import { UPSTREAM_SUBJECTS, UpstreamProvider } from './upstream.js';

const LEVELS: Record<Name, string> = {
  anonymage: 'ENHANCED',
  pleenk: 'STRICT',
  paypal: 'STANDARD',
  agego: 'ENHANCED',
  agekey: 'STANDARD',
};

describe('federated challenges (a real OpenID provider upstream)', function () {
  this.timeout(120_000);
  let upstream: UpstreamProvider;
  let app: TestApp;
  let logLines: string[];
  let webmasterId: number;

  before(async () => {
    upstream = await UpstreamProvider.listen();
    logLines = [];
    app = await startTestApp({
      env: operatorEnv(upstream.issuer),
      logger: createLogger('debug', (line) => logLines.push(line)),
    });
    upstream.start(upstreamClients(app.url));
    webmasterId = (await createWebmasterFixture(app.provider.runtime)).id;
  });
  after(async () => {
    await app?.close();
    await upstream?.close();
  });

  const liveClient = (): Promise<ClientFixture> =>
    createClientFixture(app.provider.runtime, webmasterId, {
      environment: 'LIVE',
      challenges: ['anonymage', 'pleenk'],
    });
  const verifications = async (websiteId: number): Promise<number> =>
    Number(
      (
        await app.provider.db('verifications').where('website_id', websiteId).count<{ count: string }[]>('* as count')
      )[0]?.count,
    );

  /** Start to the hop that leaves for the provider. */
  async function toProvider(
    client: ClientFixture,
    name: Name,
    browser?: Browser,
  ): Promise<{ browser: Browser; url: URL }> {
    const visit = await startVisit(app, client, name, upstream.issuer, browser);
    expect(visit.hop.url.pathname).to.match(new RegExp(`/challenge/${name}/start$`));
    return { browser: visit.browser, url: linkToProvider(visit.hop) };
  }

  /** Provider and back; a fragment answer goes through the relay page as our script would send it. */
  async function backFromProvider(browser: Browser, url: URL, client: ClientFixture, name: Name): Promise<Page> {
    const back = await visitProvider(browser, url, client.redirectUri);
    return name === 'agekey' && back.url.hash ? relayFragment(browser, back, client.redirectUri) : back;
  }

  for (const name of NAMES) {
    it(`${name}: a LIVE visitor over the threshold ends in Resources with method ${name} and level ${LEVELS[name]}`, async () => {
      const client = await liveClient();
      upstream.next = 'adult';
      const { browser, url } = await toProvider(client, name);
      expect(url.searchParams.get('redirect_uri')).to.equal(`${app.url}/v1/oauth2/federated/${name}/callback`);
      expect(url.searchParams.get('state')).to.be.a('string').and.not.include(url.pathname);
      expect(url.searchParams.get('nonce')).to.be.a('string');
      if (name === 'agekey') {
        expect(url.searchParams.get('response_type')).to.equal('id_token');
        expect(url.searchParams.get('response_mode')).to.equal('fragment');
      } else {
        expect(url.searchParams.get('response_type')).to.equal('code');
        expect(url.searchParams.get('code_challenge_method')).to.equal('S256');
      }

      const result = await backFromProvider(browser, url, client, name);
      if (name === 'agekey') expect(upstream.lastClaimsRequest).to.equal('{"age_thresholds":[18]}');
      const website = await continueToWebsite(browser, result, client.redirectUri);
      expect(website.searchParams.get('state')).to.equal('rp-state');
      const token = await requestToken(app, { code: website.searchParams.get('code')!, client });
      expect(token.status).to.equal(200);
      const { access_token: accessToken } = (await token.json()) as { access_token: string };
      const resources = await readResources(app, accessToken);
      expect(resources.status).to.equal(200);
      const { resources: body } = (await resources.json()) as { resources: Record<string, unknown> };
      expect(body).to.include({ verified: true, assurance_level: LEVELS[name], age_threshold: 18, reused: false });
      expect(await app.provider.db('verifications').where('uid', String(body['uid'])).first('method')).to.deep.equal({
        method: name,
      });
    });
  }

  it('a visitor under the threshold is not verified and may choose again', async () => {
    const client = await liveClient();
    upstream.next = 'minor';
    const { browser, url } = await toProvider(client, 'anonymage');
    const back = await visitProvider(browser, url, client.redirectUri);
    expect(back.url.pathname).to.match(/\/choose$/);
    expect(back.url.searchParams.get('notice')).to.equal('failed');
    expect(back.html).to.include('The check did not work');
    expect(await verifications(client.websiteId)).to.equal(0);
  });

  it('a birthdate under the threshold (userinfo) fails too', async () => {
    const client = await liveClient();
    upstream.next = 'minor';
    const { browser, url } = await toProvider(client, 'pleenk');
    const back = await visitProvider(browser, url, client.redirectUri);
    expect(back.url.searchParams.get('notice')).to.equal('failed');
    expect(await verifications(client.websiteId)).to.equal(0);
  });

  it('AgeKey answering "not over 18" is not verified', async () => {
    const client = await liveClient();
    upstream.next = 'minor';
    const { browser, url } = await toProvider(client, 'agekey');
    const back = await backFromProvider(browser, url, client, 'agekey');
    expect(back.url.searchParams.get('notice')).to.equal('failed');
    expect(await verifications(client.websiteId)).to.equal(0);
  });

  it('cancelling at the provider (access_denied) brings the visitor back to the choice with a message', async () => {
    const client = await liveClient();
    upstream.next = 'cancel';
    const { browser, url } = await toProvider(client, 'anonymage');
    const back = await visitProvider(browser, url, client.redirectUri);
    expect(back.status).to.equal(200);
    expect(back.url.searchParams.get('notice')).to.equal('cancelled');
    expect(back.html).to.include('The check was cancelled');
    expect(back.html).to.include('/challenge/anonymage/start');
    expect(await verifications(client.websiteId)).to.equal(0);
  });

  /** The provider's redirect back to our fixed callback, not yet followed. */
  async function providerAnswer(
    client: ClientFixture,
    name: Name,
    browser?: Browser,
  ): Promise<{ browser: Browser; callback: URL }> {
    const started = await toProvider(client, name, browser);
    const callback = locationOf(await started.browser.open(started.url, { stopAt: app.url }));
    expect(callback.pathname).to.equal(`/v1/oauth2/federated/${name}/callback`);
    return { browser: started.browser, callback };
  }

  it('a tampered state is refused and nothing is recorded', async () => {
    const client = await liveClient();
    upstream.next = 'adult';
    const { browser, callback } = await providerAnswer(client, 'anonymage');
    const state = callback.searchParams.get('state')!;
    const tampered = new URL(callback);
    tampered.searchParams.set('state', `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`);
    const refused = await browser.request(tampered);
    expect(refused.status).to.equal(400);
    expect(await refused.text()).to.include('This link from Anonymage is not valid');
    const missing = new URL(callback);
    missing.searchParams.delete('state');
    expect((await browser.request(missing)).status).to.equal(400);
    expect(await verifications(client.websiteId)).to.equal(0);
  });

  it('an answer to an earlier start of the same interaction is refused', async () => {
    const client = await liveClient();
    upstream.next = 'adult';
    const first = await providerAnswer(client, 'anonymage');
    // The visitor starts again: a new state and nonce replace the first ones.
    const restart = new URL(
      `${first.callback.origin}${[...first.browser.history].reverse().find(({ url }) => url.pathname.endsWith('/challenge/anonymage/start'))!.url.pathname}`,
    );
    const again = await first.browser.request(restart);
    expect(again.status).to.equal(200);
    const stale = await first.browser.open(first.callback, { stopAt: client.redirectUri });
    expect(stale.status).to.equal(400);
    expect(stale.html).to.include('does not belong to this age check');
    expect(await verifications(client.websiteId)).to.equal(0);
  });

  it('an answer carried to another browser is refused (the interaction cookie binds it)', async () => {
    const client = await liveClient();
    upstream.next = 'adult';
    const { callback } = await providerAnswer(client, 'anonymage');
    const stranger = visitorBrowser();
    const refused = await stranger.open(callback, { stopAt: client.redirectUri });
    expect(refused.status).to.equal(400);
    expect(await verifications(client.websiteId)).to.equal(0);
  });

  it('a replayed callback is refused: one answer, one verification', async () => {
    const client = await liveClient();
    upstream.next = 'adult';
    const { browser, callback } = await providerAnswer(client, 'anonymage');
    const result = await browser.open(callback, { stopAt: client.redirectUri });
    expect(result.url.pathname).to.match(/\/result$/);
    // Replayed while the result waits: no second exchange, the visitor stays on the one result.
    const replay = await browser.open(callback, { stopAt: client.redirectUri });
    expect(replay.url.pathname).to.match(/\/result$/);
    expect(await verifications(client.websiteId)).to.equal(1);
    await continueToWebsite(browser, replay, client.redirectUri);
    // Replayed after the website got its code: the interaction is over.
    const late = await browser.open(callback, { stopAt: client.redirectUri });
    expect(late.status).to.equal(400);
    expect(await verifications(client.websiteId)).to.equal(1);
  });

  it('a replayed callback after a failed answer is refused', async () => {
    const client = await liveClient();
    upstream.next = 'minor';
    const { browser, callback } = await providerAnswer(client, 'anonymage');
    await browser.open(callback, { stopAt: client.redirectUri });
    const replay = await browser.open(callback, { stopAt: client.redirectUri });
    expect(replay.status).to.equal(400);
    expect(replay.html).to.include('already used');
    expect(await verifications(client.websiteId)).to.equal(0);
  });

  it('AgeKey answers in the fragment: the callback serves the relay page with our own script under the CSP', async () => {
    const relay = await fetch(`${app.url}/v1/oauth2/federated/agekey/callback`);
    expect(relay.status).to.equal(200);
    const html = await relay.text();
    expect(html).to.include('<script src="/static/federated-relay.js" defer></script>');
    expect(html).to.include('Returning from AgeKey');
    expect(relay.headers.get('content-security-policy')).to.include("script-src 'self'");
    expect((await fetch(`${app.url}/static/federated-relay.js`)).status).to.equal(200);
  });

  it('an unknown or unconfigured provider name has no callback', async () => {
    expect((await fetch(`${app.url}/v1/oauth2/federated/yoti/callback?state=x`)).status).to.equal(404);
  });

  it('TEST clients get the sandbox: the provider is never contacted', async () => {
    const client = await createClientFixture(app.provider.runtime, webmasterId, {
      environment: 'TEST',
      challenges: ['anonymage'],
    });
    const before = upstream.requests.length;
    const visit = await startVisit(app, client, 'anonymage', upstream.issuer);
    expect(visit.hop.status).to.equal(200);
    expect(visit.hop.url.pathname).to.match(/\/challenge\/anonymage\/start$/);
    expect(visit.hop.html).to.include('name="outcome"');
    expect(upstream.requests.length).to.equal(before);
  });

  it('no third-party identifier reaches the database or the logs', async () => {
    const subjects = Object.values(UPSTREAM_SUBJECTS);
    const rows = await Promise.all(
      ['verifications', 'interaction_progress', 'oidc_payloads', 'age_proofs'].map((table) =>
        app.provider.db(table).select(),
      ),
    );
    const stored = JSON.stringify(rows);
    for (const subject of subjects) {
      expect(stored, 'database').not.to.include(subject);
      expect(logLines.join('\n'), 'logs').not.to.include(subject);
    }
    expect(stored).not.to.include('birthdate');
    expect(
      logLines.some((line) => line.includes('"challenge ended"') && line.includes('"anonymage"')),
      'the log says how checks ended',
    ).to.equal(true);
  });
});

describe('federated challenges when the provider is down', function () {
  this.timeout(120_000);

  it('discovery failing makes the challenge unavailable: the visitor sees the choice with a message', async () => {
    const upstream = await UpstreamProvider.listen();
    const issuer = upstream.issuer;
    await upstream.close();
    const app = await startTestApp({ env: { ...operatorEnv(issuer), ANONYMAGE_TIMEOUT: '2' } });
    try {
      const { id } = await createWebmasterFixture(app.provider.runtime);
      const client = await createClientFixture(app.provider.runtime, id, {
        environment: 'LIVE',
        challenges: ['anonymage'],
      });
      const { hop } = await startVisit(app, client, 'anonymage', issuer);
      expect(hop.status).to.equal(200);
      expect(hop.url.searchParams.get('notice')).to.equal('unavailable');
      expect(hop.html).to.include('That method is not available right now');
    } finally {
      await app.close();
    }
  });

  it('the token endpoint failing after the visitor came back makes it unavailable, nothing recorded', async () => {
    const upstream = await UpstreamProvider.listen();
    const app = await startTestApp({ env: operatorEnv(upstream.issuer) });
    try {
      upstream.start(upstreamClients(app.url));
      const { id } = await createWebmasterFixture(app.provider.runtime);
      const client = await createClientFixture(app.provider.runtime, id, {
        environment: 'LIVE',
        challenges: ['anonymage'],
      });
      const { browser, hop } = await startVisit(app, client, 'anonymage', upstream.issuer);
      const callback = locationOf(await browser.open(linkToProvider(hop), { stopAt: app.url }));
      await upstream.close();
      const back = await browser.open(callback, { stopAt: client.redirectUri });
      expect(back.url.searchParams.get('notice')).to.equal('unavailable');
      const [{ count } = { count: -1 }] = await app.provider
        .db('verifications')
        .count<{ count: string }[]>('* as count');
      expect(Number(count)).to.equal(0);
    } finally {
      await app.close();
      await upstream.close().catch(() => undefined);
    }
  });
});

describe('federated challenge settings', () => {
  it('a partly configured provider stops the start-up with the variable named', async () => {
    let failure: unknown;
    try {
      await startTestApp({ env: { PLEENK_ISSUER: 'https://pleenk.example', PLEENK_AGE_CLAIM: 'age_over_18' } });
    } catch (error) {
      failure = error;
    }
    expect(failure).to.be.instanceOf(Error);
    expect((failure as Error).name).to.equal('ConfigError');
    expect((failure as Error).message).to.include('PLEENK_CLIENT_ID is required');
  });

  it('a provider address must be https (http only on loopback)', async () => {
    const env = { AGEGO_ISSUER: 'http://agego.example', AGEGO_CLIENT_ID: 'x', AGEGO_AGE_CLAIM: 'age_over_18' };
    let failure: unknown;
    try {
      await startTestApp({ env });
    } catch (error) {
      failure = error;
    }
    expect((failure as Error).message).to.include('AGEGO_ISSUER must be an https URL');
  });

  it('an unconfigured provider does not load: a LIVE request for it alone ends as temporarily_unavailable', async () => {
    const app = await startTestApp({ env: {} });
    try {
      const { id } = await createWebmasterFixture(app.provider.runtime);
      const client = await createClientFixture(app.provider.runtime, id, {
        environment: 'LIVE',
        challenges: ['anonymage'],
      });
      const { browser, hop } = await startVisit(app, client, 'anonymage', 'http://127.0.0.1:1');
      expect(hop.status, 'the visitor sees an error page').to.equal(503);
      const website = await browser.open(linkWithText(hop, 'Return to the website'), { stopAt: client.redirectUri });
      expect(locationOf(website).searchParams.get('error')).to.equal('temporarily_unavailable');
    } finally {
      await app.close();
    }
  });
});
