import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemo, type Demo, type DemoOptions } from '../../examples/demo/demo.js';
import { wholeChain } from '../../lib/audit/trail.js';
import { getDomainVerification, getOAuth2Config, getWebsite } from '../../lib/websites/index.js';
import { authenticateWebmaster } from '../../lib/webmasters/accounts.js';
import { testSecrets } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { expectPage, walkSandbox } from '../helpers/visitor.js';
import { Browser } from '../helpers/browser.js';

describe('the demo (npm start): age-provider, seeded records and the relying party', () => {
  let database: TestDatabase | undefined;
  let dataDir: string;
  let demo: Demo;
  let options: DemoOptions;

  before(async () => {
    // As `npm start` runs it: the demo opens the database itself, the embedded one in DATA_DIR (or a fresh PostgreSQL one).
    if (process.env.DATABASE_URL) database = await createTestDatabase();
    dataDir = await mkdtemp(join(tmpdir(), 'age-provider-demo-'));
    options = {
      env: {},
      logLevel: 'silent',
      dataDir,
      port: 0,
      ...testSecrets,
      ...(database?.url ? { databaseUrl: database.url } : {}),
    };
    demo = await startDemo(options);
  });
  after(async () => {
    await demo?.close();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('seeds a demo webmaster whose printed password signs in, kept in DATA_DIR/demo.json with mode 600', async () => {
    const { webmaster } = demo.seed;
    expect(webmaster.created).to.equal(true);
    expect(webmaster.password).to.be.a('string').with.length.above(11);
    const file = join(dataDir, 'demo.json');
    expect((await stat(file)).mode & 0o777).to.equal(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).to.deep.include({
      email: webmaster.email,
      password: webmaster.password,
    });
    expect(await authenticateWebmaster(demo.provider.db, webmaster.email, webmaster.password!)).to.deep.include({
      id: webmaster.id,
    });
  });

  it('registers the relying party callback on an ACTIVE TEST configuration of "Demo shop"', async () => {
    const { webmaster, website } = demo.seed;
    expect(website.name).to.equal('Demo shop');
    const config = await getOAuth2Config(demo.provider.runtime, webmaster.id, website.id, 'TEST');
    expect(config.status).to.equal('ACTIVE');
    expect(config.redirectUris).to.deep.equal([`${demo.relyingPartyUrl}/callback`]);
    expect(config.clientId).to.equal(demo.seed.oauth2.clientId);
  });

  it("the website's domain is localhost, vouched for by the demo's operator, and the audit trail says so", async () => {
    const { webmaster, website } = demo.seed;
    expect(website.domain).to.equal('localhost');
    expect(await getDomainVerification(demo.provider.runtime, webmaster.id, website.id)).to.include({
      domain: 'localhost',
      verified: true,
      verifiedBy: 'operator',
    });
    const vouching = (await wholeChain(demo.provider.db, { website: website.id })).filter(
      (entry) => entry.action === 'domain.verification',
    );
    expect(vouching).to.have.length(1);
    expect(vouching[0]).to.deep.include({
      actor: { type: 'operator', id: 'npm start (demo)' },
      address: null,
      before: { domain: 'localhost', verified: false, verifiedBy: null },
      after: { domain: 'localhost', verified: true, verifiedBy: 'operator' },
    });
  });

  it('the prompt names the host the visitor returns to and its domain, both localhost, the domain verified', async () => {
    const prompt = expectPage(await new Browser().open(`${demo.relyingPartyUrl}/verify`));
    const asking = /<section class="asking"[\s\S]*?<\/section>/
      .exec(prompt.html)?.[0]
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ');
    expect(asking)
      .to.contain(`Afterwards you return to ${new URL(demo.relyingPartyUrl).host}`)
      .and.contain('Domain localhost verified');
    expect(asking).not.to.contain('not verified');
    expect(new URL(demo.relyingPartyUrl).hostname).to.equal('localhost');
  });

  it('shows the "Verify my age" button: a link that starts the flow, labelled with the service name, with the logo', async () => {
    const page = await new Browser().open(demo.relyingPartyUrl);
    expect(page.status).to.equal(200);
    expect(page.html).to.contain('<html lang="en">');
    expect(page.html).to.match(/<a class="age-button" id="verify-button" href="\/verify">/);
    expect(page.html).to.contain('Verify my age with Age Provider');
    const logo = /<img src="([^"]+)"/.exec(page.html)?.[1];
    expect(logo).to.equal(`${demo.providerUrl}/static/logo-on-dark.svg`);
    const image = await fetch(logo!);
    expect(image.status).to.equal(200);
    expect(image.headers.get('content-type')).to.contain('image/svg+xml');
  });

  it("the gate's requirement URL answers the browser script (CORS) for the website's TEST key", async () => {
    const page = await new Browser().open(demo.relyingPartyUrl);
    const url = /data-requirement-url="([^"]+)"/.exec(page.html)?.[1]?.replace(/&amp;/g, '&');
    expect(url).to.equal(`${demo.providerUrl}/v1/requirement?key=${demo.seed.publicKey}`);
    const response = await fetch(url!, { headers: { origin: demo.relyingPartyUrl } });
    expect(response.status).to.equal(200);
    expect(response.headers.get('access-control-allow-origin')).to.be.oneOf(['*', demo.relyingPartyUrl]);
    expect(await response.json()).to.deep.include({ required: true, age_threshold: 18 });
  });

  it('a visitor clicks the button, passes the TEST sandbox, and the relying party shows the verification it read', async () => {
    const visitor = new Browser();
    const start = await visitor.open(`${demo.relyingPartyUrl}/verify`);
    expect(start.url.origin).to.equal(demo.providerUrl);
    const page = await walkSandbox(visitor, start, demo.relyingPartyUrl);
    expect(page.status, visitor.trail()).to.equal(200);
    expect(page.url.pathname).to.equal('/');
    expect(page.html).to.contain('Your age is verified');
    expect(page.html).to.match(/<dt>Verified<\/dt><dd>yes<\/dd>/);
    expect(page.html).to.match(/<dt>Verification id<\/dt><dd>test_[\w-]+<\/dd>/);
    expect(page.html).to.match(/<dt>Assurance level<\/dt><dd>(STANDARD|ENHANCED|STRICT)<\/dd>/);
    expect(page.html).to.contain('<dt>Age threshold</dt><dd>18+</dd>');
    expect(page.html).to.contain('<dt>Reused from an earlier verification</dt><dd>no</dd>');
    expect(page.html).not.to.contain('id="gate"');

    const again = await visitor.open(demo.relyingPartyUrl);
    expect(again.html, 'the result is remembered by the shop').to.contain('Your age is verified');
  });

  it('a visitor who declines the prompt comes back to the shop unverified, told so on its home page', async () => {
    const visitor = new Browser();
    const page = await walkSandbox(
      visitor,
      await visitor.open(`${demo.relyingPartyUrl}/verify`),
      demo.relyingPartyUrl,
      'decline',
    );
    expect(page.url.pathname).to.equal('/');
    expect(page.html).to.contain('You declined the age verification').and.contain('data-return-to-opener');
    expect(page.html).not.to.contain('Your age is verified');
  });

  it('the callback refuses an answer whose state was not issued to this browser', async () => {
    const victim = new Browser();
    const start = await victim.open(`${demo.relyingPartyUrl}/verify`);
    const state = new URL(victim.history[1]!.url.href).searchParams.get('state');
    expect(state).to.be.a('string');
    // Another browser (no attempt cookie) and this browser with a forged state both get the error page.
    const stranger = await new Browser().open(`${demo.relyingPartyUrl}/callback?code=abc&state=${state}`);
    expect(stranger.status).to.equal(400);
    expect(stranger.html).to.contain('does not belong to a request from this browser');
    const forged = await victim.open(`${demo.relyingPartyUrl}/callback?code=abc&state=${state}x`);
    expect(forged.status).to.equal(400);
    expect(start.url.origin).to.equal(demo.providerUrl);
  });

  it('the callback refuses an answer that names another issuer (RFC 9207), even with the right state', async () => {
    const visitor = new Browser();
    await visitor.open(`${demo.relyingPartyUrl}/verify`);
    const state = new URL(visitor.history[1]!.url.href).searchParams.get('state')!;
    const page = await visitor.open(
      `${demo.relyingPartyUrl}/callback?code=abc&state=${encodeURIComponent(state)}&iss=${encodeURIComponent('https://attacker.example')}`,
    );
    expect(page.status).to.equal(502);
    expect(page.html).to.contain('could not be reached or refused the answer');
  });

  it('a second start reuses the same webmaster, website and client', async () => {
    const first = demo.seed;
    await demo.close();
    demo = await startDemo(options);
    expect(demo.seed.webmaster).to.deep.include({
      id: first.webmaster.id,
      email: first.webmaster.email,
      password: first.webmaster.password,
      created: false,
    });
    expect(demo.seed.website.id).to.equal(first.website.id);
    expect(demo.seed.oauth2.clientId).to.equal(first.oauth2.clientId);
  });

  it('a DATA_DIR of an earlier demo, its website on demo-shop.example.com, still starts: a new localhost website, verified; the earlier one left as it was', async () => {
    // The database as a demo before this change left it: the remembered website on demo-shop.example.com, never verified.
    const earlier = demo.seed.website.id;
    await demo.provider
      .db('websites')
      .where({ id: earlier })
      .update({ domain: 'demo-shop.example.com', domain_verified_at: null, domain_verified_by: null });
    await demo.close();
    demo = await startDemo(options);

    const { webmaster, website } = demo.seed;
    expect(website.id).not.to.equal(earlier);
    expect(website).to.include({ name: 'Demo shop', domain: 'localhost' });
    expect(JSON.parse(await readFile(join(dataDir, 'demo.json'), 'utf8'))).to.include({ websiteId: website.id });
    expect(await getDomainVerification(demo.provider.runtime, webmaster.id, website.id)).to.include({
      verified: true,
      verifiedBy: 'operator',
    });
    expect(await getWebsite(demo.provider.runtime, webmaster.id, earlier)).to.include({
      domain: 'demo-shop.example.com',
    });
    expect(await getDomainVerification(demo.provider.runtime, webmaster.id, earlier)).to.include({
      verified: false,
      verifiedBy: null,
    });

    const visitor = new Browser();
    const start = expectPage(await visitor.open(`${demo.relyingPartyUrl}/verify`));
    expect(start.html).to.contain('Domain localhost verified');
    const page = await walkSandbox(visitor, start, demo.relyingPartyUrl);
    expect(page.html, visitor.trail()).to.contain('Your age is verified');

    const again = demo.seed;
    await demo.close();
    demo = await startDemo(options);
    expect(demo.seed.website.id, 'and the next start keeps the new one').to.equal(again.website.id);
  });

  it('started with another SEALING_KEY on the same database, the demo gets new TEST credentials that work', async () => {
    const before = demo.seed.oauth2.clientId;
    await demo.close();
    demo = await startDemo({ ...options, sealingKey: randomBytes(32).toString('base64') });
    expect(demo.seed.oauth2.clientId).not.to.equal(before);
    const visitor = new Browser();
    const page = await walkSandbox(visitor, await visitor.open(`${demo.relyingPartyUrl}/verify`), demo.relyingPartyUrl);
    expect(page.html, visitor.trail()).to.contain('Your age is verified');
  });
});
