import {
  authorizationUrl,
  exchangeCode,
  newAttempt,
  readVerification,
  stateMatches,
} from '../examples/relying-party/oauth2-client.js';
import type { RelyingPartySettings } from '../examples/relying-party/settings.js';
import { walkSandbox } from '../test/helpers/visitor.js';
import { Browser, type Page } from '../test/helpers/browser.js';
import type { BenchTarget } from './protocol.js';

/** The demo relying party's OAuth2 client pointed at the benchmarked service (its callback is never contacted). */
export function clientSettings(target: BenchTarget): RelyingPartySettings {
  const callback = new URL(target.redirectUri);
  return {
    ageProviderUrl: target.url,
    clientId: target.clientId,
    clientSecret: target.clientSecret,
    publicKey: target.publicKey,
    siteUrl: callback.origin,
    port: Number(callback.port),
    host: callback.hostname,
    language: 'en',
    cookieKeys: [],
  };
}

export type FlowKind = 'test_outcome' | 'pages';

/**
 * A TEST verification up to the access token, as a relying party and its visitor do it: authorization request
 * (PKCE S256), either with `test_outcome=pass` (no pages) or through the sandbox pages, then the token request.
 */
export async function obtainToken(target: BenchTarget, kind: FlowKind): Promise<string> {
  const settings = clientSettings(target);
  const attempt = newAttempt();
  const url = new URL(authorizationUrl(settings, attempt));
  if (kind === 'test_outcome') url.searchParams.set('test_outcome', 'pass');
  const visitor = new Browser(undefined, { stopAt: settings.siteUrl });
  let page: Page = await visitor.open(url);
  if (kind === 'pages') page = await walkSandbox(visitor, page, settings.siteUrl);
  const website = page.location;
  const code = website?.searchParams.get('code');
  const state = website?.searchParams.get('state') ?? '';
  if (website?.origin !== settings.siteUrl || !code || !stateMatches(attempt.state, state)) {
    throw new Error(`the flow did not end with a code:\n${visitor.trail()}`);
  }
  return exchangeCode(settings, attempt, code);
}

/** One whole flow: the token, then Resources (which must say verified). Returns its duration in ms. */
export async function runFlow(target: BenchTarget, kind: FlowKind): Promise<number> {
  const started = performance.now();
  const verification = await readVerification(clientSettings(target), await obtainToken(target, kind));
  if (!verification.verified) throw new Error('the flow ended unverified');
  return performance.now() - started;
}

export interface FlowLoad {
  flows: number;
  concurrency: number;
  seconds: number;
  flowsPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  failures: number;
}

/** The p-th percentile of ascending `sorted`. */
export const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

/** `flows` whole flows, `concurrency` at a time. */
export async function loadFlows(
  target: BenchTarget,
  kind: FlowKind,
  flows: number,
  concurrency: number,
): Promise<FlowLoad> {
  const durations: number[] = [];
  let failures = 0;
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < flows) {
      next += 1;
      try {
        durations.push(await runFlow(target, kind));
      } catch (error) {
        failures += 1;
        if (failures === 1) console.error(`first failed flow: ${(error as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  durations.sort((a, b) => a - b);
  return {
    flows,
    concurrency,
    seconds: round(seconds),
    flowsPerSecond: round(durations.length / seconds),
    p50Ms: round(percentile(durations, 50)),
    p95Ms: round(percentile(durations, 95)),
    failures,
  };
}

export const round = (value: number, digits = 1): number => Math.round(value * 10 ** digits) / 10 ** digits;
