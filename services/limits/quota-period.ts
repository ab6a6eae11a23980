/** Calendar months (UTC) of the document quota. */
export function quotaPeriod(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/** Seconds from `now` to the first instant of the next UTC month, when the quota starts over. */
export function secondsToNextPeriod(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}
