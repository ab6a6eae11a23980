/**
 * The generated TypeScript client (clients/typescript) against the real app: its types are the
 * current OpenAPI document's, an invoice goes out with no casts (the type check of this file is
 * the proof), a 429 is retried after its Retry-After with the same Idempotency-Key, and a real
 * webhook delivery verifies with its verifier.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, bootstrap, type TestApp } from '../support/app.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { createExchangeClient, verifyWebhook, type JsonDocument } from '../../clients/typescript/src/index.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let t: TestApp;
let receiver: Receiver;
beforeAll(async () => { t = await startTestApp(); receiver = await startReceiver(); });
afterAll(async () => { await receiver.close(); await t.stop(); });

it('its types are generated from the current OpenAPI document', () => {
  const dir = mkdtempSync(join(tmpdir(), 'einv-client-'));
  try {
    execFileSync(process.execPath, ['scripts/openapi.ts', join(dir, 'openapi.json')]);
    execFileSync(process.execPath, ['clients/typescript/node_modules/openapi-typescript/bin/cli.js', join(dir, 'openapi.json'), '-o', join(dir, 'schema.ts')], { stdio: 'ignore' });
    expect(readFileSync(join(dir, 'schema.ts'), 'utf8')).toBe(readFileSync('clients/typescript/src/schema.ts', 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('sends an invoice with typed bodies and answers, and reads typed errors', async () => {
  const [alice, bob] = [await bootstrap(t.baseUrl, { label: 'client-a' }), await bootstrap(t.baseUrl, { label: 'client-b' })];
  const client = createExchangeClient({ baseUrl: t.baseUrl, apiKey: alice.apiKey });
  const document: JsonDocument = {
    number: `CLIENT-${Date.now()}`, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO-1',
    seller: { name: 'Alice BV', vatNumber: alice.company.vatNumber, address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } },
    buyer: { name: 'Bob BV', vatNumber: bob.company.vatNumber, address: { street: 'Kerkstraat 2', city: 'Gent', postalCode: '9000', country: 'BE' } },
    lines: [{ description: 'Consulting', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 21 }],
  };
  const sent = await client.POST('/v1/documents/send', { body: { type: 'invoice', format: 'json', to: bob.company.peppolId, document } });
  if (!sent.data) throw new Error(`send failed: ${sent.error?.error.code}`);
  expect(sent.response.status).toBe(201);
  expect(sent.data.deliveryStatus).toBe('pending');
  const read = await client.GET('/v1/documents/{id}', { params: { path: { id: sent.data.id } } });
  expect(read.data?.number).toBe(document.number);

  const refused = await client.POST('/v1/documents/send', { body: { type: 'invoice', format: 'json', to: bob.company.peppolId, document: { ...document, number: `${document.number}-X`, seller: { ...document.seller, vatNumber: bob.company.vatNumber } } } });
  expect(refused.response.status).toBe(422);
  expect(refused.error?.error.code).toBe('ISSUER_MISMATCH');
});

it('retries a 429 after its Retry-After, with one Idempotency-Key for every attempt', async () => {
  const org = await bootstrap(t.baseUrl, { label: 'client-retry' });
  // What leaves the client, attempt by attempt (the real fetch does the work).
  const sent: Array<{ status: number; key: string | null }> = [];
  const watched: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const response = await fetch(request);
    sent.push({ status: response.status, key: request.headers.get('idempotency-key') });
    return response;
  };
  const client = createExchangeClient({ baseUrl: t.baseUrl, apiKey: org.apiKey, fetch: watched });
  expect((await client.POST('/v1/sandbox/rate-limit/exhaust', { body: { durationSeconds: 1 } })).response.status).toBe(200);
  sent.length = 0;
  const started = Date.now();
  const created = await client.POST('/v1/webhooks', { body: { url: receiver.url, events: ['document.sent'] } });
  expect(created.response.status).toBe(201);
  expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  expect(sent.map((a) => a.status)).toEqual([429, 201]);
  expect(new Set(sent.map((a) => a.key)).size).toBe(1);
  expect(sent[0]?.key).toMatch(/^[0-9a-f-]{36}$/);
});

it('verifies a real webhook delivery, and refuses a tampered one', async () => {
  const org = await bootstrap(t.baseUrl, { label: 'client-hook' });
  const client = createExchangeClient({ baseUrl: t.baseUrl, apiKey: org.apiKey });
  const hook = await client.POST('/v1/webhooks', { body: { url: receiver.url, events: ['*'] } });
  const secret = hook.data?.secret;
  if (!hook.data || !secret) throw new Error('the webhook was not created with its secret');
  const test = await client.POST('/v1/webhooks/{id}/test', { params: { path: { id: hook.data.id } } });
  expect(test.data?.status).toBe('succeeded');
  const delivery = receiver.requests.at(-1);
  if (!delivery) throw new Error('no delivery reached the receiver');
  const header = String(delivery.headers['x-service-signature']);
  const verified = verifyWebhook<{ type: string }>(delivery.rawBody, header, secret);
  expect(verified.event.type).toBe('webhook.test');
  expect(() => verifyWebhook(delivery.rawBody.replace('webhook.test', 'webhook.tests'), header, secret)).toThrow(/no signature matches/);
  expect(() => verifyWebhook(delivery.rawBody, header, 'whsec_wrong')).toThrow(/no signature matches/);
});
