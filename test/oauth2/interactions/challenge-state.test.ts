import { expect } from 'chai';
import {
  challengeState,
  readProgress,
  sweepExpiredProgress,
  updateProgress,
} from '../../../lib/oauth2/interactions/progress.js';
import { useApp } from '../../helpers/app.js';

describe('challenge state kept between steps', () => {
  const app = useApp();

  it('is sealed at rest, private to one challenge, and gone once cleared', async () => {
    const { runtime } = app.provider;
    const interaction = { uid: 'uid-state-1', expiresAt: new Date(Date.now() + 3600_000) };
    // What the next request of this interaction loads.
    const nextRequest = async () => ({
      ...interaction,
      progress: await readProgress(runtime.db, runtime.clock, interaction.uid),
    });
    const selfie = challengeState(runtime, await nextRequest(), 'selfie');
    expect(await selfie.get()).to.equal(undefined);
    await selfie.set({ session: 'vendor-session-secret', attempts: 2 });
    expect(await selfie.get()).to.deep.equal({ session: 'vendor-session-secret', attempts: 2 });
    expect(await challengeState(runtime, await nextRequest(), 'selfie').get()).to.deep.equal({
      session: 'vendor-session-secret',
      attempts: 2,
    });

    const row = await runtime.db('interaction_progress').where('uid', interaction.uid).first();
    expect(row.challenge_state_sealed).to.match(/^v1\./).and.not.contain('vendor-session-secret');
    expect(await challengeState(runtime, await nextRequest(), 'email_age').get()).to.equal(undefined);

    await selfie.clear();
    expect(await selfie.get()).to.equal(undefined);
    expect(await challengeState(runtime, await nextRequest(), 'selfie').get()).to.equal(undefined);
  });

  it('dies with its interaction: unread once expired, then swept', async () => {
    const { runtime } = app.provider;
    const expired = { uid: 'uid-state-2', expiresAt: new Date(Date.now() - 1000) };
    await updateProgress(runtime.db, expired.uid, expired.expiresAt, {
      accepted_at: new Date(),
      challenge: 'selfie',
      challenge_state_sealed: runtime.sealer.seal('{"session":"s"}'),
    });
    const progress = await readProgress(runtime.db, runtime.clock, expired.uid);
    expect(progress.acceptedAt).to.equal(null);
    expect(await challengeState(runtime, { ...expired, progress }, 'selfie').get()).to.equal(undefined);
    expect(await runtime.db('interaction_progress').where('uid', expired.uid).first()).to.not.equal(undefined);
    await sweepExpiredProgress(runtime.db, runtime.clock);
    expect(await runtime.db('interaction_progress').where('uid', expired.uid).first()).to.equal(undefined);
  });
});
