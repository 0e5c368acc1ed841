import type { Context } from 'koa';
import { OUTCOME_NOTICES } from '../../verification/challenge.js';

/**
 * Messages a page shows after a redirect (`?notice=`): a challenge that did not pass, a pass below the policy's level
 * or an estimate within its buffer (docs/policies.md), a reuse that is no longer possible, a passkey saved.
 */
const NOTICES = [
  'refused',
  'failed',
  'cancelled',
  'unavailable',
  ...OUTCOME_NOTICES,
  'level_too_low',
  'estimate_too_close',
  'no_saved_result',
  'reuse_expired',
  'passkey_saved',
  'passkey_added',
] as const;
export type Notice = (typeof NOTICES)[number];

export const noticeOf = (ctx: Context): Notice | undefined => NOTICES.find((notice) => notice === ctx.query['notice']);
