import { expect } from 'chai';
import { LANGUAGES } from '../../lib/i18n/languages.js';
import { negotiateLanguage } from '../../lib/i18n/negotiate.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

// request `language` unless auto → website's unless auto → best Accept-Language among ours → en

describe('language negotiation', () => {
  describe('the rule, in each language', () => {
    for (const language of LANGUAGES) {
      const other = language === 'fr' ? 'it' : 'fr';
      it(`${language}: the request's language beats the website's and the browser's`, () => {
        expect(negotiateLanguage(language, other, `${other}-XX`)).to.equal(language);
      });
      it(`${language}: the website's language applies when the request says auto or nothing`, () => {
        expect(negotiateLanguage('auto', language, other)).to.equal(language);
        expect(negotiateLanguage(undefined, language, other)).to.equal(language);
      });
      it(`${language}: the browser's language applies when request and website say auto`, () => {
        expect(negotiateLanguage('auto', 'auto', language)).to.equal(language);
        expect(negotiateLanguage(undefined, undefined, `${language.toUpperCase()}-XY`)).to.equal(language);
      });
    }

    it('falls back to English without any preference', () => {
      expect(negotiateLanguage(undefined, undefined, undefined)).to.equal('en');
      expect(negotiateLanguage('auto', 'auto', '')).to.equal('en');
    });

    it('treats an unsupported request or website language as auto', () => {
      expect(negotiateLanguage('nl', 'de', 'fr')).to.equal('de');
      expect(negotiateLanguage('nl', 'sv', 'fr')).to.equal('fr');
    });
  });

  describe('Accept-Language', () => {
    const cases: Array<[string, string]> = [
      ['pt-BR,pt;q=0.9,en;q=0.8', 'pt'],
      ['de-CH', 'de'],
      ['es-419, en;q=0.5', 'es'],
      ['nl, it;q=0.7, fr;q=0.8', 'fr'],
      ['en;q=0.4, de;q=0.6, fr;q=0.5', 'de'],
      ['fr;q=0.5, es;q=0.5', 'fr'],
      ['it;q=0, pt', 'pt'],
      ['ja, zh-Hant-TW;q=0.9', 'en'],
      ['de;q=0', 'en'],
      ['nl, *;q=0.5, fr;q=0.1', 'en'],
      ['*', 'en'],
      ['de;q=2, it', 'it'],
      ['de;q=abc, es;q=0.3', 'es'],
      ['garbage;;;, ,,, it-IT;q=0.9', 'it'],
      ['<script>, pt', 'pt'],
    ];
    for (const [header, language] of cases) {
      it(`"${header}" → ${language}`, () => {
        expect(negotiateLanguage(undefined, undefined, header)).to.equal(language);
      });
    }
  });

  describe('through HTTP', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp();
    });
    after(() => app.close());

    for (const language of LANGUAGES) {
      it(`an error page in ${language} for a ${language} browser`, async () => {
        const response = await fetch(`${app.url}/no/such/page`, {
          headers: { 'Accept-Language': `nl;q=0.9, ${language}-XX;q=0.8` },
        });
        expect(await response.text()).to.contain(`<html lang="${language}">`);
      });
    }
  });
});
