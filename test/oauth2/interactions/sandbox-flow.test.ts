import { expect } from 'chai';
import { useApp } from '../../helpers/app.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../../helpers/fixtures.js';
import { Browser, formsOf, formOf, linkWithText } from '../../helpers/browser.js';
import {
  accept,
  callbackOf,
  continueWithoutSaving,
  expectPage,
  htmlLang,
  submitSandbox,
} from '../../helpers/visitor.js';
import { authorizationUrl, redeem } from '../../helpers/relying-party.js';

describe('visitor flow in the TEST sandbox', () => {
  const app = useApp();
  let client: ClientFixture;

  before(async () => {
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    client = await createClientFixture(app.provider.runtime, webmaster.id, {
      environment: 'TEST',
      name: 'Club Sandbox',
      domain: 'club.example',
      challenges: ['selfie', 'email_age', 'ticket'],
    });
  });

  it('goes from the prompt through a simulated challenge to a code, a token and the chosen result', async () => {
    const browser = new Browser(app.url);
    const prompt = await browser.open(authorizationUrl(app.url, client));
    expect(prompt.status).to.equal(200);
    expect(prompt.html).to.contain('Club Sandbox').and.contain('club.example').and.contain('Test mode.');
    expect(prompt.html)
      .to.contain('whether your age is verified')
      .and.contain('your country and region')
      .and.contain('assurance level')
      .and.contain('18+')
      .and.contain('earlier result');
    expect(prompt.headers.get('content-security-policy')).to.contain("form-action 'self' http://localhost:4000");

    const choice = expectPage(await accept(browser, prompt));
    expect(choice.url).to.match(/\/choose$/);
    expect(choice.html).to.contain('Selfie').and.contain('Email address').and.contain('Ticket code');

    const sandbox = await browser.open(linkWithText(choice, 'Selfie'));
    expect(sandbox.url).to.match(/\/challenge\/selfie\/start$/);
    expect(sandbox.html).to.contain('Simulated check: Selfie');

    const result = expectPage(
      await submitSandbox(browser, sandbox, {
        outcome: 'pass',
        level: 'ENHANCED',
        country: 'us',
        subdivision: 'us-tx',
      }),
    );
    expect(result.url).to.match(/\/result$/);
    expect(result.html).to.contain('Your age is verified').and.contain('United States, Texas').and.contain('Enhanced');

    const callback = callbackOf(await continueWithoutSaving(browser, result), client);
    expect(callback.get('code')).to.be.a('string');
    const resources = await redeem(app, client, callback.get('code')!);
    expect(resources).to.include({
      verified: true,
      country: 'US',
      country_subdivision: 'US-TX',
      assurance_level: 'ENHANCED',
      age_threshold: 18,
      reused: false,
    });
    expect(resources['expires_in']).to.be.within(3000, 3600);
    expect(resources['uid']).to.match(/^test_/);
    const stored = await app.provider.db('verifications').where('uid', String(resources['uid'])).first();
    expect(stored.method).to.equal('selfie');
  });

  it('returns access_denied with the state when the visitor declines', async () => {
    const browser = new Browser(app.url);
    const prompt = await browser.open(authorizationUrl(app.url, client));
    const callback = callbackOf(
      await browser.submit(formOf(prompt, { action: '/consent' }), {}, { name: 'decision', value: 'decline' }),
      client,
    );
    expect(callback.get('error')).to.equal('access_denied');
    expect(callback.get('code')).to.equal(null);
  });

  it('returns access_denied when the visitor cancels on the choice page', async () => {
    const browser = new Browser(app.url);
    const choice = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));
    const callback = callbackOf(await browser.submit(formOf(choice, { action: '/cancel' })), client);
    expect(callback.get('error')).to.equal('access_denied');
  });

  it('brings a refused sandbox check back to the choice with a message, and limits repeated failures', async () => {
    const browser = new Browser(app.url);
    const choice = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));
    const start = linkWithText(choice, 'Ticket code');
    let back = expectPage(await submitSandbox(browser, await browser.open(start), { outcome: 'refuse' }));
    expect(back.url).to.match(/\/choose\?notice=refused$/);
    expect(back.html).to.contain('could not be confirmed');
    for (let attempt = 2; attempt <= 10; attempt++)
      back = expectPage(await submitSandbox(browser, await browser.open(start), { outcome: 'refuse' }));
    expect(back.status).to.equal(200);
    const limited = expectPage(await submitSandbox(browser, await browser.open(start), { outcome: 'refuse' }));
    expect(limited.status).to.equal(429);
    expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
    expect(limited.html).to.contain('Too many attempts').and.contain('<html lang="en">');
  });

  it("answers an unknown step 404 and a step's wrong method 405 with Allow, on the visitor's page", async () => {
    const browser = new Browser(app.url);
    const choice = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));
    const start = await browser.open(linkWithText(choice, 'Selfie'));
    const submitUrl = new URL(start.url.href.replace(/\/start$/, '/submit'));
    const wrongMethod = await browser.open(submitUrl);
    expect(wrongMethod.status).to.equal(405);
    expect(wrongMethod.headers.get('allow')).to.equal('POST');
    expect(wrongMethod.html).to.contain('<html lang="en">');
    const unknown = await browser.open(new URL(start.url.href.replace(/\/start$/, '/nowhere')));
    expect(unknown.status).to.equal(404);
  });

  it('rejects an invalid sandbox location with a message and keeps the visitor on the page', async () => {
    const browser = new Browser(app.url);
    const choice = expectPage(await accept(browser, await browser.open(authorizationUrl(app.url, client))));
    const sandbox = await browser.open(linkWithText(choice, 'Selfie'));
    const again = expectPage(await submitSandbox(browser, sandbox, { country: 'US', subdivision: 'FR-75' }));
    expect(again.status).to.equal(422);
    expect(again.html).to.contain('region code that starts with that country');
    // The same rule as test_country and /v1/requirement: a code no country has is refused too.
    const unknown = expectPage(await submitSandbox(browser, again, { country: 'QQ', subdivision: '' }));
    expect(unknown.status).to.equal(422);
  });

  describe('test_outcome lets a TEST client skip every page', () => {
    it('pass: straight to the redirect with a code, recording the requested level and location', async () => {
      const browser = new Browser(app.url);
      const landing = await browser.navigate(
        authorizationUrl(app.url, client, 'checker', {
          test_outcome: 'pass',
          test_level: 'STRICT',
          test_country: 'DE',
          test_subdivision: 'DE-BY',
        }),
      );
      const resources = await redeem(app, client, callbackOf(landing, client).get('code')!);
      expect(resources).to.include({
        verified: true,
        country: 'DE',
        country_subdivision: 'DE-BY',
        assurance_level: 'STRICT',
        reused: false,
      });
      expect(resources['uid']).to.match(/^test_/);
    });

    it('pass without the optional parameters: STANDARD and the geo location (unknown: ZZ)', async () => {
      const landing = await new Browser(app.url).navigate(
        authorizationUrl(app.url, client, 'login', { test_outcome: 'pass' }),
      );
      const resources = await redeem(app, client, callbackOf(landing, client).get('code')!);
      expect(resources).to.include({ country: 'ZZ', country_subdivision: null, assurance_level: 'STANDARD' });
    });

    it('refuse: straight back with access_denied', async () => {
      const landing = await new Browser(app.url).navigate(
        authorizationUrl(app.url, client, 'checker', { test_outcome: 'refuse' }),
      );
      expect(callbackOf(landing, client).get('error')).to.equal('access_denied');
    });
  });

  it('speaks the negotiated language on every page, <html lang> included', async () => {
    const browser = new Browser(app.url, { headers: { 'accept-language': 'fr-FR,fr;q=0.9' } });
    const prompt = await browser.open(authorizationUrl(app.url, client, 'checker', { language: 'de' }));
    expect(htmlLang(prompt)).to.equal('de');
    expect(prompt.html).to.contain('Anfrage zur Altersverifikation');
    const choice = expectPage(await accept(browser, prompt));
    expect(htmlLang(choice)).to.equal('de');
    const sandbox = await browser.open(linkWithText(choice, 'Selfie'));
    expect(htmlLang(sandbox)).to.equal('de');
    expect(sandbox.html).to.contain('Simulierte Prüfung');
    const result = expectPage(await submitSandbox(browser, sandbox));
    expect(htmlLang(result)).to.equal('de');
    expect(result.html).to.contain('Ihr Alter ist verifiziert');

    // Without a language in the request, the browser's Accept-Language decides (the website says auto).
    const french = await browser.open(authorizationUrl(app.url, client));
    expect(htmlLang(french)).to.equal('fr');
    expect(french.html).to.contain('Demande de vérification d’âge');
  });

  it('follows the website language over the browser when the request says nothing', async () => {
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    const italian = await createClientFixture(app.provider.runtime, webmaster.id, {
      environment: 'TEST',
      language: 'it',
      challenges: ['ticket'],
    });
    const prompt = await new Browser(app.url, { headers: { 'accept-language': 'es' } }).open(
      authorizationUrl(app.url, italian),
    );
    expect(htmlLang(prompt)).to.equal('it');
    expect(prompt.html).to.contain('Richiesta di verifica dell’età');
  });

  it('refuses a form without its CSRF cookie with a 403 page in the visitor language', async () => {
    const browser = new Browser(app.url);
    const prompt = await browser.open(authorizationUrl(app.url, client, 'checker', { language: 'es' }));
    browser.cookies.delete('ap_csrf');
    const refused = expectPage(
      await browser.submit(formOf(prompt, { action: '/consent' }), {}, { name: 'decision', value: 'accept' }),
    );
    expect(refused.status).to.equal(403);
    expect(refused.headers.get('content-type')).to.match(/^text\/html/);
    expect(htmlLang(refused)).to.equal('es');
    expect(refused.html).to.contain('Este formulario ha caducado');
  });

  it('refuses a form whose _csrf field is missing', async () => {
    const browser = new Browser(app.url);
    const prompt = await browser.open(authorizationUrl(app.url, client));
    const form = formOf(prompt, { action: '/consent' });
    const { _csrf: _dropped, ...fields } = form.fields;
    const refused = expectPage(await browser.post(form.action, { ...fields, decision: 'accept' }, { csrf: null }));
    expect(refused.status).to.equal(403);
    expect(refused.html).to.contain('This form has expired');
  });

  it('shows an HTML page, never JSON, for an unknown interaction or one opened in another browser', async () => {
    const unknown = await new Browser(app.url, { headers: { 'accept-language': 'pt' } }).open(
      '/v1/oauth2/interaction/no-such-uid',
    );
    expect(unknown.status).to.equal(400);
    expect(unknown.headers.get('content-type')).to.match(/^text\/html/);
    expect(htmlLang(unknown)).to.equal('pt');
    expect(unknown.html).to.contain('Esta página expirou');

    const owner = new Browser(app.url);
    const prompt = await owner.open(authorizationUrl(app.url, client));
    const stranger = await new Browser(app.url).open(prompt.url);
    expect(stranger.status).to.equal(400);
    expect(stranger.html).to.contain('This page has expired');
    expect(formsOf(stranger)).to.have.length(0);
  });

  it('shows the expired page once the interaction is finished', async () => {
    const browser = new Browser(app.url);
    const prompt = await browser.open(authorizationUrl(app.url, client));
    callbackOf(
      await browser.submit(formOf(prompt, { action: '/consent' }), {}, { name: 'decision', value: 'decline' }),
      client,
    );
    const after = await browser.open(prompt.url);
    expect(after.status).to.equal(400);
    expect(after.html).to.contain('This page has expired');
  });
});
