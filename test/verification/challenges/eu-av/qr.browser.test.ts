import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { chromium, type Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../../../helpers/app.js';
import { CHROMIUM, CHROMIUM_ARGS, VIEWPORTS } from '../../../helpers/chromium.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../../../helpers/fixtures.js';
import { authorizeUrl } from '../../../helpers/visitor.js';
import { createTestIssuer, readWalletRequest } from './wallet.js';

// A CommonJS module: its `default` export is where the types say the import is.
const jsQR = jsQRModule.default;

// The eu_av page as chromium draws it at one device pixel per CSS pixel, the page's whole screenshot handed to a
// decoder that shares nothing with the library that drew the code: what a phone's camera meets on a plain screen.

describe('eu_av QR code read from a 1x screenshot of the page (Debian chromium, headless; jsQR)', function () {
  this.timeout(120_000);
  let app: TestApp | undefined;
  let trustDir: string | undefined;
  let fixture: ClientFixture;
  let browser: Browser | undefined;

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`    skipped: ${CHROMIUM} is not installed (Debian: apt-get install -y chromium)`);
      this.skip();
    }
    trustDir = await mkdtemp(join(tmpdir(), 'eu-av-qr-trust-'));
    await writeFile(join(trustDir, 'issuer.pem'), (await createTestIssuer()).rootPem);
    app = await startTestApp({ env: { EU_AV_TRUSTED_ISSUERS: trustDir } });
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    fixture = await createClientFixture(app.provider.runtime, webmaster.id, { environment: 'LIVE', challenges: ['ticket'] });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    if (trustDir) await rm(trustDir, { recursive: true, force: true });
  });

  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    it(`at ${size} size (${viewport.width} px), 1x: the code decodes to the cross-device request, with a 4-module quiet zone`, async () => {
      const context = await browser!.newContext({ viewport, deviceScaleFactor: 1, locale: 'en-GB' });
      const page = await context.newPage();
      await page.goto(authorizeUrl(app!.url, fixture, 'checker', { response_type: 'code', scope: 'read', challenges: 'eu_av' }));
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
        viewBox: element.getAttribute('viewBox'), width: element.getBoundingClientRect().width, path: element.querySelector('path[stroke]')?.getAttribute('d'),
      }));
      const modules = Number(svg.viewBox!.split(' ')[2]);
      // The first dark module of the finder pattern sits four modules in; whole pixels per module.
      expect(svg.path!.startsWith('M4 4.5')).to.equal(true);
      expect(svg.width % modules).to.equal(0);
      expect(svg.width / modules).to.be.at.least(2);
      await context.close();
    });
  }
});
