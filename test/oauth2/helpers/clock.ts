import type { Clock } from '../../../lib/clock.js';

/** Our clock, movable forward; oidc-provider's own checks keep real time (the adapter decides expiry by this one). */
export class MovableClock implements Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }
}

/**
 * Our clock, still unless a test moves it: what is due later (a failed webhook attempt's retry, an endpoint's
 * back-off) comes only when the test says so, whatever the shared machine's pace.
 */
export class StillClock implements Clock {
  private at = Date.now();

  now(): Date {
    return new Date(this.at);
  }

  advance(seconds: number): void {
    this.at += seconds * 1000;
  }
}
