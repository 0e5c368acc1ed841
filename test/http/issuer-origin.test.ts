import { request as httpRequest } from 'node:http';
import { expect } from 'chai';
import { createLogger } from '../../lib/log.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../helpers/fixtures.js';
import { authorizationUrl } from '../oauth2/helpers/oauth2.js';

interface RawAnswer {
  status: number;
  location: string | undefined;
  setCookie: string[];
}

/** A GET with headers fetch() refuses to send as given (Host). */
function rawGet(base: string, path: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, base);
    const sent = httpRequest(target, { headers }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          location: response.headers.location,
          setCookie: response.headers['set-cookie'] ?? [],
        }),
      );
    });
    sent.on('error', reject);
    sent.end();
  });
}

/** Starts an authorization with forged host headers and returns where oidc-provider will send the visitor back (the resume URL). */
async function resumeAddressOf(app: TestApp, client: ClientFixture, headers: Record<string, string>): Promise<string> {
  const answer = await rawGet(app.url, authorizationUrl('', client), headers);
  expect(answer.status).to.equal(303);
  const uid = /\/v1\/oauth2\/interaction\/([^/?]+)/.exec(answer.location ?? '')?.[1];
  const interaction = await app.provider.provider.Interaction.find(uid ?? '');
  return interaction?.returnTo ?? '';
}

describe('absolute URLs come from ISSUER, never from Host or X-Forwarded-Host', function () {
  this.timeout(120_000);
  for (const trustProxy of [false, true]) {
    describe(`TRUST_PROXY ${trustProxy ? 'on' : 'off'}`, () => {
      let app: TestApp;
      let client: ClientFixture;
      before(async () => {
        app = await startTestApp({ trustProxy });
        client = await createClientFixture(
          app.provider.runtime,
          (await createWebmasterFixture(app.provider.runtime)).id,
        );
      });
      after(() => app.close());

      it('builds the resume redirect (also the error page\'s "return to the website" link) on the issuer', async () => {
        const forged = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };
        const returnTo = await resumeAddressOf(app, client, forged);
        expect(returnTo.startsWith(`${app.url}/v1/oauth2/checker/`), returnTo).to.equal(true);
      });
    });
  }
});

describe('cookies over an https issuer', function () {
  this.timeout(120_000);
  for (const trustProxy of [false, true]) {
    describe(`TRUST_PROXY ${trustProxy ? 'on' : 'off'}`, () => {
      let app: TestApp;
      let client: ClientFixture;
      const warnings: string[] = [];
      before(async () => {
        app = await startTestApp({
          trustProxy,
          issuer: 'https://age.example',
          logger: createLogger('warn', (line) => warnings.push(line)),
        });
        client = await createClientFixture(
          app.provider.runtime,
          (await createWebmasterFixture(app.provider.runtime)).id,
        );
      });
      after(() => app.close());

      it('sets every cookie Secure, over a plain connection too', async () => {
        const authorization = await rawGet(app.url, authorizationUrl('', client), {});
        const signIn = await rawGet(app.url, '/platform/signin', {});
        const cookies = [...authorization.setCookie, ...signIn.setCookie];
        expect(cookies).to.not.be.empty;
        for (const cookie of cookies) expect(cookie, cookie).to.match(/;\s*secure/i);
      });

      it("gives host-wide cookies the __Host- prefix (the form token, oidc-provider's session)", async () => {
        const signIn = await rawGet(app.url, '/platform/signin', {});
        expect(
          signIn.setCookie.some((cookie) => /^__Host-ap_csrf=[^;]+;\s*path=\/;/i.test(cookie)),
          signIn.setCookie.join('\n'),
        ).to.equal(true);
        expect(app.provider.provider.cookieName('session')).to.equal('__Host-_session');
      });

      it(
        trustProxy
          ? 'does not warn when TRUST_PROXY is set'
          : 'warns at start-up, as a JSON line, that TRUST_PROXY is off',
        () => {
          const warned = warnings
            .map((line) => JSON.parse(line) as { message: string })
            .filter((line) => line.message.includes('TRUST_PROXY'));
          expect(warned).to.have.length(trustProxy ? 0 : 1);
        },
      );
    });
  }
});
