import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, type Logger } from '../../../lib/log.js';
import type { DomainProbe } from '../../../lib/websites/domain-probe.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { Browser, decodeHtml, formOf, type Page } from '../../helpers/browser.js';
import {
  createClientFixture,
  createWebmasterFixture,
  startAppWithClient,
  type ClientFixture,
  type WebmasterFixture,
} from '../../helpers/fixtures.js';
import { apiClient, expectError, type ApiClient } from '../../external/api.js';
import { accept, expectPage } from '../../helpers/visitor.js';
import { authorizationUrl } from '../../helpers/relying-party.js';
import { wholeChain } from '../../../lib/audit/trail.js';
import type { ChangeOrigin } from '../../../lib/changes.js';
import { revokeDomainVouching, vouchForDomain } from '../../../lib/websites/index.js';

interface DomainVerificationBody {
  domain: string;
  verified: boolean;
  verifiedBy: 'published' | 'operator' | null;
  verifiedAt: string | null;
  checkedAt: string | null;
  token: string;
  dns: { name: string; type: string; value: string };
  file: { url: string; content: string };
}

/**
 * The outside world of domain verification on loopback: TXT records from a table, and every https://<domain>/ file
 * from one local web server that answers what the test publishes for that domain (by Host).
 */
function loopbackWorld(): {
  probe: DomainProbe;
  dns: Map<string, string[]>;
  files: Map<string, string>;
  start(): Promise<void>;
  stop(): Promise<void>;
} {
  const dns = new Map<string, string[]>();
  const files = new Map<string, string>();
  let server: Server | undefined;
  let port = 0;
  return {
    dns,
    files,
    probe: {
      txtRecords: async (name) => dns.get(name) ?? [],
      async fetchText(url) {
        const target = new URL(url);
        const response = await fetch(`http://127.0.0.1:${port}${target.pathname}`, {
          headers: { 'x-domain': target.hostname },
          redirect: 'error',
        });
        return response.status === 200 ? response.text() : undefined;
      },
    },
    async start() {
      server = createServer((request, response) => {
        const body =
          request.url === '/.well-known/age-provider.txt' ? files.get(String(request.headers['x-domain'])) : undefined;
        response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/plain' }).end(body ?? 'not found');
      });
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    },
    stop: () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
  };
}

/** Log lines at info and above, kept as parsed JSON. */
function recordingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  return {
    lines,
    logger: createLogger('info', (line) => {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    }),
  };
}

describe('who is asking: return host, domain verification, developer details', function () {
  // Starting an app with its own database takes long on a busy machine.
  this.timeout(120_000);
  const world = loopbackWorld();
  const log = recordingLogger();
  let app: TestApp;
  let webmaster: WebmasterFixture;
  let api: ApiClient;
  let client: ClientFixture;

  before(async () => {
    await world.start();
    app = await startTestApp({ domainProbe: world.probe, logger: log.logger });
    webmaster = await createWebmasterFixture(app.provider.runtime);
    api = apiClient(app.url, webmaster.apiToken);
    // A website that calls itself google.com while its visitors are sent back to another host.
    client = await createClientFixture(app.provider.runtime, webmaster.id, {
      name: 'Google',
      domain: 'google.com',
      redirectUris: ['https://evil.example.net/cb'],
    });
  });
  after(async () => {
    await app.close();
    await world.stop();
  });

  const prompt = async (): Promise<Page> =>
    expectPage(await new Browser(app.url).open(authorizationUrl(app.url, client)));
  const asking = (page: Page): string =>
    decodeHtml(
      /<section class="asking"[\s\S]*?<\/section>/.exec(page.html)?.[0]?.replace(/<[^>]+>/g, ' ') ?? '',
    ).replace(/\s+/g, ' ');

  it('the consent page names the host the visitor returns to, from the registered redirect URI, and an unverified domain as such', async () => {
    const text = asking(await prompt());
    expect(text).to.contain('Google').and.contain('evil.example.net').and.contain('Domain google.com not verified');
  });

  it('a token is shown once made and stays the same; another webmaster gets 401, a missing website 404', async () => {
    const first = await api.get<DomainVerificationBody>(`/website/${client.websiteId}/domain-verification`);
    expect(first.status).to.equal(200);
    expect(first.body).to.include({ domain: 'google.com', verified: false, verifiedAt: null, checkedAt: null });
    expect(first.body.token).to.match(/^age-provider-verification=[A-Za-z0-9_-]{32}$/);
    expect(first.body.dns).to.deep.equal({ name: '_age-provider.google.com', type: 'TXT', value: first.body.token });
    expect(first.body.file).to.deep.equal({
      url: 'https://google.com/.well-known/age-provider.txt',
      content: first.body.token,
    });
    expect(
      (await api.get<DomainVerificationBody>(`/website/${client.websiteId}/domain-verification`)).body.token,
    ).to.equal(first.body.token);

    const stranger = await createWebmasterFixture(app.provider.runtime);
    expectError(
      await apiClient(app.url, stranger.apiToken).get(`/website/${client.websiteId}/domain-verification`),
      401,
    );
    expectError(await api.post(`/website/999999/domain-verification/check`, undefined), 404);
  });

  it('a check finds the token in the /.well-known file or in a TXT record, and forgets the proof once it is gone', async () => {
    const { token } = (await api.get<DomainVerificationBody>(`/website/${client.websiteId}/domain-verification`)).body;
    const check = async () =>
      (await api.post<DomainVerificationBody>(`/website/${client.websiteId}/domain-verification/check`, undefined))
        .body;

    const nothing = await check();
    expect(nothing).to.include({ verified: false, verifiedAt: null });
    expect(nothing.checkedAt).to.be.a('string');

    world.files.set('google.com', `other-service=abc\n${token}\n`);
    const byFile = await check();
    expect(byFile.verified).to.equal(true);
    expect(asking(await prompt()))
      .to.contain('Domain google.com verified')
      .and.not.contain('not verified');

    world.files.delete('google.com');
    world.dns.set('_age-provider.google.com', ['v=spf1 -all', token]);
    expect((await check()).verified, 'by DNS').to.equal(true);

    world.dns.delete('_age-provider.google.com');
    expect((await check()).verified, 'gone').to.equal(false);
    expect(asking(await prompt())).to.contain('not verified');
  });

  it("the operator vouches for a domain: visitors and the platform say so, its webmaster's checks keep it, nobody else can change it; only the operator's revoke drops it", async () => {
    const operator: ChangeOrigin = {
      actor: { type: 'operator', id: 'age-provider website vouch-domain' },
      address: null,
    };
    const { token } = (await api.get<DomainVerificationBody>(`/website/${client.websiteId}/domain-verification`)).body;
    const check = async () =>
      (await api.post<DomainVerificationBody>(`/website/${client.websiteId}/domain-verification/check`, undefined))
        .body;
    const platform = new Browser(app.url);
    await platform.open('/platform/signin');
    await platform.post('/platform/signin', { email: webmaster.email, password: webmaster.password });
    const settings = async () =>
      decodeHtml((await platform.open(`/platform/websites/${client.websiteId}/settings`)).html);
    expect(await check()).to.include({ verified: false, verifiedBy: null });
    expect(await settings())
      .to.contain('google.com is not verified')
      .and.contain('Check now');

    expect(await vouchForDomain(app.provider.runtime, client.websiteId, operator)).to.include({
      verified: true,
      verifiedBy: 'operator',
      changed: true,
    });
    expect(asking(await prompt()))
      .to.contain('Domain google.com verified')
      .and.not.contain('not verified');
    expect((await api.get<DomainVerificationBody>(`/website/${client.websiteId}/domain-verification`)).body).to.include(
      { verified: true, verifiedBy: 'operator' },
    );
    const page = await settings();
    expect(page).to.contain('google.com is verified by the operator of this service').and.not.contain('Check now');

    // Nothing published: the webmaster's check keeps the operator's word; published later, still the operator's.
    const kept = await check();
    expect(kept).to.include({ verified: true, verifiedBy: 'operator' });
    expect(kept.checkedAt).to.be.a('string');
    world.dns.set('_age-provider.google.com', [token]);
    expect(await check()).to.include({ verified: true, verifiedBy: 'operator' });

    // Another webmaster: refused on every operation of the domain, and there is no vouching operation at all.
    const stranger = await createWebmasterFixture(app.provider.runtime);
    const strangerApi = apiClient(app.url, stranger.apiToken);
    expectError(await strangerApi.post(`/website/${client.websiteId}/domain-verification/check`, undefined), 401);
    for (const path of ['vouch', 'vouch-domain', 'revoke']) {
      expectError(await strangerApi.post(`/website/${client.websiteId}/domain-verification/${path}`, undefined), 404);
      expectError(await api.post(`/website/${client.websiteId}/domain-verification/${path}`, undefined), 404);
    }
    const strangerPlatform = new Browser(app.url);
    await strangerPlatform.open('/platform/signin');
    await strangerPlatform.post('/platform/signin', { email: stranger.email, password: stranger.password });
    await strangerPlatform.open('/platform');
    const strangerCheck = await strangerPlatform.post(`/platform/websites/${client.websiteId}/domain/check`);
    expect(strangerCheck.status, "another webmaster's website, with a valid form token").to.equal(401);
    expect((await api.get<DomainVerificationBody>(`/website/${client.websiteId}/domain-verification`)).body).to.include(
      { verified: true, verifiedBy: 'operator' },
    );

    // The operator withdraws it: unverified until the next check, which finds the published token.
    expect(await revokeDomainVouching(app.provider.runtime, client.websiteId, operator)).to.include({
      verified: false,
      verifiedBy: null,
      changed: true,
    });
    expect(asking(await prompt())).to.contain('Domain google.com not verified');
    expect(await check()).to.include({ verified: true, verifiedBy: 'published' });
    expect(await settings()).to.contain('google.com is verified by the token you published');
    world.dns.delete('_age-provider.google.com');
    expect(await check()).to.include({ verified: false, verifiedBy: null });

    const trail = (await wholeChain(app.provider.db, { website: client.websiteId })).filter(
      (entry) => entry.action === 'domain.verification',
    );
    expect(
      trail.map((entry) => [entry.actor.type, (entry.after as { verifiedBy: string | null }).verifiedBy]),
    ).to.deep.equal([
      ['api_token', 'published'],
      ['api_token', null],
      ['operator', 'operator'],
      ['operator', null],
      ['api_token', 'published'],
      ['api_token', null],
    ]);
  });

  it('a website on localhost: nobody can publish a token for it, so a check never verifies it; the operator can vouch for it', async () => {
    const local = await api.post<{ id: number; domain: string }>('/website', {
      name: 'On my machine',
      domain: 'localhost',
    });
    expect(local.status).to.equal(200);
    const { token } = (await api.get<DomainVerificationBody>(`/website/${local.body.id}/domain-verification`)).body;
    world.dns.set('_age-provider.localhost', [token]);
    world.files.set('localhost', token);
    try {
      expect(
        (await api.post<DomainVerificationBody>(`/website/${local.body.id}/domain-verification/check`, undefined)).body,
      ).to.include({ verified: false, verifiedBy: null });
    } finally {
      world.dns.delete('_age-provider.localhost');
      world.files.delete('localhost');
    }
    await vouchForDomain(app.provider.runtime, local.body.id, {
      actor: { type: 'operator', id: 'test' },
      address: null,
    });
    expect((await api.get<DomainVerificationBody>(`/website/${local.body.id}/domain-verification`)).body).to.include({
      domain: 'localhost',
      verified: true,
      verifiedBy: 'operator',
    });
  });

  it("an unknown client's error page shows the developer the code and the value, escaped, and logs it at info with the client id", async () => {
    const clientId = '<b>not-a-client</b>';
    const page = await new Browser(app.url).open(
      authorizationUrl(app.url, { clientId, redirectUri: 'https://x.example/cb' }, 'checker', {
        response_type: undefined,
        scope: undefined,
        state: 's',
      }),
    );
    expect(page.status).to.equal(400);
    expect(page.html)
      .to.contain('For the website&#39;s developer')
      .and.contain('invalid_client')
      .and.contain('&lt;b&gt;not-a-client&lt;/b&gt;');
    expect(page.html).not.to.contain(clientId);
    expect(
      log.lines.find((line) => line['message'] === 'authorization request refused' && line['client_id'] === clientId),
    ).to.include({ level: 'info', error: 'invalid_client' });
  });

  it('an unregistered redirect URI is shown to the developer with the value it carried', async () => {
    const page = await new Browser(app.url).open(
      authorizationUrl(app.url, { ...client, redirectUri: 'https://elsewhere.example/cb' }),
    );
    expect(page.html)
      .to.contain('invalid_redirect_uri')
      .and.contain('https://elsewhere.example/cb')
      .and.contain(client.clientId);
  });

  it('a mis-cased or unknown language is negotiated instead, with the reason logged', async () => {
    for (const [language, reason] of [
      ['FR', 'mis-cased'],
      ['nl', 'unknown'],
    ] as const) {
      const browser = new Browser(app.url, { headers: { 'accept-language': 'de-DE' } });
      const page = expectPage(await browser.open(authorizationUrl(app.url, client, 'checker', { language })));
      expect(page.html, language).to.contain('<html lang="de">');
      expect(
        log.lines.find((line) => line['message'] === 'language parameter ignored' && line['language'] === language),
      ).to.include({ reason, negotiated: 'de' });
    }
  });
});

describe('forms on the visitor pages', function () {
  this.timeout(120_000);
  let app: TestApp;
  let client: ClientFixture;

  before(async () => {
    ({ app, client } = await startAppWithClient({ environment: 'LIVE', challenges: ['ticket'] }));
  });
  after(() => app.close());

  it('a wrong ticket code stays in the field, its error is summarised at the top linked to the field, and with one method there is no "choose another"', async () => {
    const browser = new Browser(app.url);
    const ticket = await accept(browser, await browser.open(authorizationUrl(app.url, client)));
    expect(ticket.html).to.contain('id="code"');
    const answer = await browser.submit(formOf(ticket, { action: '/redeem' }), { code: 'ABCD-EFGH-WRONG' });
    expect(answer.status).to.equal(422);
    expect(formOf(answer, { action: '/redeem' }).fields['code']).to.equal('ABCD-EFGH-WRONG');
    expect(answer.html).to.match(/class="error-summary"[\s\S]*<a href="#code">/);
    expect(answer.html).to.contain('aria-invalid="true"');
    expect(answer.html).not.to.contain('Choose another method');
  });
});
