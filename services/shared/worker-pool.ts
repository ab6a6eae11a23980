/**
 * Heavy document work (XML and PDF parsing, XSD, Schematron, JSON rendering of large invoices)
 * runs here, off the event loop, so one request can never stall the others nor `/health/liveness`.
 *
 * - Workers are child processes, one task at a time each, as many as the cores (EINV_WORKERS).
 *   Not worker_threads: libxmljs2 is not context-aware (a plain NODE_MODULE addon), so it loads in
 *   one thread per process only; separate processes also keep libxml2's native memory and any
 *   crash away from the API process.
 * - A task names a module (by URL) and one of its exported functions; the worker imports the
 *   module on first use (and at spawn for modules registered with `preload`). Workers run the same
 *   TypeScript files the main process runs, with Node's own type stripping, so they work the same
 *   under `npm start`, jest and the benches.
 * - Budget: a task that uses more than EINV_WORKER_TASK_BUDGET_MS of CPU time on its worker fails
 *   with DOCUMENT_TOO_COMPLEX; the worker is killed and replaced. It counts from when a ready
 *   worker receives the task, never while it waits in the queue or while a worker boots; CPU time
 *   is read from /proc (a worker runs nothing else meanwhile), and wall time is capped at twice the
 *   budget (also the rule where /proc is absent: there the budget is wall time).
 * - A worker that dies mid-task (out of memory under EINV_WORKER_MEMORY_MB) fails that task the
 *   same way; a full queue answers UPSTREAM_UNAVAILABLE with Retry-After.
 * - `run` keeps small inputs (under EINV_WORKER_INLINE_MAX_BYTES) inline, for work that is cheap
 *   and linear once the input caps hold: mapping an 8 KiB invoice to the canonical model takes
 *   0.5 ms inline and 0.8 ms on a worker, a 273 KiB one 5.5 ms and 8 ms. `submit` always uses a
 *   worker: validation, whose rule packs take ~55 ms even for a one-line invoice.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DomainError, isErrorCode, type DomainErrorData } from './errors.ts';
import { loadConfig, type WorkersConfig } from './config.ts';
import { configureInputLimits } from './input-limits.ts';

const ENTRY = fileURLToPath(new URL('./worker-entry.ts', import.meta.url));

/** Messages between the pool and a worker (worker-entry.ts). */
export type ToWorker =
  | { kind: 'task'; id: number; module: string; fn: string; args: unknown[] }
  | { kind: 'preload'; module: string };
export type FromWorker =
  | { kind: 'ready' }
  | { kind: 'done'; id: number; value: unknown }
  | { kind: 'failed'; id: number; error: SerializedError };
export interface SerializedError { name: string; message: string; code?: unknown; type?: unknown; details?: unknown; data?: unknown }

interface Task {
  id: number;
  module: string;
  fn: string;
  args: unknown[];
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

interface Worker {
  child: ChildProcess;
  ready: boolean;
  /** V8 reported the heap limit: the rest of its output is the fatal report. */
  outOfMemory?: boolean;
  task?: Task;
  timer?: NodeJS.Timeout;
  startedAt?: number;
  /** CPU time the worker had used when the task started (ms), when the platform tells. */
  cpuAtStart?: number;
}

export interface PoolStats {
  workers: number;
  busy: number;
  queued: number;
  /** Workers killed for a task over budget, and workers that died on their own, since start. */
  killed: number;
  crashed: number;
  /** Process ids of the live workers. */
  pids: number[];
}

/** User + system CPU time of a process in ms, from /proc (Linux; clock ticks are USER_HZ = 100); undefined elsewhere. */
function cpuTimeMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

function rebuildError(e: SerializedError): Error {
  if (isErrorCode(e.type)) return new DomainError(e.type, e.message, (e.data ?? {}) as DomainErrorData);
  // A pure layer's error (MappingError, InvalidXmlInputError): code + details, read by rethrowAsDomainError.
  return Object.assign(new Error(e.message), { name: e.name, code: e.code, details: e.details, type: e.type, data: e.data });
}

export class WorkerPool {
  readonly options: WorkersConfig;
  private readonly workers = new Set<Worker>();
  private readonly queue: Task[] = [];
  private readonly preloaded: string[] = [];
  private nextId = 1;
  private stopped = false;
  private killed = 0;
  private crashed = 0;

  constructor(options: WorkersConfig) {
    this.options = options;
  }

  /** Workers import this module (and call its `warmUp` export) before they take tasks. */
  preload(moduleUrl: string): void {
    if (this.preloaded.includes(moduleUrl)) return;
    this.preloaded.push(moduleUrl);
    for (const w of this.workers) w.child.send({ kind: 'preload', module: moduleUrl } satisfies ToWorker);
  }

  /** Starts every worker now rather than on the first tasks (they preload their modules before taking any). */
  startAll(): void {
    while (!this.stopped && this.workers.size < this.options.size) this.spawn();
  }

  /**
   * Runs `fn` of `moduleUrl` with `args`: inline when `size` (bytes of input) is under the inline
   * threshold, else on a worker. Arguments and result cross as structured clones (a Buffer comes
   * back as a Uint8Array).
   */
  async run<T>(moduleUrl: string, fn: string, args: unknown[], size: number): Promise<T> {
    if (size < this.options.inlineMaxBytes) {
      const mod = await import(moduleUrl) as Record<string, (...a: unknown[]) => unknown>;
      return await mod[fn]!(...args) as T;
    }
    return this.submit<T>(moduleUrl, fn, args);
  }

  /** Always on a worker, whatever the size. */
  submit<T>(moduleUrl: string, fn: string, args: unknown[]): Promise<T> {
    if (this.stopped) return Promise.reject(new DomainError('UPSTREAM_UNAVAILABLE', 'The document workers are stopping; retry shortly', { retryAfter: 1 }));
    if (this.queue.length >= this.options.maxQueue) {
      return Promise.reject(new DomainError('UPSTREAM_UNAVAILABLE', 'Too many documents are being processed right now; retry after the delay given', { retryAfter: 1 }));
    }
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, module: moduleUrl, fn, args, resolve: resolve as (v: unknown) => void, reject });
      this.dispatch();
    });
  }

  stats(): PoolStats {
    let busy = 0;
    for (const w of this.workers) if (w.task) busy++;
    const pids = [...this.workers].map((w) => w.child.pid).filter((pid): pid is number => pid !== undefined);
    return { workers: this.workers.size, busy, queued: this.queue.length, killed: this.killed, crashed: this.crashed, pids };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.queue.splice(0)) t.reject(new DomainError('UPSTREAM_UNAVAILABLE', 'The document workers stopped; retry shortly', { retryAfter: 1 }));
    await Promise.all([...this.workers].map((w) => this.retire(w)));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const idle = [...this.workers].find((w) => w.ready && !w.task);
      if (!idle) {
        // One booting worker per waiting task, up to the pool size; each takes work once ready.
        let booting = [...this.workers].filter((w) => !w.ready).length;
        while (this.workers.size < this.options.size && booting < this.queue.length) {
          this.spawn();
          booting++;
        }
        return;
      }
      this.start(idle, this.queue.shift()!);
    }
  }

  private start(w: Worker, task: Task): void {
    w.task = task;
    w.startedAt = performance.now();
    w.cpuAtStart = w.child.pid === undefined ? undefined : cpuTimeMs(w.child.pid);
    w.timer = setTimeout(() => this.checkBudget(w), this.options.taskBudgetMs);
    try {
      w.child.send({ kind: 'task', id: task.id, module: task.module, fn: task.fn, args: task.args } satisfies ToWorker);
    } catch (err) {
      // Arguments that cannot be cloned, or a channel that just closed: this task fails, the worker stays usable or is replaced on exit.
      this.finish(w);
      task.reject(err);
    }
  }

  private spawn(): void {
    const child = fork(ENTRY, this.preloaded, {
      serialization: 'advanced',
      // This module's view of the environment (under jest a per-file copy), so workers read the same configuration.
      env: process.env,
      execArgv: [`--max-old-space-size=${this.options.memoryMb}`, '--disable-warning=ExperimentalWarning'],
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    const w: Worker = { child, ready: false };
    this.workers.add(w);
    child.stderr!.on('data', (chunk: Buffer) => this.forwardStderr(w, chunk));
    child.on('message', (m: FromWorker) => this.onMessage(w, m));
    child.on('exit', () => this.onExit(w));
    child.on('error', () => { /* 'exit' follows and does the bookkeeping */ });
  }

  /**
   * A worker's stderr goes to ours, except V8's multi-line fatal report when the worker hits its
   * heap limit: one line says it instead (the task already fails with DOCUMENT_TOO_COMPLEX), and
   * nothing that watches our stderr mistakes the worker's heap limit for this process's own.
   */
  private forwardStderr(w: Worker, chunk: Buffer): void {
    if (!w.outOfMemory && /Last few GCs|heap out of memory|allocation failure;/.test(chunk.toString('latin1'))) {
      w.outOfMemory = true;
      process.stderr.write(`document worker ${w.child.pid} reached its heap limit (EINV_WORKER_MEMORY_MB=${this.options.memoryMb}) and is replaced\n`);
    }
    if (!w.outOfMemory) process.stderr.write(chunk);
  }

  private onMessage(w: Worker, m: FromWorker): void {
    if (m.kind === 'ready') {
      w.ready = true;
      this.dispatch();
      return;
    }
    const task = w.task;
    if (!task || task.id !== m.id) return;
    this.finish(w);
    if (m.kind === 'done') task.resolve(m.value);
    else task.reject(rebuildError(m.error));
    this.dispatch();
  }

  private finish(w: Worker): void {
    clearTimeout(w.timer);
    w.task = undefined;
    w.timer = undefined;
  }

  /**
   * The budget is CPU time: on a busy host a task can be waiting for a core, and that wait is not
   * the document's fault. When the worker has used less CPU than the budget the timer is set again
   * for the rest; wall time is still capped at twice the budget.
   */
  private checkBudget(w: Worker): void {
    if (!w.task) return;
    const budget = this.options.taskBudgetMs;
    const now = w.child.pid === undefined ? undefined : cpuTimeMs(w.child.pid);
    const used = now !== undefined && w.cpuAtStart !== undefined ? now - w.cpuAtStart : undefined;
    const wall = performance.now() - w.startedAt!;
    if (used !== undefined && used < budget && wall < 2 * budget) {
      w.timer = setTimeout(() => this.checkBudget(w), Math.max(10, Math.min(budget - used, 2 * budget - wall)));
      return;
    }
    this.overBudget(w);
  }

  private overBudget(w: Worker): void {
    const task = w.task;
    if (!task) return;
    this.finish(w);
    this.killed++;
    task.reject(new DomainError('DOCUMENT_TOO_COMPLEX',
      `Processing the document took more than its budget of ${this.options.taskBudgetMs} ms and was stopped; send a smaller or simpler document`,
      { details: [{ field: 'body', rule: 'cpu-budget', message: `processing budget of ${this.options.taskBudgetMs} ms exceeded` }] }));
    void this.retire(w);
  }

  private onExit(w: Worker): void {
    if (!this.workers.delete(w)) return;
    if (!w.ready) {
      // A worker that cannot even start is our fault, not the document's: fail what waits, and
      // spawn again only for the next task (no crash loop).
      for (const t of this.queue.splice(0)) t.reject(new Error(`document worker exited before it was ready (code ${w.child.exitCode}, signal ${w.child.signalCode})`));
      return;
    }
    const task = w.task;
    if (task) {
      this.finish(w);
      this.crashed++;
      task.reject(new DomainError('DOCUMENT_TOO_COMPLEX',
        'Processing the document exhausted the resources of its worker (memory) and was stopped; send a smaller or simpler document',
        { details: [{ field: 'body', rule: 'worker-resources', message: `worker memory limit of ${this.options.memoryMb} MB` }] }));
    }
    // Replace it for whatever still waits.
    if (!this.stopped) this.dispatch();
  }

  /** Kills a worker now (it may be stuck in a synchronous loop: no cooperative shutdown). */
  private retire(w: Worker): Promise<void> {
    this.workers.delete(w);
    if (w.child.exitCode !== null || w.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      w.child.once('exit', () => resolve());
      w.child.kill('SIGKILL');
      if (!this.stopped) this.dispatch();
    });
  }
}

let shared: { pool: WorkerPool; users: number } | undefined;

/**
 * The process's pool (validation and documents share it in the embedded mode), created with
 * loadConfig()'s settings on first use. Each service acquires it in `started` and releases it in
 * `stopped`; the last release stops the workers.
 */
export function acquireWorkerPool(): WorkerPool {
  if (!shared) {
    const config = loadConfig();
    // Inline runs apply the same input caps as the workers.
    configureInputLimits(config.inputLimits);
    shared = { pool: new WorkerPool(config.workers), users: 0 };
  }
  shared.users++;
  return shared.pool;
}

export async function releaseWorkerPool(pool: WorkerPool): Promise<void> {
  if (!shared || shared.pool !== pool) return;
  if (--shared.users > 0) return;
  shared = undefined;
  await pool.stop();
}
