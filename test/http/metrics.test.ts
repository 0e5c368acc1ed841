import { expect } from 'chai';
import { packageVersion } from '../../lib/paths.js';
import { Browser, formOf, type Page } from '../helpers/browser.js';
import { startAppWithClient, type ClientFixture } from '../helpers/fixtures.js';
import type { TestApp } from '../helpers/app.js';
import { authorizationUrl, redeem } from '../helpers/relying-party.js';
import { accept, callbackOf, walkSandbox } from '../helpers/visitor.js';
import { sampleOf, serveOperations } from '../helpers/metrics.js';

describe('metrics an operator runs on (/metrics)', function () {
  this.timeout(300_000);
  let app: TestApp;
  let client: ClientFixture;
  let operations: { url: string; close(): Promise<void> };
  const scrape = async (): Promise<string> => (await fetch(`${operations.url}/metrics`)).text();

  before(async () => {
    ({ app, client } = await startAppWithClient(
      { environment: 'TEST' },
      { env: { REQUIREMENT_RATE_LIMIT_PER_IP: '2' } },
    ));
    operations = await serveOperations(app);
  });
  after(async () => {
    await operations?.close();
    await app?.close();
  });

  /** The sandbox shortcut of a TEST client: the website's callback, without a page. */
  const shortcut = (outcome: 'pass' | 'refuse'): Promise<Page> =>
    new Browser(app.url).open(authorizationUrl(app.url, client, 'checker', { test_outcome: outcome }), {
      stopAt: client.redirectUri,
    });

  it('counts flows as they start and end, by challenge, outcome and environment, and a repeated cancel once', async () => {
    const before = await scrape();
    const ended = (challenge: string, outcome: string) =>
      sampleOf(before, 'age_provider_flows_ended_total', { challenge, outcome, environment: 'TEST' }) ?? 0;
    const startedBefore = sampleOf(before, 'age_provider_flows_started_total', { environment: 'TEST' }) ?? 0;

    const passed = callbackOf(await shortcut('pass'), client);
    await redeem(app, client, passed.get('code')!);
    expect(callbackOf(await shortcut('refuse'), client).get('error')).to.equal('access_denied');
    // Through the pages: the prompt, the first challenge in the sandbox, "continue".
    const visitor = new Browser(app.url);
    const start = await visitor.open(authorizationUrl(app.url, client), { stopAt: client.redirectUri });
    callbackOf(await walkSandbox(visitor, start, new URL(client.redirectUri).origin), client);
    // A visitor who cancels, and whose browser sends the cancel again at once: one flow ended. Whichever submit came
    // second is sent where the first went, and finds the authorization already resumed.
    const leaving = new Browser(app.url);
    const landing = await accept(
      leaving,
      await leaving.open(authorizationUrl(app.url, client), { stopAt: client.redirectUri }),
      { stopAt: client.redirectUri },
    );
    const cancel = formOf(landing, { action: /\/cancel$/ });
    const [first, second] = await Promise.all([
      leaving.submit(cancel, {}, undefined, { stopAt: client.redirectUri }),
      leaving.submit(cancel, {}, undefined, { stopAt: client.redirectUri }),
    ]);
    const [website] = [first, second].filter((page) => page.location?.href.startsWith(client.redirectUri));
    expect(callbackOf(website!, client).get('error')).to.equal('access_denied');
    expect([first.status, second.status].every((status) => status < 500)).to.equal(true);

    const after = await scrape();
    const now = (challenge: string, outcome: string) =>
      sampleOf(after, 'age_provider_flows_ended_total', { challenge, outcome, environment: 'TEST' }) ?? 0;
    expect(sampleOf(after, 'age_provider_flows_started_total', { environment: 'TEST' })).to.equal(startedBefore + 4);
    const flowLines = after
      .split('\n')
      .filter((line) => line.startsWith('age_provider_flows_'))
      .join('\n');
    expect(now('sandbox', 'passed') - ended('sandbox', 'passed'), flowLines).to.equal(1);
    expect(now('sandbox', 'refused') - ended('sandbox', 'refused')).to.equal(1);
    expect(now('none', 'abandoned') - ended('none', 'abandoned')).to.equal(1);
    // The pages' flow passed the first challenge the sandbox offered, named as such.
    const pagesPass = after
      .split('\n')
      .filter((line) => line.startsWith('age_provider_flows_ended_total{') && line.includes('outcome="passed"'))
      .filter((line) => !line.includes('challenge="sandbox"'));
    expect(pagesPass, after).to.have.length(1);
    expect(pagesPass[0]).to.match(/ 1$/);
  });

  it('times requests by route pattern, never by raw path, with a bounded value when no route matched', async () => {
    await fetch(`${app.url}/external/website/987654`);
    await fetch(`${app.url}/no-such-page-424242`);
    const text = await scrape();
    expect(text).to.match(
      /age_provider_http_request_duration_seconds_count\{surface="external",route="[^"]*:[^"]*",method="GET",status="4xx"\} \d+/,
    );
    expect(text).to.match(
      /age_provider_http_request_duration_seconds_count\{surface="[^"]+",route="none",method="GET",status="4xx"\}/,
    );
    expect(text).to.match(/route="\/v1\/oauth2\/token"/);
    expect(text).not.to.contain('987654');
    expect(text).not.to.contain('424242');
    // Interaction ids never reach a label either.
    expect(text).not.to.match(/route="\/v1\/oauth2\/interaction\/[A-Za-z0-9_-]{16,}/);
  });

  it('counts rate-limit refusals by limit', async () => {
    const before = sampleOf(await scrape(), 'age_provider_rate_limit_refusals_total', { limit: 'requirement' }) ?? 0;
    const statuses = [];
    for (let request = 0; request < 4; request++) statuses.push((await fetch(`${app.url}/v1/policies`)).status);
    expect(statuses).to.deep.equal([200, 200, 429, 429]);
    expect(sampleOf(await scrape(), 'age_provider_rate_limit_refusals_total', { limit: 'requirement' })).to.equal(
      before + 2,
    );
  });

  it('shows the database pool and counts failed statements by SQLSTATE class', async () => {
    const before = sampleOf(await scrape(), 'age_provider_db_query_failures_total', { sqlstate_class: '42' }) ?? 0;
    const { db } = app.provider;
    await db.raw('select * from a_table_nobody_made').catch(() => undefined);
    // A transaction's statements count too.
    await db.transaction((trx) => trx.raw('select no_such_column from websites')).catch(() => undefined);
    const text = await scrape();
    expect(sampleOf(text, 'age_provider_db_query_failures_total', { sqlstate_class: '42' })).to.equal(before + 2);
    expect(sampleOf(text, 'age_provider_db_pool_max')).to.be.greaterThan(0);
    expect(sampleOf(text, 'age_provider_db_pool_in_use')).to.be.a('number');
    expect(sampleOf(text, 'age_provider_db_pool_waiting')).to.equal(0);
    expect(sampleOf(text, 'age_provider_db_pool_acquire_failures_total')).to.equal(0);
  });

  it('says the build, the change feed and Redis state', async () => {
    const text = await scrape();
    expect(sampleOf(text, 'age_provider_build_info', { version: packageVersion(), node: process.version })).to.equal(1);
    expect(sampleOf(text, 'age_provider_redis_fallback_active')).to.equal(0);
    // The feed listens in the background: trusted within moments of the start.
    let trusted = sampleOf(text, 'age_provider_change_feed_trusted');
    for (let tries = 0; trusted !== 1 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      trusted = sampleOf(await scrape(), 'age_provider_change_feed_trusted');
    }
    expect(trusted).to.equal(1);
    // No eu_av configured: no trusted list series (an absent list is not a list of age 0).
    expect(text).not.to.match(/^age_provider_eu_av_trusted_list_\w+\{/m);
  });
});
