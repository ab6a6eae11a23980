/**
 * A real webhook receiver on 127.0.0.1 for tests and benches: records every request (headers and
 * raw body) and answers with the status chosen by `respond` (200 by default).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  rawBody: string;
  receivedAt: number;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Status for the n-th request (1-based), and optional extra headers. */
  respond: (n: number, req: ReceivedRequest) => number | { status: number; headers?: Record<string, string> };
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
  server: Server;
}

export async function startReceiver(respond: Receiver['respond'] = () => 200, path = '/hooks', delayMs = 0): Promise<Receiver> {
  const receiver = { requests: [] as ReceivedRequest[], respond } as Receiver;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got = { headers: req.headers, rawBody: Buffer.concat(chunks).toString('utf8'), receivedAt: performance.now() };
      receiver.requests.push(got);
      const chosen = receiver.respond(receiver.requests.length, got);
      const { status, headers } = typeof chosen === 'number' ? { status: chosen, headers: {} } : chosen;
      const answer = () => {
        res.writeHead(status, { 'content-type': 'text/plain', ...headers });
        res.end(status < 300 ? 'ok' : 'no');
      };
      if (delayMs) setTimeout(answer, delayMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.server = server;
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  receiver.waitFor = async (count, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    while (receiver.requests.length < count) {
      if (Date.now() > deadline) throw new Error(`receiver got ${receiver.requests.length} requests, expected ${count}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  receiver.close = () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return receiver;
}

/** Polls `check` until it returns a value other than undefined/false. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 15_000, what = 'condition', intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
