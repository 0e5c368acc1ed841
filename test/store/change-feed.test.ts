import { spawnSync } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'chai';
import { createLogger } from '../../lib/log.js';
import { listenForChanges } from '../../lib/store/change-feed.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const HEARTBEAT_MS = 300;

/** The change feed's heartbeat on a healthy connection (a silenced one: test/oauth2/silent-change-feed.test.ts). */
describe('change feed: heartbeats on a healthy connection', function () {
  this.timeout(30_000);
  let database: TestDatabase;
  before(async function () {
    if (!process.env.DATABASE_URL) this.skip(); // the embedded database's feed is in the process: it sends no heartbeat
    database = await createTestDatabase();
  });
  after(() => database?.drop());

  it("hears its own heartbeats back and stays trusted, and takes neither its own nor another feed's for a change", async () => {
    const lines: Array<{ level: string }> = [];
    const log = createLogger('debug', (line) => lines.push(JSON.parse(line) as { level: string }));
    let changes = 0;
    const feeds = await Promise.all(
      [0, 1].map(() =>
        listenForChanges(
          database.db,
          'feed_test',
          () => {
            changes += 1;
          },
          log,
          { heartbeatMs: HEARTBEAT_MS },
        ),
      ),
    );
    try {
      while (!feeds.every((feed) => feed.trusted)) await delay(20);
      const atStart = changes;
      await delay(6 * HEARTBEAT_MS);
      expect(feeds.map((feed) => feed.trusted)).to.deep.equal([true, true]);
      expect(lines.filter((line) => line.level !== 'debug')).to.deep.equal([]);
      expect(changes, 'heartbeats taken for changes').to.equal(atStart);
      await database.db.raw("SELECT pg_notify('feed_test', 'websites')");
      while (changes < atStart + 2) await delay(20);
    } finally {
      await Promise.all(feeds.map((feed) => feed.close()));
    }
  });

  it('keeps its LISTEN connection under TCP keepalive, so the kernel probes a flow that went quiet', async function () {
    if (spawnSync('ss', ['-V']).status !== 0) {
      console.log('    skipped: ss (iproute2) is not installed');
      this.skip();
    }
    const log = createLogger('warn', () => undefined);
    const feed = await listenForChanges(database.db, 'keepalive_test', () => undefined, log, { heartbeatMs: 60_000 });
    try {
      while (!feed.trusted) await delay(20);
      const { rows } = await database.db.raw<{ rows: Array<{ client_port: number }> }>(
        "SELECT client_port FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %keepalive_test%'",
      );
      expect(rows, "the feed's connection").to.have.length(1);
      // Our end of that connection, as the kernel sees it: its timer is keepalive's, due within the 10 s idle delay.
      const seen = spawnSync('ss', ['-tnoH', 'state', 'established', `( sport = :${rows[0]!.client_port} )`], {
        encoding: 'utf8',
      }).stdout;
      const timer = /timer:\(keepalive,([\d.]+)(ms|sec)/.exec(seen);
      expect(timer, seen).to.not.equal(null);
      expect(Number(timer![1]) * (timer![2] === 'ms' ? 0.001 : 1)).to.be.at.most(10);
    } finally {
      await feed.close();
    }
  });
});
