import { expect } from 'chai';
import { recordExpiredFlows } from '../../lib/verification/flow-endings.js';
import { useApp } from '../helpers/app.js';
import { Browser, formOf, locationOf } from '../helpers/browser.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../helpers/fixtures.js';
import { authorizationUrl, redeem } from '../helpers/relying-party.js';
import { apiClient, type ApiClient } from '../external/api.js';

interface Listed {
  id: string;
  environment: string;
  clientId: string | null;
  startedAt: string | null;
  completedAt: string;
  outcome: string;
  challenge: string | null;
  country: string | null;
  reused: boolean;
  returnedToWebsite: boolean;
  rules: unknown[];
}
interface Page {
  verifications: Listed[];
  next: string | null;
}

/** A TEST flow through the test_outcome shortcut; the website's callback URL. */
async function shortcut(url: string, client: ClientFixture, query: Record<string, string>): Promise<URL> {
  const browser = new Browser(url);
  let next = await browser.request(authorizationUrl('', client, 'checker', { state: 'st', ...query }));
  while (locationOf(next).origin === new URL(url).origin) {
    const location = locationOf(next);
    next = await browser.request(location.pathname + location.search);
  }
  return locationOf(next);
}

describe('verifications one by one: GET /external/website/{id}/verifications and …/{verification_id}', function () {
  this.timeout(120_000);
  const app = useApp({ env: { POLICY_PRESETS: 'fr' } });
  let api: ApiClient;
  let client: ClientFixture;
  let passedUid: string;

  before(async () => {
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    api = apiClient(app.url, webmaster.apiToken);
    client = await createClientFixture(app.provider.runtime, webmaster.id, { environment: 'TEST' });
    // A pass in France (the website receives its uid from Resources), a refusal, a visitor who declines, one who leaves.
    const callback = await shortcut(app.url, client, { test_outcome: 'pass', test_country: 'FR' });
    passedUid = String((await redeem(app, client, callback.searchParams.get('code')!)).uid);
    expect((await shortcut(app.url, client, { test_outcome: 'refuse' })).searchParams.get('error')).to.equal(
      'access_denied',
    );
    const decliner = new Browser(app.url);
    const prompt = await decliner.open(authorizationUrl('', client, 'checker', { state: 'st' }));
    await decliner.submit(
      formOf(prompt, { action: '/consent' }),
      {},
      { name: 'decision', value: 'decline' },
      { stopAt: client.redirectUri },
    );
    await new Browser(app.url).open(authorizationUrl('', client, 'checker', { state: 'st' }));
    // The sweep of expired interactions, an hour and more later: the visitor who left is recorded as expired.
    await recordExpiredFlows(app.provider.db, new Date(Date.now() + 86_400_000));
  });

  it('finds the verification by the uid the website received, with what applied and nothing personal', async () => {
    const answer = await api.get<Listed>(`/website/${client.websiteId}/verifications/${passedUid}`);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    expect(answer.body).to.deep.include({
      id: passedUid,
      environment: 'TEST',
      clientId: client.clientId,
      outcome: 'verified',
      challenge: 'sandbox',
      country: 'FR',
      reused: false,
      returnedToWebsite: true,
    });
    expect(answer.body.rules).to.deep.include.members([
      { kind: 'preset', preset: 'fr', version: (answer.body.rules[0] as { version: string }).version, rule: 0 },
    ]);
    expect(new Date(answer.body.startedAt!).getTime()).to.be.at.most(new Date(answer.body.completedAt).getTime());
    expect(Object.keys(answer.body)).to.not.include.members(['email', 'address', 'wallet', 'card']);
  });

  it('lists every way the flows ended, newest first, and filters by outcome, challenge, country, environment and days', async () => {
    const all = await api.get<Page>(`/website/${client.websiteId}/verifications`);
    expect(all.status).to.equal(200);
    expect(all.body.verifications.map((flow) => flow.outcome).sort()).to.deep.equal([
      'abandoned',
      'expired',
      'refused',
      'verified',
    ]);
    const times = all.body.verifications.map((flow) => flow.completedAt);
    expect(times).to.deep.equal([...times].sort().reverse());
    const refused = all.body.verifications.find((flow) => flow.outcome === 'refused')!;
    expect(refused).to.deep.include({ challenge: 'sandbox', returnedToWebsite: true, clientId: client.clientId });
    expect(refused.id).to.match(/^test_/);
    expect(all.body.verifications.find((flow) => flow.outcome === 'expired')).to.deep.include({
      returnedToWebsite: false,
    });

    const only = async (query: string) =>
      (await api.get<Page>(`/website/${client.websiteId}/verifications?${query}`)).body.verifications.map(
        (flow) => flow.id,
      );
    expect(await only('outcome=verified')).to.deep.equal([passedUid]);
    expect(await only('country=FR')).to.deep.equal([passedUid]);
    expect(await only('country=DE')).to.deep.equal([]);
    expect(await only('challenge=sandbox&outcome=refused')).to.deep.equal([refused.id]);
    expect(await only('environment=LIVE')).to.deep.equal([]);
    const today = new Date().toISOString().slice(0, 10);
    expect(await only(`from=${today}&to=${today}&outcome=verified`)).to.deep.equal([passedUid]);
    expect(await only('from=2020-01-01&to=2020-12-31')).to.deep.equal([]);
  });

  it('pages with a cursor, each flow once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: Page } = await api.get<Page>(
        `/website/${client.websiteId}/verifications?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).to.equal(200);
      expect(page.body.verifications).to.have.length(1);
      seen.push(page.body.verifications[0]!.id);
      cursor = page.body.next;
    } while (cursor);
    expect(seen).to.have.length(4);
    expect(new Set(seen).size).to.equal(4);
  });

  it("answers bad filters, a year PostgreSQL cannot hold and a forged cursor with 400, in the External API's error body", async () => {
    for (const query of [
      'from=0000-01-01',
      'to=0000-12-31',
      'from=2026-02-30',
      'from=2026-03-02&to=2026-03-01',
      'outcome=lost',
      'country=fr',
      'environment=live',
      'limit=0',
      'limit=1000',
      'cursor=%2F%2F',
      'cursor=bm90LWEtY3Vyc29y',
      `cursor=${Buffer.from('0000-01-01|test_a').toString('base64url')}`,
      'x=1',
    ]) {
      const answer = await api.get<{ message: string; error: string; statusCode: number }>(
        `/website/${client.websiteId}/verifications?${query}`,
      );
      expect(answer.status, query).to.equal(400);
      expect(answer.body, query).to.include({ error: 'Bad Request', statusCode: 400 });
    }
    expect((await api.get(`/website/${client.websiteId}/statistics?from=0000-01-01&to=0000-01-02`)).status).to.equal(
      400,
    );
    expect((await api.get(`/website/${client.websiteId}/verifications/not-a-uid`)).status).to.equal(400);
  });

  it("does not find another website's verification, and refuses another webmaster's website", async () => {
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    const other = await createClientFixture(app.provider.runtime, webmaster.id, { environment: 'TEST' });
    const intruder = apiClient(app.url, webmaster.apiToken);
    const notFound = await intruder.get<{ statusCode: number; error: string }>(
      `/website/${other.websiteId}/verifications/${passedUid}`,
    );
    expect(notFound.status).to.equal(404);
    expect(notFound.body).to.include({ statusCode: 404, error: 'Not Found' });
    expect((await intruder.get<Page>(`/website/${other.websiteId}/verifications`)).body.verifications).to.deep.equal(
      [],
    );
    expect((await intruder.get(`/website/${client.websiteId}/verifications/${passedUid}`)).status).to.equal(401);
    expect((await intruder.get(`/website/${client.websiteId}/verifications`)).status).to.equal(401);
  });
});
