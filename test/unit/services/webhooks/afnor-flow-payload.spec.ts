/** What an AFNOR flow subscriber is sent for an event (pure), the annex's signature, and the column that says a webhook is one. */
import { createHash, createHmac } from 'node:crypto';
import { pendingSchemaChanges, useMigratedOrm } from '../../../support/migrated-orm.ts';
import { flowPayload, type FlowFacts } from '../../../../services/webhooks/afnor-flow-payload.ts';
import { afnorSignature } from '../../../../services/webhooks/signature.ts';
import type { DocumentView, LifecycleView } from '../../../../services/documents/documents.contract.ts';

const document = {
  id: 'doc_1', type: 'invoice', direction: 'incoming', format: 'ubl-xml', deliveryStatus: 'received', number: 'F-9', errorCode: null, errorMessage: null,
  deliveredAt: null, links: {}, metadata: null, createdAt: '2026-03-01T10:00:00.000Z', updatedAt: '2026-03-02T10:00:00.000Z',
} as unknown as DocumentView;
const lifecycle = { documentId: 'doc_1', party: 'buyer', history: [
  { code: '200', emittedBy: 'seller_platform', at: '2026-03-01T10:00:00.000Z' }, { code: '204', emittedBy: 'buyer', at: '2026-03-02T10:00:00.000Z' },
] } as unknown as LifecycleView;
const facts: FlowFacts = new Map([['doc_1', { document, lifecycle }]]);
const envelope = (type: string, data: Record<string, unknown>) => ({ id: 'evt_1', type, livemode: false, createdAt: '2026-03-02T10:00:00.000Z', apiVersion: 'v1', data });

it('sends the invoice flow for document events and the announced step for lifecycle.updated', () => {
  expect(flowPayload(envelope('document.received', { documentId: 'doc_1' }), facts)).toMatchObject({ flowId: 'doc_1', flowType: 'SupplierInvoice', flowDirection: 'In' });
  expect(flowPayload(envelope('lifecycle.updated', { documentId: 'doc_1', currentStatus: '204' }), facts)).toMatchObject({ flowId: 'doc_1-lc-1', flowType: 'SupplierInvoiceLC', flowDirection: 'Out', flowSyntax: 'CDAR' });
  expect(flowPayload(envelope('lifecycle.updated', { documentId: 'doc_1', currentStatus: '212' }), facts)).toBeUndefined();
  expect(flowPayload(envelope('document.received', { documentId: 'doc_unknown' }), facts)).toBeUndefined();
  expect(flowPayload(envelope('company.smp_registered', { documentId: 'doc_1' }), facts)).toBeUndefined();
});

it('signs as the annex describes: HMAC-SHA256 of the SHA-256 fingerprint of `<body>@<timestamp>`, base64', () => {
  const fingerprint = createHash('sha256').update('{"a":1}@1700000000').digest('hex');
  expect(afnorSignature('whsec_key', '{"a":1}', 1_700_000_000)).toBe(createHmac('sha256', 'whsec_key').update(fingerprint).digest('base64'));
});

describe('webhooks.format', () => {
  const { orm } = useMigratedOrm();

  it('is exactly what the entity declares once migrated', async () => {
    expect(await pendingSchemaChanges(orm(), /"webhooks".*format/)).toEqual([]);
  });
});
