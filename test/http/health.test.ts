import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, useApp, type TestApp } from '../helpers/app.js';

describe('operations endpoints and the HTML fallback', () => {
  const app = useApp();

  it('answers /healthz and /readyz with no-store', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const response = await fetch(app.url + path);
      expect(response.status).to.equal(200);
      expect(response.headers.get('cache-control')).to.equal('no-store');
      expect((await response.json()) as object).to.have.property('status');
    }
  });

  it('reports not ready when the database is gone', async () => {
    const other = await startTestApp();
    try {
      await other.database.db.destroy();
      const response = await fetch(`${other.url}/readyz`);
      expect(response.status).to.equal(503);
    } finally {
      await other.close();
    }
  });

  it('reports not ready as soon as the server begins to shut down', async () => {
    const other = await startTestApp();
    try {
      other.provider.drain();
      const response = await fetch(`${other.url}/readyz`);
      expect(response.status).to.equal(503);
      expect(await response.json()).to.deep.equal({ status: 'draining' });
      expect((await fetch(`${other.url}/healthz`)).status).to.equal(200);
    } finally {
      await other.close();
    }
  });

  it('renders an unknown path as an HTML page in the browser language, with security headers and a strict CSP', async () => {
    const response = await fetch(`${app.url}/no/such/page`, { headers: { 'Accept-Language': 'fr-CH, de;q=0.5' } });
    expect(response.status).to.equal(404);
    expect(response.headers.get('content-type')).to.match(/^text\/html/);
    expect(response.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(response.headers.get('x-frame-options')).to.equal('DENY');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).to.contain("default-src 'none'").and.contain("frame-ancestors 'none'").and.not.contain('unsafe-inline');
    const html = await response.text();
    expect(html).to.contain('<html lang="fr">').and.not.contain('Not Found');
    expect(html).to.match(/<h1[^>]*>[^<]*introuvable[^<]*<\/h1>/i);
    // Stylesheets and the icon belong in <head> (no stray /favicon.ico request, no restyling flash).
    expect(html.slice(0, html.indexOf('</head>')))
      .to.contain('rel="icon" href="/static/logo-on-light.svg"')
      .and.contain('href="/static/app.css"');
  });

  it('serves the stylesheet from memory and nothing outside views/static', async () => {
    const css = await fetch(`${app.url}/static/app.css`);
    expect(css.status).to.equal(200);
    expect(css.headers.get('content-type')).to.match(/^text\/css/);
    const escape = await fetch(`${app.url}/static/..%2f..%2fpackage.json`);
    expect(escape.status).to.equal(404);
  });
});

describe('/metrics on the operations listener', () => {
  let app: TestApp;
  let operations: Server;
  let operationsUrl: string;
  before(async () => {
    app = await startTestApp();
    const handle = app.provider.operations.callback();
    operations = createServer((request, response) => void handle(request, response));
    await new Promise<void>((resolve) => operations.listen(0, '127.0.0.1', resolve));
    operationsUrl = `http://127.0.0.1:${(operations.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => operations.close(() => resolve()));
    await app.close();
  });

  it('is not served on the public port', async () => {
    expect((await fetch(`${app.url}/metrics`)).status).to.equal(404);
  });

  it('serves health beside it for local probes', async () => {
    expect((await fetch(`${operationsUrl}/healthz`)).status).to.equal(200);
    expect((await fetch(`${operationsUrl}/readyz`)).status).to.equal(200);
  });

  it('exposes request latency per surface in the Prometheus format, never raw paths', async () => {
    await fetch(`${app.url}/healthz`);
    await fetch(`${app.url}/external/website/12345`);
    const response = await fetch(`${operationsUrl}/metrics`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^text\/plain/);
    const text = await response.text();
    expect(text).to.match(
      /age_provider_http_request_duration_seconds_count\{surface="external",route="[^"]+",method="GET",status="[45]xx"\} 1/,
    );
    expect(text).to.contain('process_resident_memory_bytes');
    expect(text).not.to.contain('12345');
  });
});
