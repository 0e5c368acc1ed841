import { ERASED, GENESIS, type ChainHead } from '../audit/chain.js';
import { chainHead, wholeChain, type AuditEntry } from '../audit/trail.js';
import type { Clock } from '../clock.js';
import { packageVersion } from '../paths.js';
import type { PolicySettings } from '../policy/settings.js';
import { dailyAggregates } from '../statistics/store.js';
import type { Database } from '../store/database.js';
import { RETENTION_RULES } from '../store/retention.js';
import type { Environment } from '../verification/challenge.js';
import { ENVIRONMENTS } from '../websites/models.js';
import type { WebsiteRules } from '../websites/policy.js';
import { trustDuring } from '../verification/challenges/eu-av/trust-record.js';
import {
  EVIDENCE_FORMAT,
  RULE_ACTIONS,
  type EvidenceCounts,
  type EvidenceDay,
  type EvidencePayload,
} from './document.js';

/** What an evidence pack is made from (lib/app/runtime.ts and the command line's configuration satisfy it). */
export interface EvidenceServices {
  db: Database;
  clock: Clock;
  config: {
    readonly issuer: string;
    readonly verificationTtl: number;
    readonly verificationRetention: number;
    readonly proofReuseTtl: number;
    readonly policies: PolicySettings;
    readonly challenges: ReadonlyMap<string, unknown>;
  };
}

/** The period an evidence pack covers: its days as given, and the instants they span (the end excluded). */
export interface EvidencePeriod {
  from: string;
  to: string;
  start: Date;
  end: Date;
}

const noCounts = (): EvidenceCounts => ({
  started: 0,
  passed: 0,
  refused: 0,
  abandoned: 0,
  reused: 0,
  byChallenge: {},
  byCountry: {},
  bySubdivision: {},
  byLevel: {},
});

const addTo = (into: Record<string, number>, from: Record<string, number>): void => {
  for (const [key, count] of Object.entries(from)) into[key] = (into[key] ?? 0) + count;
};

/** Each environment's counts summed over `days`: what the pack states as totals, and what a check recomputes. */
export function totalsOf(days: readonly EvidenceDay[]): Record<Environment, EvidenceCounts> {
  const totals = Object.fromEntries(ENVIRONMENTS.map((environment) => [environment, noCounts()])) as Record<
    Environment,
    EvidenceCounts
  >;
  for (const day of days) {
    const total = totals[day.environment];
    for (const outcome of ['started', 'passed', 'refused', 'abandoned', 'reused'] as const)
      total[outcome] += day[outcome];
    for (const [challenge, counts] of Object.entries(day.byChallenge)) {
      const into = (total.byChallenge[challenge] ??= { passed: 0, refused: 0, reused: 0 });
      for (const outcome of ['passed', 'refused', 'reused'] as const) into[outcome] += counts[outcome];
    }
    addTo(total.byCountry, day.byCountry);
    addTo(total.bySubdivision, day.bySubdivision);
    addTo(total.byLevel, day.byLevel);
  }
  return totals;
}

async function statisticsOf(db: Database, websiteId: number, period: EvidencePeriod) {
  const days: EvidenceDay[] = (await dailyAggregates(db, websiteId, period.from, period.to)).map((aggregate) => ({
    date: aggregate.day,
    environment: aggregate.environment,
    started: aggregate.started,
    passed: aggregate.passed,
    refused: aggregate.refused,
    abandoned: aggregate.abandoned,
    reused: aggregate.reused,
    byChallenge: aggregate.byChallenge,
    byCountry: aggregate.byCountry,
    bySubdivision: aggregate.bySubdivision,
    byLevel: aggregate.byLevel,
  }));
  return { days, totals: totalsOf(days) };
}

const headOf = (entry: AuditEntry): ChainHead => ({ seq: entry.seq, hash: entry.hash });

/**
 * The website's chain over the period: the entries made during it, with the head before them and after them, and
 * the chain's head now. The segment is contiguous by seq, so it recomputes from `start` to `end` on its own.
 */
async function auditOf(db: Database, websiteId: number, period: EvidencePeriod) {
  const whole = await wholeChain(db, { website: websiteId });
  // Cut by seq, not by time: the segment stays contiguous even where two entries' times are out of order.
  const chain = whole.slice(0, whole.findLastIndex((entry) => new Date(entry.at) < period.end) + 1);
  const firstIn = chain.findIndex((entry) => new Date(entry.at) >= period.start);
  const before = firstIn === -1 ? chain : chain.slice(0, firstIn);
  const entries = firstIn === -1 ? [] : chain.slice(firstIn);
  const last = before.at(-1);
  // A closed account's chain starts at its tombstone, which links to entries that no longer exist.
  const start: ChainHead = last
    ? headOf(last)
    : entries[0]?.action === ERASED
      ? { seq: entries[0].seq - 1, hash: entries[0].previousHash }
      : { seq: 0, hash: GENESIS };
  const head = await chainHead(db, { website: websiteId });
  const changes = [
    ...before.filter((entry) => RULE_ACTIONS.includes(entry.action)).slice(-1),
    ...entries.filter((entry) => RULE_ACTIONS.includes(entry.action)),
  ];
  return {
    audit: {
      chain: `website:${websiteId}`,
      start,
      end: entries.length > 0 ? headOf(entries.at(-1)!) : start,
      head: head ?? null,
      entries,
    },
    changes,
  };
}

/**
 * The evidence pack's payload for one website and period. The caller has checked who may read it; every query
 * names the website.
 */
export async function collectEvidence(
  runtime: EvidenceServices,
  website: WebsiteRules,
  period: EvidencePeriod,
): Promise<EvidencePayload> {
  const { db, config } = runtime;
  const { audit, changes } = await auditOf(db, website.id, period);
  return {
    format: EVIDENCE_FORMAT,
    issuer: config.issuer,
    issuedAt: runtime.clock.now().toISOString(),
    service: { name: 'age-provider', version: packageVersion() },
    website: { id: website.id, name: website.name, domain: website.domain },
    period: { from: period.from, to: period.to },
    statistics: await statisticsOf(db, website.id, period),
    rules: {
      presets: config.policies.presets,
      website: {
        now: { regions: website.regions, challenges: website.challenges, rules: website.policyRules },
        changes,
      },
    },
    audit,
    euAv: {
      configured: config.challenges.get('eu_av') !== undefined,
      trusts: await trustDuring(db, period.start, period.end),
    },
    retention: {
      verificationTtlSeconds: config.verificationTtl,
      verificationRetentionSeconds: config.verificationRetention,
      proofReuseTtlSeconds: config.proofReuseTtl,
      tables: RETENTION_RULES.map((rule) => ({ table: rule.table, keptUntil: rule.documented })),
    },
  };
}
