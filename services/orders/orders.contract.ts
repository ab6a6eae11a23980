/**
 * orders: the purchase-order endpoint. A purchase order is a document of type `purchase-order` of
 * the documents service (its store, delivery, inbox, payments); this service turns the caller's
 * JSON into a Peppol BIS Order 3.0 (UBL 2.1 Order) and sends it through documents, and reads
 * orders, sent or received, back as purchase orders.
 */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';
import { PAGE_PARAMS, pageSchema, type Page } from '../shared/pagination.ts';
import { documentSchema, type DocumentView } from '../documents/documents.contract.ts';
import type { PurchaseOrder } from '../../mappings/index.ts';
import { PURCHASE_ORDER_INPUT_SCHEMA, PURCHASE_ORDER_SCHEMA } from './purchase-order.schema.ts';

const SERVICE = 'orders';

export interface CreateParams {
  /** The supplier: a Peppol id, a company id, or absent when `document.seller.peppolId` names it. */
  to?: string;
  document: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

/** The document record of the order, and the order itself; `order` is null for a purchase order stored as free JSON through /v1/documents/send. */
export type PurchaseOrderView = DocumentView & { order: PurchaseOrder | null };

const documentProps = (documentSchema as { properties: Record<string, unknown> }).properties;
const documentRequired = (documentSchema as { required: string[] }).required;

export const purchaseOrderViewSchema = {
  type: 'object',
  required: [...documentRequired, 'order'],
  properties: {
    ...documentProps,
    order: { oneOf: [PURCHASE_ORDER_SCHEMA, { type: 'null' }], description: 'The purchase order: as created (defaults applied, totals computed), or as read from the UBL Order received; null for one stored as free JSON through /v1/documents/send' },
  },
};

export const create = defineAction<CreateParams, PurchaseOrderView>(SERVICE, 'create', {
  params: {
    ...STRICT_REMOVE,
    to: { type: 'string', optional: true, min: 1, max: 512 },
    document: { type: 'object', openapi: PURCHASE_ORDER_INPUT_SCHEMA },
    metadata: { type: 'object', optional: true, openapi: { type: 'object', additionalProperties: true, description: 'Free key/values kept with the document, as with POST /v1/documents/send' } },
  },
  http: {
    method: 'POST', path: '/v1/purchase-orders', access: 'send', company: 'required', status: 201, tag: 'Purchase orders',
    idempotencyKeyFromPayload: true, consumesDocumentQuota: true,
    location: (r: PurchaseOrderView) => `/v1/purchase-orders/${r.id}`,
    summary: 'Create and send a purchase order: the JSON is rendered as Peppol BIS Order 3.0 (UBL 2.1 Order, checked against its XSD) and sent to the supplier like any document (over Peppol under the order-only process). The buyer defaults to the acting company; `to` defaults to `document.seller.peppolId`. Payments are recorded against it with POST /v1/payments/documents/{id}/pay',
    response: purchaseOrderViewSchema,
    errors: {
      422: 'UBL_VALIDATION_FAILED (the rendered order fails the UBL 2.1 Order schema; `findings`), RECIPIENT_NOT_FOUND, RECIPIENT_CANNOT_RECEIVE (the supplier does not receive purchase orders)',
      413: 'PAYLOAD_TOO_LARGE: more than 5,000 lines',
    },
  },
});

export const get = defineAction<{ id: string }, PurchaseOrderView>(SERVICE, 'get', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 } },
  http: {
    method: 'GET', path: '/v1/purchase-orders/:id', access: 'documents.read', tag: 'Purchase orders',
    summary: 'One purchase order, sent or received: its document record (delivery status, links to the UBL Order as `links.xml`) and the order itself. 404 DOCUMENT_NOT_FOUND for an unknown id or a document that is not a purchase order',
    response: purchaseOrderViewSchema,
  },
});

export interface ListParams {
  direction?: 'outgoing' | 'incoming';
  companyId?: string;
  from?: string;
  to?: string;
  limit?: number;
  cursor?: string;
}

export const list = defineAction<ListParams, Page<DocumentView>>(SERVICE, 'list', {
  params: {
    ...STRICT_REMOVE, ...PAGE_PARAMS,
    direction: { type: 'enum', optional: true, values: ['outgoing', 'incoming'] },
    companyId: { type: 'string', optional: true, max: 64 },
    from: { type: 'string', optional: true, pattern: /^\d{4}-\d{2}-\d{2}$/, messages: { stringPattern: "The 'from' field must be a date YYYY-MM-DD." } },
    to: { type: 'string', optional: true, pattern: /^\d{4}-\d{2}-\d{2}$/, messages: { stringPattern: "The 'to' field must be a date YYYY-MM-DD." } },
  },
  http: {
    method: 'GET', path: '/v1/purchase-orders', access: 'documents.read', tag: 'Purchase orders',
    summary: 'Purchase orders, newest first: the ones sent (`direction=outgoing`) and received (`incoming`); filters companyId, from/to (issue date). Rows are document records (number, parties, total, delivery status); GET /v1/purchase-orders/{id} gives the order',
    response: pageSchema(documentSchema),
  },
});
