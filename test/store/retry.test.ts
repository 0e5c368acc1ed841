import { expect } from 'chai';
import { describeError } from '../../lib/http/errors.js';
import { retriedTransaction } from '../../lib/store/retry.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

/** Makes PostgreSQL itself abort the statement with `code`, as it aborts a deadlock's victim. */
const raise = (code: string): string =>
  `DO $$ BEGIN RAISE EXCEPTION 'forced by the test' USING ERRCODE = '${code}'; END $$`;

describe('a transaction PostgreSQL aborts for another is run again', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
    await database.db.raw('CREATE TABLE retried (run integer NOT NULL)');
  });
  after(() => database.drop());
  beforeEach(() => database.db('retried').delete());

  for (const code of ['40P01', '40001']) {
    it(`runs it again after ${code}, and what the aborted run wrote is gone`, async () => {
      let runs = 0;
      const answer = await retriedTransaction(database.db, async (trx) => {
        runs += 1;
        await trx('retried').insert({ run: runs });
        if (runs < 3) await trx.raw(raise(code));
        return 'done';
      });
      expect(answer).to.equal('done');
      expect(runs).to.equal(3);
      expect(await database.db('retried').pluck('run')).to.deep.equal([3]);
    });
  }

  it('gives up after four runs with the abort itself, having stored nothing', async () => {
    let runs = 0;
    const failed = await retriedTransaction(database.db, async (trx) => {
      runs += 1;
      await trx('retried').insert({ run: runs });
      await trx.raw(raise('40P01'));
    }).catch((error: unknown) => error);
    expect(runs).to.equal(4);
    expect((failed as { code?: string }).code).to.equal('40P01');
    expect(await database.db('retried').pluck('run')).to.deep.equal([]);
    // What every surface answers then: 503 with Retry-After, never a 500.
    expect(describeError(failed)).to.deep.include({ status: 503, headers: { 'Retry-After': '1' } });
  });

  it('never runs again what failed for any other reason', async () => {
    let runs = 0;
    const failed = await retriedTransaction(database.db, async (trx) => {
      runs += 1;
      await trx.raw(raise('23505'));
    }).catch((error: unknown) => error);
    expect(runs).to.equal(1);
    expect((failed as { code?: string }).code).to.equal('23505');
  });
});
