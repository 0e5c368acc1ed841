import { expect } from 'chai';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startRelyingParty, type RunningRelyingParty } from '../../examples/relying-party/server.js';
import {
  relyingPartySettings,
  RelyingPartySettingsError,
  SITE_LANGUAGES,
} from '../../examples/relying-party/settings.js';
import { Browser } from '../helpers/browser.js';

const BUTTON_LABELS = {
  de: 'Mein Alter mit Age Provider bestätigen',
  en: 'Verify my age with Age Provider',
  es: 'Verificar mi edad con Age Provider',
  fr: 'Vérifier mon âge avec Age Provider',
  it: 'Verifica la mia età con Age Provider',
  pt: 'Verificar a minha idade com Age Provider',
};

const baseEnv = {
  AGE_PROVIDER_URL: 'http://127.0.0.1:3000',
  CLIENT_ID: 'test_client',
  CLIENT_SECRET: 'secret',
  PUBLIC_KEY: 'pk_test_key',
};

describe('examples/relying-party: settings and the button in the site language', () => {
  const sites: RunningRelyingParty[] = [];
  after(async () => {
    for (const site of sites) await site.close();
  });

  for (const language of SITE_LANGUAGES) {
    it(`SITE_LANGUAGE=${language}: <html lang>, the button label naming the service, and language=${language} sent to the provider`, async () => {
      const server = createServer().listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      const port = (server.address() as AddressInfo).port;
      const site = await startRelyingParty(
        relyingPartySettings({ ...baseEnv, SITE_LANGUAGE: language, PORT: String(port) }),
        server,
      );
      sites.push(site);
      const page = await new Browser().open(site.url);
      expect(page.html).to.contain(`<html lang="${language}">`);
      expect(page.html).to.contain(`<span>${BUTTON_LABELS[language]}</span>`);
      expect(page.html).to.contain('src="http://127.0.0.1:3000/static/logo-on-dark.svg"');
      expect(page.html, 'the home page leads to the script-only page').to.match(/<a href="\/script">[^<]+<\/a>/);

      const start = await fetch(`${site.url}/verify`, { redirect: 'manual' });
      const authorization = new URL(start.headers.get('location')!);
      expect(`${authorization.origin}${authorization.pathname}`).to.equal('http://127.0.0.1:3000/v1/oauth2/checker');
      expect(Object.fromEntries(authorization.searchParams)).to.deep.include({
        client_id: 'test_client',
        redirect_uri: `http://127.0.0.1:${port}/callback`,
        response_type: 'code',
        scope: 'read',
        language,
        code_challenge_method: 'S256',
      });
      expect(start.headers.getSetCookie().join(';')).to.match(/rp_attempt=[^;]+;.*httponly/i);
    });
  }

  it('sends a fresh state per attempt', async () => {
    const site = sites[0]!;
    const states = await Promise.all(
      [1, 2].map(async () =>
        new URL((await fetch(`${site.url}/verify`, { redirect: 'manual' })).headers.get('location')!).searchParams.get(
          'state',
        ),
      ),
    );
    expect(states[0]).to.have.length.above(20);
    expect(states[0]).not.to.equal(states[1]);
  });

  it('sets a CSP that allows only its own scripts and the provider for images and the requirement call', async () => {
    const response = await fetch(sites[0]!.url);
    const csp = response.headers.get('content-security-policy');
    expect(csp).to.contain("script-src 'self'");
    expect(csp).to.contain('connect-src http://127.0.0.1:3000');
    expect(csp).to.contain("img-src 'self' http://127.0.0.1:3000");
  });

  it('refuses to start without a required setting, naming it', () => {
    for (const name of Object.keys(baseEnv)) {
      expect(() => relyingPartySettings({ ...baseEnv, [name]: '' }), name).to.throw(RelyingPartySettingsError, name);
    }
    expect(() => relyingPartySettings({ ...baseEnv, SITE_LANGUAGE: 'nl' })).to.throw(
      RelyingPartySettingsError,
      'SITE_LANGUAGE',
    );
    expect(() => relyingPartySettings({ ...baseEnv, AGE_PROVIDER_URL: 'ftp://x' })).to.throw(
      RelyingPartySettingsError,
      'AGE_PROVIDER_URL',
    );
  });
});
