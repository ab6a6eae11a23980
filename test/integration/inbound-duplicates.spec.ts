/**
 * Duplicate inbound detection (issue 17, item 7): the same business document handed over again
 * under another network message (another channel, a re-send) is stored but not booked: status
 * `duplicate`, `duplicateOf` the booked copy, no lifecycle, `document.duplicate_received`. The same
 * network message again is still answered `duplicate: true` with nothing stored.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { call } from '../../services/shared/call.ts';
import { receiveInbound } from '../../services/documents/documents.contract.ts';

const dirs = mkdtempSync(join(tmpdir(), 'inbound-duplicates-'));
process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000';
process.env.EINV_CONNECTORS = 'sandbox-network,file-drop';
process.env.EINV_CONNECTOR_FILE_DROP_OUTBOX_DIR = join(dirs, 'out');
process.env.EINV_CONNECTOR_FILE_DROP_INBOX_DIR = join(dirs, 'in');
process.env.EINV_CONNECTOR_FILE_DROP_PARTICIPANTS = '9999:file-drop-partner';
process.env.EINV_CONNECTOR_FILE_DROP_POLL_INTERVAL_MS = '60000';

let t: TestApp;
let b: Awaited<ReturnType<typeof bootstrap>>;
beforeAll(async () => {
  t = await startTestApp();
  b = await bootstrap(t.baseUrl, { label: 'bob' });
});
afterAll(async () => {
  await t?.stop();
  rmSync(dirs, { recursive: true, force: true });
});

let counter = 0;
const unique = (prefix: string) => `${prefix}-${Date.now()}-${++counter}`;

interface Copy { connectorId?: string; messageId?: string; number: string; issueDate?: string; sellerVat?: string; senderPeppolId?: string; instanceIdentifier?: string }
function handOff(c: Copy) {
  const normalized = {
    number: c.number, issueDate: c.issueDate ?? '2026-03-01', currency: 'EUR',
    seller: { name: 'Acme SPRL', vatId: c.sellerVat ?? 'BE0123456749' }, buyer: { name: 'bob' },
    totals: { taxExclusive: '100.00', taxInclusive: '121.00', payable: '121.00' },
  };
  const messageId = c.messageId ?? unique('msg');
  return call(t.app.broker, receiveInbound, {
    connectorId: c.connectorId ?? 'file-drop', messageId, livemode: false, type: 'invoice', number: c.number,
    sender: { peppolId: c.senderPeppolId ?? '9999:file-drop-partner', name: 'Acme SPRL' },
    recipient: { peppolId: b.company.peppolId, organizationId: b.organizationId, companyId: b.company.id, name: 'bob' },
    payload: { content: Buffer.from(JSON.stringify(normalized)).toString('base64'), contentType: 'application/json', normalized },
    ...(c.instanceIdentifier ? { evidence: { messageId, instanceIdentifier: c.instanceIdentifier, exchangedAt: new Date().toISOString() } } : {}),
  });
}
const get = async (id: string) => (await api(t.baseUrl, 'GET', `/v1/documents/${id}`, { key: b.apiKey })).body as Record<string, unknown>;
const events = async (type: string) => (await api(t.baseUrl, 'GET', `/v1/events?type=${type}&limit=100`, { key: b.apiKey })).body.data as Array<{ data: Record<string, unknown> }>;
const byNumber = async (number: string) => (await api(t.baseUrl, 'POST', '/v1/documents/search', { key: b.apiKey, body: { filters: { direction: 'incoming', number } } })).body.data as Array<Record<string, unknown>>;

describe('duplicate inbound detection', () => {
  it('the same invoice under two message ids (another channel): one booked document, one marked duplicate pointing at it', async () => {
    const number = unique('INV');
    const first = await handOff({ number });
    const second = await handOff({ number, connectorId: 'sandbox-network', senderPeppolId: '9925:be0123456749' });
    expect(first.duplicate).toBe(false);
    expect(second).toEqual({ documentId: expect.any(String), duplicate: false }); // stored: it is a new network message
    expect(second.documentId).not.toBe(first.documentId);

    const booked = await get(first.documentId);
    expect(booked).toMatchObject({ status: 'received', lifecycleCode: '203', duplicateOf: null });
    const copy = await get(second.documentId);
    expect(copy).toMatchObject({ status: 'duplicate', lifecycleCode: null, duplicateOf: first.documentId, number, deliveryStatus: 'received' });
    expect((copy.links as Record<string, string>).original).toBeDefined(); // nothing accepted is lost

    // Not booked: no lifecycle of its own, no move allowed, no document.received.
    const lifecycle = await api(t.baseUrl, 'GET', `/v1/documents/${second.documentId}/lifecycle`, { key: b.apiKey });
    expect(lifecycle.body).toMatchObject({ status: 'duplicate', currentCode: null, history: [], allowedTransitions: [] });
    const move = await api(t.baseUrl, 'POST', `/v1/documents/${second.documentId}/lifecycle`, { key: b.apiKey, body: { status: 'approved' } });
    expect(move.status).toBe(409);
    expect(move.body.error.code).toBe('INVALID_TRANSITION');
    expect((await events('document.received')).filter((e) => e.data.number === number).map((e) => e.data.documentId)).toEqual([first.documentId]);
    expect((await events('document.duplicate_received')).filter((e) => e.data.number === number).map((e) => e.data)).toEqual([expect.objectContaining({
      documentId: second.documentId, duplicateOf: first.documentId, matchedOn: 'seller_number_issue_date', direction: 'incoming',
    })]);

    // Filters: the list's duplicate flag, the search's duplicateOf.
    const onlyDuplicates = (await api(t.baseUrl, 'GET', '/v1/documents?duplicate=true&limit=100', { key: b.apiKey })).body.data as Array<{ id: string }>;
    expect(onlyDuplicates.map((d) => d.id)).toContain(second.documentId);
    expect(onlyDuplicates.map((d) => d.id)).not.toContain(first.documentId);
    const withoutDuplicates = (await api(t.baseUrl, 'GET', '/v1/documents?duplicate=false&limit=100', { key: b.apiKey })).body.data as Array<{ id: string }>;
    expect(withoutDuplicates.map((d) => d.id)).toContain(first.documentId);
    expect(withoutDuplicates.map((d) => d.id)).not.toContain(second.documentId);
    const copies = await api(t.baseUrl, 'POST', '/v1/documents/search', { key: b.apiKey, body: { filters: { duplicateOf: first.documentId } } });
    expect(copies.body.data.map((d: { id: string }) => d.id)).toEqual([second.documentId]);
  });

  it('the same SBDH instance id from the same sender is a duplicate even with another number', async () => {
    const instanceIdentifier = unique('sbdh');
    const first = await handOff({ number: unique('INV'), instanceIdentifier });
    const second = await handOff({ number: unique('INV'), instanceIdentifier });
    expect(await get(second.documentId)).toMatchObject({ status: 'duplicate', duplicateOf: first.documentId });
    expect((await events('document.duplicate_received')).find((e) => e.data.documentId === second.documentId)?.data.matchedOn).toBe('instance_identifier');
    // The same instance id from another sender is another document.
    const other = await handOff({ number: unique('INV'), instanceIdentifier, senderPeppolId: '9999:someone-else', sellerVat: 'FR40303265045' });
    expect(await get(other.documentId)).toMatchObject({ status: 'received', duplicateOf: null });
  });

  it('the same number and issue date from another seller is not a duplicate; another issue date neither', async () => {
    const number = unique('INV');
    const first = await handOff({ number });
    const otherSeller = await handOff({ number, sellerVat: 'FR40303265045', senderPeppolId: '9999:other-seller' });
    const otherDate = await handOff({ number, issueDate: '2026-03-02' });
    for (const r of [first, otherSeller, otherDate]) expect(await get(r.documentId)).toMatchObject({ status: 'received', lifecycleCode: '203', duplicateOf: null });
  });

  it('the same message id again is a network re-delivery: duplicate: true, nothing new stored', async () => {
    const number = unique('INV');
    const messageId = unique('msg');
    const first = await handOff({ number, messageId });
    const again = await handOff({ number, messageId });
    expect(again).toEqual({ documentId: first.documentId, duplicate: true });
    expect(await byNumber(number)).toHaveLength(1);
    expect((await events('document.duplicate_received')).filter((e) => e.data.number === number)).toHaveLength(0);
  });

  it('copies arriving concurrently: exactly one booked, the others duplicates of it', async () => {
    const number = unique('INV');
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => handOff({ number, connectorId: i % 2 ? 'sandbox-network' : 'file-drop' })));
    expect(new Set(answers.map((a) => a.documentId)).size).toBe(6);
    expect(answers.every((a) => !a.duplicate)).toBe(true);
    const docs = await byNumber(number);
    expect(docs).toHaveLength(6);
    const booked = docs.filter((d) => d.status === 'received');
    expect(booked).toHaveLength(1);
    expect(booked[0]!.duplicateOf).toBeNull();
    expect(docs.filter((d) => d.status === 'duplicate').map((d) => d.duplicateOf)).toEqual(Array(5).fill(booked[0]!.id));
    expect((await events('document.received')).filter((e) => e.data.number === number)).toHaveLength(1);
  });
});
