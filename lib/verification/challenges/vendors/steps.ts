import type { StepContext } from '../../challenge.js';
import { VendorUnavailableError } from './http.js';

/**
 * Runs a vendor call; when the vendor is down the challenge ends as `unavailable`, which brings the visitor back to
 * the choice of challenges with a message in their language. Returns undefined in that case.
 */
export async function orUnavailable<T>(context: StepContext, call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof VendorUnavailableError)) throw error;
    await context.finish({ passed: false, reason: 'unavailable' });
    return undefined;
  }
}
