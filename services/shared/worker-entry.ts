/**
 * Entry of one document worker process (started by worker-pool.ts, never by hand). It applies the
 * configured input caps, imports the modules it is told to preload (calling their `warmUp`
 * export), then runs one task at a time: `fn` of `module` with `args`, answering with the value
 * or the error's fields. It exits with its parent.
 */
import { loadConfig } from './config.ts';
import { configureInputLimits } from './input-limits.ts';
import type { FromWorker, SerializedError, ToWorker } from './worker-pool.ts';

type TaskModule = Record<string, unknown>;

configureInputLimits(loadConfig().inputLimits);

const modules = new Map<string, Promise<TaskModule>>();

function load(url: string): Promise<TaskModule> {
  let mod = modules.get(url);
  if (!mod) {
    mod = import(url).then(async (m: TaskModule) => {
      if (typeof m.warmUp === 'function') await (m.warmUp as () => unknown)();
      return m;
    });
    modules.set(url, mod);
  }
  return mod;
}

function send(message: FromWorker): void {
  process.send!(message);
}

function serialize(err: unknown): SerializedError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const e = err as Error & { code?: unknown; type?: unknown; details?: unknown; data?: unknown };
  // Plain data only: the fields the API process's boundary converters read.
  const plain = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
  return { name: e.name, message: e.message, code: plain(e.code), type: plain(e.type), details: plain(e.details), data: plain(e.data) };
}

async function runTask(task: Extract<ToWorker, { kind: 'task' }>): Promise<void> {
  try {
    const mod = await load(task.module);
    const fn = mod[task.fn];
    if (typeof fn !== 'function') throw new Error(`${task.module} exports no function ${task.fn}`);
    const value: unknown = await (fn as (...a: unknown[]) => unknown)(...task.args);
    try {
      send({ kind: 'done', id: task.id, value });
    } catch (err) {
      send({ kind: 'failed', id: task.id, error: serialize(err) });
    }
  } catch (err) {
    send({ kind: 'failed', id: task.id, error: serialize(err) });
  }
}

process.on('message', (message: ToWorker) => {
  if (message.kind === 'preload') load(message.module).catch(() => { /* the task that needs it reports the failure */ });
  else void runTask(message);
});
// The pool's process is gone: nothing is left to work for.
process.on('disconnect', () => process.exit(0));

for (const url of process.argv.slice(2)) await load(url);
send({ kind: 'ready' });
