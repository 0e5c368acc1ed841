import { expect } from 'chai';
import knexFactory from 'knex';
import type { Database } from '../../lib/store/database.js';
import { runPrepared } from '../../lib/store/prepared.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const READ_LABEL = { name: 'test_read_label', text: 'SELECT id, label FROM labels WHERE id = $1' };

/**
 * Prepared statements outliving a change of their table (a newer version migrating while this one runs). On one
 * connection, so that the statement is run again where it was prepared; the embedded database prepares on each call.
 */
describe('runPrepared: a statement prepared before its table changed', () => {
  let database: TestDatabase;
  let db: Database;
  before(async () => {
    database = await createTestDatabase();
    db = database.url ? knexFactory({ client: 'pg', connection: database.url, pool: { min: 0, max: 1 } }) : database.db;
    await db.raw('CREATE TABLE labels (id integer PRIMARY KEY, label char(2))');
    await db.raw("INSERT INTO labels VALUES (1, 'ab')");
  });
  after(async () => {
    if (db !== database.db) await db.destroy();
    await database.drop();
  });

  it('answers with the table as it is now once a column it returns changed type', async () => {
    expect(await runPrepared(db, READ_LABEL, [1])).to.deep.equal([{ id: 1, label: 'ab' }]);
    await db.raw('ALTER TABLE labels ALTER COLUMN label TYPE text');
    await db.raw("UPDATE labels SET label = 'longer'");
    expect(await runPrepared(db, READ_LABEL, [1])).to.deep.equal([{ id: 1, label: 'longer' }]);
    expect(await runPrepared(db, READ_LABEL, [1]), 'and again').to.deep.equal([{ id: 1, label: 'longer' }]);
  });

  it('reports a statement the table no longer fits, and the connection keeps working', async () => {
    await db.raw('ALTER TABLE labels DROP COLUMN label');
    const failure = await runPrepared(db, READ_LABEL, [1]).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).to.have.property('code', '42703');
    expect(
      await runPrepared(db, { name: 'test_read_id', text: 'SELECT id FROM labels WHERE id = $1' }, [1]),
    ).to.deep.equal([{ id: 1 }]);
  });
});
