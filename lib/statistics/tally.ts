import type { Environment } from '../verification/challenge.js';

/** What a flow's pages see happen that leaves no row behind: a flow begins, a check refuses, a flow ends with nothing. */
export type FlowEvent = 'started' | 'refused' | 'abandoned';

/** One website's events of one day in one environment, and the refusals per challenge. */
export interface TalliedDay {
  websiteId: number;
  environment: Environment;
  day: string;
  started: number;
  refused: number;
  abandoned: number;
  refusedBy: Record<string, number>;
}

/** How long an interaction's first visit is remembered, so a reload of its first page is not a second start. */
const SEEN_FOR_MS = 2 * 3600 * 1000;

/**
 * Counts flow events in memory, without a statement on the visitor's request; the statistics rollup takes the counts
 * (take) and adds them to the daily aggregates. A crash loses the counts since the last rollup (STATISTICS_ROLLUP_INTERVAL_MS at most).
 */
export class Tally {
  private days = new Map<string, TalliedDay>();
  private seen = new Map<string, number>();

  /** Counts `event` for the website on `at`'s day (UTC); a refusal names the challenge that refused. */
  count(event: FlowEvent, websiteId: number, environment: Environment, at: Date, challenge?: string): void {
    const entry = this.entryFor(websiteId, environment, at.toISOString().slice(0, 10));
    entry[event] += 1;
    if (event === 'refused' && challenge) entry.refusedBy[challenge] = (entry.refusedBy[challenge] ?? 0) + 1;
  }

  /** Counts a flow's start once per interaction, however often its first page is shown: true when this was its first. */
  countStart(interactionUid: string, websiteId: number, environment: Environment, at: Date): boolean {
    if (this.seen.has(interactionUid)) return false;
    this.seen.set(interactionUid, at.getTime());
    this.count('started', websiteId, environment, at);
    return true;
  }

  /** The counts so far, and a fresh start. */
  take(now: Date): TalliedDay[] {
    const taken = [...this.days.values()];
    this.days = new Map();
    for (const [uid, at] of this.seen) if (now.getTime() - at > SEEN_FOR_MS) this.seen.delete(uid);
    return taken;
  }

  /** Puts back counts a failed rollup could not store. */
  restore(days: TalliedDay[]): void {
    for (const day of days) {
      const entry = this.entryFor(day.websiteId, day.environment, day.day);
      entry.started += day.started;
      entry.refused += day.refused;
      entry.abandoned += day.abandoned;
      for (const [challenge, count] of Object.entries(day.refusedBy))
        entry.refusedBy[challenge] = (entry.refusedBy[challenge] ?? 0) + count;
    }
  }

  private entryFor(websiteId: number, environment: Environment, day: string): TalliedDay {
    const key = `${websiteId}|${environment}|${day}`;
    let entry = this.days.get(key);
    if (!entry) {
      entry = { websiteId, environment, day, started: 0, refused: 0, abandoned: 0, refusedBy: {} };
      this.days.set(key, entry);
    }
    return entry;
  }
}
