import { expect } from 'chai';
import { createLogger } from '../../lib/log.js';
import { createClientCache, type ClientCache } from '../../lib/websites/client-cache.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { MovableClock } from '../oauth2/helpers/clock.js';

/** A lookup that counts how often the database was asked. */
function countingLookup(validUntil?: Date): {
  load: () => Promise<{ value: string; validUntil?: Date }>;
  calls: () => number;
} {
  let calls = 0;
  return {
    load: async () => {
      calls += 1;
      return { value: `answer ${calls}`, ...(validUntil ? { validUntil } : {}) };
    },
    calls: () => calls,
  };
}

/** Asks until the cache serves from memory (the change feed listens in the background). */
async function cached(cache: ClientCache, key: string): Promise<void> {
  const probe = countingLookup();
  for (let attempt = 0; attempt < 200; attempt += 1) {
    await cache.get(key, probe.load);
    const before = probe.calls();
    await cache.get(key, probe.load);
    if (probe.calls() === before) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the cache never served from memory');
}

describe('client cache: a maximum age on every entry, whatever the change feed says', () => {
  let database: TestDatabase;
  const clock = new MovableClock();
  const caches: ClientCache[] = [];
  const open = async (maxAgeMs: number) => {
    const cache = await createClientCache(database.db, clock, createLogger('silent'), { heartbeatMs: 2000, maxAgeMs });
    caches.push(cache);
    await cached(cache, 'warm-up');
    return cache;
  };
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    for (const cache of caches) await cache.close();
    await database.drop();
  });

  it('serves a lookup from memory until it is older than the maximum age, then asks the database again', async () => {
    const cache = await open(60_000);
    const lookup = countingLookup();
    expect(await cache.get('client', lookup.load)).to.equal('answer 1');
    clock.advance(59);
    expect(await cache.get('client', lookup.load), 'within the age').to.equal('answer 1');
    clock.advance(2);
    expect(await cache.get('client', lookup.load), 'past it').to.equal('answer 2');
    expect(lookup.calls()).to.equal(2);
  });

  it("keeps a lookup's own earlier end (a credential's grace)", async () => {
    const cache = await open(60_000);
    const lookup = countingLookup(new Date(clock.now().getTime() + 10_000));
    await cache.get('pair', lookup.load);
    clock.advance(11);
    await cache.get('pair', lookup.load);
    expect(lookup.calls()).to.equal(2);
  });
});
