/**
 * Runs autocannon in its own process (bench/support/cannon-process.ts), so the load generator's CPU
 * is not the server's event loop; `[<id>]` in the body becomes a unique id per request.
 */
import { spawn } from 'node:child_process';

export interface CannonJob { url: string; connections: number; seconds: number; headers: Record<string, string>; body: string }

export interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; p97_5: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats?: Record<string, { count: number }>;
}

export function cannon(job: CannonJob): Promise<CannonResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bench/support/cannon-process.ts', JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as CannonResult) : reject(new Error(`autocannon exited ${code}`))));
  });
}
