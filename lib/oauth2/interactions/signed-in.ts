import { seeOther } from '../../http/see-other.js';
import { accountSubject } from '../../verification/proofs.js';
import { updateProgress } from './progress.js';
import { reusableProof, reuseProof } from './reuse.js';
import type { Visit } from './visit.js';

/**
 * The visitor proved they hold account `accountId` (password or passkey). With a reusable proof on the account the
 * challenge is skipped (a new verification marked `reused`); without one the visitor verifies now and the result
 * is saved to the account.
 */
export async function continueSignedIn(visit: Visit, accountId: number): Promise<void> {
  const { services, ctx } = visit;
  await updateProgress(services.runtime.db, visit.uid, visit.expiresAt, { account_id: accountId });
  visit.progress = { ...visit.progress, accountId };
  const proof = await reusableProof(visit, accountSubject(accountId));
  if (proof) return reuseProof(visit, proof);
  seeOther(ctx, `${visit.paths.choose}?notice=no_saved_result`);
}
