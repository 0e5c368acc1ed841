import { expect } from 'chai';
import { useApp, type TestApp } from '../helpers/app.js';
import { createWebmasterFixture } from '../helpers/fixtures.js';
import { Browser, decodeHtml, formOf, linkWithText, redirectPaths, type Page } from '../helpers/browser.js';
import { authorizationUrl } from '../helpers/relying-party.js';
import { getOAuth2Config } from '../../lib/websites/index.js';

async function signedIn(app: TestApp, language = 'en'): Promise<{ client: Browser; id: number }> {
  const webmaster = await createWebmasterFixture(app.provider.runtime);
  const client = new Browser(app.url, { headers: { 'accept-language': language } });
  await client.open('/platform/signin');
  await client.post('/platform/signin', { email: webmaster.email, password: webmaster.password });
  const created = await client.post('/platform/websites', {
    name: 'Sections',
    domain: 'sections.example.com',
    language: 'en',
    challenges: ['selfie'],
    regions: '',
  });
  return { client, id: Number(/\/platform\/websites\/(\d+)/.exec(created.url.pathname)![1]) };
}

/** The website's TEST configuration made on the platform, and a flow through the test_outcome shortcut per query. */
async function testFlows(
  app: TestApp,
  client: Browser,
  id: number,
  flows: Array<Record<string, string>>,
): Promise<void> {
  await client.post(`/platform/websites/${id}/oauth2/test`, {
    redirectUris: 'https://sections.example.com/callback',
  });
  const webmasterId = (await app.provider.db('websites').where({ id }).first<{ webmaster_id: number }>('webmaster_id'))!
    .webmaster_id;
  const config = await getOAuth2Config(app.provider.runtime, webmasterId, id, 'TEST');
  const visitor = new Browser(app.url);
  const fixture = { clientId: config.clientId!, redirectUri: 'https://sections.example.com/callback' };
  for (const query of flows) {
    await visitor
      .request(authorizationUrl('', fixture as never, 'checker', { state: 's', ...query }))
      .then((answer) => visitor.follow(answer, { stopAt: fixture.redirectUri }));
  }
}

const text = (page: Page): string => decodeHtml(page.html.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');

describe("webmasters platform: a website's sections (overview, integrate, settings, webhooks, activity)", () => {
  const app = useApp({ env: { STATISTICS_ROLLUP_INTERVAL_MS: '100', WEBHOOK_POLL_INTERVAL_MS: '3600000' } });

  it('links every section from every section, marking the current one, without script', async () => {
    const { client, id } = await signedIn(app);
    const sections: Array<[string, string]> = [
      ['Overview', ''],
      ['Integrate', '/integrate'],
      ['Settings', '/settings'],
      ['Webhooks', '/webhooks'],
      ['Activity', '/activity'],
    ];
    for (const [name, path] of sections) {
      const page = await client.open(`/platform/websites/${id}${path}`);
      expect(page.status, path).to.equal(200);
      expect(page.html, path).to.contain(`<a href="/platform/websites/${id}${path}" aria-current="page">${name}</a>`);
      for (const [other, otherPath] of sections)
        expect(linkWithText(page, other).pathname).to.equal(`/platform/websites/${id}${otherPath}`);
    }
  });

  it('draws the last 30 days on the Overview as SVG with a legend and the split by challenge, and offers them as CSV', async () => {
    const { client, id } = await signedIn(app);
    await testFlows(
      app,
      client,
      id,
      ['pass', 'pass', 'refuse'].map((outcome) => ({ test_outcome: outcome, test_country: 'DE' })),
    );
    // The rollup runs every 100 ms here: the Overview shows every flow once it has counted the last one.
    let overview: Page;
    do {
      overview = await client.open(`/platform/websites/${id}`);
    } while (!text(overview).includes('1 refused'));
    expect(overview.html).to.match(
      /<svg class="chart" viewBox="0 0 480 180" role="img" aria-labelledby="chart-test-title"/,
    );
    // The chart's name says which days it draws: a period's own dates, not "the last N days".
    const first = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
    expect(overview.html).to.contain(
      `<title id="chart-test-title">TEST: verifications per day from ${first} to ${new Date().toISOString().slice(0, 10)}, by outcome</title>`,
    );
    // The newest day is named last, ending at the chart's right edge (centred under its bar, it was cut off).
    const today = new Date().toISOString().slice(5, 10);
    expect(overview.html).to.contain(`<text x="476.0" y="176" text-anchor="end" font-size="13">${today}</text></svg>`);
    expect(overview.html)
      .to.not.match(/<script(?! src="\/static\/copy\.js")/)
      .and.not.contain('style=');
    const words = text(overview);
    expect(words).to.contain('Passed').and.contain('Reused').and.contain('Refused').and.contain('Abandoned');
    expect(words).to.contain('Over these days: 3 started, 2 passed, 0 reused, 1 refused, 0 abandoned.');
    // Each environment's split under its chart, without an environment column: four columns fit a phone.
    expect(words).to.match(
      /TEST .*Over these days: 3 started.* By challenge and outcome, \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d Challenge Passed Reused Refused sandbox 2 0 1 /,
    );
    const csv = await client.request(`/platform/websites/${id}/statistics.csv`);
    expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
    const [header, line] = (await csv.text()).trim().split('\r\n');
    // The funnel's steps, then the countries in columns of their own, after the challenges: each pass counted in its
    // visitor's country.
    expect(header).to.match(
      /^date,environment,started,passed,refused,abandoned,reused,median_seconds_to_result,funnel_prompt_accepted,funnel_challenge_chosen,funnel_passed,funnel_refused,funnel_returned,sandbox_passed,sandbox_refused,sandbox_reused(,country_[A-Z]{2})+$/,
    );
    expect(line).to.match(/^\d{4}-\d\d-\d\d,TEST,3,2,1,0,0,\d+(\.5)?,0,0,2,1,2,2,1,0(,\d+)+$/);
    expect(
      line!
        .split(',')
        .slice(16)
        .map(Number)
        .reduce((sum, count) => sum + count, 0),
    ).to.equal(2);

    // Any period the API accepts; a day PostgreSQL cannot hold is refused like any bad date, on the page and the CSV.
    const past = await client.open(`/platform/websites/${id}?from=2020-01-01&to=2020-12-31`);
    expect(past.status).to.equal(200);
    expect(text(past))
      .to.contain('Verifications from 2020-01-01 to 2020-12-31 (UTC)')
      .and.not.contain('Over these days');
    const bad = await client.open(`/platform/websites/${id}?from=0000-01-01&to=0000-01-31`);
    expect(bad.status).to.equal(400);
    expect(bad.html).to.contain('id="range-error"');
    expect(
      (await client.request(`/platform/websites/${id}/statistics.csv?from=0000-01-01&to=0000-01-31`)).status,
    ).to.equal(400);
  });

  it("shows the flows step by step and the verifications by country and subdivision in the page's language, each chart with its table", async () => {
    const { client, id } = await signedIn(app, 'fr');
    await testFlows(app, client, id, [
      { test_outcome: 'pass', test_country: 'US', test_subdivision: 'US-TX' },
      { test_outcome: 'pass', test_country: 'US', test_subdivision: 'US-TX' },
      { test_outcome: 'pass', test_country: 'US', test_subdivision: 'US-CA' },
      { test_outcome: 'pass', test_country: 'DE' },
      { test_outcome: 'refuse' },
    ]);
    let overview: Page;
    do {
      overview = await client.open(`/platform/websites/${id}`);
    } while (!text(overview).includes('1 refusées'));
    const words = text(overview);
    // The funnel: a chart drawn here, and the same counts in a table (the share of the flows started).
    expect(overview.html).to.match(
      /<svg class="chart" viewBox="0 0 480 288" role="img" aria-labelledby="funnel-test-title"/,
    );
    expect(words).to.contain(
      'Étape Parcours Part des commencés Commencés 5 100 % Autorisation acceptée 0 0 % Vérification choisie 0 0 % Réussis (nouveaux ou réutilisés) 4 80 % Refusés au moins une fois 1 20 % Revenus sur le site 4 80 %',
    );
    // Countries by name in French, the most verifications first, each state of the US under it.
    expect(overview.html).to.match(
      /<svg class="chart" viewBox="0 0 480 96" role="img" aria-labelledby="places-test-title"/,
    );
    expect(words).to.contain(
      'Pays ou subdivision Vérifications États-Unis US 3 Texas US-TX 2 California US-CA 1 Allemagne DE 1',
    );
    expect(overview.html).to.contain('<text x="0" y="20" font-size="13">États-Unis</text>');
    const csv = await (await client.request(`/platform/websites/${id}/statistics.csv`)).text();
    const [header, line] = csv
      .trim()
      .split('\r\n')
      .map((row) => row.split(','));
    const column = (name: string) => line![header!.indexOf(name)];
    expect([
      column('subdivision_US-TX'),
      column('subdivision_US-CA'),
      column('country_US'),
      column('funnel_returned'),
    ]).to.deep.equal(['2', '1', '3', '4']);
  });

  it('adds a webhook with its signing secret shown once, queues a test, lists it, deletes it; refuses a bad URL', async () => {
    const { client, id } = await signedIn(app);
    const page = await client.open(`/platform/websites/${id}/webhooks`);
    const refused = await client.submit(formOf(page, { action: `/platform/websites/${id}/webhooks` }), {
      url: 'http://10.0.0.1/hook',
      events: ['verification.completed'],
    });
    expect(refused.status).to.equal(400);
    expect(text(refused)).to.contain('The url must use https.');
    expect(refused.html).to.contain('value="http://10.0.0.1/hook"');

    const added = await client.submit(formOf(page, { action: `/platform/websites/${id}/webhooks` }), {
      url: 'https://hooks.example.com/in',
      events: ['verification.completed', 'key.regenerated'],
    });
    expect(redirectPaths(added)).to.deep.equal([`/platform/websites/${id}/webhooks`]);
    const secret = /<code>(whsec_[A-Za-z0-9+/=]+)<\/code>/.exec(added.html)?.[1];
    expect(secret).to.be.a('string');
    expect(text(added))
      .to.contain('The webhook was added.')
      .and.contain('you will not see it again')
      .and.contain('https://hooks.example.com/in');
    expect((await client.open(`/platform/websites/${id}/webhooks`)).html).to.not.contain(secret!);

    const tested = await client.submit(formOf(added, { button: 'Send a test event' }));
    expect(text(tested)).to.contain('A test event is on its way');
    expect(
      await app.provider
        .db('webhook_messages')
        .where({ type: 'webhook.test' })
        .count<Array<{ count: string | number }>>({ count: '*' })
        .then(([row]) => Number(row!.count)),
    ).to.equal(1);

    const intruder = await signedIn(app);
    expect((await intruder.client.open(`/platform/websites/${id}/webhooks`)).status).to.equal(401);
    const hookId = (await app.provider.db('webhooks').where({ website_id: id }).first<{ id: number }>('id'))!.id;
    expect((await intruder.client.post(`/platform/websites/${id}/webhooks/${hookId}/delete`)).status).to.equal(401);

    const deleted = await client.submit(formOf(tested, { button: 'Delete this webhook' }));
    expect(text(deleted)).to.contain('The webhook was deleted.').and.contain('No webhook yet.');
    const activity = text(await client.open(`/platform/websites/${id}/activity`));
    expect(activity)
      .to.contain('Webhook deleted')
      .and.contain('Webhook added')
      .and.contain('Field After events verification.completed, key.regenerated id ')
      .and.contain('secret (changed)');
  });
});
