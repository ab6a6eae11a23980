/**
 * autocannon in a process of its own (so the load generator's CPU is not the server's event loop),
 * with a fresh body per request: `[<id>]` in the body template becomes a unique id, so every send
 * is a new invoice and nothing is answered from the idempotency store. Prints autocannon's result
 * as one JSON line.
 *
 *   node bench/support/cannon-process.ts '{"url","connections","seconds","headers","body"}'
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';

interface Job { url: string; connections: number; seconds: number; headers: Record<string, string>; body: string }

const job = JSON.parse(process.argv[2]!) as Job;
let n = 0;
const result = await autocannon({
  url: job.url,
  connections: job.connections,
  duration: job.seconds,
  method: 'POST',
  headers: job.headers,
  requests: [{
    setupRequest: (req) => ({ ...req, body: job.body.replaceAll('[<id>]', `${process.pid}-${++n}`), headers: { ...job.headers, 'idempotency-key': randomUUID() } }),
  }],
});
process.stdout.write(`${JSON.stringify(result)}\n`);
