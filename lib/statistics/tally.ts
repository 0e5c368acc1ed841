import type { Environment } from '../verification/challenge.js';

/**
 * What a flow's pages see happen that leaves no row behind: a flow begins, its visitor accepts the prompt, a check
 * begins (a challenge or a reuse), a check refuses, the flow returns to the website with a verification, a flow
 * ends with nothing.
 */
export type FlowEvent = 'started' | 'accepted' | 'chosen' | 'refused' | 'returned' | 'abandoned';

/** The counts a day keeps of the events: `refused` per check, `refusedFlows` once per flow. */
export const TALLIED = ['started', 'accepted', 'chosen', 'refused', 'refusedFlows', 'returned', 'abandoned'] as const;
type TalliedCount = (typeof TALLIED)[number];

/** One website's events of one day in one environment, and the refusals per challenge. */
export type TalliedDay = Record<TalliedCount, number> & {
  websiteId: number;
  environment: Environment;
  day: string;
  refusedBy: Record<string, number>;
};

/** The events counted once per flow (a reload or a second try is not a second step), and their count. */
const ONCE: Partial<Record<FlowEvent, TalliedCount>> = {
  started: 'started',
  accepted: 'accepted',
  chosen: 'chosen',
  refused: 'refusedFlows',
};

/** How long an interaction's steps are remembered, so a reload of its first page is not a second start. */
const SEEN_FOR_MS = 2 * 3600 * 1000;

/**
 * Counts flow events in memory, without a statement on the visitor's request; the statistics rollup takes the counts
 * (take) and adds them to the daily aggregates. A crash loses the counts since the last rollup (STATISTICS_ROLLUP_INTERVAL_MS at most).
 */
export class Tally {
  private days = new Map<string, TalliedDay>();
  private seen = new Map<string, number>();

  /**
   * Counts `event` of interaction `interactionUid` for the website on `at`'s day (UTC): a start, an acceptance, a
   * check begun and a flow refused once per interaction (on this instance), however often the page is shown; a
   * refusal also counts each time, naming the challenge that refused. False when a once-per-interaction event was
   * already counted.
   */
  count(
    event: FlowEvent,
    interactionUid: string,
    at: Date,
    of: { websiteId: number; environment: Environment; challenge?: string },
  ): boolean {
    const entry = this.entryFor(of.websiteId, of.environment, at.toISOString().slice(0, 10));
    if (event === 'refused') {
      entry.refused += 1;
      if (of.challenge) entry.refusedBy[of.challenge] = (entry.refusedBy[of.challenge] ?? 0) + 1;
    }
    const once = ONCE[event];
    if (!once) {
      entry[event as TalliedCount] += 1;
      return true;
    }
    const key = `${interactionUid}|${event}`;
    if (this.seen.has(key)) return false;
    this.seen.set(key, at.getTime());
    entry[once] += 1;
    return true;
  }

  /** The counts so far, and a fresh start. */
  take(now: Date): TalliedDay[] {
    const taken = [...this.days.values()];
    this.days = new Map();
    for (const [key, at] of this.seen) if (now.getTime() - at > SEEN_FOR_MS) this.seen.delete(key);
    return taken;
  }

  /** Puts back counts a failed rollup could not store. */
  restore(days: TalliedDay[]): void {
    for (const day of days) {
      const entry = this.entryFor(day.websiteId, day.environment, day.day);
      for (const count of TALLIED) entry[count] += day[count];
      for (const [challenge, count] of Object.entries(day.refusedBy))
        entry.refusedBy[challenge] = (entry.refusedBy[challenge] ?? 0) + count;
    }
  }

  private entryFor(websiteId: number, environment: Environment, day: string): TalliedDay {
    const key = `${websiteId}|${environment}|${day}`;
    let entry = this.days.get(key);
    if (!entry) {
      entry = { websiteId, environment, day, refusedBy: {}, ...zeros() };
      this.days.set(key, entry);
    }
    return entry;
  }
}

const zeros = (): Record<TalliedCount, number> =>
  Object.fromEntries(TALLIED.map((count) => [count, 0])) as Record<TalliedCount, number>;
