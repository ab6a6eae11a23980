/**
 * Document delivery with and without 10 deliveries hanging on a partner that never answers
 * (a test connector, test/support/connectors/slow-partner, posting to a server on 127.0.0.1). Each
 * round sends N invoices between two sandbox organizations through the API (C at once) and
 * measures, from the documents' own timestamps, deliveries per second (first send to last
 * delivery) and the p99 of send-to-delivered. Before the fix, ten hung partners stalled every send.
 *
 *   node bench/delivery.bench.ts [sends=300] [concurrency=10]
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EntityManager } from '@mikro-orm/postgresql';
import { startBenchApp, percentile, writeResults } from './support/bench-app.ts';

const SENDS = Number(process.argv[2] ?? 300);
const CONCURRENCY = Number(process.argv[3] ?? 10);
const HUNG = 10;
const DEADLINE_MS = 120_000;

const hung: ServerResponse[] = [];
const partner = createServer((req, res) => { req.resume(); if (req.url?.includes('hang')) hung.push(res); else res.writeHead(200).end('ok'); });
await new Promise<void>((resolve) => partner.listen(0, '127.0.0.1', resolve));

const bench = await startBenchApp({
  env: {
    EINV_RATE_LIMITS: 'free=10000000',
    EINV_CONNECTORS: 'sandbox-network,slow-partner',
    EINV_CONNECTORS_PATH: 'test/support/connectors',
    EINV_CONNECTOR_SLOW_PARTNER_URL: `http://127.0.0.1:${(partner.address() as AddressInfo).port}`,
    EINV_CONNECTOR_SLOW_PARTNER_TOKEN: 'bench',
    EINV_DELIVERY_TIMEOUT_MS: '50000',
    EINV_DELIVERY_RETRY_MS: '600000',
  },
});
const { base, app } = bench;

async function boot(label: string) {
  return await (await fetch(`${base}/v1/sandbox/bootstrap`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ label }) })).json() as { apiKey: string; company: { id: string; vatNumber: string } };
}

let n = 0;
/** The VAT number of each sender's company: an invoice is issued by the company that sends it. */
const vatOfKey = new Map<string, string>();

async function send(key: string, to: string): Promise<string> {

  const document = {
    number: `BENCH-${Date.now()}-${++n}`, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO-9',
    seller: { name: 'Acme SPRL', vatNumber: vatOfKey.get(key), address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } },
    buyer: { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } },
    lines: [{ description: 'Consulting', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 21 }],
  };
  const res = await fetch(`${base}/v1/documents/send`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ type: 'invoice', format: 'json', to, document }) });
  const body = await res.json() as { id: string };
  if (res.status !== 201) throw new Error(`send: ${res.status} ${JSON.stringify(body)}`);
  return body.id;
}

async function round(name: string, key: string, to: string) {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => { while (next < SENDS) { next++; ids.push(await send(key, to)); } }));
  const em = app.orm!.em.fork() as EntityManager;
  const end = Date.now() + DEADLINE_MS;
  for (;;) {
    const [row] = await em.execute<Array<{ left: string }>>(`select count(*) as left from documents where id in (${ids.map(() => '?').join(', ')}) and delivery_status = 'pending'`, ids);
    if (Number(row!.left) === 0) break;
    if (Date.now() > end) throw new Error(`${name}: ${row!.left} deliveries still pending after ${DEADLINE_MS} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const rows = await em.execute<Array<{ ms: number; created: Date; delivered: Date; status: string }>>(
    `select extract(epoch from delivered_at - created_at) * 1000 as ms, created_at as created, delivered_at as delivered, delivery_status as status from documents where id in (${ids.map(() => '?').join(', ')})`, ids);
  if (rows.some((r) => r.status !== 'delivered')) throw new Error(`${name}: not every document was delivered`);
  const latencies = rows.map((r) => Number(r.ms)).sort((x, y) => x - y);
  const span = (Math.max(...rows.map((r) => new Date(r.delivered).getTime())) - Math.min(...rows.map((r) => new Date(r.created).getTime()))) / 1000;
  const figures = { name, sends: SENDS, concurrency: CONCURRENCY, perSecond: Math.round(SENDS / span), p50Ms: Math.round(percentile(latencies, 50)), p99Ms: Math.round(percentile(latencies, 99)) };
  console.log(`${name.padEnd(34)} ${String(figures.perSecond).padStart(5)} sends/s delivered   p50 ${figures.p50Ms} ms   p99 ${figures.p99Ms} ms   (${SENDS} sends, ${CONCURRENCY} at once)`);
  return figures;
}

try {
  const [alice, bob] = [await boot('alice'), await boot('bob')];
  vatOfKey.set(alice.apiKey, alice.company.vatNumber);
  await round('warm-up', alice.apiKey, bob.company.id);
  const none = await round('no hung delivery', alice.apiKey, bob.company.id);
  for (let i = 0; i < HUNG; i++) await send(alice.apiKey, `9999:slow-hang-${i}`);
  const end = Date.now() + 10_000;
  while (hung.length < HUNG && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  if (hung.length < HUNG) throw new Error(`only ${hung.length} deliveries reached the hanging partner`);
  const withHung = await round(`${HUNG} deliveries hung on a partner`, alice.apiKey, bob.company.id);
  console.log(`ratio (hung / none): ${(withHung.perSecond / none.perSecond).toFixed(2)}x sends/s, ${(withHung.p99Ms / Math.max(1, none.p99Ms)).toFixed(2)}x p99`);
  writeResults('delivery', { none, withHung, hung: HUNG });
} finally {
  for (const res of hung) res.destroy();
  await bench.stop();
  partner.closeAllConnections();
  partner.close();
}
