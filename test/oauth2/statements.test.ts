import { expect } from 'chai';
import { Browser, linkWithText, locationOf } from '../helpers/browser.js';
import { accept, authorizeUrl, callbackOf, continueWithoutSaving, expectPage, submitSandbox } from '../helpers/visitor.js';
import { authorizationQuery, readResources, requestToken, startOAuth2App, type OAuth2TestApp } from './helpers/oauth2.js';
import type { ClientFixture } from '../helpers/fixtures.js';

/**
 * SQL statements per request of a whole flow, as the database sees them (docs/performance.md): each statement is a
 * round trip, and their number, not PostgreSQL's work, was most of the hot path's cost (issue 14). Counted on the
 * second flow, so the first flow's client lookup has warmed the instance cache as it would in service.
 */
describe('oauth2: SQL statements per flow', () => {
  let harness: OAuth2TestApp;
  let client: ClientFixture;
  let statements: string[] = [];
  const record = (query: { sql: string }) => statements.push(query.sql);
  before(async () => {
    harness = await startOAuth2App();
    client = await harness.client({ challenges: ['selfie', 'ticket'] });
    harness.app.provider.db.on('query', record);
  });
  after(async () => {
    harness.app.provider.db.off('query', record);
    await harness.app.close();
  });

  /** Runs `step` and returns how many statements it issued. */
  async function counted<T>(counts: number[], step: () => Promise<T>): Promise<T> {
    statements = [];
    const result = await step();
    counts.push(statements.length);
    return result;
  }

  async function tokenAndResources(code: string, counts: Record<'token' | 'resources', number[]>): Promise<void> {
    const token = await counted(counts.token, () => requestToken(harness.app, { code, client }));
    const { access_token: accessToken } = (await token.json()) as { access_token: string };
    const resources = await counted(counts.resources, () => readResources(harness.app, accessToken));
    expect(resources.status).to.equal(200);
  }

  async function shortcutFlow(): Promise<Record<'authorization' | 'pages' | 'token' | 'resources', number[]>> {
    const counts = { authorization: [] as number[], pages: [] as number[], token: [] as number[], resources: [] as number[] };
    const browser = new Browser(harness.app.url);
    let next = await counted(counts.authorization, () => browser.request(`/v1/oauth2/checker?${authorizationQuery(client, { test_outcome: 'pass' })}`));
    while (!locationOf(next).searchParams.has('code')) {
      const location = locationOf(next);
      next = await counted(counts.pages, () => browser.request(location.pathname + location.search));
    }
    await tokenAndResources(locationOf(next).searchParams.get('code')!, counts);
    return counts;
  }

  async function pagesFlow(): Promise<Record<'pages' | 'token' | 'resources', number[]>> {
    const counts = { pages: [] as number[], token: [] as number[], resources: [] as number[] };
    const browser = new Browser(harness.app.url);
    const choice = expectPage(await counted(counts.pages, () => browser.open(authorizeUrl(harness.app.url, client)).then((prompt) => accept(browser, prompt))));
    const sandbox = await counted(counts.pages, () => browser.open(linkWithText(choice, 'Ticket code')));
    const result = expectPage(await counted(counts.pages, () => submitSandbox(browser, sandbox, { outcome: 'pass' })));
    const landing = await counted(counts.pages, () => continueWithoutSaving(browser, result));
    await tokenAndResources(callbackOf(landing, client).get('code')!, counts);
    return counts;
  }

  const sum = (counts: Record<string, number[]>) => Object.values(counts).flat().reduce((total, count) => total + count, 0);

  it('a TEST flow with test_outcome=pass: Resources 1, token 2, the whole flow 9', async () => {
    await shortcutFlow();
    const counts = await shortcutFlow();
    expect(counts.resources, 'Resources').to.deep.equal([1]);
    expect(counts.token, 'token').to.deep.equal([2]);
    expect(sum(counts), JSON.stringify(counts)).to.equal(9);
  });

  it('a TEST flow through the pages (prompt, choice, sandbox, result, continue): 17', async () => {
    await pagesFlow();
    const counts = await pagesFlow();
    expect(counts.resources, 'Resources').to.deep.equal([1]);
    expect(counts.token, 'token').to.deep.equal([2]);
    expect(sum(counts), JSON.stringify(counts)).to.equal(17);
  });
});
