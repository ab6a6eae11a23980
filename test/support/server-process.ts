/** `node server.ts` as a child process, the way ops run it: start, wait until it answers, stop. */
import { spawn, type ChildProcess } from 'node:child_process';

export interface Running { child: ChildProcess; output: () => string; exited: Promise<number | null> }

export function startServer(env: Record<string, string>): Running {
  let output = '';
  const child = spawn(process.execPath, ['server.ts'], {
    env: { ...process.env, NODE_OPTIONS: '', MOL_LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

export async function waitFor(url: string, running: Running, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (running.child.exitCode !== null) throw new Error(`server exited early:\n${running.output()}`);
    try {
      if ((await fetch(url)).status < 500) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server did not answer at ${url}:\n${running.output()}`);
}

/** SIGTERM, as an orchestrator sends it; the exit code says whether shutdown was graceful. */
export async function stop(running: Running): Promise<number | string | null> {
  if (running.child.exitCode !== null) return running.child.exitCode;
  running.child.kill('SIGTERM');
  const timer = setTimeout(() => running.child.kill('SIGKILL'), 15_000);
  const code = await running.exited;
  clearTimeout(timer);
  return running.child.signalCode === 'SIGKILL' ? `killed after 15 s:\n${running.output()}` : code;
}
