import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contrastWithWhite } from '../../lib/branding/contrast.js';
import { brandingSettings, type BrandingOptions } from '../../lib/branding/index.js';
import { readSection } from '../../lib/config/settings.js';
import { ConfigError } from '../../lib/config/settings.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10" fill="#123"/></svg>';

const loadBranding = (env: NodeJS.ProcessEnv, given?: BrandingOptions) => readSection(brandingSettings, env, given);

describe('operator branding', function () {
  this.timeout(120_000);
  let folder: string;
  before(async () => {
    folder = await mkdtemp(join(tmpdir(), 'age-provider-brand-'));
    await writeFile(join(folder, 'logo.svg'), LOGO_SVG);
  });
  after(() => rm(folder, { recursive: true, force: true }));

  describe('settings', () => {
    it('defaults to the project name and blue, no logo of the operator and no links', () => {
      expect(loadBranding({})).to.deep.equal({ name: 'Age Provider', color: '#004db3' });
    });

    it('computes the WCAG contrast of white text', () => {
      expect(contrastWithWhite('#ffffff')).to.equal(1);
      expect(contrastWithWhite('#000')).to.equal(21);
      expect(contrastWithWhite('#004db3')).to.be.within(7.7, 7.8);
    });

    it('refuses a colour white text cannot be read on, naming BRAND_COLOR and the contrast', () => {
      expect(() => loadBranding({ BRAND_COLOR: '#ffcc00' })).to.throw(
        ConfigError,
        /BRAND_COLOR: white text on #ffcc00 has a contrast of 1\.\d\d:1, below the 4\.5:1/,
      );
      expect(() => loadBranding({ BRAND_COLOR: '#777777' }), '4.48:1 is not enough').to.throw(
        ConfigError,
        /BRAND_COLOR/,
      );
      expect(loadBranding({ BRAND_COLOR: '#767676' }).color, '4.54:1 is').to.equal('#767676');
    });

    it('names the variable of every malformed value', () => {
      expect(() => loadBranding({ BRAND_COLOR: 'blue' })).to.throw(
        ConfigError,
        /BRAND_COLOR must be a colour like #004db3/,
      );
      expect(() => loadBranding({ PRIVACY_POLICY_URL: 'javascript:alert(1)' })).to.throw(
        ConfigError,
        /PRIVACY_POLICY_URL must be an http\(s\) URL/,
      );
      expect(() => loadBranding({ SUPPORT_EMAIL: 'nobody' })).to.throw(
        ConfigError,
        /SUPPORT_EMAIL must be an email address/,
      );
      expect(() => loadBranding({ BRAND_LOGO: '/etc/passwd' })).to.throw(
        ConfigError,
        /BRAND_LOGO must be the path of an \.svg or \.png file/,
      );
      expect(() => loadBranding({ BRAND_LOGO: join(folder, 'missing.png') })).to.throw(
        ConfigError,
        /BRAND_LOGO: cannot read .*missing\.png \(ENOENT\)/,
      );
    });

    it('takes options over the environment, as createAgeProvider does', () => {
      expect(loadBranding({ BRAND_NAME: 'From env', OPERATOR_NAME: 'Env Ltd' }, { name: 'From options' })).to.include({
        name: 'From options',
        operatorName: 'Env Ltd',
      });
    });
  });

  describe('on the pages', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({
        branding: {
          name: 'Trustcheck',
          logo: join(folder, 'logo.svg'),
          color: '#1d4ed8',
          operatorName: 'Trustcheck GmbH',
          privacyPolicyUrl: 'https://trustcheck.example/privacy',
          supportEmail: 'help@trustcheck.example',
        },
      });
    });
    after(() => app.close());

    it('every page shows the logo and the name in the header, and the operator and set links in the footer', async () => {
      for (const path of ['/platform/signin', '/v1/oauth2/checker?client_id=nobody']) {
        const html = await (await fetch(`${app.url}${path}`)).text();
        expect(html, path).to.match(
          /<header class="brand">[\s\S]*src="\/brand\/logo\.svg"[\s\S]*Trustcheck[\s\S]*<\/header>/,
        );
        expect(html, path).to.match(/<title>[^<]*Trustcheck<\/title>/);
        const footer = /<footer[\s\S]*<\/footer>/.exec(html)?.[0] ?? '';
        expect(footer, path)
          .to.contain('Operated by Trustcheck GmbH')
          .and.contain('href="https://trustcheck.example/privacy"')
          .and.contain('href="mailto:help@trustcheck.example"');
        expect(footer, `${path}: no terms link when TERMS_URL is unset`).not.to.contain('Terms of use');
      }
    });

    it('serves the logo and the colour from our own origin; the logo runs nothing', async () => {
      const logo = await fetch(`${app.url}/brand/logo.svg`);
      expect(logo.headers.get('content-type')).to.equal('image/svg+xml');
      expect(logo.headers.get('content-security-policy')).to.contain('sandbox');
      expect(await logo.text()).to.equal(LOGO_SVG);
      const theme = await fetch(`${app.url}/brand/theme.css`);
      expect(theme.headers.get('content-type')).to.match(/^text\/css/);
      expect(await theme.text()).to.contain('--brand: #1d4ed8;');
    });

    it('createAgeProvider refuses a low-contrast colour, naming the variable', async () => {
      let failure: unknown;
      try {
        await (await startTestApp({ branding: { color: '#fafafa' } })).close();
      } catch (error) {
        failure = error;
      }
      expect(failure)
        .to.be.instanceOf(ConfigError)
        .and.have.property('message')
        .that.matches(/BRAND_COLOR/);
    });
  });
});
