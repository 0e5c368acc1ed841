import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Browser, formOf, locationOf } from '../helpers/browser.js';
import { createClientFixture, createWebmasterFixture, type ClientFixture } from '../helpers/fixtures.js';
import { apiClient, type ApiClient } from '../external/api.js';
import { authorizationUrl } from '../helpers/relying-party.js';
import { MovableClock } from '../oauth2/helpers/clock.js';
import { resourcesAfterPass, startChallenge } from '../verification/challenges/vendors/helpers/flow.js';
import { issueTickets } from '../../lib/verification/challenges/ticket/codes.js';
import { recordAcceptance } from '../../lib/oauth2/interactions/progress.js';

interface Day {
  date: string;
  environment: string;
  started: number;
  passed: number;
  refused: number;
  abandoned: number;
  reused: number;
  byChallenge: Record<string, { passed: number; refused: number; reused: number }>;
  byCountry: Record<string, number>;
  bySubdivision: Record<string, number>;
  funnel: Record<'started' | 'promptAccepted' | 'challengeChosen' | 'passed' | 'refused' | 'returned', number>;
  medianSecondsToResult: number | null;
}

/** A TEST flow through the test_outcome shortcut; `seconds` pass on our clock between the start and the result. */
async function shortcut(
  app: TestApp,
  clock: MovableClock,
  client: ClientFixture,
  query: Record<string, string>,
  seconds = 0,
): Promise<void> {
  const browser = new Browser(app.url);
  // The shortcut starts and ends in one request: the start is the interaction's creation, on the real clock.
  clock.advance(seconds);
  let next = await browser.request(authorizationUrl('', client, 'checker', { state: 'st', ...query }));
  while (locationOf(next).origin === new URL(app.url).origin) {
    const location = locationOf(next);
    next = await browser.request(location.pathname + location.search);
  }
  clock.advance(-seconds);
}

/** A visitor who reaches the prompt and declines it. */
async function decline(app: TestApp, client: ClientFixture): Promise<void> {
  const visitor = new Browser(app.url);
  const prompt = await visitor.open(authorizationUrl('', client, 'checker', { state: 'st' }));
  await visitor.submit(
    formOf(prompt, { action: '/consent' }),
    {},
    { name: 'decision', value: 'decline' },
    { stopAt: client.redirectUri },
  );
}

describe('statistics: a known set of flows, rolled up, counted number by number', () => {
  const clock = new MovableClock();
  let app: TestApp;
  let api: ApiClient;
  let test: ClientFixture;
  let live: ClientFixture;
  const today = () => clock.now().toISOString().slice(0, 10);

  before(async function () {
    this.timeout(120_000);
    app = await startTestApp({ clock, env: { STATISTICS_ROLLUP_INTERVAL_MS: '100' } });
    const webmaster = await createWebmasterFixture(app.provider.runtime);
    api = apiClient(app.url, webmaster.apiToken);
    test = await createClientFixture(app.provider.runtime, webmaster.id, { environment: 'TEST' });
    live = await createClientFixture(app.provider.runtime, webmaster.id, {
      environment: 'LIVE',
      challenges: ['ticket'],
    });

    // TEST: three passes (DE, DE, US-TX) taking 10, 20 and 30 seconds, a refusal, a visitor who declines.
    await shortcut(app, clock, test, { test_outcome: 'pass', test_country: 'DE' }, 10);
    await shortcut(app, clock, test, { test_outcome: 'pass', test_country: 'DE' }, 20);
    await shortcut(app, clock, test, { test_outcome: 'pass', test_country: 'US', test_subdivision: 'US-TX' }, 30);
    await shortcut(app, clock, test, { test_outcome: 'refuse' });
    await decline(app, test);

    // LIVE: two ticket codes redeemed through the pages, and a visitor who declines. The first visitor sends the
    // prompt's acceptance twice at once and reloads the ticket page: each step still counts once.
    const { codes } = await issueTickets(app.provider.db, app.provider.runtime.clock, { count: 3, level: 'STANDARD' });
    for (const [index, code] of codes.slice(0, 2).entries()) {
      const { visitor, uid, page } = await startChallenge(app, live, 'ticket');
      if (index === 0) {
        await Promise.all(
          [1, 2].map(() =>
            visitor.post(`/v1/oauth2/interaction/${uid}/consent`, { decision: 'accept' }, { stopAt: live.redirectUri }),
          ),
        );
        await visitor.open(page.url);
      }
      await visitor.submit(formOf(page, { action: '/redeem' }), { code });
      await resourcesAfterPass(app, live, visitor, uid);
    }
    // A visitor who accepts, begins the ticket check, and leaves: started, accepted, chosen, and nothing more.
    await startChallenge(app, live, 'ticket');
    await decline(app, live);
  });
  after(() => app.close());

  async function statistics(websiteId: number, ready: (days: Day[]) => boolean): Promise<Day[]> {
    for (;;) {
      const answer = await api.get<{ days: Day[] }>(`/website/${websiteId}/statistics?from=${today()}&to=${today()}`);
      expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
      if (ready(answer.body.days)) return answer.body.days;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('counts the TEST flows: started, passed, refused, abandoned, by challenge, by country, the median time to result', async () => {
    const [day, ...others] = await statistics(
      test.websiteId,
      (days) => days[0]?.passed === 3 && days[0].abandoned === 1,
    );
    expect(others).to.deep.equal([]);
    const { medianSecondsToResult, ...counts } = day!;
    expect(counts).to.deep.equal({
      date: today(),
      environment: 'TEST',
      started: 5,
      passed: 3,
      refused: 1,
      abandoned: 1,
      reused: 0,
      byChallenge: { sandbox: { passed: 3, refused: 1, reused: 0 } },
      byCountry: { DE: 2, US: 1 },
      bySubdivision: { 'US-TX': 1 },
      // The shortcut skips the prompt and the choice; the declined prompt is a start and nothing more.
      funnel: { started: 5, promptAccepted: 0, challengeChosen: 0, passed: 3, refused: 1, returned: 3 },
    });
    // 10, 20 and 30 seconds on our clock, plus under a second of the interaction's creation time (kept in whole seconds).
    expect(medianSecondsToResult).to.be.within(20, 21);
  });

  it('counts the LIVE flows apart, and keeps the aggregates when the verifications are swept', async () => {
    const [day] = await statistics(live.websiteId, (days) => days[0]?.passed === 2 && days[0].abandoned === 1);
    expect(day).to.deep.include({ environment: 'LIVE', started: 4, passed: 2, refused: 0, abandoned: 1, reused: 0 });
    expect(day!.funnel).to.deep.equal({
      started: 4,
      promptAccepted: 3,
      challengeChosen: 3,
      passed: 2,
      refused: 0,
      returned: 2,
    });
    expect(day!.byChallenge).to.deep.equal({ ticket: { passed: 2, refused: 0, reused: 0 } });
    expect(Object.values(day!.byCountry).reduce((sum, count) => sum + count, 0)).to.equal(2);

    await app.provider.db('verifications').delete();
    const [after] = await statistics(live.websiteId, (days) => days.length === 1);
    expect(after).to.deep.equal(day);
    const stored = await app.provider.db('statistics_daily').select();
    expect(JSON.stringify(stored)).to.not.match(/vrf_|test_[A-Za-z0-9]{10}/);
  });

  it('records an acceptance sent to two instances at once as one: the statement that stores it says which did', async () => {
    const expiresAt = new Date(Date.now() + 60_000);
    const answers = await Promise.all(
      [1, 2, 3].map(() => recordAcceptance(app.provider.db, 'race-uid', expiresAt, new Date())),
    );
    expect(answers.filter(Boolean)).to.have.length(1);
    expect(await recordAcceptance(app.provider.db, 'race-uid', expiresAt, new Date())).to.equal(false);
  });

  it('publishes the counts on the operations port as age_provider_verifications_total', async () => {
    const server = app.provider.operations.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as { port: number };
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(text).to.contain(
        'age_provider_verifications_total{challenge="sandbox",outcome="passed",environment="TEST"} 3',
      );
      expect(text).to.contain(
        'age_provider_verifications_total{challenge="sandbox",outcome="refused",environment="TEST"} 1',
      );
      expect(text).to.contain(
        'age_provider_verifications_total{challenge="ticket",outcome="passed",environment="LIVE"} 2',
      );
      expect(text).to.contain(
        'age_provider_verifications_total{challenge="none",outcome="abandoned",environment="LIVE"} 1',
      );
    } finally {
      server.close();
    }
  });

  it("answers a bad range with the spec's error body, and another webmaster's website with 401", async () => {
    for (const query of [
      '',
      'from=2026-01-01',
      'from=2026-02-30&to=2026-03-01',
      'from=2026-03-02&to=2026-03-01',
      'from=2024-01-01&to=2026-01-01',
      'from=26-01-01&to=26-01-02',
      'from=2026-01-01&to=2026-01-02&x=1',
    ]) {
      const answer = await api.get<{ message: string; error: string; statusCode: number }>(
        `/website/${test.websiteId}/statistics?${query}`,
      );
      expect(answer.status, query).to.equal(400);
      expect(answer.body).to.include({ error: 'Bad Request', statusCode: 400 });
    }
    const intruder = apiClient(app.url, (await createWebmasterFixture(app.provider.runtime)).apiToken);
    expect((await intruder.get(`/website/${test.websiteId}/statistics?from=2026-01-01&to=2026-01-02`)).status).to.equal(
      401,
    );
  });
});
