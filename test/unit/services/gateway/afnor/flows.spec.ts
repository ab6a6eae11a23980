/**
 * The pure AFNOR flow mappings: flow ids, documents and lifecycle steps as flows, the search
 * criteria as one documents search plus per-flow filters, CDAR statuses as lifecycle moves, the
 * webhook id ↔ UUID bijection, the webhook filters as our events, and errors moved to a status
 * the operation declares.
 */
import { cdarMove, documentFlow, flowQuery, lifecycleFlows, parseFlowId, webhookIdOfUuid, webhookUuid, type Flow } from '../../../../../services/gateway/afnor/flows.ts';
import { describe as describeFilter, eventsFor, flowWebhook, isFlowWebhook } from '../../../../../services/gateway/afnor/flow-webhooks.ts';
import { declaredStatus, formatAfnorError } from '../../../../../services/gateway/afnor/afnor-errors.ts';
import { DomainError } from '../../../../../services/shared/errors.ts';
import type { DocumentView, LifecycleView } from '../../../../../services/documents/documents.contract.ts';

const doc = (over: Partial<DocumentView> = {}): DocumentView => ({
  id: 'doc_01JD7Z3V9Q1M2N3P4R5S6T7V8W', type: 'invoice', documentSubtype: null, direction: 'outgoing', format: 'ubl-xml', status: 'sent', lifecycleCode: '200',
  deliveryStatus: 'delivered', companyId: 'comp_1', number: 'F-1', issueDate: '2026-03-01', dueDate: null, currency: 'EUR', totalAmount: 240,
  from: { peppolId: null, name: null }, to: {}, errorCode: null, errorMessage: null, sentAt: '2026-03-01T10:00:00.000Z', deliveredAt: '2026-03-01T10:00:01.000Z',
  read: false, archived: false, notes: [], relatedDocumentIds: [], duplicateOf: null, validation: null, clearance: null, metadata: null, links: {},
  createdAt: '2026-03-01T10:00:00.000Z', updatedAt: '2026-03-02T10:00:00.000Z', ...over,
});

describe('flows', () => {
  it('reads invoice and lifecycle flow ids', () => {
    expect(parseFlowId('doc_1')).toEqual({ documentId: 'doc_1' });
    expect(parseFlowId('doc_1-lc-4')).toEqual({ documentId: 'doc_1', step: 4 });
  });

  it('shows a sent document as a CustomerInvoice flow, a received one as SupplierInvoice, a failed delivery as an Error', () => {
    expect(documentFlow(doc())).toMatchObject({ flowType: 'CustomerInvoice', flowDirection: 'Out', flowSyntax: 'UBL', processingRule: 'B2B', processingRuleSource: 'Computed', updatedAt: '2026-03-01T10:00:01.000Z', acknowledgement: { status: 'Ok' } });
    expect(documentFlow(doc({ direction: 'incoming', format: 'cii-xml', metadata: { afnor: { name: 'in.xml', trackingId: 't1', processingRule: 'B2BInt', flowSyntax: 'CII' } } })))
      .toMatchObject({ flowType: 'SupplierInvoice', flowDirection: 'In', flowSyntax: 'CII', name: 'in.xml', trackingId: 't1', processingRule: 'B2BInt', processingRuleSource: 'Input' });
    expect(documentFlow(doc({ deliveryStatus: 'failed', errorMessage: 'AP refused' })).acknowledgement).toEqual({ status: 'Error', details: [{ level: 'Error', item: 'F-1', reasonCode: 'OtherTechnicalError', reasonMessage: 'AP refused' }] });
  });

  it('shows each lifecycle step as a CDAR flow, Out when the company (or its platform) emitted it', () => {
    const lifecycle = { documentId: 'doc_1', status: 'under_review', currentCode: '204', party: 'buyer', allowedTransitions: [], history: [
      { code: '200', emittedBy: 'seller_platform', at: '2026-03-01T10:00:00.000Z' }, { code: '204', emittedBy: 'buyer', at: '2026-03-02T10:00:00.000Z' },
    ] } as LifecycleView;
    const flows = lifecycleFlows(doc({ id: 'doc_1', direction: 'incoming' }), lifecycle);
    expect(flows.map((f) => [f.flowId, f.flowType, f.flowDirection, f.name])).toEqual([
      ['doc_1-lc-0', 'SupplierInvoiceLC', 'In', 'F-1-200.xml'], ['doc_1-lc-1', 'SupplierInvoiceLC', 'Out', 'F-1-204.xml'],
    ]);
  });

  it('turns criteria into one documents search plus per-flow filters', () => {
    expect(() => flowQuery({}, 25, undefined)).toThrow(DomainError);
    expect(() => flowQuery({ updatedAfter: 'yesterday' }, 25, undefined)).toThrow('ISO 8601');
    expect(flowQuery({ flowType: ['MultiFlowReport'] }, 25, undefined).search).toBeUndefined();
    const q = flowQuery({ flowType: ['CustomerInvoice'], flowDirection: ['Out'], updatedAfter: '2026-03-01T10:00:00Z' }, 10, 'c1');
    expect(q.lifecycles).toBe(false);
    expect(q.search).toEqual({ filters: { $and: [{ type: { $in: ['invoice', 'credit-note', 'debit-note'] } }, { direction: { $in: ['outgoing'] } }, { updatedAt: { $gt: '2026-03-01T10:00:00.000Z' } }, { direction: { $in: ['outgoing'] } }] }, sort: 'updatedAt:asc', limit: 10, cursor: 'c1' });
    const flow = documentFlow(doc());
    expect(q.keep(flow)).toBe(true);
    expect(q.keep({ ...flow, updatedAt: '2026-03-01T10:00:00.000Z' } as Flow)).toBe(false);
    const tracked = flowQuery({ trackingId: 't1', ackStatus: 'Ok' }, 10, undefined);
    expect(tracked.lifecycles).toBe(true);
    expect(tracked.keep(flow)).toBe(false);
    expect(tracked.keep({ ...flow, trackingId: 't1' })).toBe(true);
  });

  it('maps the CDAR statuses a company files to lifecycle moves, and refuses the platforms\' own', () => {
    expect(cdarMove({ code: '204', reasonCodes: [], details: [], amounts: {} })).toEqual({ direction: 'incoming', transition: { status: 'under_review' } });
    expect(cdarMove({ code: '208', reasonCodes: ['JUSTIF_ABS'], details: [{ reason: 'missing PO' }], amounts: {} })).toEqual({ direction: 'incoming', transition: { status: 'disputed', reason: 'missing PO', reasonCode: 'suspended' } });
    expect(cdarMove({ code: '212', statusAt: '2026-04-02T00:00:00Z', reasonCodes: [], details: [], amounts: { MEN: '240.00' } })).toEqual({ direction: 'outgoing', transition: { status: 'paid', paymentDate: '2026-04-02', paymentAmount: 240 } });
    expect(() => cdarMove({ code: '200', reasonCodes: [], details: [], amounts: {} })).toThrow('204, 205');
  });

  it('gives our webhook ids as UUIDs and back', () => {
    const id = 'wh_01JD7Z3V9Q1M2N3P4R5S6T7V8W';
    const uuid = webhookUuid(id);
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(webhookIdOfUuid(uuid)).toBe(id);
    expect(webhookIdOfUuid('not-a-uuid')).toBeUndefined();
  });
});

describe('flow webhooks', () => {
  it('subscribes to the events that make matching flows, and keeps the filter', () => {
    expect(eventsFor({ callbackUrl: 'u' })).toEqual(['document.sent', 'document.delivered', 'document.failed', 'document.received', 'lifecycle.updated']);
    expect(eventsFor({ callbackUrl: 'u', flowTypes: ['SupplierInvoice'], flowDirection: 'In' })).toEqual(['document.received']);
    expect(eventsFor({ callbackUrl: 'u', flowDirection: 'Out', ackStatus: 'Error' })).toEqual(['document.failed']);
    expect(eventsFor({ callbackUrl: 'u', flowTypes: ['StatePaymentReport'] })).toEqual([]);
    const description = describeFilter({ callbackUrl: 'u', flowTypes: ['SupplierInvoice', 'CustomerInvoiceLC'], flowDirection: 'In', ackStatus: 'Ok' });
    const hook = { id: 'wh_01JD7Z3V9Q1M2N3P4R5S6T7V8W', url: 'https://x', description, createdAt: '2026-01-01T00:00:00.000Z' };
    expect(isFlowWebhook(hook)).toBe(true);
    expect(isFlowWebhook({ description: 'my hook' })).toBe(false);
    expect(flowWebhook(hook as never)).toEqual({ webhookId: webhookUuid(hook.id), createdAt: hook.createdAt, callbackUrl: 'https://x', flowTypes: ['SupplierInvoice', 'CustomerInvoiceLC'], flowDirection: 'In', ackStatus: 'Ok' });
  });
});

describe('AFNOR errors', () => {
  it('moves a status the operation does not declare to the nearest declared one', () => {
    expect(declaredStatus(409, [202, 400, 422])).toBe(422);
    expect(declaredStatus(429, [200, 400, 500, 503])).toBe(503);
    expect(declaredStatus(404, [200, 400, 404])).toBe(404);
    expect(declaredStatus(504, [200, 500])).toBe(500);
  });

  it('renders the annex\'s Error shape', () => {
    const out = formatAfnorError(new DomainError('INVALID_REQUEST', 'bad', { details: [{ field: 'where', rule: 'required', message: 'where is required' }] }), 'req_1', 'https://docs/errors', [400]);
    expect(out).toMatchObject({ status: 400, body: { errorCode: 'INVALID_REQUEST', errorMessage: 'bad', details: 'where: where is required', type: 'https://docs/errors#INVALID_REQUEST', instance: 'urn:request:req_1' } });
  });
});
