import { expect } from 'chai';
import { errors } from 'oidc-provider';
import { knexAdapter } from '../../adapters/knex.js';
import { createLogger } from '../../lib/log.js';
import { sha256 } from '../../lib/security/hashing.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { MovableClock } from '../oauth2/helpers/clock.js';

describe('adapters/knex: oidc-provider storage', () => {
  let database: TestDatabase;
  let clock: MovableClock;
  const closers: Array<() => Promise<void>> = [];

  const adapterClass = (sweepIntervalMs?: number) =>
    knexAdapter({
      db: database.db,
      clock,
      log: createLogger('silent'),
      onClose: (task) => closers.push(task),
      ...(sweepIntervalMs ? { sweepIntervalMs } : {}),
    });

  beforeEach(async () => {
    database = await createTestDatabase();
    clock = new MovableClock();
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    await database.drop();
  });

  const rows = () => database.db('oidc_payloads').orderBy(['type', 'id']).select('type', 'id');

  it('stores, finds and hides expired rows by our clock', async () => {
    const Adapter = adapterClass();
    const sessions = new Adapter('Session');
    await sessions.upsert('s1', { uid: 'u1', accountId: 'a' }, 60);
    await sessions.upsert('s2', { uid: 'u2', accountId: 'b' });
    expect(await sessions.find('s1')).to.deep.equal({ uid: 'u1', accountId: 'a' });
    expect(await sessions.findByUid('u1')).to.deep.equal({ uid: 'u1', accountId: 'a' });
    await sessions.upsert('s1', { uid: 'u1', accountId: 'changed' }, 60);
    expect(await sessions.find('s1')).to.include({ accountId: 'changed' });
    clock.advance(61);
    expect(await sessions.find('s1')).to.equal(undefined);
    expect(await sessions.findByUid('u1')).to.equal(undefined);
    expect(await sessions.find('s2'), 'no expiry, never hidden').to.include({ accountId: 'b' });
    await sessions.destroy('s2');
    expect(await sessions.find('s2')).to.equal(undefined);
    const codes = new Adapter('DeviceCode');
    await codes.upsert('d1', { userCode: 'ABCD' }, 60);
    expect(await codes.findByUserCode('ABCD')).to.deep.equal({ userCode: 'ABCD' });
    expect(await new Adapter('Interaction').find('d1'), 'types never mix').to.equal(undefined);
  });

  it("holds no client and never stores one (clients resolve from the websites' tables, in lib)", async () => {
    const clients = new (adapterClass())('Client');
    expect(await clients.find('known')).to.equal(undefined);
    let refused = false;
    await clients.upsert('x', { client_id: 'x' }).catch(() => {
      refused = true;
    });
    expect(refused).to.equal(true);
  });

  it('consumes once; a second consume revokes everything of the grant and throws InvalidGrant', async () => {
    const Adapter = adapterClass();
    const codes = new Adapter('AuthorizationCode');
    const tokens = new Adapter('AccessToken');
    const grants = new Adapter('Grant');
    await grants.upsert('g1', { accountId: 'a' }, 600);
    await grants.upsert('g2', { accountId: 'b' }, 600);
    await codes.upsert('c1', { grantId: 'g1' }, 600);
    await tokens.upsert('t1', { grantId: 'g1' }, 600);
    await tokens.upsert('t2', { grantId: 'g2' }, 600);

    await codes.consume('c1');
    expect((await codes.find('c1'))?.consumed).to.be.a('number');
    let thrown: unknown;
    await codes.consume('c1').catch((error: unknown) => {
      thrown = error;
    });
    expect(thrown).to.be.instanceOf(errors.InvalidGrant);
    expect(await rows()).to.deep.equal([
      { type: 'AccessToken', id: sha256('t2') },
      { type: 'Grant', id: 'g2' },
    ]);
  });

  it('revokes by grant id per model', async () => {
    const Adapter = adapterClass();
    await new Adapter('AccessToken').upsert('t1', { grantId: 'g1' }, 600);
    await new Adapter('AuthorizationCode').upsert('c1', { grantId: 'g1' }, 600);
    await new Adapter('AccessToken').revokeByGrantId('g1');
    expect(await rows(), 'bearer secrets are keyed by their SHA-256').to.deep.equal([
      { type: 'AuthorizationCode', id: sha256('c1') },
    ]);
  });

  it('sweeps expired rows periodically until closed', async () => {
    const Adapter = adapterClass(10);
    const sessions = new Adapter('Session');
    await sessions.upsert('old', { accountId: 'a' }, 1);
    await sessions.upsert('young', { accountId: 'b' }, 600);
    clock.advance(2);
    for (let attempt = 0; attempt < 200 && (await rows()).length > 1; attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await rows()).to.deep.equal([{ type: 'Session', id: 'young' }]);
    for (const close of closers.splice(0)) await close();
    await sessions.upsert('later', { accountId: 'c' }, 1);
    clock.advance(2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await rows()).to.have.length(2);
  });
});
