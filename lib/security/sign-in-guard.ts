import type { Context } from 'koa';
import type { Limiter, RateLimits } from '../http/rate-limit.js';
import { addressGroup } from './address-group.js';
import { knownDevice, rememberDevice, type DeviceCookieScope } from './device-cookie.js';
import { sha256 } from './hashing.js';

/**
 * Password guessing stays expensive without letting a stranger lock the owner out (OWASP "slow brute-force
 * protection with device cookies"). Only failures count. A browser unknown to the account is throttled per
 * (account, network), per network across accounts, and per account across networks (a high ceiling, for guessing
 * spread over many networks). A browser that signed in to the account before carries a device cookie and passes
 * all three: it is throttled only per device, so no amount of guessing elsewhere keeps the owner out.
 */
const THROTTLES = ['accountAndNetwork', 'network', 'account', 'device'] as const;
type Throttle = (typeof THROTTLES)[number];

export interface SignInGuard {
  /**
   * Before the password is checked: throws 429 (with Retry-After) when this browser must wait for `identifier`
   * (a normalizeIdentifier result). Returns the attempt to report with `failed` or `succeeded`.
   */
  admit(ctx: Context, identifier: string): Promise<SignInAttempt>;
  /** A wrong password (or unknown account): counted against every throttle the attempt passed. */
  failed(attempt: SignInAttempt): Promise<void>;
  /** The right password: this browser becomes a known device of the account. */
  succeeded(ctx: Context, attempt: SignInAttempt): Promise<void>;
  /**
   * Signed in without the password (a one-time code mailed to the account): this browser becomes a known device, so
   * its later password sign-ins pass the flood's counters too. The counters themselves stay as they are.
   */
  trustDevice(ctx: Context, identifier: string): void;
}

export interface SignInAttempt {
  identifier: string;
  /** the limiter keys this attempt is counted under */
  keys: Array<{ limiter: Limiter; key: string }>;
}

/** The sign-in guard of one surface; `name` prefixes its limiter names, `device` is where its device cookie lives. */
export function signInGuard(
  rateLimits: RateLimits,
  name: 'platform-signin' | 'visitor-sign-in',
  device: DeviceCookieScope,
): SignInGuard {
  // Each throttle is a row of lib/http/limits.ts named `<name>-<throttle>`.
  const limiter = (throttle: Throttle): Limiter => rateLimits.limiter(`${name}-${throttle}`);
  const limiters = {
    accountAndNetwork: limiter('accountAndNetwork'),
    network: limiter('network'),
    account: limiter('account'),
    device: limiter('device'),
  };

  return {
    async admit(ctx, identifier) {
      // Limiter keys hold digests, so the shared rate_limits table stores no emails or usernames.
      const account = sha256(identifier);
      const network = addressGroup(ctx.ip);
      const nonce = knownDevice(ctx, device, identifier);
      const keys = nonce
        ? [{ limiter: limiters.device, key: sha256(nonce) }]
        : [
            { limiter: limiters.network, key: network },
            { limiter: limiters.accountAndNetwork, key: `${account}|${network}` },
            { limiter: limiters.account, key: account },
          ];
      for (const { limiter: throttle, key } of keys) await throttle.check(key);
      return { identifier, keys };
    },
    async failed(attempt) {
      await Promise.all(attempt.keys.map(({ limiter: throttle, key }) => throttle.record(key)));
    },
    async succeeded(ctx, attempt) {
      // The per-account count stays: the owner signing in elsewhere must not give a guesser a fresh allowance.
      const personal = attempt.keys.filter(
        ({ limiter: throttle }) => throttle === limiters.accountAndNetwork || throttle === limiters.device,
      );
      await Promise.all(personal.map(({ limiter: throttle, key }) => throttle.reset(key)));
      rememberDevice(ctx, device, attempt.identifier);
    },
    trustDevice(ctx, identifier) {
      rememberDevice(ctx, device, identifier);
    },
  };
}

/** The throttles of one-time sign-in codes: asking for one (a mail to the account), and entering one. */
export interface SignInCodeGuard {
  /** Throws 429 (with Retry-After) when this network or the account has asked for too many codes; counts this request. */
  admitRequest(ctx: Context, identifier: string): Promise<void>;
  /** Throws 429 when this network has entered too many codes; counts this entry. */
  admitEntry(ctx: Context): Promise<void>;
}

/**
 * A code bypasses the password's counters, so it has counters of its own, which every request spends whatever the
 * account (an unknown one is counted the same, so the answer tells nothing). Asking: per network, per (account,
 * network), and per account across networks, the last one a ceiling that keeps the owner's mailbox from a flood.
 * Entering: per network; each code also dies at its fifth wrong entry and is bound to the browser that asked, so a
 * guesser can only guess codes it asked for, each of which cost it a mail to the owner.
 */
export function signInCodeGuard(rateLimits: RateLimits): SignInCodeGuard {
  const network = rateLimits.limiter('platform-signin-code-network');
  const accountAndNetwork = rateLimits.limiter('platform-signin-code-accountAndNetwork');
  const account = rateLimits.limiter('platform-signin-code-account');
  const entries = rateLimits.limiter('platform-signin-code-entry-network');
  return {
    async admitRequest(ctx, identifier) {
      const from = addressGroup(ctx.ip);
      const who = sha256(identifier);
      await network.consume(from);
      await accountAndNetwork.consume(`${who}|${from}`);
      await account.consume(who);
    },
    async admitEntry(ctx) {
      await entries.consume(addressGroup(ctx.ip));
    },
  };
}
