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
