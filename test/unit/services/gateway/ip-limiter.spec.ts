import { IpLimiter } from '../../../../services/gateway/ip-limiter.ts';

it('allows `limit` hits per window per IP, then says how long to wait; the window slides', () => {
  const limiter = new IpLimiter(2, 60_000);
  expect(limiter.hit('1.1.1.1', 0)).toBe(0);
  expect(limiter.hit('1.1.1.1', 10_000)).toBe(0);
  expect(limiter.hit('1.1.1.1', 20_000)).toBe(40);
  expect(limiter.hit('2.2.2.2', 20_000)).toBe(0);
  expect(limiter.hit('1.1.1.1', 60_001)).toBe(0);
  expect(limiter.hit('1.1.1.1', 60_002)).toBe(10);
});
