/**
 * The one source of business time. Everything that stamps or compares business deadlines asks
 * here, so the sandbox's per-company virtual clock can move it (see the events issue).
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
