import { expect } from 'chai';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../../helpers/fixtures.js';
import type { Environment } from '../../../lib/verification/challenge.js';
import { Browser, linkWithText, type Page } from '../../helpers/browser.js';
import { accept, callbackOf, expectPage, htmlLang } from '../../helpers/visitor.js';
import { authorizationUrl } from '../../helpers/relying-party.js';

/** The challenge links a choice page offers, in order. */
const offered = (page: Page): string[] =>
  [...page.html.matchAll(/href="[^"]*\/challenge\/([a-z_]+)\/start"/g)].map((match) => match[1]!);

describe('landing pages and the challenges a visitor may take', () => {
  let app: TestApp;
  let webmasterId: number;
  const clientWith = (environment: Environment, challenges: string[]): Promise<ClientFixture> =>
    createClientFixture(app.provider.runtime, webmasterId, { environment, challenges });

  before(async () => {
    app = await startTestApp();
    webmasterId = (await createWebmasterFixture(app.provider.runtime)).id;
  });
  after(() => app.close());

  async function landAfterAccept(
    client: ClientFixture,
    entry: 'checker' | 'login',
    extra: Record<string, string> = {},
  ) {
    const browser = new Browser(app.url);
    const prompt = await browser.open(authorizationUrl(app.url, client, entry, extra));
    return { browser, landing: await accept(browser, prompt) };
  }

  describe('the two entry points link to each other', () => {
    it('checker lands on the challenge choice, which links to sign-in', async () => {
      const client = await clientWith('TEST', ['selfie', 'ticket']);
      const { browser, landing } = await landAfterAccept(client, 'checker');
      const choice = expectPage(landing);
      expect(choice.url).to.match(/\/choose$/);
      expect(choice.html).to.contain('Choose how to prove your age');
      const signIn = await browser.open(linkWithText(choice, 'Sign in'));
      expect(signIn.url).to.match(/\/sign-in$/);
      expect(signIn.html).to.contain('name="password"');
    });

    it('login lands on visitor sign-in, which links to "verify my age instead"', async () => {
      const client = await clientWith('TEST', ['selfie', 'ticket']);
      const { browser, landing } = await landAfterAccept(client, 'login', { language: 'it' });
      const signIn = expectPage(landing);
      expect(signIn.url).to.match(/\/sign-in$/);
      expect(htmlLang(signIn)).to.equal('it');
      expect(signIn.html).to.contain('Nome utente');
      const choice = await browser.open(linkWithText(signIn, 'Verifica invece la mia età'));
      expect(choice.url).to.match(/\/choose$/);
      expect(offered(choice)).to.deep.equal(['selfie', 'ticket']);
    });

    it('the legacy entries behave the same', async () => {
      const client = await clientWith('TEST', ['selfie', 'ticket']);
      const browser = new Browser(app.url);
      const prompt = await browser.open(
        authorizationUrl('', client, '/api/oauth2/login', { response_type: undefined, scope: undefined }),
      );
      expect(expectPage(await accept(browser, prompt)).url).to.match(/\/sign-in$/);
    });
  });

  describe('narrowing', () => {
    it('offers the website challenges when the request names none', async () => {
      const client = await clientWith('TEST', ['selfie', 'email_age', 'ticket']);
      expect(offered(expectPage((await landAfterAccept(client, 'checker')).landing))).to.deep.equal([
        'selfie',
        'email_age',
        'ticket',
      ]);
    });

    it('narrows to the requested ones, in the request order, and never widens', async () => {
      const client = await clientWith('TEST', ['selfie', 'email_age', 'ticket']);
      const { landing } = await landAfterAccept(client, 'checker', { challenges: 'ticket,credit_card,selfie' });
      expect(offered(expectPage(landing))).to.deep.equal(['ticket', 'selfie']);
    });

    it('loads paypal, agego and agekey when the request names them', async () => {
      const client = await clientWith('TEST', ['selfie']);
      const { landing } = await landAfterAccept(client, 'checker', { challenges: 'selfie,paypal,agekey' });
      expect(offered(expectPage(landing))).to.deep.equal(['selfie', 'paypal', 'agekey']);
    });

    it('with exactly one challenge, lands straight on it', async () => {
      const client = await clientWith('TEST', ['selfie', 'ticket']);
      const page = expectPage((await landAfterAccept(client, 'checker', { challenges: 'agego' })).landing);
      expect(page.url).to.match(/\/challenge\/agego\/start$/);
      expect(page.html).to.contain('Simulated check: AgeGO');
    });

    it('in LIVE, loads only the challenges the operator configured (here: ticket)', async () => {
      const client = await clientWith('LIVE', ['selfie', 'email_age', 'ticket']);
      const page = expectPage((await landAfterAccept(client, 'checker')).landing);
      expect(page.url).to.match(/\/challenge\/ticket\/start$/);
      expect(page.html).to.contain('Type the code printed on your age verification ticket');
    });

    it('refuses a challenge URL the visitor may not take here', async () => {
      const client = await clientWith('TEST', ['selfie', 'ticket']);
      const { browser, landing } = await landAfterAccept(client, 'checker', { challenges: 'selfie,ticket' });
      const choice = expectPage(landing);
      const forbidden = await browser.open(choice.url.href.replace(/\/choose$/, '/challenge/email_age/start'));
      expect(forbidden.status).to.equal(404);
      expect(forbidden.html).to.contain('Page not found');
    });
  });

  describe('with no challenge available', () => {
    it('a request naming only challenges the website does not list: error page, then temporarily_unavailable', async () => {
      const client = await clientWith('TEST', ['selfie']);
      const browser = new Browser(app.url);
      const page = await browser.open(authorizationUrl(app.url, client, 'checker', { challenges: 'credit_card' }));
      expect(page.status).to.equal(503);
      expect(page.html).to.contain('No verification method available');
      const website = callbackOf(await browser.navigate(linkWithText(page, 'Return to the website')), client);
      expect(website.get('error')).to.equal('temporarily_unavailable');
    });

    it('a LIVE website whose challenges the operator did not configure, in the visitor language', async () => {
      const client = await clientWith('LIVE', ['selfie', 'email_age']);
      const browser = new Browser(app.url);
      const page = await browser.open(authorizationUrl(app.url, client, 'checker', { language: 'fr' }));
      expect(page.status).to.equal(503);
      expect(htmlLang(page)).to.equal('fr');
      expect(page.html).to.contain('Aucune méthode de vérification disponible');
      const website = callbackOf(await browser.navigate(linkWithText(page, 'Revenir au site')), client);
      expect(website.get('error')).to.equal('temporarily_unavailable');
    });

    it('the login entry still offers sign-in; "verify instead" then ends unavailable', async () => {
      const client = await clientWith('LIVE', ['selfie']);
      const { browser, landing } = await landAfterAccept(client, 'login');
      const signIn = expectPage(landing);
      expect(signIn.url).to.match(/\/sign-in$/);
      const page = await browser.open(linkWithText(signIn, 'Verify my age instead'));
      expect(page.status).to.equal(503);
      const website = callbackOf(await browser.navigate(linkWithText(page, 'Return to the website')), client);
      expect(website.get('error')).to.equal('temporarily_unavailable');
    });
  });
});
