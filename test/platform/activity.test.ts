import { expect } from 'chai';
import { createRemoteJWKSet, flattenedVerify, type FlattenedJWS } from 'jose';
import { useApp, type TestApp } from '../helpers/app.js';
import { createWebmasterFixture } from '../helpers/fixtures.js';
import { Browser, decodeHtml, redirectPaths } from '../helpers/browser.js';

async function signedIn(app: TestApp): Promise<Browser> {
  const webmaster = await createWebmasterFixture(app.provider.runtime);
  const client = new Browser(app.url);
  await client.open('/platform/signin');
  const page = await client.post('/platform/signin', { email: webmaster.email, password: webmaster.password });
  expect(redirectPaths(page)).to.deep.equal(['/platform/websites']);
  return client;
}

describe("webmasters platform: a website's Activity", () => {
  const app = useApp();

  it('lists the changes made on the platform, newest first, and exports the whole chain as JSON lines', async () => {
    const client = await signedIn(app);
    await client.open('/platform/websites');
    const created = await client.post('/platform/websites', {
      name: 'Logged',
      domain: 'logged.example.com',
      language: 'auto',
      challenges: ['selfie'],
      regions: '',
    });
    const id = /\/platform\/websites\/(\d+)/.exec(created.url.pathname)![1];
    await client.post(`/platform/websites/${id}`, {
      name: 'Logged shop',
      language: 'de',
      challenges: ['selfie', 'ticket'],
      regions: 'DE',
    });
    await client.post(`/platform/websites/${id}/oauth2/live`, { redirectUris: 'https://logged.example.com/cb' });

    const page = await client.open(`/platform/websites/${id}/activity`);
    expect(page.status).to.equal(200);
    const text = decodeHtml(page.html.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');
    const order = ['OAuth2 configuration created', 'Settings changed', 'Website created'].map((label) =>
      text.indexOf(label),
    );
    expect(order.every((position) => position > 0)).to.equal(true);
    expect(order).to.deep.equal([...order].sort((a, b) => a - b));
    expect(text)
      .to.contain('you, on the platform')
      .and.match(/from (::ffff:)?127\.0\.0\.1/);
    // A change shows before and after; a creation, having nothing before, only what it made.
    expect(text)
      .to.contain('Field Before After challenges selfie selfie, ticket')
      .and.contain('name Logged Logged shop')
      .and.contain('language auto de')
      .and.contain('Field After clientId live_')
      .and.contain('clientSecret (changed)')
      .and.contain('keys environment: LIVE; publicKey: pk_live_');
    expect(text).to.not.contain('Field Before After clientId');
    expect(page.html).to.not.match(/secret_[A-Za-z0-9]/);

    const download = await client.request(`/platform/websites/${id}/activity.jsonl`);
    expect(download.status).to.equal(200);
    expect(download.headers.get('content-type')).to.match(/^application\/jsonl/);
    expect(download.headers.get('content-disposition')).to.equal(`attachment; filename="website-${id}-audit.jsonl"`);
    const lines = (await download.text())
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { seq: number; action: string; previousHash: string; hash: string });
    expect(lines.map((line) => line.action)).to.deep.equal(['website.created', 'website.updated', 'oauth2.created']);
    expect(lines.map((line) => line.seq)).to.deep.equal([1, 2, 3]);
    lines.slice(1).forEach((line, index) => expect(line.previousHash).to.equal(lines[index]!.hash));
  });

  it('downloads the evidence pack of the period the form names, signed with the published keys', async () => {
    const client = await signedIn(app);
    await client.open('/platform/websites');
    const created = await client.post('/platform/websites', {
      name: 'Audited',
      domain: 'audited.example.com',
      language: 'auto',
      challenges: ['selfie'],
      regions: '',
    });
    const id = /\/platform\/websites\/(\d+)/.exec(created.url.pathname)![1];
    const page = await client.open(`/platform/websites/${id}/activity`);
    const today = new Date().toISOString().slice(0, 10);
    expect(page.html)
      .to.contain(`action="/platform/websites/${id}/evidence.json"`)
      .and.contain(`id="evidence-to" name="to" type="date" required value="${today}"`);
    const download = await client.request(`/platform/websites/${id}/evidence.json?from=${today}&to=${today}`);
    expect(download.status).to.equal(200);
    expect(download.headers.get('content-disposition')).to.equal(`attachment; filename="website-${id}-evidence.json"`);
    const pack = (await download.json()) as FlattenedJWS;
    const { payload } = await flattenedVerify(pack, createRemoteJWKSet(new URL(`${app.url}/v1/oauth2/jwks`)));
    const evidence = JSON.parse(new TextDecoder().decode(payload)) as {
      website: { name: string };
      audit: { entries: unknown[] };
    };
    expect(evidence.website.name).to.equal('Audited');
    expect(evidence.audit.entries).to.have.length(1);
    expect(
      (await client.request(`/platform/websites/${id}/evidence.json?from=${today}&to=2026-02-30`)).status,
    ).to.equal(400);
    const intruder = await signedIn(app);
    expect(
      (await intruder.request(`/platform/websites/${id}/evidence.json?from=${today}&to=${today}`)).status,
    ).to.equal(401);
  });

  it("shows another webmaster's activity to no one else, and refuses a malformed page", async () => {
    const owner = await signedIn(app);
    await owner.open('/platform/websites');
    const created = await owner.post('/platform/websites', {
      name: 'Secretive',
      domain: 'secretive.example.com',
      language: 'auto',
      challenges: ['selfie'],
      regions: '',
    });
    const id = /\/platform\/websites\/(\d+)/.exec(created.url.pathname)![1];
    const intruder = await signedIn(app);
    const page = await intruder.open(`/platform/websites/${id}/activity`);
    expect(page.status).to.equal(401);
    expect(page.html).to.not.contain('Secretive');
    expect((await intruder.request(`/platform/websites/${id}/activity.jsonl`)).status).to.equal(401);
    expect((await owner.open(`/platform/websites/${id}/activity?before=abc`)).status).to.equal(400);
    expect((await owner.open('/platform/websites/999999/activity')).status).to.equal(404);
  });
});
