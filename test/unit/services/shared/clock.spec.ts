import { offsetClock, parseCompactDuration, systemClock } from '../../../../services/shared/clock.ts';

describe('clock', () => {
  it('parses the sandbox compact units (1m = 30 days, 1y = 365 days) and nothing else', () => {
    expect(parseCompactDuration('1h')).toBe(3600);
    expect(parseCompactDuration('3d')).toBe(3 * 86_400);
    expect(parseCompactDuration('2w')).toBe(14 * 86_400);
    expect(parseCompactDuration('1m')).toBe(30 * 86_400);
    expect(parseCompactDuration('1y')).toBe(365 * 86_400);
    for (const bad of ['0d', '1s', '1', 'h', '1.5h', '-1h', '1H', ' 1h', '10000d']) expect(parseCompactDuration(bad)).toBeUndefined();
  });

  it('an offset clock runs ahead of its base; a zero offset is the base itself', () => {
    const base = { now: () => new Date('2026-01-01T00:00:00Z') };
    expect(offsetClock(3600, base).now().toISOString()).toBe('2026-01-01T01:00:00.000Z');
    expect(offsetClock(0)).toBe(systemClock);
  });
});
