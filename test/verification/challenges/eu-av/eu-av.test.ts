import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../../../helpers/app.js';
import { Browser, decodeHtml, formOf, linkWithText, type Page } from '../../../helpers/browser.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../../../helpers/fixtures.js';
import { readResources, requestToken } from '../../../oauth2/helpers/oauth2.js';
import { continueToWebsite } from '../federated/flow.js';
import { createLogger } from '../../../../lib/log.js';
import { readQrSvg } from './qr-reader.js';
import {
  answerRequest,
  answerWith,
  AV_DOCTYPE,
  createTestIssuer,
  issueAttestation,
  PID_DOCTYPE,
  postToVerifier,
  readWalletRequest,
  type Attestation,
  type TestIssuer,
} from './wallet.js';
import {
  issueByHand,
  makeCertificate,
  makeIntermediate,
  makeReferenceIaca,
  makeReferenceSigner,
  makeRoot,
  makeSigner,
  presentByHand,
  TLS_SERVER_EKU,
  type Issued,
} from './hand-made.js';
import { startListServer, type ListServer } from './list-server.js';
import { signedTrustedList, type ListShape } from './trusted-list-maker.js';
import { statusListToken } from './status-list-maker.js';
import { authorizationUrl } from '../../../helpers/relying-party.js';

const DAY = 24 * 60 * 60 * 1000;

describe('eu_av: the EU age-verification attestation over OpenID4VP (a simulated wallet)', function () {
  this.timeout(90_000);
  let app: TestApp;
  let trustDir: string;
  let issuer: TestIssuer;
  /** a second issuer, made by hand apart from the verifier's libraries (hand-made.ts), its root trusted too; one allowing an intermediate */
  let handRoot: Issued;
  let handDeepRoot: Issued;
  /** an IACA with the EU reference issuers' profile (its document signers carry 1.3.130.2.0.0.1.2) */
  let referenceIaca: Issued;
  /** trusted as DER files: a root, and a document signer itself (an end-entity anchor, as the EU trusted list publishes) */
  let derRoot: Issued;
  let listedSigner: Issued;
  /** the ETSI trusted list the service follows beside its files, served over https and refreshed every second */
  let listServer: ListServer;
  /** where the attestations' status lists are served (IETF Token Status List) */
  let statusServer: ListServer;
  let listSigner: Issued;
  let firstList: ListShape;
  let onFirstList: Issued;
  let webmasterId: number;
  let logLines: string[];
  /** Why the endpoint refused the last presentation, as it logged it (never a value from the attestation). */
  const lastProblem = (): string =>
    String(
      (
        JSON.parse(logLines.filter((line) => line.includes('eu_av presentation received')).at(-1) ?? '{}') as {
          problem?: unknown;
        }
      ).problem,
    );

  before(async () => {
    issuer = await createTestIssuer();
    trustDir = await mkdtemp(join(tmpdir(), 'eu-av-trust-'));
    await writeFile(join(trustDir, 'issuer.pem'), issuer.rootPem);
    handRoot = await makeRoot('Hand-made');
    handDeepRoot = await makeRoot('Hand-made two-level', { ca: 1 });
    await writeFile(join(trustDir, 'hand-made.pem'), `${handRoot.pem}\n${handDeepRoot.pem}`);
    referenceIaca = await makeReferenceIaca('Age Verification', true);
    await writeFile(join(trustDir, 'reference-iaca.pem'), referenceIaca.pem);
    // The EC's own test document signer as an end-entity anchor: the service must start with it.
    await copyFile(new URL('./fixtures/ec-av-ds-001.pem', import.meta.url), join(trustDir, 'ec-av-ds-001.pem'));
    derRoot = await makeRoot('DER');
    listedSigner = await makeSigner('Listed', await makeRoot('Unlisted'));
    await writeFile(join(trustDir, 'root.der'), derRoot.der);
    await writeFile(join(trustDir, 'signer.cer'), listedSigner.der);
    listServer = await startListServer();
    listSigner = await makeCertificate({ subject: 'CN=Trusted list operator, C=EU' });
    await writeFile(`${trustDir}-list-signer.pem`, listSigner.pem);
    await writeFile(`${trustDir}-list-server-ca.pem`, listServer.certificate);
    onFirstList = await makeSigner('On the first list', await makeRoot('Listed'));
    firstList = {
      signer: listSigner,
      services: [{ certificate: onFirstList.der }],
      issued: new Date(Date.now() - 2 * DAY),
    };
    listServer.serve(signedTrustedList(firstList));
    statusServer = await startListServer();
    await writeFile(`${trustDir}-status-server-ca.pem`, statusServer.certificate);
    logLines = [];
    app = await startTestApp({
      logger: createLogger('debug', (line) => logLines.push(line)),
      env: {
        EU_AV_TRUSTED_ISSUERS: trustDir,
        TRUST_PROXY: 'true',
        GEO_COUNTRY_HEADER: 'CF-IPCountry',
        AGE_THRESHOLDS: '{"IT":21}',
        EU_AV_TRUSTED_LIST: listServer.url,
        EU_AV_TRUSTED_LIST_SIGNER: `${trustDir}-list-signer.pem`,
        EU_AV_TRUSTED_LIST_REFRESH_SECONDS: '1',
        EU_AV_TRUSTED_LIST_ALLOW_PRIVATE: 'true',
        EU_AV_TRUSTED_LIST_CA: `${trustDir}-list-server-ca.pem`,
        EU_AV_STATUS_LIST_ALLOW_PRIVATE: 'true',
        EU_AV_STATUS_LIST_CA: `${trustDir}-status-server-ca.pem`,
      },
    });
    webmasterId = (await createWebmasterFixture(app.provider.runtime)).id;
  });
  after(async () => {
    await app?.close();
    await listServer?.close();
    await statusServer?.close();
    await rm(trustDir, { recursive: true, force: true });
    await rm(`${trustDir}-list-signer.pem`, { force: true });
    await rm(`${trustDir}-status-server-ca.pem`, { force: true });
  });

  const client = (environment: 'LIVE' | 'TEST' = 'LIVE', challenges = ['ticket']): Promise<ClientFixture> =>
    createClientFixture(app.provider.runtime, webmasterId, { environment, challenges });

  /**
   * Entry point naming eu_av, prompt accepted: the eu_av page. `walletUrl` is the request in its QR code (read by a
   * decoder), answered from another device; `linkUrl` the first same-device link's, `links` every link's.
   */
  async function openChallenge(
    fixture: ClientFixture,
    country = 'FR',
    language = 'en',
    sameDevice = 'Open my app on this device',
  ): Promise<{ browser: Browser; page: Page; walletUrl: string; linkUrl: string; links: string[] }> {
    const browser = new Browser(undefined, { headers: { 'accept-language': language, 'cf-ipcountry': country } });
    const prompt = await browser.open(
      new URL(authorizationUrl(app.url, fixture, 'checker', { state: 'rp-state', challenges: 'eu_av' })),
      { stopAt: fixture.redirectUri },
    );
    const page = await browser.submit(
      formOf(prompt, { action: '/consent' }),
      {},
      { name: 'decision', value: 'accept' },
      { stopAt: fixture.redirectUri },
    );
    expect(page.url.pathname).to.match(/\/challenge\/eu_av\/start$/);
    const svg = /class="eu-av-qr"[\s\S]*?(<svg[\s\S]*?<\/svg>)/.exec(page.html)?.[1] ?? '';
    const links = [...page.html.matchAll(/<a [^>]*href="([a-z0-9+.-]+:\/\/\?[^"]*)"/g)].map((match) =>
      decodeHtml(match[1]!),
    );
    return { browser, page, walletUrl: readQrSvg(svg), linkUrl: linkWithText(page, sameDevice).href, links };
  }

  const statusOf = async (browser: Browser, page: Page): Promise<unknown> =>
    (await browser.request(new URL(page.url.pathname.replace(/start$/, 'status'), app.url))).json();
  const proceed = (browser: Browser, page: Page, fixture: ClientFixture): Promise<Page> =>
    browser.submit(formOf(page, { id: 'eu-av-continue' }), {}, undefined, { stopAt: fixture.redirectUri });
  const notices = (page: Page): Array<string | null> =>
    [...page.redirects, page.url].map((url) => url.searchParams.get('notice'));

  /** The words the visitor reads back at the choice of methods, by notice (views/locales/en/interaction.json). */
  const WORDS: Record<string, string> = {
    failed: 'The check did not work. You can try again or choose another method.',
    wallet_under_age: 'Your app confirmed that you are not old enough for this website.',
    wallet_untrusted: 'The attestation your app presented could not be trusted, so your age was not confirmed.',
    wallet_expired:
      'The attestation in your app has expired. Renew it in the app and try again, or choose another method.',
    wallet_revoked:
      'The attestation in your app has been withdrawn by its issuer, so your age was not confirmed. Get a new one in the app, or choose another method.',
    wallet_declined: 'You declined the request in your app. You can try again or choose another method.',
  };

  async function expectRefused(
    answer: { status: number; body: unknown },
    browser: Browser,
    page: Page,
    fixture: ClientFixture,
    notice = 'failed',
  ): Promise<Page> {
    expect(await statusOf(browser, page)).to.deep.equal({ answered: true });
    const after = await proceed(browser, page, fixture);
    expect(notices(after)).to.include(notice);
    expect(decodeHtml(after.html)).to.include(WORDS[notice]);
    for (const other of Object.keys(WORDS).filter((key) => key !== notice))
      expect(decodeHtml(after.html)).to.not.include(WORDS[other]);
    expect(after.html).to.not.include('Your age is confirmed');
    return after;
  }

  it('asks for the AV attestation or the PID disclosing only age_over_18, by value; the QR code and the links are distinct requests, fresh each time', async () => {
    const fixture = await client();
    const first = await openChallenge(fixture);
    const second = await openChallenge(fixture);
    const request = readWalletRequest(first.walletUrl);
    expect(first.walletUrl.startsWith('av://?')).to.equal(true);
    expect(first.links.map((link) => link.split('?')[0])).to.deep.equal(['av://', 'openid4vp://']);
    expect(first.links[0]).to.equal(first.linkUrl);
    expect(readWalletRequest(first.links[1]!).state).to.equal(readWalletRequest(first.linkUrl).state);
    expect(request.parameters.get('response_type')).to.equal('vp_token');
    expect(request.parameters.get('response_mode')).to.equal('direct_post');
    expect(request.responseUri).to.equal(`${app.url}/v1/oauth2/eu-av/response`);
    expect(request.clientId).to.equal(`redirect_uri:${app.url}/v1/oauth2/eu-av/response`);
    expect(JSON.parse(request.parameters.get('dcql_query')!)).to.deep.equal({
      credentials: [
        {
          id: 'age_attestation',
          format: 'mso_mdoc',
          meta: { doctype_value: 'eu.europa.ec.av.1' },
          claims: [{ path: ['eu.europa.ec.av.1', 'age_over_18'], intent_to_retain: false }],
        },
        {
          id: 'pid',
          format: 'mso_mdoc',
          meta: { doctype_value: 'eu.europa.ec.eudi.pid.1' },
          claims: [{ path: ['eu.europa.ec.eudi.pid.1', 'age_over_18'], intent_to_retain: false }],
        },
      ],
      credential_sets: [{ options: [['age_attestation'], ['pid']] }],
    });
    const link = readWalletRequest(first.linkUrl);
    expect([link.state, link.nonce]).to.not.include.members([request.state, request.nonce]);
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
    const { resources } = (await (await readResources(app, accessToken)).json()) as {
      resources: Record<string, unknown>;
    };
    expect(resources).to.include({ verified: true, assurance_level: 'ENHANCED', age_threshold: 18, reused: false });
    const row = await app.provider.db('verifications').where('uid', String(resources['uid'])).first();
    expect(row).to.include({ method: 'eu_av' });
    const stored = JSON.stringify(row);
    for (const trace of [
      answer.vpToken.slice(20, 60),
      'age_over',
      'eu.europa.ec.av.1',
      readWalletRequest(walletUrl).nonce,
    ])
      expect(stored).to.not.include(trace);
    expect(
      await app.provider.db('interaction_progress').where('uid', page.url.pathname.split('/')[4]!).first(),
    ).to.equal(undefined);
  });

  it("asks for age_over_21 where the operator maps the visitor's region to 21, and records that threshold", async () => {
    const fixture = await client();
    const { browser, page, walletUrl } = await openChallenge(fixture, 'IT');
    expect(readWalletRequest(walletUrl).element).to.equal('age_over_21');
    const answer = await answerRequest(
      walletUrl,
      await issueAttestation(issuer, { age_over_18: true, age_over_21: true }),
    );
    expect(answer.status).to.equal(200);
    const website = await continueToWebsite(browser, await proceed(browser, page, fixture), fixture.redirectUri);
    const token = await requestToken(app, { code: website.searchParams.get('code')!, client: fixture });
    const { access_token: accessToken } = (await token.json()) as { access_token: string };
    const { resources } = (await (await readResources(app, accessToken)).json()) as {
      resources: Record<string, unknown>;
    };
    expect(resources).to.include({ verified: true, age_threshold: 21 });
  });

  it('age_over_18 false: the wallet is answered 200, the visitor is not verified and is told the app said under age', async () => {
    const fixture = await client();
    const { browser, page, walletUrl } = await openChallenge(fixture);
    const answer = await answerRequest(walletUrl, await issueAttestation(issuer, { age_over_18: false }));
    expect(answer.status).to.equal(200);
    await expectRefused(answer, browser, page, fixture, 'wallet_under_age');
  });

  it('a visitor reading French is told in French', async () => {
    const fixture = await client();
    const { browser, page, walletUrl } = await openChallenge(
      fixture,
      'FR',
      'fr',
      'Ouvrir mon application sur cet appareil',
    );
    expect((await answerRequest(walletUrl, await issueAttestation(issuer, { age_over_18: false }))).status).to.equal(
      200,
    );
    const after = await proceed(browser, page, fixture);
    expect(decodeHtml(after.html)).to.include(
      'Votre application a confirmé que vous n’avez pas l’âge requis pour ce site.',
    );
  });

  const refusedCases: Array<[string, () => Promise<Attestation>, RegExp, string]> = [
    [
      'an issuer the operator does not trust',
      async () => issueAttestation(await createTestIssuer('Unknown'), { age_over_18: true }),
      /certificate/i,
      'wallet_untrusted',
    ],
    [
      'an expired MSO',
      () =>
        issueAttestation(
          issuer,
          { age_over_18: true },
          { validFrom: new Date(Date.now() - 30 * DAY), validUntil: new Date(Date.now() - DAY) },
        ),
      /MSO must be valid/,
      'wallet_expired',
    ],
  ];
  for (const [what, attestation, problem, notice] of refusedCases) {
    it(`${what}: refused with 400 invalid_request, the visitor is not verified and is told why`, async () => {
      const fixture = await client();
      const { browser, page, walletUrl } = await openChallenge(fixture);
      const answer = await answerRequest(walletUrl, await attestation());
      expect(answer).to.deep.include({
        status: 400,
        body: { error: 'invalid_request', error_description: 'the presentation was not accepted' },
      });
      expect(lastProblem()).to.match(problem);
      await expectRefused(answer, browser, page, fixture, notice);
    });
  }

  /** The wallet's answer made by hand: age_over_18 true, the MSO signed with `key`'s private key, x5chain as given. */
  const answerByHand = (walletUrl: string, key: Issued, x5chain: Issued[], docType = AV_DOCTYPE) =>
    answerWith(
      walletUrl,
      (request) =>
        presentByHand(
          issueByHand({
            signingKey: key.keys.privateKey,
            x5chain: x5chain.map(({ der }) => der),
            elements: { age_over_18: true },
            docType,
          }),
          request,
        ),
      {},
      { doctype: docType },
    );

  it("a presentation made by hand, apart from the verifier's libraries, passes to Resources on a LIVE client", async () => {
    const fixture = await client();
    const { browser, page, walletUrl } = await openChallenge(fixture);
    const signer = await makeSigner('Hand-made', handRoot);
    expect(await answerByHand(walletUrl, signer, [signer])).to.include({ status: 200 });
    const website = await continueToWebsite(browser, await proceed(browser, page, fixture), fixture.redirectUri);
    const token = await requestToken(app, { code: website.searchParams.get('code')!, client: fixture });
    const { access_token: accessToken } = (await token.json()) as { access_token: string };
    const { resources } = (await (await readResources(app, accessToken)).json()) as {
      resources: Record<string, unknown>;
    };
    expect(resources).to.include({ verified: true, assurance_level: 'ENHANCED' });
  });

  it("an AV attestation and a PID signed by a DS with the EU reference issuers' profile (EKU 1.3.130.2.0.0.1.2) pass to Resources; the EC's own DS is an anchor", async () => {
    const ds = await makeReferenceSigner('Age Verification', referenceIaca);
    for (const docType of [AV_DOCTYPE, PID_DOCTYPE]) {
      const fixture = await client();
      const { browser, page, walletUrl } = await openChallenge(fixture);
      expect(await answerByHand(walletUrl, ds, [ds], docType)).to.include({ status: 200 });
      const website = await continueToWebsite(browser, await proceed(browser, page, fixture), fixture.redirectUri);
      const token = await requestToken(app, { code: website.searchParams.get('code')!, client: fixture });
      const { access_token: accessToken } = (await token.json()) as { access_token: string };
      const { resources } = (await (await readResources(app, accessToken)).json()) as {
        resources: Record<string, unknown>;
      };
      expect(resources).to.include({ verified: true, assurance_level: 'ENHANCED' });
    }
  });

  it('an attestation revoked in its status list is refused and the visitor is told it was withdrawn; one still valid in the same list passes', async () => {
    const ds = await makeReferenceSigner('Age Verification', referenceIaca);
    statusServer.serve(
      await statusListToken({
        signer: ds,
        uri: statusServer.url,
        statuses: [0, 1],
        exp: Math.floor(Date.now() / 1000) + 600,
      }),
    );
    const answerWithStatus = (walletUrl: string, idx: number) =>
      answerWith(walletUrl, (request) =>
        presentByHand(
          issueByHand({
            signingKey: ds.keys.privateKey,
            x5chain: [ds.der],
            elements: { age_over_18: true },
            status: { idx, uri: statusServer.url },
          }),
          request,
        ),
      );
    const revoked = await client();
    const opened = await openChallenge(revoked);
    const answer = await answerWithStatus(opened.walletUrl, 1);
    expect(answer).to.deep.include({
      status: 400,
      body: { error: 'invalid_request', error_description: 'the presentation was not accepted' },
    });
    expect(lastProblem()).to.equal('the attestation is revoked or suspended in its status list');
    await expectRefused(answer, opened.browser, opened.page, revoked, 'wallet_revoked');

    const valid = await client();
    const again = await openChallenge(valid);
    expect(await answerWithStatus(again.walletUrl, 0)).to.include({ status: 200 });
    expect((await proceed(again.browser, again.page, valid)).url.pathname).to.match(/\/result$/);
  });

  it('anchors read from DER files pass: a signer under a DER root, and a signer trusted as itself; a sibling of that signer does not', async () => {
    for (const signer of [await makeSigner('Under DER', derRoot), listedSigner]) {
      const fixture = await client();
      const { browser, page, walletUrl } = await openChallenge(fixture);
      expect(await answerByHand(walletUrl, signer, [signer])).to.include({ status: 200 });
      const result = await proceed(browser, page, fixture);
      expect(result.url.pathname).to.match(/\/result$/);
    }
    const fixture = await client();
    const { walletUrl } = await openChallenge(fixture);
    const sibling = await makeSigner('Listed', await makeRoot('Unlisted'));
    expect(await answerByHand(walletUrl, sibling, [sibling])).to.include({ status: 400 });
  });

  /** The trusted list as /readyz reports it, once `ready` says it is the one expected (the service refreshes it every second). */
  async function listReport(ready: (report: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const body = (await (await fetch(`${app.url}/readyz`)).json()) as {
        detail?: { eu_av?: { trusted_list?: Record<string, unknown> } };
      };
      const report = body.detail?.eu_av?.trusted_list;
      if (report && ready(report)) return report;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the trusted list never reached the expected state');
  }
  const answerStatus = async (signer: Issued): Promise<number> =>
    (await answerByHand((await openChallenge(await client())).walletUrl, signer, [signer])).status;
  const issuedText = (date: Date): string => `${date.toISOString().split('.')[0]}.000Z`;

  it("an ETSI trusted list over https: its signers pass, beside the files' anchors; a newer list replaces it without restart; a tampered or older one keeps the last good and says so", async () => {
    const first = await listReport((report) => report['list_issued'] === issuedText(firstList.issued));
    expect(first).to.include({ source: 'https', outcome: 'ok', anchors: 1 });
    const onSecondList = await makeSigner('On the second list', await makeRoot('Listed'));
    const second: ListShape = {
      signer: listSigner,
      services: [{ certificate: onSecondList.der }],
      issued: new Date(Date.now() - DAY),
    };
    expect(await answerStatus(onFirstList)).to.equal(200);
    expect(await answerStatus(onSecondList)).to.equal(400);

    listServer.serve(signedTrustedList(second));
    expect(await listReport((report) => report['list_issued'] === issuedText(second.issued))).to.include({
      outcome: 'ok',
      anchors: 1,
    });
    expect(await answerStatus(onSecondList)).to.equal(200);
    expect(await answerStatus(onFirstList)).to.equal(400);

    // The same list with one more service slipped in after signing: refused, the second list stays in use.
    const intruder = await makeSigner('Intruder', undefined);
    listServer.serve(
      signedTrustedList({
        ...second,
        issued: new Date(),
        tamper: (list) => list.replace(onSecondList.der.toString('base64'), intruder.der.toString('base64')),
      }),
    );
    const tampered = await listReport((report) => report['outcome'] === 'failed');
    expect(tampered).to.include({ kept_last_good: true, anchors: 1, list_issued: issuedText(second.issued) });
    expect(tampered['problem']).to.match(/does not verify with the configured signer/);
    expect(logLines.some((line) => line.includes('eu_av trusted list refresh failed'))).to.equal(true);
    expect(await answerStatus(intruder)).to.equal(400);
    expect(await answerStatus(onSecondList)).to.equal(200);

    // A genuine but older list (a replay of the first) does not roll the anchors back.
    listServer.serve(signedTrustedList(firstList));
    expect(await listReport((report) => /older/.test(String(report['problem'])))).to.include({
      kept_last_good: true,
      list_issued: issuedText(second.issued),
    });
    listServer.serve(503);
    expect(await listReport((report) => /answered 503/.test(String(report['problem'])))).to.include({
      kept_last_good: true,
    });
    expect(await answerStatus(onSecondList)).to.equal(200);
  });

  /** What a forger or a badly issued wallet can put in the issuer signature: the key that signs, and x5chain. */
  const badSigners: Array<[string, () => Promise<{ key: Issued; x5chain: Issued[] }>, RegExp, string?]> = [
    [
      "the forgery: a self-signed certificate of the forger's own first, the issuer's genuine signer certificate appended",
      async () => {
        const forger = await makeSigner('Forger', undefined);
        return { key: forger, x5chain: [forger, await makeSigner('Hand-made', handRoot), handRoot] };
      },
      /certificate 1 did not issue certificate 0/,
    ],
    [
      'a CA as signer',
      async () => {
        const signer = await makeSigner('CA', handRoot, { ca: true });
        return { key: signer, x5chain: [signer] };
      },
      /is a CA/,
    ],
    [
      'a signer without the mdoc document-signer extended key usage',
      async () => {
        const signer = await makeSigner('No EKU', handRoot, { eku: undefined });
        return { key: signer, x5chain: [signer] };
      },
      /lacks the mdoc document-signer/,
    ],
    [
      'a signer whose extended key usage is TLS server authentication',
      async () => {
        const signer = await makeSigner('TLS', handRoot, { eku: [TLS_SERVER_EKU] });
        return { key: signer, x5chain: [signer] };
      },
      /lacks the mdoc document-signer/,
    ],
    [
      'a path through an intermediate the operator does not trust',
      async () => {
        const intermediate = await makeIntermediate('Elsewhere', await makeRoot('Elsewhere', { ca: 1 }));
        const signer = await makeSigner('Elsewhere', intermediate);
        return { key: signer, x5chain: [signer, intermediate] };
      },
      /no path to a trusted certificate/,
    ],
    [
      'an expired signer certificate',
      async () => {
        const signer = await makeSigner('Expired', handRoot, {
          notBefore: new Date(Date.now() - 30 * DAY),
          notAfter: new Date(Date.now() - DAY),
        });
        return { key: signer, x5chain: [signer] };
      },
      /signer certificate is not valid now/,
      'wallet_expired',
    ],
    [
      'an intermediate not valid yet',
      async () => {
        const intermediate = await makeIntermediate('Not yet', handDeepRoot, { notBefore: new Date(Date.now() + DAY) });
        const signer = await makeSigner('Not yet', intermediate);
        return { key: signer, x5chain: [signer, intermediate] };
      },
      /a certificate of the signer's path is not valid now/,
    ],
  ];
  for (const [what, made, problem, notice = 'wallet_untrusted'] of badSigners) {
    it(`${what}: refused, no code reaches the website`, async () => {
      const fixture = await client();
      const { browser, page, walletUrl } = await openChallenge(fixture);
      const { key, x5chain } = await made();
      const answer = await answerByHand(walletUrl, key, x5chain);
      expect(answer).to.deep.include({
        status: 400,
        body: { error: 'invalid_request', error_description: 'the presentation was not accepted' },
      });
      expect(lastProblem()).to.match(problem);
      const after = await expectRefused(answer, browser, page, fixture, notice);
      // Back at the choice of methods; the browser was never sent to the website (where a code would travel).
      expect(after.url.pathname).to.match(/\/choose$/);
      expect(after.location).to.equal(undefined);
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
    const answer = await postToVerifier(request.responseUri, {
      vp_token: vpTokenOf(signed, 'age_attestation'),
      state: request.state,
    });
    expect(answer.status).to.equal(400);
    expect(lastProblem()).to.match(/digest/);
    await expectRefused(
      { status: answer.status, body: await answer.json() },
      browser,
      page,
      fixture,
      'wallet_untrusted',
    );
  });

  it('a response signed for another nonce is refused: the device signature does not cover our transcript', async () => {
    const fixture = await client();
    const { browser, page, walletUrl } = await openChallenge(fixture);
    const answer = await answerRequest(walletUrl, await issueAttestation(issuer, { age_over_18: true }), {
      nonce: 'a-nonce-we-never-issued',
    });
    expect(answer.status).to.equal(400);
    expect(lastProblem()).to.match(/Device signature must be valid/);
    await expectRefused(answer, browser, page, fixture);
  });

  it('a replayed response is refused, and the first answer stands', async () => {
    const fixture = await client();
    const { browser, page, walletUrl } = await openChallenge(fixture);
    const first = await answerRequest(walletUrl, await issueAttestation(issuer, { age_over_18: true }));
    expect(first.status).to.equal(200);
    const replay = await postToVerifier(readWalletRequest(walletUrl).responseUri, {
      vp_token: first.vpToken,
      state: readWalletRequest(walletUrl).state,
    });
    expect(replay.status).to.equal(400);
    expect(await replay.json()).to.deep.equal({
      error: 'invalid_request',
      error_description: 'this request is unknown, was replaced, or was already answered',
    });
    const result = await proceed(browser, page, fixture);
    expect(result.url.pathname).to.match(/\/result$/);
  });

  it('the same answer posted three times at once counts once', async () => {
    const fixture = await client();
    const { walletUrl } = await openChallenge(fixture);
    const request = readWalletRequest(walletUrl);
    const { presentation, vpTokenOf } = await import('./wallet.js');
    const vpToken = vpTokenOf(
      await presentation(await issueAttestation(issuer, { age_over_18: true }), request),
      'age_attestation',
    );
    const answers = await Promise.all(
      [1, 2, 3].map(() => postToVerifier(request.responseUri, { vp_token: vpToken, state: request.state })),
    );
    expect(answers.map((answer) => answer.status).sort((a, b) => a - b)).to.deep.equal([200, 400, 400]);
  });

  it('a response made for another interaction is refused where it is posted; the interaction it was made for still waits', async () => {
    const fixture = await client();
    const mine = await openChallenge(fixture);
    const theirs = await openChallenge(fixture);
    const theirRequest = readWalletRequest(theirs.walletUrl);
    const { presentation, vpTokenOf } = await import('./wallet.js');
    const signed = await presentation(await issueAttestation(issuer, { age_over_18: true }), theirRequest);
    const answer = await postToVerifier(theirRequest.responseUri, {
      vp_token: vpTokenOf(signed, 'age_attestation'),
      state: readWalletRequest(mine.walletUrl).state,
    });
    expect(answer.status).to.equal(400);
    expect(lastProblem()).to.match(/Device signature must be valid/);
    await expectRefused({ status: 400, body: await answer.json() }, mine.browser, mine.page, fixture);
    expect(await statusOf(theirs.browser, theirs.page)).to.deep.equal({ answered: false });
  });

  it('malformed CBOR is refused with 400', async () => {
    const fixture = await client();
    const { browser, page, walletUrl } = await openChallenge(fixture);
    const request = readWalletRequest(walletUrl);
    const answer = await postToVerifier(request.responseUri, {
      vp_token: JSON.stringify({ age_attestation: [Buffer.from([0xa5, 0x01, 0xff, 0x62]).toString('base64url')] }),
      state: request.state,
    });
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
    await expectRefused({ status: 200, body: await answer.json() }, browser, page, fixture, 'wallet_declined');
  });

  /** The two requests the page offers the browser's Digital Credentials API, as its script reads them: org-iso-mdoc first (the EUDI Android wallet reads only the first). */
  type BrowserRequests = [
    { protocol: string; data: { deviceRequest: string; encryptionInfo: string } },
    { protocol: string; data: { nonce: string; response_mode: string } },
  ];
  const browserRequests = (page: Page): BrowserRequests =>
    JSON.parse(decodeHtml(/data-requests="([^"]*)"/.exec(page.html)![1]!)) as BrowserRequests;

  it("through the browser's Digital Credentials API over OpenID4VP: the answer bound to our origin passes; one bound to the response URI does not", async () => {
    const fixture = await client();
    const { browser, page, walletUrl } = await openChallenge(fixture);
    const [annexC, openid4vp] = browserRequests(page);
    expect([annexC.protocol, openid4vp.protocol]).to.deep.equal(['org-iso-mdoc', 'openid4vp-v1-unsigned']);
    expect(openid4vp.data.response_mode).to.equal('dc_api');
    const request = { ...readWalletRequest(walletUrl), nonce: openid4vp.data.nonce };
    const attestation = await issueAttestation(issuer, { age_over_18: true });
    const { presentation, vpTokenOf } = await import('./wallet.js');

    const wrongBinding = await browser.submit(
      formOf(page, { id: 'eu-av-dc-api' }),
      {
        protocol: 'openid4vp-v1-unsigned',
        data: vpTokenOf(await presentation(attestation, request), 'age_attestation'),
      },
      undefined,
      { stopAt: fixture.redirectUri },
    );
    expect(notices(wrongBinding)).to.include('failed');
    expect(lastProblem()).to.match(/Device signature must be valid/);

    const again = await openChallenge(fixture);
    const nonce = browserRequests(again.page)[1].data.nonce;
    const signed = await presentation(attestation, { ...request, nonce, origin: new URL(app.url).origin });
    const result = await again.browser.submit(
      formOf(again.page, { id: 'eu-av-dc-api' }),
      { protocol: 'openid4vp-v1-unsigned', data: vpTokenOf(signed, 'age_attestation') },
      undefined,
      { stopAt: fixture.redirectUri },
    );
    expect(result.url.pathname).to.match(/\/result$/);
  });

  describe("through the browser's Digital Credentials API under ISO/IEC 18013-7 Annex C (org-iso-mdoc)", () => {
    it("asks for the AV attestation's age_over_18, not retained, with a fresh HPKE key each page view", async () => {
      const fixture = await client();
      const [first, second] = [await openChallenge(fixture), await openChallenge(fixture)];
      const { Decoder } = await import('cbor-x');
      const read = new Decoder({ useRecords: false, mapsAsObjects: true });
      const { data } = browserRequests(first.page)[0];
      const deviceRequest = read.decode(Buffer.from(data.deviceRequest, 'base64url')) as {
        version: string;
        docRequests: Array<{ itemsRequest: { value: Uint8Array } }>;
      };
      expect(deviceRequest.version).to.equal('1.0');
      expect(read.decode(deviceRequest.docRequests[0]!.itemsRequest.value)).to.deep.equal({
        docType: 'eu.europa.ec.av.1',
        nameSpaces: { 'eu.europa.ec.av.1': { age_over_18: false } },
      });
      const [kind, info] = read.decode(Buffer.from(data.encryptionInfo, 'base64url')) as [
        string,
        { nonce: Uint8Array; recipientPublicKey: Record<string, unknown> },
      ];
      expect(kind).to.equal('dcapi');
      expect(info.nonce).to.have.length(16);
      expect(info.recipientPublicKey).to.include({ 1: 2, '-1': 1 });
      expect(browserRequests(second.page)[0].data.encryptionInfo).to.not.equal(data.encryptionInfo);
    });

    it('an answer sealed to our key, device-signed over our origin, passes to Resources', async () => {
      const fixture = await client();
      const { browser, page } = await openChallenge(fixture);
      const { annexCAnswer } = await import('./wallet.js');
      const response = await annexCAnswer(
        await issueAttestation(issuer, { age_over_18: true }),
        browserRequests(page)[0].data,
        new URL(app.url).origin,
      );
      const result = await browser.submit(
        formOf(page, { id: 'eu-av-dc-api' }),
        { protocol: 'org-iso-mdoc', data: response },
        undefined,
        { stopAt: fixture.redirectUri },
      );
      expect(result.url.pathname).to.match(/\/result$/);
      const entry = JSON.parse(
        logLines.filter((line) => line.includes('eu_av presentation received')).at(-1)!,
      ) as Record<string, unknown>;
      expect(entry).to.include({
        via: 'dc_api',
        protocol: 'org-iso-mdoc',
        verdict: 'over',
        doctype: 'eu.europa.ec.av.1',
      });
      const website = await continueToWebsite(browser, result, fixture.redirectUri);
      const token = await requestToken(app, { code: website.searchParams.get('code')!, client: fixture });
      const { access_token: accessToken } = (await token.json()) as { access_token: string };
      const { resources } = (await (await readResources(app, accessToken)).json()) as {
        resources: Record<string, unknown>;
      };
      expect(resources).to.include({ verified: true, assurance_level: 'ENHANCED' });
    });

    const refused: Array<
      [string, (data: { deviceRequest: string; encryptionInfo: string }) => Promise<string>, RegExp]
    > = [
      [
        'device-signed for another origin',
        async (data) =>
          (await import('./wallet.js')).annexCAnswer(
            await issueAttestation(issuer, { age_over_18: true }),
            data,
            new URL(app.url).origin,
            { signedOrigin: 'https://evil.example' },
          ),
        /Device signature must be valid/,
      ],
      [
        'sealed to another key',
        async (data) => {
          const { createECDH } = await import('node:crypto');
          const other = createECDH('prime256v1');
          other.generateKeys();
          return (await import('./wallet.js')).annexCAnswer(
            await issueAttestation(issuer, { age_over_18: true }),
            data,
            new URL(app.url).origin,
            { sealTo: other.getPublicKey() },
          );
        },
        /does not open/,
      ],
      [
        'sealed for another origin',
        async (data) =>
          (await import('./wallet.js')).annexCAnswer(
            await issueAttestation(issuer, { age_over_18: true }),
            data,
            'https://evil.example',
            { signedOrigin: 'https://evil.example' },
          ),
        /does not open/,
      ],
      [
        'not an encrypted response',
        async () => Buffer.from([0x82, 0x65, 0x64, 0x63, 0x61, 0x70, 0x69, 0xa0]).toString('base64url'),
        /does not open/,
      ],
    ];
    for (const [what, answer, problem] of refused) {
      it(`an answer ${what} fails, and the visitor is not verified`, async () => {
        const fixture = await client();
        const { browser, page } = await openChallenge(fixture);
        const result = await browser.submit(
          formOf(page, { id: 'eu-av-dc-api' }),
          { protocol: 'org-iso-mdoc', data: await answer(browserRequests(page)[0].data) },
          undefined,
          { stopAt: fixture.redirectUri },
        );
        expect(notices(result)).to.include('failed');
        expect(lastProblem()).to.match(problem);
      });
    }
  });

  describe('answer shapes the EU reference verifier reads', () => {
    it("vp_token[<credential id>]=<presentation> form fields (the iOS app's shape) pass like the JSON vp_token", async () => {
      const fixture = await client();
      const { browser, page, walletUrl } = await openChallenge(fixture);
      const answer = await answerRequest(walletUrl, await issueAttestation(issuer, { age_over_18: true }), {}, 'form');
      expect(answer).to.deep.include({ status: 200, body: {} });
      const result = await proceed(browser, page, fixture);
      expect(result.url.pathname).to.match(/\/result$/);
    });

    const looser: Array<[string, (state: string, presentation: string) => Record<string, string>]> = [
      ['an id we did not ask for', (state, presentation) => ({ 'vp_token[age]': presentation, state })],
      ['a nested field', (state, presentation) => ({ 'vp_token[age_attestation][0]': presentation, state })],
      ['the field twice', (state, presentation) => ({ 'vp_token[age_attestation]': presentation, state })],
      [
        'both shapes at once',
        (state, presentation) => ({
          'vp_token[age_attestation]': presentation,
          vp_token: JSON.stringify({ age_attestation: [presentation] }),
          state,
        }),
      ],
      [
        'two credentials at once',
        (state, presentation) => ({ 'vp_token[age_attestation]': presentation, 'vp_token[pid]': presentation, state }),
      ],
    ];
    for (const [what, fields] of looser) {
      it(`${what}: refused with 400; the request still waits unless a presentation was read`, async () => {
        const fixture = await client();
        const { browser, page, walletUrl } = await openChallenge(fixture);
        const request = readWalletRequest(walletUrl);
        const { presentation } = await import('./wallet.js');
        const signed = Buffer.from(
          await presentation(await issueAttestation(issuer, { age_over_18: true }), request),
        ).toString('base64url');
        const body = new URLSearchParams(fields(request.state, signed));
        if (what === 'the field twice') body.append('vp_token[age_attestation]', signed);
        const answer = await fetch(request.responseUri, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: body.toString(),
        });
        expect(answer.status).to.equal(400);
        const counted = (await statusOf(browser, page)) as { answered: boolean };
        expect(counted.answered).to.equal(what === 'an id we did not ask for' || what === 'two credentials at once');
        if (counted.answered) expect(notices(await proceed(browser, page, fixture))).to.include('failed');
      });
    }
  });

  describe('the PID (eu.europa.ec.eudi.pid.1) answers like the AV attestation', () => {
    it('a PID proving age_over_18 passes to Resources; the log records that the PID answered', async () => {
      const fixture = await client();
      const { browser, page, walletUrl } = await openChallenge(fixture);
      const answer = await answerRequest(
        walletUrl,
        await issueAttestation(issuer, { age_over_18: true }, {}, PID_DOCTYPE),
      );
      expect(answer.status).to.equal(200);
      expect(Object.keys(JSON.parse(answer.vpToken) as object)).to.deep.equal(['pid']);
      const entry = JSON.parse(
        logLines.filter((line) => line.includes('eu_av presentation received')).at(-1)!,
      ) as Record<string, unknown>;
      expect(entry).to.include({ doctype: 'eu.europa.ec.eudi.pid.1', verdict: 'over', channel: 'cross_device' });
      const website = await continueToWebsite(browser, await proceed(browser, page, fixture), fixture.redirectUri);
      const token = await requestToken(app, { code: website.searchParams.get('code')!, client: fixture });
      const { access_token: accessToken } = (await token.json()) as { access_token: string };
      const { resources } = (await (await readResources(app, accessToken)).json()) as {
        resources: Record<string, unknown>;
      };
      expect(resources).to.include({ verified: true, assurance_level: 'ENHANCED', age_threshold: 18 });
    });

    it('a PID with age_over_18 false fails; an AV attestation sent as the PID is refused', async () => {
      const fixture = await client();
      const under = await openChallenge(fixture);
      expect(
        (await answerRequest(under.walletUrl, await issueAttestation(issuer, { age_over_18: false }, {}, PID_DOCTYPE)))
          .status,
      ).to.equal(200);
      expect(notices(await proceed(under.browser, under.page, fixture))).to.include('wallet_under_age');

      const mislabelled = await openChallenge(fixture);
      const request = readWalletRequest(mislabelled.walletUrl);
      const { presentation, vpTokenOf } = await import('./wallet.js');
      const signed = await presentation(await issueAttestation(issuer, { age_over_18: true }), request);
      const answer = await postToVerifier(request.responseUri, {
        vp_token: vpTokenOf(signed, 'pid'),
        state: request.state,
      });
      expect(answer.status).to.equal(400);
      expect(lastProblem()).to.equal('not a document type this request accepts');
    });
  });

  describe('same device: the wallet brings this browser back with a one-time response code', () => {
    const verificationCount = async (): Promise<number> =>
      Number(
        (
          await app.provider.db('verifications').where('method', 'eu_av').count<Array<{ count: string }>>('* as count')
        )[0]!.count,
      );

    it('the pass counts only once this browser presents the code, without JavaScript; then it is in Resources', async () => {
      const fixture = await client();
      const { browser, page, linkUrl } = await openChallenge(fixture);
      const answer = await answerRequest(linkUrl, await issueAttestation(issuer, { age_over_18: true }));
      expect(answer.status).to.equal(200);
      const back = new URL((answer.body as { redirect_uri: string }).redirect_uri);
      expect(back.pathname).to.equal(page.url.pathname.replace(/start$/, 'return'));
      expect(back.searchParams.get('response_code')).to.match(/^[\w-]{32}$/);
      // The one-time code must not be kept by any cache on the way.
      expect(answer.cacheControl).to.equal('no-store');
      // Not before: the page and "continue" still wait, and say where the check finishes.
      expect(await statusOf(browser, page)).to.deep.equal({ answered: false });
      expect((await proceed(browser, page, fixture)).html).to.include(
        'Your app on this phone has answered. The check finishes in the browser window your app opened',
      );
      const result = await browser.open(back, { stopAt: fixture.redirectUri });
      expect(result.url.pathname).to.match(/\/result$/);
      const website = await continueToWebsite(browser, result, fixture.redirectUri);
      const token = await requestToken(app, { code: website.searchParams.get('code')!, client: fixture });
      const { access_token: accessToken } = (await token.json()) as { access_token: string };
      const { resources } = (await (await readResources(app, accessToken)).json()) as {
        resources: Record<string, unknown>;
      };
      expect(resources).to.include({ verified: true, assurance_level: 'ENHANCED' });
    });

    // On PostgreSQL the eight requests overlap (without the compare-and-swap, several verifications are recorded); the
    // embedded database runs one statement at a time, so there they mostly arrive one after another.
    it('presented eight times at once, the code records one verification', async () => {
      const fixture = await client();
      const { browser, linkUrl } = await openChallenge(fixture);
      const answer = await answerRequest(linkUrl, await issueAttestation(issuer, { age_over_18: true }));
      const back = (answer.body as { redirect_uri: string }).redirect_uri;
      const before = await verificationCount();
      const pages = await Promise.all(
        Array.from({ length: 8 }, () => browser.open(back, { stopAt: fixture.redirectUri })),
      );
      expect(await verificationCount()).to.equal(before + 1);
      expect(pages.filter((result) => /\/result$/.test(result.url.pathname)).length).to.be.at.least(1);
    });

    it('session fixation: another browser opening the link is refused, and the browser that started the check never passes without it', async () => {
      const fixture = await client();
      const attacker = await openChallenge(fixture);
      // The attacker sends their same-device link to an adult, whose wallet answers it.
      const answer = await answerRequest(attacker.linkUrl, await issueAttestation(issuer, { age_over_18: true }));
      const back = (answer.body as { redirect_uri: string }).redirect_uri;
      const victim = new Browser(undefined, { headers: { 'accept-language': 'en' } });
      const refused = await victim.open(back, { stopAt: fixture.redirectUri });
      expect(refused.status).to.equal(400);
      expect(await statusOf(attacker.browser, attacker.page)).to.deep.equal({ answered: false });
      expect((await proceed(attacker.browser, attacker.page, fixture)).url.pathname).to.match(
        /\/challenge\/eu_av\/continue$/,
      );
      const before = await verificationCount();
      // A code made for another interaction does not fit this one either.
      const other = await openChallenge(fixture);
      const theirs = new URL(
        (
          (await answerRequest(other.linkUrl, await issueAttestation(issuer, { age_over_18: true }))).body as {
            redirect_uri: string;
          }
        ).redirect_uri,
      );
      const mine = new URL(attacker.page.url.pathname.replace(/start$/, 'return'), app.url);
      mine.search = theirs.search;
      const page = await attacker.browser.open(mine, { stopAt: fixture.redirectUri });
      expect(page.url.pathname).to.match(/\/challenge\/eu_av\/return$/);
      expect(page.html).to.include('Your app on this phone has answered.');
      expect(await verificationCount()).to.equal(before);
    });

    it('a wallet on this device that says under age brings the visitor back, with no code, to the failure', async () => {
      const fixture = await client();
      const { browser, page, linkUrl } = await openChallenge(fixture);
      const answer = await answerRequest(linkUrl, await issueAttestation(issuer, { age_over_18: false }));
      const back = new URL((answer.body as { redirect_uri: string }).redirect_uri);
      expect(back.searchParams.has('response_code')).to.equal(false);
      expect(back.pathname).to.equal(page.url.pathname.replace(/start$/, 'return'));
      expect(notices(await browser.open(back, { stopAt: fixture.redirectUri }))).to.include('wallet_under_age');
    });
  });

  describe('limits per request and per authorization; per address a ceiling generous for carrier NAT', () => {
    it('one address gets 200 answers in ten minutes, then 429 naming no one else; another address behind the proxy still answers', async () => {
      const post = (address: string): Promise<Response> =>
        fetch(`${app.url}/v1/oauth2/eu-av/response`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
          body: 'state=unknown.state&error=access_denied',
        });
      const statuses = [];
      for (let index = 0; index < 200; index += 1) statuses.push((await post('198.51.100.7')).status);
      expect(new Set(statuses)).to.deep.equal(new Set([400]));
      const limited = await post('198.51.100.7');
      expect(limited.status).to.equal(429);
      expect(limited.headers.get('cache-control')).to.equal('no-store');
      expect((await post('198.51.100.8')).status).to.equal(400);
    });

    it('after 30 answers in one authorization the wallet gets 429 and the visitor is told why nothing arrives', async () => {
      const fixture = await client();
      const { browser, page } = await openChallenge(fixture);
      let current = page;
      for (let answer = 0; answer < 30; answer++) {
        current = await browser.open(page.url, { stopAt: fixture.redirectUri });
        const request = readWalletRequest(
          readQrSvg(/class="eu-av-qr"[\s\S]*?(<svg[\s\S]*?<\/svg>)/.exec(current.html)![1]!),
        );
        expect(
          (await postToVerifier(request.responseUri, { error: 'access_denied', state: request.state })).status,
        ).to.equal(200);
      }
      current = await browser.open(page.url, { stopAt: fixture.redirectUri });
      const request = readWalletRequest(
        readQrSvg(/class="eu-av-qr"[\s\S]*?(<svg[\s\S]*?<\/svg>)/.exec(current.html)![1]!),
      );
      const refused = await postToVerifier(request.responseUri, { error: 'access_denied', state: request.state });
      expect(refused.status).to.equal(429);
      expect(await statusOf(browser, current)).to.deep.equal({ answered: false, limited: true });
      expect((await proceed(browser, current, fixture)).html).to.include(
        'Your app has sent more answers than this check takes.',
      );
    });

    it('a request that has had its five answers refuses more with 429, and its page says so', async () => {
      const fixture = await client();
      const { browser, page, walletUrl } = await openChallenge(fixture);
      const request = readWalletRequest(walletUrl);
      const { sha256 } = await import('../../../../lib/security/hashing.js');
      const perRequest = app.provider.runtime.rateLimits.limiter('eu-av-response-request');
      for (let spent = 0; spent < 5; spent++) await perRequest.consume(sha256(request.state));
      expect((await answerRequest(walletUrl, await issueAttestation(issuer, { age_over_18: true }))).status).to.equal(
        429,
      );
      expect(await statusOf(browser, page)).to.deep.equal({ answered: false, limited: true });
    });
  });

  it('a check whose stored state has an older shape (a page opened before an upgrade) starts afresh: no error, no answer', async () => {
    const fixture = await client();
    const { browser, page, walletUrl } = await openChallenge(fixture);
    const uid = page.url.pathname.split('/')[4]!;
    const { sealer } = app.provider.runtime;
    await app.provider
      .db('interaction_progress')
      .where('uid', uid)
      .update({ challenge_state_sealed: sealer.seal(JSON.stringify({ state: 'old', nonce: 'old', threshold: 18 })) });
    expect(await statusOf(browser, page)).to.deep.equal({ answered: false });
    expect((await answerRequest(walletUrl, await issueAttestation(issuer, { age_over_18: true }))).status).to.equal(
      400,
    );
    const again = await proceed(browser, page, fixture);
    expect(again.status).to.equal(200);
    expect(
      readWalletRequest(readQrSvg(/class="eu-av-qr"[\s\S]*?(<svg[\s\S]*?<\/svg>)/.exec(again.html)![1]!)).state,
    ).to.not.equal(readWalletRequest(walletUrl).state);
  });

  it('"continue" before the wallet answered stays on the page and says so', async () => {
    const fixture = await client();
    const { browser, page } = await openChallenge(fixture);
    const again = await proceed(browser, page, fixture);
    expect(again.status).to.equal(200);
    expect(again.html).to.include('Your app has not answered yet.');
  });

  it("is offered by default once configured, beside the website's challenges; a website record cannot list it", async () => {
    const fixture = await client('LIVE', ['ticket']);
    const browser = new Browser(undefined, { headers: { 'accept-language': 'en' } });
    const prompt = await browser.open(new URL(authorizationUrl(app.url, fixture, 'checker', { state: 's' })), {
      stopAt: fixture.redirectUri,
    });
    const choice = await browser.submit(
      formOf(prompt, { action: '/consent' }),
      {},
      { name: 'decision', value: 'accept' },
      { stopAt: fixture.redirectUri },
    );
    expect(choice.html).to.include('EU age-verification app');
    expect(choice.html).to.include('/challenge/eu_av/start');
  });

  it('a TEST client gets the sandbox, like every other challenge', async () => {
    const fixture = await client('TEST');
    const browser = new Browser(undefined, { headers: { 'accept-language': 'en' } });
    const prompt = await browser.open(
      new URL(authorizationUrl(app.url, fixture, 'checker', { state: 's', challenges: 'eu_av' })),
      { stopAt: fixture.redirectUri },
    );
    const page = await browser.submit(
      formOf(prompt, { action: '/consent' }),
      {},
      { name: 'decision', value: 'accept' },
      { stopAt: fixture.redirectUri },
    );
    expect(page.url.pathname).to.match(/\/challenge\/eu_av\/start$/);
    expect(formOf(page, { action: /\/challenge\/eu_av\/submit$/ })).to.have.property('action');
    expect(page.html).to.not.include('Open my app on this device');
  });
});
