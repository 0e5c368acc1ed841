import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { LANGUAGES } from '../../lib/i18n/languages.js';
import { viewsDir } from '../../lib/paths.js';
import { Browser, linkWithText } from '../helpers/browser.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../helpers/fixtures.js';
import { htmlLang } from '../helpers/visitor.js';
import { authorizationUrl } from '../helpers/relying-party.js';
import { keptLogger } from '../helpers/log.js';

// A 1×1 PNG, the smallest logo an operator could give.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

describe('the service introduces itself: /, /favicon.ico and the access log', function () {
  this.timeout(120_000);

  describe('with the default branding', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ env: { BRAND_NAME: 'Acme Age Check' } });
    });
    after(() => app.close());

    it('answers / with a page in the brand saying what the service is and where webmasters, developers and monitoring go', async () => {
      const visitor = new Browser(app.url, { headers: { 'accept-language': 'en' } });
      const page = await visitor.open('/');
      expect(page.status).to.equal(200);
      expect(page.headers.get('content-type')).to.contain('text/html');
      expect(page.html)
        .to.contain('<title>Acme Age Check · Age verification</title>')
        .and.contain('Acme Age Check checks a visitor');
      expect(linkWithText(page, 'Webmasters platform').pathname).to.equal('/platform');
      expect(linkWithText(page, 'Service status').pathname).to.equal('/readyz');
      for (const [text, path] of [
        ['OAuth2 authorization server metadata', '/.well-known/oauth-authorization-server'],
        ['External API (OpenAPI document)', '/external/openapi.json'],
        ['Checker script', '/v1/checker.js'],
      ]) {
        const link = linkWithText(page, text!);
        expect(link.pathname).to.equal(path);
        expect((await fetch(new URL(link, app.url))).status, `${text!} answers`).to.equal(200);
      }
      expect((await visitor.open('/platform')).status, 'the platform link leads somewhere').to.equal(200);
    });

    it('speaks each of the six languages the browser asks for', async () => {
      for (const language of LANGUAGES) {
        const page = await new Browser(app.url, { headers: { 'accept-language': `${language},en;q=0.1` } }).open('/');
        expect(page.status, language).to.equal(200);
        expect(htmlLang(page), language).to.equal(language);
      }
      const french = await new Browser(app.url, { headers: { 'accept-language': 'fr-CH' } }).open('/');
      expect(french.html).to.contain('Plateforme des webmasters');
    });

    it('serves the project logo as /favicon.ico, and no other method or path beside /', async () => {
      const favicon = await fetch(`${app.url}/favicon.ico`);
      expect(favicon.status).to.equal(200);
      expect(favicon.headers.get('content-type')).to.equal('image/svg+xml');
      expect(
        Buffer.from(await favicon.arrayBuffer()).equals(readFileSync(join(viewsDir, 'static/logo-on-light.svg'))),
      ).to.equal(true);
      expect((await fetch(`${app.url}/`, { method: 'POST' })).status).to.equal(404);
      expect((await fetch(`${app.url}/index.html`)).status).to.equal(404);
    });
  });

  it("serves the operator's logo as /favicon.ico", async () => {
    const folder = await mkdtemp(join(tmpdir(), 'age-provider-favicon-'));
    await writeFile(join(folder, 'logo.png'), PNG);
    const app = await startTestApp({ env: { BRAND_LOGO: join(folder, 'logo.png') } });
    try {
      const favicon = await fetch(`${app.url}/favicon.ico`);
      expect(favicon.headers.get('content-type')).to.equal('image/png');
      expect(Buffer.from(await favicon.arrayBuffer()).equals(PNG)).to.equal(true);
    } finally {
      await app.close();
      await rm(folder, { recursive: true, force: true });
    }
  });

  describe('ACCESS_LOG', () => {
    const lines = (log: { lines: string[] }): Array<Record<string, unknown>> =>
      log.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.message === 'request');

    it("writes one line per request with the route pattern, never the path's values or the query", async () => {
      const log = keptLogger();
      const app = await startTestApp({ logger: log, env: { ACCESS_LOG: 'true' } });
      try {
        const webmaster = await createWebmasterFixture(app.provider.runtime);
        const client: ClientFixture = await createClientFixture(app.provider.runtime, webmaster.id, {
          environment: 'TEST',
        });
        const visitor = new Browser(app.url);
        const prompt = await visitor.open(
          authorizationUrl(app.url, client, 'checker', { state: 'secret-state-value' }),
        );
        const uid = /\/interaction\/([^/]+)/.exec(prompt.url.pathname)![1]!;
        await fetch(`${app.url}/nowhere?token=secret-token-value`);
        const home = await fetch(`${app.url}/`);

        const logged = lines(log);
        expect(logged.length, 'one line per request').to.equal(visitor.history.length + 2);
        for (const line of logged) {
          expect(line).to.have.keys(
            'time',
            'level',
            'message',
            'requestId',
            'method',
            'route',
            'status',
            'durationMs',
            'surface',
          );
          expect(line.durationMs).to.be.a('number').at.least(0);
        }
        expect(
          logged.map(({ method, route, status, surface }) => ({ method, route, status, surface })),
        ).to.deep.include.members([
          { method: 'GET', route: '/v1/oauth2/checker', status: 303, surface: 'oauth2' },
          { method: 'GET', route: '/v1/oauth2/interaction/:uid', status: 200, surface: 'interactions' },
          { method: 'GET', route: null, status: 404, surface: 'oauth2' },
          { method: 'GET', route: '/', status: 200, surface: 'home' },
        ]);
        expect(logged.at(-1)!.requestId, 'the id the response carried').to.equal(home.headers.get('x-request-id'));
        const text = log.lines.join('\n');
        for (const secret of ['secret-state-value', 'secret-token-value', uid, client.clientId, 'nowhere'])
          expect(text).not.to.contain(secret);
      } finally {
        await app.close();
      }
    });

    it('writes none by default', async () => {
      const log = keptLogger();
      const app = await startTestApp({ logger: log, env: {} });
      try {
        await fetch(`${app.url}/`);
        expect(lines(log)).to.deep.equal([]);
      } finally {
        await app.close();
      }
    });
  });
});
