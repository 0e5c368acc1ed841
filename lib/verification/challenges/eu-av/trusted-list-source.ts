import type { X509Certificate } from 'node:crypto';
import { schedulePeriodic } from '../../../periodic.js';
import type { ChallengeServices } from '../../services.js';
import { fetchListText, type ListFetchOptions } from './trusted-list-fetch.js';
import { readTrustedList, TrustedListError, type TrustedList } from './trusted-list.js';
import { trustAnchors, type TrustAnchors, type TrustSource } from './trust-anchors.js';

/** The operator's ETSI trusted list: where it is, whose signature it must carry, how often it is read again. */
export interface TrustedListSettings {
  /** an https URL or a file path */
  location: string;
  /** the list's XML signature must verify with one of these (several during a signer's rollover) */
  signers: X509Certificate[];
  refreshMs: number;
  fetch: ListFetchOptions;
}

/** What /readyz and the logs say about the list (never its address, which may carry a token). */
export interface TrustedListReport {
  source: 'https' | 'file';
  outcome: 'ok' | 'failed';
  last_refresh: string;
  /** anchors taken from the list now in use (0 while none was ever loaded) */
  anchors: number;
  /** ListIssueDateTime of the list in use */
  list_issued?: string;
  /** TSLType of the list in use */
  list_type?: string;
  /** why the last refresh failed; the list in use, if any, is the last good one */
  problem?: string;
  kept_last_good?: boolean;
}

interface InUse {
  anchors: TrustAnchors;
  issued: Date;
  type: string;
}

/**
 * Why a genuine list yields no anchor: a list that trusts nobody (its services all left out, or a list of lists that
 * points elsewhere) is a failure, never "ok" with 0 anchors.
 */
const noAnchor = (list: TrustedList): string =>
  `the trusted list yields no anchor (${list.inactiveServices} service(s) not in good standing, ${list.otherServices} of a type that issues neither age attestations nor PID)`;

const EMPTY: TrustAnchors = { authorities: [], signers: [] };

const merged = (a: TrustAnchors, b: TrustAnchors): TrustAnchors =>
  ({ authorities: [...a.authorities, ...b.authorities], signers: [...a.signers, ...b.signers] });

/**
 * Follows the trusted list: reads it now, then every `refreshMs` (lib/periodic.ts), without a restart. A list that
 * fails (unreachable, unsigned, signed by another key, older than the one in use, past its next update) changes
 * nothing: the last good list stays in use, and the log and /readyz say so. The anchors from the operator's files
 * (`fileAnchors`) always count beside the list's.
 */
export async function followTrustedList(
  runtime: Pick<ChallengeServices, 'clock' | 'log' | 'onClose'>, settings: TrustedListSettings, fileAnchors: TrustSource,
): Promise<{ source: TrustSource; report(): TrustedListReport }> {
  let inUse: InUse | undefined;
  let report: TrustedListReport;

  async function refresh(): Promise<void> {
    const now = runtime.clock.now();
    try {
      const list = readTrustedList(await fetchListText(settings.location, settings.fetch), settings.signers, now);
      if (inUse && list.issued < inUse.issued) throw new TrustedListError('the trusted list is older than the one in use');
      if (list.certificates.length === 0) throw new TrustedListError(noAnchor(list));
      inUse = { anchors: trustAnchors(list.certificates), issued: list.issued, type: list.type };
    } catch (error) {
      const problem = error instanceof TrustedListError ? error.message : `the trusted list cannot be read (${(error as Error).message.slice(0, 120)})`;
      report = { ...base(now), outcome: 'failed', problem, kept_last_good: inUse !== undefined };
      runtime.log.warn('eu_av trusted list refresh failed', { ...report });
      return;
    }
    report = { ...base(now), outcome: 'ok' };
    runtime.log.info('eu_av trusted list refreshed', { ...report });
  }

  const base = (now: Date) => ({
    source: settings.location.startsWith('https://') ? 'https' as const : 'file' as const,
    last_refresh: now.toISOString(),
    anchors: inUse ? inUse.anchors.authorities.length + inUse.anchors.signers.length : 0,
    ...(inUse ? { list_issued: inUse.issued.toISOString(), ...(inUse.type ? { list_type: inUse.type } : {}) } : {}),
  });

  await refresh();
  schedulePeriodic(runtime, { name: 'refreshing the eu_av trusted list', everyMs: settings.refreshMs, run: refresh });
  return {
    source: { current: () => merged(fileAnchors.current(), inUse?.anchors ?? EMPTY) },
    report: () => report,
  };
}
