/**
 * A send keeps its Idempotency-Key with its document (services/documents/send.ts): when the first
 * answer is lost after the send committed — its gateway killed before it stored the answer, as the
 * chaos suite does — the client's retry with the same key gets that document, not a 409 for its own
 * invoice number. Keys stay scoped to the credential; another body under the key is refused.
 */
import { loseTheAnswer as loseAnswer, sqlOn } from '../support/lost-answer.ts';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { sandboxSendBody } from '../support/sandbox-send.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t.stop(); });

const sql = (text: string, values: unknown[] = []) => sqlOn(t.databaseUrl, text, values);

describe('a send whose answer was lost', () => {
  const loseTheAnswer = (key: string) => loseAnswer(t.databaseUrl, key);
  const invoice = (seller: { vatNumber: string }, buyer: { id: string; vatNumber: string }, number: string) =>
    sandboxSendBody({ number, sellerVat: seller.vatNumber, buyerVat: buyer.vatNumber, to: buyer.id, lines: 1 });

  it('a retry with the same key gets the document the first run created, not a duplicate-number 409', async () => {
    const alice = await bootstrap(t.baseUrl);
    const bob = await bootstrap(t.baseUrl);
    const headers = { 'idempotency-key': 'lost-send-1' };
    const body = invoice(alice.company, bob.company, 'LOST-1');
    const first = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: alice.apiKey, headers, body });
    expect([first.status, first.body.error]).toEqual([201, undefined]);
    await loseTheAnswer('lost-send-1');

    const retry = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: alice.apiKey, headers, body });
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(first.body.id);
    expect((await sql(`select count(*)::int as n from documents where organization_id = $1 and number = 'LOST-1'`, [alice.organizationId])).rows[0].n).toBe(1);
    // Without the key the same number is the seller's duplicate, as before.
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/documents/send', { key: alice.apiKey, headers: { 'idempotency-key': 'lost-send-other' }, body }), 409, 'DUPLICATE_DOCUMENT');
  });

  it('the same key with another body is refused even when the gateway kept no answer', async () => {
    const alice = await bootstrap(t.baseUrl);
    const bob = await bootstrap(t.baseUrl);
    const headers = { 'idempotency-key': 'lost-send-2' };
    expect((await api(t.baseUrl, 'POST', '/v1/documents/send', { key: alice.apiKey, headers, body: invoice(alice.company, bob.company, 'LOST-2') })).status).toBe(201);
    await loseTheAnswer('lost-send-2');
    const other = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: alice.apiKey, headers, body: invoice(alice.company, bob.company, 'LOST-3') });
    expectEnvelope(other, 409, 'IDEMPOTENCY_BODY_MISMATCH');
    expect((await sql(`select count(*)::int as n from documents where organization_id = $1 and number = 'LOST-3'`, [alice.organizationId])).rows[0].n).toBe(0);
  });

  it('keys never cross credentials: another key of the organization with the same Idempotency-Key sends its own document', async () => {
    const alice = await bootstrap(t.baseUrl);
    const bob = await bootstrap(t.baseUrl);
    const second = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: alice.apiKey, body: { name: 'second' } });
    expect(second.status).toBe(201);
    const headers = { 'idempotency-key': 'lost-send-shared' };
    const a = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: alice.apiKey, headers, body: invoice(alice.company, bob.company, 'LOST-4') });
    const b = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: second.body.key, headers, body: invoice(alice.company, bob.company, 'LOST-5') });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.id).not.toBe(a.body.id);
  });
});
