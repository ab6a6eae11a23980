import { WorkerPool } from '../../../../services/shared/worker-pool.ts';
import { DomainError } from '../../../../services/shared/errors.ts';

const TASKS = new URL('./fixtures/pool-tasks.ts', import.meta.url).href;

function pool(overrides: Partial<WorkerPool['options']> = {}): WorkerPool {
  return new WorkerPool({ size: 2, taskBudgetMs: 2_000, maxQueue: 10, memoryMb: 64, inlineMaxBytes: 0, ...overrides });
}

describe('WorkerPool', () => {
  let p: WorkerPool;
  afterEach(async () => { await p.stop(); });

  it('runs a task in another process and returns its value as a structured clone', async () => {
    p = pool();
    const out = await p.run<{ value: { a: Uint8Array }; pid: number }>(TASKS, 'echo', [{ a: Buffer.from('hi') }], 100);
    expect(out.pid).not.toBe(process.pid);
    expect(Buffer.from(out.value.a).toString()).toBe('hi');
  });

  it('runs a small input inline, under the threshold', async () => {
    p = pool({ inlineMaxBytes: 1024 });
    const out = await p.run<{ pid: number }>(TASKS, 'echo', [1], 10);
    expect(out.pid).toBe(process.pid);
    expect(p.stats().workers).toBe(0);
  });

  it('carries a pure-layer error back with its code and details', async () => {
    p = pool();
    await expect(p.run(TASKS, 'refuse', [], 100)).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: [{ field: 'xml', rule: 'max-depth', message: 'too deep' }] });
  });

  it('fails a task over its budget with DOCUMENT_TOO_COMPLEX, kills its worker and keeps serving', async () => {
    p = pool({ size: 1, taskBudgetMs: 300 });
    const first = await p.run<{ pid: number }>(TASKS, 'echo', [0], 100);
    const started = performance.now();
    const err = await p.run(TASKS, 'spin', [60_000], 100).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).errorCode).toBe('DOCUMENT_TOO_COMPLEX');
    // Far below the 60 s the task would spin: the budget stopped it (generous for a loaded machine).
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(p.stats().killed).toBe(1);
    const after = await p.run<{ pid: number }>(TASKS, 'echo', [1], 100);
    expect(after.pid).not.toBe(first.pid);
  });

  it('counts CPU time, not time spent off the CPU, up to twice the budget in wall time', async () => {
    p = pool({ size: 1, taskBudgetMs: 400 });
    await expect(p.run(TASKS, 'idle', [600], 100)).resolves.toBe('rested');
    expect(p.stats().killed).toBe(0);
    await expect(p.run(TASKS, 'idle', [5_000], 100)).rejects.toMatchObject({ type: 'DOCUMENT_TOO_COMPLEX' });
  });

  it('starts the budget when a worker takes the task, not while it waits in the queue', async () => {
    p = pool({ size: 1, taskBudgetMs: 1_000 });
    const results = await Promise.all([p.run(TASKS, 'spin', [600], 100), p.run(TASKS, 'spin', [600], 100)]);
    expect(results).toHaveLength(2);
    expect(p.stats().killed).toBe(0);
  });

  it('fails a task whose worker runs out of memory, and replaces the worker', async () => {
    p = pool({ size: 1, taskBudgetMs: 20_000, memoryMb: 32 });
    await expect(p.run(TASKS, 'exhaustMemory', [], 100)).rejects.toMatchObject({ type: 'DOCUMENT_TOO_COMPLEX' });
    expect(p.stats().crashed).toBe(1);
    await expect(p.run(TASKS, 'echo', [2], 100)).resolves.toMatchObject({ value: 2 });
  });

  it('answers UPSTREAM_UNAVAILABLE when the queue is full', async () => {
    p = pool({ size: 1, maxQueue: 1 });
    await p.run(TASKS, 'echo', [0], 100); // the worker is up and idle: the next task goes straight to it
    const running = p.run(TASKS, 'spin', [300], 100);
    const queued = p.run(TASKS, 'spin', [10], 100);
    await expect(p.run(TASKS, 'spin', [10], 100)).rejects.toMatchObject({ type: 'UPSTREAM_UNAVAILABLE' });
    await Promise.all([running, queued]);
  });
});
