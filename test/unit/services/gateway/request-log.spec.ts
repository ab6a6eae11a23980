/** The request-log buffer: batches, bounded memory, never blocking, counted drops and failures. */
import { RequestLogBuffer } from '../../../../services/gateway/request-log.ts';
import type { RequestLogInput } from '../../../../services/requests/requests.contract.ts';

const entry = (i: number): RequestLogInput => ({
  id: `req_${String(i).padStart(26, '0')}`, organizationId: 'org_1', method: 'POST', path: '/v1/x', status: 201, errorCode: null, apiKeyId: 'key_1',
  userId: null, action: 'x.y', durationMs: 1, upstreamCalls: null, validation: null, idempotencyKey: null, replayed: false, createdAt: new Date(0).toISOString(),
});

describe('RequestLogBuffer', () => {
  it('writes full batches at once and a partial batch after the flush interval', async () => {
    const batches: number[] = [];
    const buffer = new RequestLogBuffer(async (e) => { batches.push(e.length); }, { capacity: 1000, batchSize: 10, flushIntervalMs: 30 });
    for (let i = 0; i < 25; i++) buffer.push(entry(i));
    // Nobody calls flush(): the timer writes the partial batch on its own (bounded wait).
    for (let waited = 0; buffer.stats.written < 25 && waited < 3000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    expect(batches).toEqual([10, 10, 5]);
    expect(buffer.stats).toMatchObject({ captured: 25, written: 25, dropped: 0, batches: 3 });
    await buffer.stop();
  });

  it('never blocks a push: with a stalled writer it holds `capacity` entries and counts the rest as dropped', async () => {
    let release!: () => void;
    const stalled = new Promise<void>((r) => { release = r; });
    const written: RequestLogInput[] = [];
    const buffer = new RequestLogBuffer(async (e) => { await stalled; written.push(...e); }, { capacity: 100, batchSize: 50, flushIntervalMs: 10 });
    const started = performance.now();
    for (let i = 0; i < 1000; i++) buffer.push(entry(i));
    // A push that waited for the stalled writer would never return; this bound only tells the two apart.
    expect(performance.now() - started).toBeLessThan(2_000);
    // One batch of 50 is in the writer's hands, 100 wait, the rest is dropped.
    expect(buffer.stats.dropped).toBe(850);
    release();
    await buffer.stop();
    expect(written).toHaveLength(150);
    expect(buffer.stats).toMatchObject({ captured: 150, written: 150, dropped: 850, failed: 0 });
  });

  it('retries a failed batch, then counts it as failed without stopping later batches', async () => {
    let calls = 0;
    const buffer = new RequestLogBuffer(async (e) => { calls++; if (e[0]!.id.endsWith('0')) throw new Error('db down'); }, { capacity: 100, batchSize: 1, flushIntervalMs: 5, attempts: 2 });
    buffer.push(entry(0));
    buffer.push(entry(1));
    await buffer.flush();
    expect(calls).toBe(3);
    expect(buffer.stats).toMatchObject({ written: 1, failed: 1 });
    await buffer.stop();
  });

  it('a poisoned batch: the NUL is cleaned before the insert, and a row that still fails alone takes no other tenant\'s rows with it', async () => {
    const stored: RequestLogInput[] = [];
    // Stands in for PostgreSQL: refuses a batch holding a NUL anywhere, or a row marked as broken.
    const buffer = new RequestLogBuffer(async (batch) => {
      if (JSON.stringify(batch).includes('\\u0000') || batch.some((e) => e.path === '/broken')) throw new Error('08P01 invalid message format');
      stored.push(...batch);
    }, { capacity: 100, batchSize: 10, flushIntervalMs: 5, attempts: 2 });
    const others = Array.from({ length: 5 }, (_, i) => ({ ...entry(i), organizationId: 'org_other' }));
    buffer.push({ ...entry(10), path: '/v1/requests?path=\u0000', validation: [{ field: 'k\u0000', rule: 'x', message: 'v\u0000' }] });
    for (const e of others) buffer.push(e);
    buffer.push({ ...entry(11), path: '/broken' });
    await buffer.flush();
    expect(stored.filter((e) => e.organizationId === 'org_other')).toHaveLength(5);
    expect(stored.find((e) => e.id === entry(10).id)).toMatchObject({ path: '/v1/requests?path=\uFFFD', validation: [{ field: 'k\uFFFD', message: 'v\uFFFD' }] });
    expect(buffer.stats).toMatchObject({ written: 6, failed: 1 });
    await buffer.stop();
  });
});
