/**
 * A load generator on its own thread: a bench that samples the server's event loop must not let
 * its own client work (building and copying multi-megabyte bodies) land on that loop. Started by
 * `loadOffThread`; sends every request `rounds` times, `concurrency` at a time, and reports the
 * statuses.
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

export interface LoadRequest { url: string; method: string; headers: Record<string, string>; body: Uint8Array }
interface Job { requests: LoadRequest[]; rounds: number; concurrency: number }

export function loadOffThread(requests: LoadRequest[], rounds: number, concurrency: number): Promise<number[]> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { requests, rounds, concurrency } satisfies Job });
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

if (!isMainThread) {
  const { requests, rounds, concurrency } = workerData as Job;
  const queue = Array.from({ length: rounds }, () => requests).flat();
  const statuses: number[] = [];
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let r = queue.shift(); r; r = queue.shift()) {
      // A key of its own per request: repeated bodies are processed again, not answered from the idempotency cache.
      const res = await fetch(r.url, { method: r.method, headers: { ...r.headers, 'idempotency-key': crypto.randomUUID() }, body: r.body as Uint8Array<ArrayBuffer> });
      await res.arrayBuffer();
      statuses.push(res.status);
    }
  }));
  parentPort!.postMessage(statuses);
}
