/** Time source for our own expiry rules, replaceable in tests (credential rotation, proof reuse). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const addSeconds = (date: Date, seconds: number): Date => new Date(date.getTime() + seconds * 1000);

export const epochSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);
