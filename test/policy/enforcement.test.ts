import { expect } from 'chai';
import { decodeJwt } from 'jose';
import { updateWebsitePolicy } from '../../lib/websites/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Browser, formOf, linksWithClass, locationOf, type Page } from '../helpers/browser.js';
import { createClientFixture, createWebmasterFixture, TEST_ORIGIN, type ClientFixture } from '../helpers/fixtures.js';
import { authorizationUrl, readResources, redeem, requestToken } from '../helpers/relying-party.js';
import { accept, callbackOf, continueWithoutSaving, expectPage, submitSandbox } from '../helpers/visitor.js';

// A website's policy enforced in the sandbox flow, for visitors located by a trusted proxy's headers.

const IN_FRANCE = { 'CF-IPCountry': 'FR' };
const IN_GERMANY = { 'CF-IPCountry': 'DE' };
const SPEC_RESOURCES = [
  'verified',
  'uid',
  'country',
  'country_subdivision',
  'assurance_level',
  'age_threshold',
  'reused',
  'expires_at',
  'expires_in',
];

/** The challenge names offered on a choice page, in their order. */
const offered = (page: Page): string[] => [...page.html.matchAll(/id="challenge-(\w+)"/g)].map((match) => match[1]!);

describe('policy: enforced in the flow', () => {
  let app: TestApp;
  let client: ClientFixture;

  before(async () => {
    app = await startTestApp({
      env: {
        TRUST_PROXY: 'true',
        GEO_COUNTRY_HEADER: 'CF-IPCountry',
        GEO_SUBDIVISION_HEADER: 'X-Region',
        POLICY_PRESETS: 'fr',
      },
    });
    const { runtime } = app.provider;
    const webmaster = await createWebmasterFixture(runtime);
    client = await createClientFixture(runtime, webmaster.id, {
      environment: 'TEST',
      challenges: ['selfie', 'email_age', 'ticket'],
    });
    await updateWebsitePolicy(
      runtime,
      webmaster.id,
      client.websiteId,
      {
        rules: [
          {
            regions: ['FR'],
            challenges: ['selfie', 'ticket'],
            minimumAssuranceLevel: 'ENHANCED',
            reuseMaxAgeSeconds: 600,
          },
        ],
      },
      TEST_ORIGIN,
    );
  });
  after(() => app.close());

  async function choicePage(
    headers: Record<string, string>,
    language = 'en',
  ): Promise<{ browser: Browser; page: Page }> {
    const browser = new Browser(app.url, { headers: { ...headers, 'accept-language': language } });
    const page = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));
    return { browser, page };
  }

  const sandboxOf = (browser: Browser, page: Page, name: string) =>
    browser.open(linksWithClass(page, 'button').find((url) => url.pathname.includes(`/challenge/${name}/`))!);

  it("offers a visitor in France only the allowed challenges, the double-anonymity one first; elsewhere the website's", async () => {
    expect(offered((await choicePage(IN_FRANCE)).page)).to.deep.equal(['ticket', 'selfie']);
    expect(offered((await choicePage(IN_GERMANY)).page)).to.deep.equal(['selfie', 'email_age', 'ticket']);
  });

  it('takes a changed policy into account at once, though the client is cached', async () => {
    const { runtime } = app.provider;
    const webmaster = await createWebmasterFixture(runtime);
    const other = await createClientFixture(runtime, webmaster.id, {
      environment: 'TEST',
      challenges: ['selfie', 'email_age', 'ticket'],
    });
    const offeredTo = async () => {
      const browser = new Browser(app.url, { headers: { ...IN_GERMANY, 'accept-language': 'en' } });
      return offered(expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, other)))));
    };
    expect(await offeredTo()).to.deep.equal(['selfie', 'email_age', 'ticket']);
    await updateWebsitePolicy(
      runtime,
      webmaster.id,
      other.websiteId,
      { rules: [{ regions: ['DE'], challenges: ['email_age', 'ticket'] }] },
      TEST_ORIGIN,
    );
    expect(await offeredTo()).to.deep.equal(['email_age', 'ticket']);
  });

  it('refuses a challenge the rule leaves out, even by its URL', async () => {
    const { browser, page } = await choicePage(IN_FRANCE);
    const uid = /\/interaction\/([^/]+)\//.exec(linksWithClass(page, 'button')[0]!.pathname)![1];
    const response = await browser.request(`/v1/oauth2/interaction/${uid}/challenge/email_age/start`);
    expect(response.status).to.equal(404);
  });

  it('does not complete a sandbox pass below the minimum level: the visitor is told why, in their language, and no verification is recorded', async () => {
    const before = await app.provider.db('verifications').count<Array<{ count: string }>>('* as count');
    for (const [language, text] of [
      ['en', 'did not give the level of assurance'],
      ['fr', "n'a pas atteint le niveau de garantie"],
    ] as const) {
      const { browser, page } = await choicePage(IN_FRANCE, language);
      const back = expectPage(
        await submitSandbox(browser, await sandboxOf(browser, page, 'ticket'), { level: 'STANDARD', country: 'FR' }),
      );
      expect(back.url.pathname).to.match(/\/choose$/);
      expect(back.html).to.contain(text.replace("'", '&#39;'));
      expect(offered(back)).to.deep.equal(['ticket', 'selfie']);
    }
    expect(await app.provider.db('verifications').count<Array<{ count: string }>>('* as count')).to.deep.equal(before);
  });

  it("completes a sandbox pass at the minimum level and records the rules that applied; Resources stays the spec's, the signed token carries them", async () => {
    const { browser, page } = await choicePage(IN_FRANCE);
    const result = expectPage(
      await submitSandbox(browser, await sandboxOf(browser, page, 'selfie'), { level: 'ENHANCED', country: 'FR' }),
    );
    const code = callbackOf(await continueWithoutSaving(browser, result), client).get('code')!;
    const token = (await (await requestToken(app, { code, client })).json()) as { access_token: string };
    const json = (await (await readResources(app, token.access_token)).json()) as {
      resources: Record<string, unknown>;
    };
    expect(Object.keys(json.resources)).to.have.members(SPEC_RESOURCES);
    expect(json.resources).to.include({ country: 'FR', assurance_level: 'ENHANCED', age_threshold: 18 });
    const row = await app.provider
      .db('verifications')
      .where('uid', String(json.resources.uid))
      .first<{ policy: unknown }>('policy');
    const applied = [
      { kind: 'preset', preset: 'fr', version: '1', rule: 0 },
      { kind: 'website', rule: 0 },
    ];
    expect(row.policy).to.deep.equal(applied);
    const signed = await fetch(`${app.url}/v1/oauth2/resources`, {
      headers: { authorization: `Bearer ${token.access_token}`, accept: 'application/jwt' },
    });
    expect(decodeJwt(await signed.text()).policy).to.deep.equal(applied);
  });

  it('gives test_outcome=pass no code below the minimum level, and a code at it', async () => {
    const browser = new Browser(app.url, { headers: IN_FRANCE });
    const below = callbackOf(
      await browser.open(
        authorizationUrl(app.url, client, 'checker', { test_outcome: 'pass', test_level: 'STANDARD' }),
      ),
      client,
    );
    expect(below.get('code')).to.equal(null);
    expect(below.get('error')).to.equal('access_denied');
    expect(below.get('error_description')).to.contain('ENHANCED');
    const at = callbackOf(
      await browser.open(
        authorizationUrl(app.url, client, 'checker', { test_outcome: 'pass', test_level: 'ENHANCED' }),
      ),
      client,
    );
    expect(await redeem(app, client, at.get('code')!)).to.include({ assurance_level: 'ENHANCED', country: 'FR' });
    // Elsewhere the website's rule does not apply: STANDARD is enough.
    const germany = new Browser(app.url, { headers: IN_GERMANY });
    const elsewhere = callbackOf(
      await germany.open(
        authorizationUrl(app.url, client, 'checker', { test_outcome: 'pass', test_level: 'STANDARD' }),
      ),
      client,
    );
    expect(elsewhere.get('code')).to.be.a('string');
  });

  it('answers the effective rule at /v1/requirement for a visitor in France', async () => {
    const body = (await (
      await fetch(`${app.url}/v1/requirement?key=${client.keys.TEST}`, { headers: IN_FRANCE })
    ).json()) as Record<string, unknown>;
    expect(body).to.deep.equal({
      required: true,
      country: 'FR',
      country_subdivision: null,
      age_threshold: 18,
      challenges: ['ticket', 'selfie'],
      minimum_assurance_level: 'ENHANCED',
    });
  });

  it("answers the same rule to the checker script's check", async () => {
    const response = await fetch(`${app.url}/v1/checker/requirement.js?key=${client.keys.TEST}`, {
      headers: { ...IN_FRANCE, origin: 'http://localhost:4000' },
    });
    const script = await response.text();
    const answer = JSON.parse(/_requirement\((\{.*\})\);$/.exec(script)![1]!) as Record<string, unknown>;
    expect(answer).to.include({
      required: true,
      country: 'FR',
      age_threshold: 18,
      minimum_assurance_level: 'ENHANCED',
    });
    expect(answer.challenges).to.deep.equal(['ticket', 'selfie']);
  });

  it('reuses a result only while it is young enough and at the level', async () => {
    const { runtime } = app.provider;
    const { browser, page } = await choicePage(IN_FRANCE);
    const result = expectPage(
      await submitSandbox(browser, await sandboxOf(browser, page, 'ticket'), { level: 'STRICT', country: 'FR' }),
    );
    await continueWithoutSaving(browser, result);
    const again = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));
    expect(formOf(again, { action: /\/reuse$/ })).to.not.equal(undefined);
    // Ten minutes and a second later the policy's 600 seconds are over: nothing is offered for reuse.
    await runtime.db('age_proofs').update({ proven_at: new Date(runtime.clock.now().getTime() - 601_000) });
    const later = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));
    expect(later.html).to.not.match(/action="[^"]*\/reuse"/);
    // A result below the level is never offered either.
    await runtime.db('age_proofs').update({ proven_at: runtime.clock.now(), assurance_level: 'STANDARD' });
    const weaker = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));
    expect(weaker.html).to.not.match(/action="[^"]*\/reuse"/);
    await runtime.db('age_proofs').update({ assurance_level: 'STRICT' });
    const stronger = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));
    expect(stronger.html).to.match(/action="[^"]*\/reuse"/);
    expect(locationOf(await browser.submit(formOf(stronger, { action: /\/reuse$/ }))).searchParams.get('code')).to.be.a(
      'string',
    );
  });

  it('reuses nothing a fresh check would refuse: a challenge past its challengesUntil, an estimation short of the buffer', async () => {
    const { runtime } = app.provider;
    const webmasterId = (await runtime
      .db('websites')
      .where('id', client.websiteId)
      .first<{ webmaster_id: number }>('webmaster_id'))!.webmaster_id;
    const setRule = (rule: Record<string, unknown>) =>
      updateWebsitePolicy(
        runtime,
        webmasterId,
        client.websiteId,
        {
          rules: [
            {
              regions: ['FR'],
              challenges: ['selfie', 'ticket'],
              minimumAssuranceLevel: 'ENHANCED',
              reuseMaxAgeSeconds: 600,
              ...rule,
            },
          ],
        },
        TEST_ORIGIN,
      );
    // The prompt, then the landing page's offer; with nothing to offer (no challenge left and no reuse) the entry says so (503).
    const reuseOffered = async (browser: Browser): Promise<boolean> => {
      const prompt = await browser.open(authorizationUrl(app.url, client));
      if (prompt.status === 503) return false;
      return /action="[^"]*\/reuse"/.test(expectPage(await accept(browser, prompt)).html);
    };
    await runtime.db('age_proofs').delete();
    const { browser, page } = await choicePage(IN_FRANCE);
    await continueWithoutSaving(
      browser,
      expectPage(
        await submitSandbox(browser, await sandboxOf(browser, page, 'ticket'), { level: 'STRICT', country: 'FR' }),
      ),
    );
    expect(await reuseOffered(browser)).to.equal(true);
    // The ticket retired by the rule since (observed: a retired challenge's result reused).
    await setRule({ challengesUntil: { ticket: '2020-01-01' } });
    expect(await reuseOffered(browser)).to.equal(false);
    // A selfie's estimate of 18 under a rule asking a buffer of 2 years: a fresh selfie would need 20.
    await setRule({ estimationBuffer: 2 });
    await runtime.db('age_proofs').update({ method: 'selfie', age_threshold: 18 });
    expect(await reuseOffered(browser)).to.equal(false);
    await runtime.db('age_proofs').update({ age_threshold: 20 });
    expect(await reuseOffered(browser)).to.equal(true);
    // A ticket is no estimation: the buffer does not apply to it.
    await runtime.db('age_proofs').update({ method: 'ticket', age_threshold: 18 });
    expect(await reuseOffered(browser)).to.equal(true);
    await setRule({});
  });
});
