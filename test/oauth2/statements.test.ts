import { expect } from 'chai';
import { Browser, linkWithText, locationOf } from '../helpers/browser.js';
import { accept, callbackOf, continueWithoutSaving, expectPage, submitSandbox } from '../helpers/visitor.js';
import { authorizationUrl, readResources, requestToken, startOAuth2App, type OAuth2TestApp } from './helpers/oauth2.js';
import type { ClientFixture } from '../helpers/fixtures.js';
import type { Database } from '../../lib/store/database.js';
import type pg from 'pg';

/**
 * SQL statements per request of a whole flow, as the database sees them (docs/performance.md): each statement is a
 * round trip, and their number, not PostgreSQL's work, was most of the hot path's cost. Counted on the
 * second flow, so the first flow's client lookup has warmed the instance cache as it would in service.
 */
/**
 * Makes every idle connection of the pool report its statistics now: a PostgreSQL backend that reported less than a
 * second ago may hold its counts for ten seconds. Takes exactly the idle connections (the pool opens none for this),
 * so the next flow runs on a connection that planned its statements earlier.
 */
async function reportStatistics(db: Database): Promise<void> {
  const client = db.client as {
    pool: { numFree(): number };
    acquireConnection(): Promise<pg.Client>;
    releaseConnection(connection: pg.Client): Promise<void>;
  };
  const connections = await Promise.all(
    Array.from({ length: client.pool.numFree() }, () => client.acquireConnection()),
  );
  try {
    for (const connection of connections) await connection.query('SELECT pg_stat_force_next_flush()');
  } finally {
    await Promise.all(connections.map((connection) => client.releaseConnection(connection)));
  }
}

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
    const counts = {
      authorization: [] as number[],
      pages: [] as number[],
      token: [] as number[],
      resources: [] as number[],
    };
    const browser = new Browser(harness.app.url);
    let next = await counted(counts.authorization, () =>
      browser.request(authorizationUrl('', client, 'checker', { test_outcome: 'pass' })),
    );
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
    const choice = expectPage(
      await counted(counts.pages, () =>
        browser.open(authorizationUrl(harness.app.url, client)).then((prompt) => accept(browser, prompt)),
      ),
    );
    const sandbox = await counted(counts.pages, () => browser.open(linkWithText(choice, 'Ticket code')));
    const result = expectPage(await counted(counts.pages, () => submitSandbox(browser, sandbox, { outcome: 'pass' })));
    const landing = await counted(counts.pages, () => continueWithoutSaving(browser, result));
    await tokenAndResources(callbackOf(landing, client).get('code')!, counts);
    return counts;
  }

  const sum = (counts: Record<string, number[]>) =>
    Object.values(counts)
      .flat()
      .reduce((total, count) => total + count, 0);

  it('a TEST flow with test_outcome=pass: Resources 1, token 2, the whole flow 8', async () => {
    await shortcutFlow();
    const counts = await shortcutFlow();
    expect(counts.resources, 'Resources').to.deep.equal([1]);
    expect(counts.token, 'token').to.deep.equal([2]);
    expect(sum(counts), JSON.stringify(counts)).to.equal(8);
  });

  it('a TEST flow through the pages (prompt, choice, sandbox, result, continue): 16', async () => {
    await pagesFlow();
    const counts = await pagesFlow();
    expect(counts.resources, 'Resources').to.deep.equal([1]);
    expect(counts.token, 'token').to.deep.equal([2]);
    expect(sum(counts), JSON.stringify(counts)).to.equal(16);
  });

  /**
   * On PostgreSQL each connection plans a prepared statement once, on the tables as they are then, and keeps that plan
   * until an ANALYZE (which a server without autovacuum never runs). A statement whose plan reads by a prefix of a key
   * is cheap on the near-empty tables of a new server and grows with every flow after (every grant read at
   * each token exchange, Resources read and resume). So: plan on empty tables, fill, and count what a flow reads.
   */
  it('on PostgreSQL, a flow of each kind reads a handful of rows however many grants were stored after its statements were planned', async function () {
    if (!process.env.DATABASE_URL) this.skip(); // the embedded database plans each statement at each call
    const { db } = harness.app.provider;
    for (let flow = 0; flow < 10; flow += 1) await Promise.all([shortcutFlow(), pagesFlow()]); // past PostgreSQL's five custom plans
    await db.raw(`INSERT INTO oidc_payloads (type, id, payload, expires_at)
                  SELECT 'Grant', 'unrelated-' || n, '{}'::jsonb, now() + interval '1 hour' FROM generate_series(1, 3000) AS n`);
    const rowsRead = async (): Promise<number> => {
      await reportStatistics(db);
      const { rows } = await db.raw<{ rows: Array<{ read: string }> }>(
        'SELECT (SELECT sum(idx_tup_read) FROM pg_stat_user_indexes) + (SELECT sum(seq_tup_read) FROM pg_stat_user_tables) AS read',
      );
      return Number(rows[0]!.read);
    };
    const before = await rowsRead();
    await shortcutFlow();
    await pagesFlow();
    const read = (await rowsRead()) - before;
    expect(read, 'rows read by two flows').to.be.below(100);
  });
});
