import type { X509Certificate } from 'node:crypto';
import { schedulePeriodic } from '../../../periodic.js';
import type { ChallengeServices } from '../../services.js';
import { fetchListText, type ListFetchOptions } from './trusted-list-fetch.js';
import { pastGrace, readTrustedList, StaleListError, TrustedListError, type TrustedList } from './trusted-list.js';
import { trustAnchors, type TrustAnchors, type TrustSource } from './trust-anchors.js';
import { fingerprintsOf, type ListTrust } from './trust-record.js';

/** The operator's ETSI trusted list: where it is, whose signature it must carry, how often it is read again. */
export interface TrustedListSettings {
  /** an https URL or a file path */
  location: string;
  /** the list's XML signature must verify with one of these (several during a signer's rollover) */
  signers: X509Certificate[];
  refreshMs: number;
  /** how long past its NextUpdate a list may still be used while no newer one can be had */
  graceMs: number;
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
  /** NextUpdate of the list in use */
  next_update?: string;
  /** the list in use is past its NextUpdate and the grace: it is not used, and eu_av is not offered */
  stale?: true;
}

interface InUse {
  anchors: TrustAnchors;
  issued: Date;
  nextUpdate?: Date;
  type: string;
  sequenceNumber?: number;
}

/** What eu_av reads of the list it follows. */
export interface FollowedList {
  /** the files' anchors and the list's (none once the list is stale) */
  source: TrustSource;
  report(): TrustedListReport;
  /** whether eu_av can verify anyone now: the list in use not stale, and some anchor (the list's or the files') */
  available(): boolean;
}

/**
 * Why a genuine list yields no anchor: a list that trusts nobody (its services all left out, or a list of lists that
 * points elsewhere) is a failure, never "ok" with 0 anchors.
 */
const noAnchor = (list: TrustedList): string =>
  `the trusted list yields no anchor (${list.inactiveServices} service(s) not in good standing, ${list.otherServices} of a type that issues neither age attestations nor PID)`;

const EMPTY: TrustAnchors = { authorities: [], signers: [] };

const listTrust = (list: InUse): ListTrust => ({
  sequenceNumber: list.sequenceNumber ?? null,
  issued: list.issued.toISOString(),
  nextUpdate: list.nextUpdate?.toISOString() ?? null,
  type: list.type,
  anchors: fingerprintsOf(list.anchors),
});

const merged = (a: TrustAnchors, b: TrustAnchors): TrustAnchors => ({
  authorities: [...a.authorities, ...b.authorities],
  signers: [...a.signers, ...b.signers],
});

/**
 * Follows the trusted list: reads it now, then every `refreshMs` (lib/periodic.ts), without a restart. A list that
 * fails (unreachable, unsigned, signed by another key, older than the one in use, more than the grace past its next
 * update, yielding no anchor) changes nothing: the last good list stays in use, and the log and /readyz say so. The
 * anchors from the operator's files (`fileAnchors`) always count beside the list's. Once the list in use is past its
 * NextUpdate and the grace (refreshes kept failing), it is used no more and eu_av is not offered, until a current
 * list is read: the log says so when it happens, /readyz while it lasts.
 */
export async function followTrustedList(
  runtime: Pick<ChallengeServices, 'clock' | 'log' | 'onClose'>,
  settings: TrustedListSettings,
  fileAnchors: TrustSource,
  taken: (list: ListTrust | null) => Promise<void> = async () => {},
): Promise<FollowedList> {
  let inUse: InUse | undefined;
  let report: TrustedListReport;
  let wasStale = false;
  /** the NextUpdate of a list read while none is in use, refused for being past it and the grace */
  let readStale: string | undefined;

  /** The NextUpdate (ISO) of the list that should be in use when it is past it and the grace, else undefined; logs the moment that changes. */
  function staleSince(): string | undefined {
    const now = runtime.clock.now();
    const since = inUse
      ? inUse.nextUpdate && pastGrace(inUse.nextUpdate, settings.graceMs, now)
        ? inUse.nextUpdate.toISOString()
        : undefined
      : readStale;
    if (Boolean(since) !== wasStale) {
      wasStale = Boolean(since);
      if (since)
        runtime.log.warn('eu_av trusted list past its next update and the grace: not used, eu_av not offered', {
          next_update: since,
          grace_seconds: settings.graceMs / 1000,
        });
      else runtime.log.info('eu_av trusted list current again: eu_av offered');
    }
    return since;
  }
  const stale = (): boolean => staleSince() !== undefined;

  async function refresh(): Promise<void> {
    const now = runtime.clock.now();
    try {
      const list = readTrustedList(
        await fetchListText(settings.location, settings.fetch),
        settings.signers,
        now,
        settings.graceMs,
      );
      if (inUse && list.issued < inUse.issued)
        throw new TrustedListError('the trusted list is older than the one in use');
      if (list.certificates.length === 0) throw new TrustedListError(noAnchor(list));
      inUse = {
        anchors: trustAnchors(list.certificates),
        issued: list.issued,
        ...(list.nextUpdate ? { nextUpdate: list.nextUpdate } : {}),
        type: list.type,
        ...(list.sequenceNumber === undefined ? {} : { sequenceNumber: list.sequenceNumber }),
      };
    } catch (error) {
      if (error instanceof StaleListError) readStale = error.nextUpdate;
      const problem =
        error instanceof TrustedListError
          ? error.message
          : `the trusted list cannot be read (${(error as Error).message.slice(0, 120)})`;
      report = { ...base(now), outcome: 'failed', problem, kept_last_good: inUse !== undefined };
      runtime.log.warn('eu_av trusted list refresh failed', { ...report });
      stale();
      // The first refresh failing is a trust too: the files' anchors alone (the list keeps no last good one yet).
      if (!inUse) await taken(null);
      return;
    }
    report = { ...base(now), outcome: 'ok' };
    runtime.log.info('eu_av trusted list refreshed', { ...report });
    stale();
    await taken(listTrust(inUse));
  }

  const base = (now: Date) => ({
    source: settings.location.startsWith('https://') ? ('https' as const) : ('file' as const),
    last_refresh: now.toISOString(),
    anchors: inUse ? inUse.anchors.authorities.length + inUse.anchors.signers.length : 0,
    ...(inUse ? { list_issued: inUse.issued.toISOString(), ...(inUse.type ? { list_type: inUse.type } : {}) } : {}),
    ...(inUse?.nextUpdate ? { next_update: inUse.nextUpdate.toISOString() } : {}),
  });

  const current = (): TrustAnchors => merged(fileAnchors.current(), inUse && !stale() ? inUse.anchors : EMPTY);

  await refresh();
  schedulePeriodic(runtime, { name: 'refreshing the eu_av trusted list', everyMs: settings.refreshMs, run: refresh });
  return {
    source: { current },
    // A stale list is a failure whatever the last refresh said: never "ok" while it is not used.
    report: () => {
      const since = staleSince();
      return since
        ? {
            ...report,
            outcome: 'failed',
            stale: true,
            problem: `the trusted list is past its next update (${since}) and the grace: not used, eu_av is not offered${report.problem ? `; last refresh: ${report.problem}` : ''}`,
          }
        : report;
    },
    // A stale list stops eu_av even beside the files' anchors: the operator named the list as what to trust.
    available: () => {
      if (stale()) return false;
      const anchors = current();
      return anchors.authorities.length + anchors.signers.length > 0;
    },
  };
}
