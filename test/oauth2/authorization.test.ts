import { expect } from 'chai';
import { Browser, locationOf } from '../helpers/browser.js';
import { authorizationUrl, authorize, interactionUid, useOAuth2App } from './helpers/oauth2.js';

describe('oauth2: authorization endpoints', () => {
  const harness = useOAuth2App();

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${harness.app.url}${path}`, { redirect: 'manual', headers });

  /** The error the provider sends back to the website's redirect_uri. */
  async function redirectedError(path: string): Promise<URLSearchParams> {
    const response = await get(path);
    expect(response.status).to.equal(303);
    return locationOf(response).searchParams;
  }

  async function expectErrorPage(response: Response, text: RegExp, lang = 'en'): Promise<void> {
    expect(response.status).to.equal(400);
    expect(response.headers.get('location')).to.equal(null);
    expect(response.headers.get('content-type')).to.match(/^text\/html/);
    const html = await response.text();
    expect(html).to.contain(`<html lang="${lang}"`);
    expect(html).to.match(text);
  }

  it('sends every entry point to the interaction, with the trusted flow of that entry', async () => {
    const client = await harness.client();
    for (const [entry, flow] of [
      ['/v1/oauth2/checker', 'checker'],
      ['/v1/oauth2/login', 'login'],
      ['/api/oauth2/checker', 'checker'],
      ['/api/oauth2/login', 'login'],
    ] as const) {
      const sentFlow = flow === 'login' ? 'checker' : 'login';
      const uid = interactionUid(await get(authorizationUrl('', client, entry, { flow: sentFlow })));
      const interaction = await harness.app.provider.provider.Interaction.find(uid);
      expect(interaction?.params['flow'], entry).to.equal(flow);
    }
  });

  it('defaults scope to read and response_type to code', async () => {
    const client = await harness.client();
    const uid = interactionUid(
      await get(
        authorizationUrl('', client, 'checker', { response_type: undefined, scope: undefined, state: undefined }),
      ),
    );
    const interaction = await harness.app.provider.provider.Interaction.find(uid);
    expect(interaction?.params).to.include({ scope: 'read', response_type: 'code' });
  });

  it('refuses any scope but read, and any response_type but code, on the redirect_uri with the state', async () => {
    const client = await harness.client();
    for (const scope of ['write', 'read write', 'openid']) {
      const params = await redirectedError(authorizationUrl('', client, 'checker', { scope, state: 'st' }));
      expect(params.get('error'), scope).to.equal('invalid_scope');
      expect(params.get('state')).to.equal('st');
    }
    // A token response type is refused in the query too: the client of a code flow reads only the query.
    for (const [responseType, mode] of [
      ['token', undefined],
      ['code token', undefined],
      ['token', 'fragment'],
      ['token', 'form_post'],
    ] as const) {
      const response = await get(
        authorizationUrl('', client, 'checker', {
          response_type: responseType,
          state: 'st',
          ...(mode ? { response_mode: mode } : {}),
        }),
      );
      expect(response.status, responseType).to.equal(303);
      const location = locationOf(response);
      expect(location.hash, `${responseType} ${mode}`).to.equal('');
      expect(location.searchParams.get('error'), `${responseType} ${mode}`).to.equal('unsupported_response_type');
      expect(location.searchParams.get('state')).to.equal('st');
    }
  });

  it('echoes the state exactly, whatever it holds', async () => {
    const client = await harness.client();
    const state = 'a b+c/d?e=f&g=h%20ü"<>';
    const { state: echoed, callback } = await authorize(harness.app, client, { query: { state } });
    expect(echoed).to.equal(state);
    const withoutState = await authorize(harness.app, client, { query: { state: undefined } });
    expect(withoutState.callback.searchParams.has('state')).to.equal(false);
    expect(callback.searchParams.get('code')).to.be.a('string');
  });

  it('validates challenges; a language we do not serve is no error (the pages negotiate one)', async () => {
    const client = await harness.client();
    expect(
      (await get(authorizationUrl('', client, 'checker', { language: 'fr', challenges: 'ticket,selfie,paypal' })))
        .status,
    ).to.equal(303);
    for (const language of ['nl', 'FR']) {
      expect((await get(authorizationUrl('', client, 'checker', { language }))).status, language).to.equal(303);
    }
    for (const extra of <Record<string, string>[]>[
      { language: 'fr<' },
      { challenges: 'ticket,ticket' },
      { challenges: 'ticket,nope' },
      { challenges: 'ticket,' },
    ]) {
      const params = await redirectedError(authorizationUrl('', client, 'checker', extra));
      expect(params.get('error'), JSON.stringify(extra)).to.equal('invalid_request');
    }
  });

  it('accepts the test_* parameters from TEST clients only', async () => {
    const sandbox = await harness.client({ environment: 'TEST' });
    const live = await harness.client({ environment: 'LIVE', redirectUris: ['https://live.example/cb'] });
    const sandboxParams = {
      test_outcome: 'pass',
      test_level: 'ENHANCED',
      test_country: 'US',
      test_subdivision: 'US-TX',
    };
    expect((await get(authorizationUrl('', sandbox, 'checker', sandboxParams))).status).to.equal(303);
    const accepted = locationOf(await get(authorizationUrl('', sandbox, 'checker', sandboxParams)));
    expect(accepted.pathname).to.match(/^\/v1\/oauth2\/interaction\//);
    for (const [name, value] of Object.entries(sandboxParams)) {
      const params = await redirectedError(authorizationUrl('', live, 'checker', { [name]: value }));
      expect(params.get('error'), name).to.equal('invalid_request');
      expect(params.get('error_description')).to.contain(name);
    }
    for (const extra of <Record<string, string>[]>[
      { test_outcome: 'maybe' },
      { test_level: 'HIGH' },
      { test_country: 'usa' },
      { test_country: 'QQ' },
      { test_subdivision: 'QQ-11' },
      { test_country: 'US', test_subdivision: 'CA-ON' },
      { test_country: 'US', test_subdivision: 'US-ZZ' },
    ]) {
      const params = await redirectedError(authorizationUrl('', sandbox, 'checker', extra));
      expect(params.get('error'), JSON.stringify(extra)).to.equal('invalid_request');
    }
  });

  it('renders an HTML page, never a redirect, for an unregistered redirect_uri', async () => {
    const client = await harness.client();
    const response = await get(
      authorizationUrl('', { ...client, redirectUri: 'https://evil.example/cb' }, 'checker', { state: 's' }),
    );
    await expectErrorPage(response, /return address/);
  });

  it('renders the error page in the visitor language (language parameter, then Accept-Language)', async () => {
    const client = await harness.client();
    const bad = { ...client, redirectUri: 'https://evil.example/cb' };
    await expectErrorPage(
      await get(authorizationUrl('', bad, 'checker', { language: 'de' })),
      /Rücksprungadresse/,
      'de',
    );
    await expectErrorPage(
      await get(authorizationUrl('', bad), { 'accept-language': 'it-IT,it;q=0.9,en;q=0.5' }),
      /indirizzo di ritorno/,
      'it',
    );
  });

  it('renders an HTML page for an unknown client and for a missing redirect_uri', async () => {
    const client = await harness.client();
    await expectErrorPage(await get(authorizationUrl('', { ...client, clientId: 'nope' })), /not registered/);
    await expectErrorPage(await get(`/v1/oauth2/checker?client_id=${client.clientId}`), /invalid verification request/);
    await expectErrorPage(await get('/v1/oauth2/login'), /invalid verification request/);
  });

  it('asks for an interaction on every authorization, even in a browser that just completed one', async () => {
    const client = await harness.client();
    const { browser } = await authorize(harness.app, client);
    interactionUid(await browser.request(authorizationUrl('', client)));
  });

  it('renders an expired-request page when the browser resumes without its interaction', async () => {
    const client = await harness.client();
    const browser = new Browser(harness.app.url);
    const uid = interactionUid(await browser.request(authorizationUrl('', client)));
    await expectErrorPage(await get(`/v1/oauth2/checker/${uid}`), /expired/);
  });
});
