/**
 * Real infrastructure for the test suite, on 127.0.0.1 and free ports: PostgreSQL from the npm
 * binaries, redis-server and nats-server from the OS (installed by scripts/setup.sh).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Binds `port` (0: any) on 127.0.0.1 and lets it go: the port, or null when it is taken. */
function tryPort(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.on('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : null));
    });
  });
}

/**
 * A port that is free now, for a server started later (a child process, an embedded database). Drawn
 * below the kernel's ephemeral range (32768–60999 on Linux): a port from that range can be handed to
 * another socket — any outgoing connection — between this check and the bind; one drawn at random
 * below it can only meet another test's draw.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await tryPort(20000 + Math.floor(Math.random() * 12000));
    if (port) return port;
  }
  const any = await tryPort(0);
  if (!any) throw new Error('no free port on 127.0.0.1');
  return any;
}

function binary(name: string): string {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/usr/bin', '/usr/local/bin'])) {
    try {
      execFileSync('test', ['-x', join(dir, name)]);
      return join(dir, name);
    } catch {
      /* not in this directory */
    }
  }
  throw new Error(`${name} not found: run "npm run setup" (it installs redis-server and nats-server)`);
}

async function waitForPort(port: number, child: ChildProcess, name: string): Promise<void> {
  const { connect } = await import('node:net');
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => { socket.end(); resolve(true); });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${name} did not listen on ${port}`);
}

export interface RunningServer { url: string; port: number; stop(): Promise<void>; /** The server process (the chaos suite pauses and kills it). */ child: ChildProcess }

function stopper(child: ChildProcess): () => Promise<void> {
  return () => new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export async function startRedis(): Promise<RunningServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'einv-redis-'));
  const child = spawn(binary('redis-server'), ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  await waitForPort(port, child, 'redis-server');
  return { url: `redis://127.0.0.1:${port}`, port, stop: stopper(child), child };
}

/** nats-server with JetStream; `port` and `storeDir` given again restart the same server (the chaos suite does). */
export async function startNats(options: { port?: number; storeDir?: string } = {}): Promise<RunningServer> {
  const port = options.port ?? await freePort();
  const dir = options.storeDir ?? mkdtempSync(join(tmpdir(), 'einv-nats-'));
  const child = spawn(binary('nats-server'), ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], { stdio: 'ignore' });
  await waitForPort(port, child, 'nats-server');
  return { url: `nats://127.0.0.1:${port}`, port, stop: stopper(child), child };
}
