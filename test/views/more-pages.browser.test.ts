import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { chromium, type Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { axeViolations, CHROMIUM, CHROMIUM_ARGS, openPage, VIEWPORTS } from '../helpers/chromium.js';
import { bodyOf, mailNumber, startSmtpSink } from '../helpers/smtp-sink.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../helpers/fixtures.js';
import { authorizationUrl } from '../helpers/relying-party.js';
import { createTestIssuer, readWalletRequest } from '../verification/challenges/eu-av/wallet.js';

// A CommonJS module: its `default` export is where the types say the import is.
const jsQR = jsQRModule.default;

// The page states visitor-pages.browser.test.ts does not reach: the home page, the webmasters' platform, the eu_av challenge and
// the result page offering to save the result to a passkey. axe finds no violation at desktop size and 390 px wide.
// The eu_av QR code is read from the page as chromium draws it at one device pixel per CSS pixel, by a decoder that
// shares nothing with the library that drew it: what a phone's camera meets on a plain screen.

describe('more pages in a browser: axe at desktop size and 390 px (Debian chromium, headless)', function () {
  this.timeout(240_000);
  let app: TestApp | undefined;
  let trustDir: string | undefined;
  let euAv: ClientFixture;
  let selfie: ClientFixture;
  let browser: Browser | undefined;
  let smtp: Awaited<ReturnType<typeof startSmtpSink>> | undefined;

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`    skipped: ${CHROMIUM} is not installed (Debian: apt-get install -y chromium)`);
      this.skip();
    }
    trustDir = await mkdtemp(join(tmpdir(), 'age-provider-axe-trust-'));
    await writeFile(join(trustDir, 'issuer.pem'), (await createTestIssuer()).rootPem);
    // Passkeys refuse an IP address as relying-party id: the issuer is http://localhost:<port>.
    // A mail server, for the sign-in code pages.
    smtp = await startSmtpSink();
    app = await startTestApp(
      {
        env: {
          EU_AV_TRUSTED_ISSUERS: trustDir,
          SMTP_URL: smtp.url,
          MAIL_FROM: 'Age Provider <no-reply@age.test>',
          STATISTICS_ROLLUP_INTERVAL_MS: '100',
          WEBHOOK_POLL_INTERVAL_MS: '3600000',
        },
      },
      { hostname: 'localhost' },
    );
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    euAv = await createClientFixture(app.provider.runtime, webmaster.id, {
      environment: 'LIVE',
      challenges: ['ticket'],
    });
    selfie = await createClientFixture(app.provider.runtime, webmaster.id, {
      environment: 'TEST',
      challenges: ['selfie', 'ticket'],
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await smtp?.close();
    if (trustDir) await rm(trustDir, { recursive: true, force: true });
  });

  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    it(`every platform, eu_av and passkey page state at ${size} size (${viewport.width} px) has no axe violation`, async () => {
      const { context, page, problems } = await openPage(browser!, viewport);
      const checked: string[] = [];
      const check = async (state: string): Promise<void> => {
        expect(await axeViolations(page), `${state} at ${size}`).to.deep.equal([]);
        checked.push(state);
      };
      const base = app!.url;
      const email = `axe-${size}@example.test`;

      await page.goto(`${base}/`);
      await check('home page');
      await page.goto(`${base}/platform/register`);
      await check('platform register');
      await page.getByLabel('Email').fill(email);
      await page.getByRole('button', { name: 'Email me a link' }).click();
      await page.waitForURL((url) => url.pathname === '/platform/register/sent');
      await check('platform register, link mailed');
      const link = /http:\/\/localhost:\d+\/platform\/password\/[A-Za-z0-9_-]{43}/.exec(
        bodyOf(await mailNumber(smtp!.mails, email, 1)),
      )![0];
      await page.goto(link);
      await check('platform set password');
      await page.getByLabel('Password', { exact: true }).fill('an accessible passphrase');
      await page.getByLabel('Confirm password').fill('an accessible passphrase');
      await page.getByRole('button', { name: 'Set password and sign in' }).click();
      await page.waitForURL((url) => url.pathname === '/platform/websites');
      expect(
        await page.locator('.empty-state').count(),
        'a new webmaster, signed in by registering, has no website yet',
      ).to.equal(1);
      await check('platform websites, empty');
      await page.goto(`${base}/platform/signin`);
      await check('platform sign-in');
      await page.goto(`${base}/platform/websites`);

      await page.getByLabel('Name').fill('Accessible shop');
      await page.getByLabel('Domain').fill('accessible.example.com');
      await page.getByRole('button', { name: 'Add website' }).click();
      await page.waitForURL((url) => /^\/platform\/websites\/\d+\/integrate$/.test(url.pathname));
      const website = new URL(page.url()).pathname.replace(/\/integrate$/, '');
      expect(await page.locator('#checker-heading').count(), 'the checker script first').to.equal(1);
      await check('platform website, Integrate');

      await page.goto(`${base}${website}/settings`);
      await page.getByLabel('Redirect URIs').last().fill('http://localhost:4000/callback');
      await page.getByRole('button', { name: 'Enable OAuth2 (TEST)' }).click();
      await page.locator('#new-secret').waitFor();
      await check('platform website, Integrate with a new client secret shown once');
      const clientId = await page
        .locator('#integrate-test-server')
        .textContent()
        .then((code) => /CLIENT_ID = "([^"]+)"/.exec(code ?? '')?.[1]);
      // A TEST flow through the shortcut, so the Overview has a day to draw.
      await page.request
        .get(
          authorizationUrl(base, { clientId: clientId!, redirectUri: 'http://localhost:4000/callback' }, 'checker', {
            state: 's',
            test_outcome: 'pass',
            test_country: 'US',
            test_subdivision: 'US-TX',
          }),
        )
        .catch(() => undefined); // ends at the website's callback, which nobody serves here
      await page.goto(`${base}${website}`);
      // The rollup runs every 100 ms: the Overview is checked once it draws the flow, its funnel and its places.
      while ((await page.locator('#places-test').count()) === 0) await page.reload();
      await check('platform website, Overview');
      await page.goto(`${base}${website}/webhooks`);
      await page.getByLabel('Endpoint URL').fill('https://hooks.example.com/in');
      await page.getByRole('button', { name: 'Add webhook' }).click();
      await page.locator('#new-secret').waitFor();
      await check('platform website, Webhooks with a new signing secret');
      await page.goto(`${base}${website}/webhooks`);
      await page.getByRole('button', { name: 'Rotate the secret' }).click();
      await page.locator('#new-secret').waitFor();
      await check('platform website, Webhooks after a rotation: the new secret once, the overlap');
      await page.goto(`${base}${website}/activity`);
      await check('platform website, Activity');
      await page.goto(`${base}${website}/verifications`);
      await check('platform website, Verifications');
      await page.locator('table.split a').first().click();
      await page.getByRole('heading', { name: 'Verification', exact: true }).waitFor();
      await check('platform website, one verification');
      await page.goto(`${base}${website}/settings`);
      expect(
        await page.locator('[aria-labelledby="domain-heading"], #domain-heading').count(),
        'the domain section',
      ).to.be.above(0);
      await check('platform website, Settings with domain');

      await page.getByRole('link', { name: /TEST/ }).first().click();
      await page.getByRole('heading', { name: 'Regenerate the TEST key of Accessible shop?' }).waitFor();
      await check('platform confirmation (regenerate key)');

      await page.goto(`${base}/platform/account`);
      await check('platform account');
      await page.goto(`${base}/platform/keys`);
      await check('platform API keys');
      await page.getByLabel('Name', { exact: true }).fill('deploy script');
      await page.getByRole('button', { name: 'Make the key' }).click();
      await page.getByLabel('Your new API key').waitFor();
      await check('platform API keys, new key shown once');
      await page.goto(`${base}/platform/members`);
      await check('platform members');
      await page.goto(`${base}${website}/delete`);
      await check('platform confirmation (delete website)');
      await page.goto(`${base}/platform/account/close`);
      await check('platform confirmation (close account)');

      await page.goto(`${base}/platform/password/forgot`);
      await check('platform forgotten password');
      await page.goto(`${base}/platform/password/${'x'.repeat(43)}`);
      await check('platform set password, link expired');
      await page.goto(`${base}/platform/signin/code`);
      await check('platform sign-in code, asking');
      await page.getByLabel('Email').fill(email);
      await page.getByRole('button', { name: 'Email me a code' }).click();
      await page.getByLabel('Code from the email').waitFor();
      await check('platform sign-in code, entering');

      // eu_av: a LIVE client naming challenges=eu_av, prompt accepted.
      await page.goto(
        authorizationUrl(base, euAv, 'checker', { response_type: 'code', scope: 'read', challenges: 'eu_av' }),
      );
      await page.getByRole('button', { name: 'Accept and continue' }).click();
      await page.waitForURL((url) => /\/challenge\/eu_av\/start$/.test(url.pathname));
      await page.getByRole('link', { name: 'Open my app on this device' }).waitFor();
      await check('eu_av challenge');

      // The result page with its passkey section: the selfie sandbox passed.
      await page.goto(authorizationUrl(base, selfie, 'checker'));
      await page.getByRole('button', { name: 'Accept and continue' }).click();
      await page.getByRole('link', { name: 'Selfie' }).click();
      await page.getByRole('radio', { name: /^Pass/ }).check();
      await page.getByRole('button', { name: 'Send this result' }).click();
      await page.getByRole('heading', { name: 'Your age is verified' }).waitFor();
      await page.getByRole('button', { name: 'Save to a passkey' }).waitFor();
      await check('result with passkey save');

      expect(checked).to.have.length(28);
      expect(problems).to.deep.equal([]);
      await context.close();
    });
  }

  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    it(`eu_av at ${size} size (${viewport.width} px), 1x: jsQR reads the QR code from a screenshot of the page as the cross-device request, with a 4-module quiet zone`, async () => {
      const context = await browser!.newContext({ viewport, deviceScaleFactor: 1, locale: 'en-GB' });
      const page = await context.newPage();
      await page.goto(authorizationUrl(app!.url, euAv, 'checker', { challenges: 'eu_av' }));
      await page.getByRole('button', { name: 'Accept and continue' }).click();
      await page.waitForURL((url) => /\/challenge\/eu_av\/start$/.test(url.pathname));
      const link = await page.getByRole('link', { name: 'Open my app on this device' }).getAttribute('href');

      const png = PNG.sync.read(await page.screenshot({ fullPage: true }));
      const code = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
      expect(code, 'no QR code found in the screenshot').to.not.equal(null);
      const request = readWalletRequest(code!.data);
      expect(code!.data.startsWith('av://?')).to.equal(true);
      expect(request.responseUri).to.equal(`${app!.url}/v1/oauth2/eu-av/response`);
      expect(request.state).to.not.equal(readWalletRequest(link!).state);

      const svg = await page.locator('.eu-av-qr svg').evaluate((element) => ({
        viewBox: element.getAttribute('viewBox'),
        width: element.getBoundingClientRect().width,
        path: element.querySelector('path[stroke]')?.getAttribute('d'),
      }));
      const modules = Number(svg.viewBox!.split(' ')[2]);
      // The first dark module of the finder pattern sits four modules in; whole pixels per module.
      expect(svg.path!.startsWith('M4 4.5')).to.equal(true);
      expect(svg.width % modules).to.equal(0);
      expect(svg.width / modules).to.be.at.least(2);
      await context.close();
    });
  }

  it("eu_av through the browser's Digital Credentials API: org-iso-mdoc is the first request; when the call fails, the visitor is told so in their language, and may try again", async () => {
    const context = await browser!.newContext({ viewport: VIEWPORTS.desktop, locale: 'fr-FR' });
    // A browser with the API whose wallet call fails (as when no wallet answers, or the visitor cancels): what the page asked is kept.
    await context.addInitScript({
      content: `
      window.askedDigital = [];
      window.DigitalCredential = function DigitalCredential() {};
      Object.defineProperty(navigator, 'credentials', { value: { get: function (options) {
        window.askedDigital.push(options.digital);
        return Promise.reject(new DOMException('Unsupported protocol', 'NotAllowedError'));
      } } });`,
    });
    const page = await context.newPage();
    await page.goto(authorizationUrl(app!.url, euAv, 'checker', { challenges: 'eu_av' }));
    await page.getByRole('button', { name: 'Accepter et continuer' }).click();
    await page.waitForURL((url) => /\/challenge\/eu_av\/start$/.test(url.pathname));
    const failed = page.locator('#eu-av-dc-api-failed');
    expect(await failed.isVisible()).to.equal(false);
    await page.getByRole('button', { name: 'Partager depuis un portefeuille via ce navigateur' }).click();
    await failed.waitFor({ state: 'visible' });
    expect(await page.getByRole('alert').filter({ hasText: 'portefeuille' }).textContent()).to.equal(
      "Votre navigateur n'a pas obtenu de réponse d'un portefeuille. Réessayez, ou utilisez le code QR ou le lien ci-dessous.",
    );
    const asked = (await page.evaluate('window.askedDigital')) as Array<{ requests: Array<{ protocol: string }> }>;
    expect(asked.map(({ requests }) => requests.map(({ protocol }) => protocol))).to.deep.equal([
      ['org-iso-mdoc', 'openid4vp-v1-unsigned'],
    ]);
    // The button stays: a second try asks again, the sentence hidden meanwhile then shown again.
    await page.getByRole('button', { name: 'Partager depuis un portefeuille via ce navigateur' }).click();
    await failed.waitFor({ state: 'visible' });
    expect(await page.evaluate('window.askedDigital.length')).to.equal(2);
    expect(await axeViolations(page)).to.deep.equal([]);
    await context.close();
  });
});
