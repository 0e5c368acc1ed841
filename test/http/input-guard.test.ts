import { expect } from 'chai';
import { startOAuth2AppWithCallers, authorizationUrl, type OAuth2TestApp } from '../oauth2/helpers/oauth2.js';
import type { ClientFixture } from '../helpers/fixtures.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

describe("input guard: control characters, invalid UTF-8 and oversized values get the surface's 400", function () {
  this.timeout(120_000);
  let harness: OAuth2TestApp;
  let client: ClientFixture;
  let apiToken: string;
  let url: string;
  before(async () => {
    ({ harness, client, apiToken } = await startOAuth2AppWithCallers());
    url = harness.app.url;
  });
  after(() => harness.app.close());

  async function expectVisitorPage(response: Response): Promise<void> {
    expect(response.status).to.equal(400);
    expect(response.headers.get('content-type')).to.match(/^text\/html/);
    expect(await response.text()).to.include('<html');
  }

  async function expectOAuthJson(response: Response): Promise<void> {
    expect(response.status).to.equal(400);
    expect(await response.json()).to.include({ error: 'invalid_request' });
  }

  it("answers a NUL or another control character in any authorization parameter with the visitor's 400 page", async () => {
    for (const name of ['state', 'client_id', 'login_hint', 'ui_locales', 'redirect_uri', 'language']) {
      for (const bad of ['%00', 'a%01b', '%7F', '%C2%85', '%0A']) {
        const response = await fetch(
          `${authorizationUrl(url, client, 'checker', { state: undefined })}&${name}=${bad}`,
          { redirect: 'manual' },
        );
        await expectVisitorPage(response);
      }
    }
  });

  it('answers invalid UTF-8 or broken percent-encoding with the same 400', async () => {
    for (const bad of ['%C3%28', '%FF', '%E2%82', '%ED%A0%80', '%zz', '%']) {
      await expectVisitorPage(
        await fetch(`${authorizationUrl(url, client, 'checker', { state: undefined })}&state=${bad}`, {
          redirect: 'manual',
        }),
      );
      await expectVisitorPage(await fetch(`${url}/platform/signin?next=${bad}`));
    }
  });

  it('answers the back channel in RFC 6749 JSON: token, introspection, revocation, resources (form fields, Basic credentials, query)', async () => {
    const form = (fields: string) => ({ method: 'POST', headers: FORM, body: fields });
    await expectOAuthJson(
      await fetch(
        `${url}/v1/oauth2/token`,
        form(`grant_type=authorization_code&code=x&redirect_uri=x&client_id=a%00b&client_secret=s`),
      ),
    );
    await expectOAuthJson(
      await fetch(`${url}/v1/oauth2/token`, {
        ...form('grant_type=authorization_code&code=x&redirect_uri=x'),
        headers: { ...FORM, authorization: basic('a\u0000b', 's') },
      }),
    );
    await expectOAuthJson(await fetch(`${url}/api/oauth2/token`, form(`grant_type=authorization_code&code=%00`)));
    await expectOAuthJson(
      await fetch(`${url}/v1/oauth2/token/introspection`, form(`token=x&client_id=%00&client_secret=s`)),
    );
    await expectOAuthJson(
      await fetch(`${url}/v1/oauth2/token/revocation`, form(`token=%00&client_id=${client.clientId}&client_secret=s`)),
    );
    await expectOAuthJson(await fetch(`${url}/v1/oauth2/resources?x=%00`));
    // raw bytes that are not UTF-8 at all
    await expectOAuthJson(
      await fetch(`${url}/v1/oauth2/token`, {
        method: 'POST',
        headers: FORM,
        body: Buffer.from([0x63, 0x6f, 0x64, 0x65, 0x3d, 0xff, 0xfe]),
      }),
    );
  });

  it('answers the requirement and the External API in their own shapes', async () => {
    const requirement = await fetch(`${url}/v1/requirement?key=%00`);
    expect(requirement.status).to.equal(400);
    expect(await requirement.json()).to.include({ error: 'invalid_request' });

    const auth = { authorization: `Bearer ${apiToken}` };
    for (const response of [
      await fetch(`${url}/external/website?x=%00`, { headers: auth }),
      await fetch(`${url}/external/website/%00`, { headers: auth }),
      await fetch(`${url}/external/website`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'a\u0000', domain: 'example.com' }),
      }),
      await fetch(`${url}/external/website`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: Buffer.from('{"name":"\xff"}', 'latin1'),
      }),
    ]) {
      expect(response.status).to.equal(400);
      expect(await response.json()).to.deep.include({ error: 'Bad Request', statusCode: 400 });
    }
  });

  it("answers a platform form field or an interaction form field with a control character with the visitor's 400 page", async () => {
    await expectVisitorPage(
      await fetch(`${url}/platform/signin`, {
        method: 'POST',
        headers: FORM,
        body: 'email=a%00%40example.com&password=x',
      }),
    );
    await expectVisitorPage(
      await fetch(`${url}/platform/signin`, {
        method: 'POST',
        headers: FORM,
        body: 'email=a%40example.com&password=%1B',
      }),
    );
    await expectVisitorPage(
      await fetch(`${url}/v1/oauth2/interaction/abc/sign-in`, { method: 'POST', headers: FORM, body: 'username=%00' }),
    );
    // a line break in a text area is text, not a control character
    const multiLine = await fetch(`${url}/platform/signin`, {
      method: 'POST',
      headers: FORM,
      body: 'email=a%0D%0Ab&password=x',
    });
    expect(multiLine.status).to.not.equal(400);
  });

  it("answers JSON nested deeper than the limit with each surface's 400, however deep (no stack to overflow)", async () => {
    const auth = { authorization: `Bearer ${apiToken}` };
    const json = { 'content-type': 'application/json' };
    for (const depth of [65, 5000, 20_000]) {
      for (const open of ['[', '{"a":']) {
        const body = open.repeat(depth) + '1' + (open === '[' ? ']' : '}').repeat(depth);
        const external = await fetch(`${url}/external/website`, {
          method: 'POST',
          headers: { ...auth, ...json },
          body,
        });
        expect(external.status, `External API at ${depth}`).to.equal(400);
        expect(await external.json()).to.deep.include({ error: 'Bad Request', statusCode: 400 });
        await expectOAuthJson(await fetch(`${url}/v1/oauth2/token`, { method: 'POST', headers: json, body }));
        await expectVisitorPage(await fetch(`${url}/platform/signin`, { method: 'POST', headers: json, body }));
        await expectVisitorPage(
          await fetch(`${url}/v1/oauth2/interaction/abc/sign-in`, { method: 'POST', headers: json, body }),
        );
      }
    }
    // brackets inside a string are text (quotes escaped among them), and 64 levels pass the guard: the surface answers the content
    const inString = JSON.stringify({ name: `\\"${'['.repeat(90)}`, domain: 'nested.example' });
    const created = await fetch(`${url}/external/website`, {
      method: 'POST',
      headers: { ...auth, ...json },
      body: inString,
    });
    expect(created.status).to.equal(200);
    const atLimit = await fetch(`${url}/external/website`, {
      method: 'POST',
      headers: { ...auth, ...json },
      body: '['.repeat(64) + ']'.repeat(64),
    });
    expect(atLimit.status).to.equal(400);
    expect(((await atLimit.json()) as { message: string }).message).to.not.include('nested');
  });

  it('caps the query at 8 KiB and each parameter at 2048 characters', async () => {
    await expectVisitorPage(
      await fetch(`${authorizationUrl(url, client, 'checker', { state: undefined })}&login_hint=${'a'.repeat(2049)}`, {
        redirect: 'manual',
      }),
    );
    const many = Array.from({ length: 10 }, (_, index) => `p${index}=${'b'.repeat(900)}`).join('&');
    await expectVisitorPage(
      await fetch(`${authorizationUrl(url, client, 'checker', { state: undefined })}&${many}`, { redirect: 'manual' }),
    );
    await expectOAuthJson(await fetch(`${url}/v1/oauth2/resources?x=${'c'.repeat(2049)}`));
  });

  it('sends a state or nonce over 1024 characters back to the website as invalid_request (RFC 6749 §4.1.2.1)', async () => {
    for (const name of ['state', 'nonce']) {
      const response = await fetch(
        `${authorizationUrl(url, client, 'checker', { state: undefined })}&${name}=${'s'.repeat(1025)}`,
        { redirect: 'manual' },
      );
      expect(response.status).to.be.within(302, 303);
      const location = new URL(response.headers.get('location') ?? '');
      expect(`${location.origin}${location.pathname}`).to.equal(client.redirectUri);
      expect(location.searchParams.get('error')).to.equal('invalid_request');
    }
    // 1024 is accepted: the visitor goes on to the interaction
    const accepted = await fetch(
      `${authorizationUrl(url, client, 'checker', { state: undefined })}&state=${'s'.repeat(1024)}`,
      { redirect: 'manual' },
    );
    expect(new URL(accepted.headers.get('location') ?? '', url).pathname).to.match(/^\/v1\/oauth2\/interaction\//);
  });
});
