import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../../../helpers/app.js';
import { Browser, decodeHtml, formOf, linkWithText, type Page } from '../../../helpers/browser.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../../../helpers/fixtures.js';
import { readResources, requestToken } from '../../../oauth2/helpers/oauth2.js';
import { continueToWebsite } from '../federated/flow.js';
import { createLogger } from '../../../../lib/log.js';
import { answerRequest, createTestIssuer, issueAttestation, postToVerifier, readWalletRequest, type Attestation, type TestIssuer } from './wallet.js';
import { authorizationUrl } from '../../../helpers/relying-party.js';

const DAY = 24 * 60 * 60 * 1000;

describe('eu_av: the EU age-verification attestation over OpenID4VP (a simulated wallet)', function () {
  this.timeout(90_000);
  let app: TestApp;
  let trustDir: string;
  let issuer: TestIssuer;
  let webmasterId: number;
  let logLines: string[];
  /** Why the endpoint refused the last presentation, as it logged it (never a value from the attestation). */
  const lastProblem = (): string => String((JSON.parse(logLines.filter((line) => line.includes('eu_av presentation received')).at(-1) ?? '{}') as { problem?: unknown }).problem);

  before(async () => {
    issuer = await createTestIssuer();
    trustDir = await mkdtemp(join(tmpdir(), 'eu-av-trust-'));
    await writeFile(join(trustDir, 'issuer.pem'), issuer.rootPem);
    logLines = [];
    app = await startTestApp({
      logger: createLogger('debug', (line) => logLines.push(line)),
      env: { EU_AV_TRUSTED_ISSUERS: trustDir, TRUST_PROXY: 'true', GEO_COUNTRY_HEADER: 'CF-IPCountry', AGE_THRESHOLDS: '{"IT":21}' },
    });
    webmasterId = (await createWebmasterFixture(app.provider.runtime)).id;
  });
  after(async () => {
    await app?.close();
    await rm(trustDir, { recursive: true, force: true });
  });

  const client = (environment: 'LIVE' | 'TEST' = 'LIVE', challenges = ['ticket']): Promise<ClientFixture> =>
    createClientFixture(app.provider.runtime, webmasterId, { environment, challenges });

  /** Entry point naming eu_av, prompt accepted: the eu_av page with its QR code and same-device link. */
  async function openChallenge(fixture: ClientFixture, country = 'FR'): Promise<{ browser: Browser; page: Page; walletUrl: string }> {
    const browser = new Browser(undefined, { headers: { 'accept-language': 'en', 'cf-ipcountry': country } });
    const prompt = await browser.open(new URL(authorizationUrl(app.url, fixture, 'checker', { state: 'rp-state', challenges: 'eu_av' })), { stopAt: fixture.redirectUri });
    const page = await browser.submit(formOf(prompt, { action: '/consent' }), {}, { name: 'decision', value: 'accept' }, { stopAt: fixture.redirectUri });
    expect(page.url.pathname).to.match(/\/challenge\/eu_av\/start$/);
    return { browser, page, walletUrl: linkWithText(page, 'Open my app on this device').href };
  }

  const statusOf = async (browser: Browser, page: Page): Promise<unknown> => (await browser.request(new URL(page.url.pathname.replace(/start$/, 'status'), app.url))).json();
  const proceed = (browser: Browser, page: Page, fixture: ClientFixture): Promise<Page> =>
    browser.submit(formOf(page, { id: 'eu-av-continue' }), {}, undefined, { stopAt: fixture.redirectUri });
  const notices = (page: Page): Array<string | null> => [...page.redirects, page.url].map((url) => url.searchParams.get('notice'));

  async function expectRefused(answer: { status: number; body: unknown }, browser: Browser, page: Page, fixture: ClientFixture, notice = 'failed'): Promise<void> {
    expect(await statusOf(browser, page)).to.deep.equal({ answered: true });
    const after = await proceed(browser, page, fixture);
    expect(notices(after)).to.include(notice);
    expect(after.html).to.not.include('Your age is confirmed');
  }

  it('asks for one mdoc of doctype eu.europa.ec.av.1 disclosing only age_over_18, by value, with a fresh nonce and state each time', async () => {
    const fixture = await client();
    const first = await openChallenge(fixture);
    const second = await openChallenge(fixture);
    expect(first.page.html).to.match(/<svg[^>]*viewBox/);
    const request = readWalletRequest(first.walletUrl);
    expect(first.walletUrl.startsWith('openid4vp://?')).to.equal(true);
    expect(request.parameters.get('response_type')).to.equal('vp_token');
    expect(request.parameters.get('response_mode')).to.equal('direct_post');
    expect(request.responseUri).to.equal(`${app.url}/v1/oauth2/eu-av/response`);
    expect(request.clientId).to.equal(`redirect_uri:${app.url}/v1/oauth2/eu-av/response`);
    expect(JSON.parse(request.parameters.get('dcql_query')!)).to.deep.equal({
      credentials: [{ id: 'age_attestation', format: 'mso_mdoc', meta: { doctype_value: 'eu.europa.ec.av.1' }, claims: [{ path: ['eu.europa.ec.av.1', 'age_over_18'], intent_to_retain: false }] }],
    });
    const other = readWalletRequest(second.walletUrl);
    expect(other.nonce).to.not.equal(request.nonce);
    expect(other.state).to.not.equal(request.state);
    expect(await statusOf(first.browser, first.page)).to.deep.equal({ answered: false });
  });

  it('a LIVE visitor whose wallet proves age_over_18 ends in Resources with method eu_av, level ENHANCED, threshold 18; nothing of the attestation is stored', async () => {
    const fixture = await client();
    const { browser, page, walletUrl } = await openChallenge(fixture);
    const answer = await answerRequest(walletUrl, await issueAttestation(issuer, { age_over_18: true }));
    expect(answer).to.include({ status: 200 });
    expect(await statusOf(browser, page)).to.deep.equal({ answered: true });
    const result = await proceed(browser, page, fixture);
    const website = await continueToWebsite(browser, result, fixture.redirectUri);
    const token = await requestToken(app, { code: website.searchParams.get('code')!, client: fixture });
    const { access_token: accessToken } = (await token.json()) as { access_token: string };
    const { resources } = (await (await readResources(app, accessToken)).json()) as { resources: Record<string, unknown> };
    expect(resources).to.include({ verified: true, assurance_level: 'ENHANCED', age_threshold: 18, reused: false });
    const row = await app.provider.db('verifications').where('uid', String(resources['uid'])).first();
    expect(row).to.include({ method: 'eu_av' });
    const stored = JSON.stringify(row);
    for (const trace of [answer.vpToken.slice(20, 60), 'age_over', 'eu.europa.ec.av.1', readWalletRequest(walletUrl).nonce]) expect(stored).to.not.include(trace);
    expect(await app.provider.db('interaction_progress').where('uid', page.url.pathname.split('/')[4]!).first()).to.equal(undefined);
  });

  it('asks for age_over_21 where the operator maps the visitor\'s region to 21, and records that threshold', async () => {
    const fixture = await client();
    const { browser, page, walletUrl } = await openChallenge(fixture, 'IT');
    expect(readWalletRequest(walletUrl).element).to.equal('age_over_21');
    const answer = await answerRequest(walletUrl, await issueAttestation(issuer, { age_over_18: true, age_over_21: true }));
    expect(answer.status).to.equal(200);
    const website = await continueToWebsite(browser, await proceed(browser, page, fixture), fixture.redirectUri);
    const token = await requestToken(app, { code: website.searchParams.get('code')!, client: fixture });
    const { access_token: accessToken } = (await token.json()) as { access_token: string };
    const { resources } = (await (await readResources(app, accessToken)).json()) as { resources: Record<string, unknown> };
    expect(resources).to.include({ verified: true, age_threshold: 21 });
  });

  it('age_over_18 false: the wallet is answered 200, the visitor is not verified', async () => {
    const fixture = await client();
    const { browser, page, walletUrl } = await openChallenge(fixture);
    const answer = await answerRequest(walletUrl, await issueAttestation(issuer, { age_over_18: false }));
    expect(answer.status).to.equal(200);
    await expectRefused(answer, browser, page, fixture);
  });

  const refusedCases: Array<[string, () => Promise<Attestation>, RegExp]> = [
    ['an issuer the operator does not trust', async () => issueAttestation(await createTestIssuer('Unknown'), { age_over_18: true }), /certificate/i],
    ['an expired MSO', () => issueAttestation(issuer, { age_over_18: true }, { validFrom: new Date(Date.now() - 30 * DAY), validUntil: new Date(Date.now() - DAY) }), /MSO must be valid/],
  ];
  for (const [what, attestation, problem] of refusedCases) {
    it(`${what}: refused with 400 invalid_request, the visitor is not verified`, async () => {
      const fixture = await client();
      const { browser, page, walletUrl } = await openChallenge(fixture);
      const answer = await answerRequest(walletUrl, await attestation());
      expect(answer).to.deep.include({ status: 400, body: { error: 'invalid_request', error_description: 'the presentation was not accepted' } });
      expect(lastProblem()).to.match(problem);
      await expectRefused(answer, browser, page, fixture);
    });
  }

  it('a tampered element (false turned true after signing) is refused: its digest no longer matches', async () => {
    const fixture = await client();
    const { browser, page, walletUrl } = await openChallenge(fixture);
    const request = readWalletRequest(walletUrl);
    const { presentation, vpTokenOf } = await import('./wallet.js');
    const signed = await presentation(await issueAttestation(issuer, { age_over_18: false }), request);
    // CBOR: the text "elementValue" then false (0xf4); make it true (0xf5). The signatures stay as they were.
    const marker = Buffer.concat([Buffer.from([0x6c]), Buffer.from('elementValue'), Buffer.from([0xf4])]);
    const at = signed.indexOf(marker);
    expect(at).to.be.greaterThan(-1);
    signed[at + marker.length - 1] = 0xf5;
    const answer = await postToVerifier(request.responseUri, { vp_token: vpTokenOf(signed, 'age_attestation'), state: request.state });
    expect(answer.status).to.equal(400);
    expect(lastProblem()).to.match(/digest/);
    await expectRefused({ status: answer.status, body: await answer.json() }, browser, page, fixture);
  });

  it('a response signed for another nonce is refused: the device signature does not cover our transcript', async () => {
    const fixture = await client();
    const { browser, page, walletUrl } = await openChallenge(fixture);
    const answer = await answerRequest(walletUrl, await issueAttestation(issuer, { age_over_18: true }), { nonce: 'a-nonce-we-never-issued' });
    expect(answer.status).to.equal(400);
    expect(lastProblem()).to.match(/Device signature must be valid/);
    await expectRefused(answer, browser, page, fixture);
  });

  it('a replayed response is refused, and the first answer stands', async () => {
    const fixture = await client();
    const { browser, page, walletUrl } = await openChallenge(fixture);
    const first = await answerRequest(walletUrl, await issueAttestation(issuer, { age_over_18: true }));
    expect(first.status).to.equal(200);
    const replay = await postToVerifier(readWalletRequest(walletUrl).responseUri, { vp_token: first.vpToken, state: readWalletRequest(walletUrl).state });
    expect(replay.status).to.equal(400);
    expect(await replay.json()).to.deep.equal({ error: 'invalid_request', error_description: 'this request is unknown, was replaced, or was already answered' });
    const result = await proceed(browser, page, fixture);
    expect(result.url.pathname).to.match(/\/result$/);
  });

  it('the same answer posted three times at once counts once', async () => {
    const fixture = await client();
    const { walletUrl } = await openChallenge(fixture);
    const request = readWalletRequest(walletUrl);
    const { presentation, vpTokenOf } = await import('./wallet.js');
    const vpToken = vpTokenOf(await presentation(await issueAttestation(issuer, { age_over_18: true }), request), 'age_attestation');
    const answers = await Promise.all([1, 2, 3].map(() => postToVerifier(request.responseUri, { vp_token: vpToken, state: request.state })));
    expect(answers.map((answer) => answer.status).sort()).to.deep.equal([200, 400, 400]);
  });

  it('a response made for another interaction is refused where it is posted; the interaction it was made for still waits', async () => {
    const fixture = await client();
    const mine = await openChallenge(fixture);
    const theirs = await openChallenge(fixture);
    const theirRequest = readWalletRequest(theirs.walletUrl);
    const { presentation, vpTokenOf } = await import('./wallet.js');
    const signed = await presentation(await issueAttestation(issuer, { age_over_18: true }), theirRequest);
    const answer = await postToVerifier(theirRequest.responseUri, { vp_token: vpTokenOf(signed, 'age_attestation'), state: readWalletRequest(mine.walletUrl).state });
    expect(answer.status).to.equal(400);
    expect(lastProblem()).to.match(/Device signature must be valid/);
    await expectRefused({ status: 400, body: await answer.json() }, mine.browser, mine.page, fixture);
    expect(await statusOf(theirs.browser, theirs.page)).to.deep.equal({ answered: false });
  });

  it('malformed CBOR is refused with 400', async () => {
    const fixture = await client();
    const { browser, page, walletUrl } = await openChallenge(fixture);
    const request = readWalletRequest(walletUrl);
    const answer = await postToVerifier(request.responseUri, { vp_token: JSON.stringify({ age_attestation: [Buffer.from([0xa5, 0x01, 0xff, 0x62]).toString('base64url')] }), state: request.state });
    expect(answer.status).to.equal(400);
    await expectRefused({ status: 400, body: await answer.json() }, browser, page, fixture);
  });

  it('an oversized body is refused with 413 before it is read, and the request stays open', async () => {
    const fixture = await client();
    const { browser, page, walletUrl } = await openChallenge(fixture);
    const request = readWalletRequest(walletUrl);
    const answer = await postToVerifier(request.responseUri, { vp_token: 'A'.repeat(100_000), state: request.state });
    expect(answer.status).to.equal(413);
    expect(await answer.json()).to.have.property('error', 'invalid_request');
    expect(await statusOf(browser, page)).to.deep.equal({ answered: false });
  });

  it('an unknown state or a body without vp_token is refused with 400 and changes nothing', async () => {
    const fixture = await client();
    const { browser, page, walletUrl } = await openChallenge(fixture);
    const request = readWalletRequest(walletUrl);
    expect((await postToVerifier(request.responseUri, { vp_token: '{}', state: 'forged' })).status).to.equal(400);
    expect((await postToVerifier(request.responseUri, { state: request.state })).status).to.equal(400);
    expect(await statusOf(browser, page)).to.deep.equal({ answered: false });
  });

  it('a wallet that declines: the visitor is back at the choice, the check cancelled', async () => {
    const fixture = await client();
    const { browser, page, walletUrl } = await openChallenge(fixture);
    const request = readWalletRequest(walletUrl);
    const answer = await postToVerifier(request.responseUri, { error: 'access_denied', state: request.state });
    expect(answer.status).to.equal(200);
    await expectRefused({ status: 200, body: await answer.json() }, browser, page, fixture, 'cancelled');
  });

  it('through the browser\'s Digital Credentials API: the answer bound to our origin passes; one bound to the response URI does not', async () => {
    const fixture = await client();
    const { browser, page, walletUrl } = await openChallenge(fixture);
    const form = formOf(page, { id: 'eu-av-dc-api' });
    const browserRequest = JSON.parse(decodeHtml(/data-request="([^"]*)"/.exec(page.html)![1]!)) as { response_mode: string; nonce: string };
    expect(browserRequest.response_mode).to.equal('dc_api');
    const request = { ...readWalletRequest(walletUrl), nonce: browserRequest.nonce };
    const attestation = await issueAttestation(issuer, { age_over_18: true });
    const { presentation, vpTokenOf } = await import('./wallet.js');

    const wrongBinding = await browser.submit(form, { vp_token: vpTokenOf(await presentation(attestation, request), 'age_attestation') }, undefined, { stopAt: fixture.redirectUri });
    expect(notices(wrongBinding)).to.include('failed');
    expect(lastProblem()).to.match(/Device signature must be valid/);

    const again = await openChallenge(fixture);
    const nonce = (JSON.parse(decodeHtml(/data-request="([^"]*)"/.exec(again.page.html)![1]!)) as { nonce: string }).nonce;
    const signed = await presentation(attestation, { ...request, nonce, origin: new URL(app.url).origin });
    const result = await again.browser.submit(formOf(again.page, { id: 'eu-av-dc-api' }), { vp_token: vpTokenOf(signed, 'age_attestation') }, undefined, { stopAt: fixture.redirectUri });
    expect(result.url.pathname).to.match(/\/result$/);
  });

  it('"continue" before the wallet answered stays on the page and says so', async () => {
    const fixture = await client();
    const { browser, page } = await openChallenge(fixture);
    const again = await proceed(browser, page, fixture);
    expect(again.status).to.equal(200);
    expect(again.html).to.include('Your app has not answered yet.');
  });

  it('is offered by default once configured, beside the website\'s challenges; a website record cannot list it', async () => {
    const fixture = await client('LIVE', ['ticket']);
    const browser = new Browser(undefined, { headers: { 'accept-language': 'en' } });
    const prompt = await browser.open(new URL(authorizationUrl(app.url, fixture, 'checker', { state: 's' })), { stopAt: fixture.redirectUri });
    const choice = await browser.submit(formOf(prompt, { action: '/consent' }), {}, { name: 'decision', value: 'accept' }, { stopAt: fixture.redirectUri });
    expect(choice.html).to.include('EU age-verification app');
    expect(choice.html).to.include('/challenge/eu_av/start');
  });

  it('a TEST client gets the sandbox, like every other challenge', async () => {
    const fixture = await client('TEST');
    const browser = new Browser(undefined, { headers: { 'accept-language': 'en' } });
    const prompt = await browser.open(new URL(authorizationUrl(app.url, fixture, 'checker', { state: 's', challenges: 'eu_av' })), { stopAt: fixture.redirectUri });
    const page = await browser.submit(formOf(prompt, { action: '/consent' }), {}, { name: 'decision', value: 'accept' }, { stopAt: fixture.redirectUri });
    expect(page.url.pathname).to.match(/\/challenge\/eu_av\/start$/);
    expect(formOf(page, { action: /\/challenge\/eu_av\/submit$/ })).to.have.property('action');
    expect(page.html).to.not.include('Open my app on this device');
  });
});
