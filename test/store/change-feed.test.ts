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

  it('hears its own heartbeats back and stays trusted, and takes neither its own nor another feed\'s for a change', async () => {
    const lines: Array<{ level: string }> = [];
    const log = createLogger('debug', (line) => lines.push(JSON.parse(line) as { level: string }));
    let changes = 0;
    const feeds = await Promise.all([0, 1].map(() => listenForChanges(database.db, 'feed_test', () => {
      changes += 1;
    }, log, { heartbeatMs: HEARTBEAT_MS })));
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
});
