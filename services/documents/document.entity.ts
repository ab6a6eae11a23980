import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { Clearance, ExchangeEvidence } from '../../adapters/sdk/index.ts';
import type { ReceivedValidation } from './documents.contract.ts';

export const DIRECTIONS = ['outgoing', 'incoming'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** Delivery of the document (spec: States, Delivery of a structured document). */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'stored', 'received'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One step of the French lifecycle as stored (history of `GET /v1/documents/<id>/lifecycle`). */
export interface LifecycleEntry {
  code: string;
  label: string;
  status: string;
  /** Party that emitted it: seller_platform, buyer_platform, buyer, supplier, platform. */
  emittedBy: string;
  at: string;
  reason?: string;
  reasonCode?: string;
  note?: string;
  /** Amount blocks carried by the status (MAP, MNA, MPA, RAP, MEN, MAJ …). */
  amounts?: Record<string, string>;
  paymentDate?: string;
  paymentReference?: string;
  paymentCurrency?: string;
  relatedDocumentId?: string;
  /** The other party's answer came over the network through this connector (a Peppol Invoice Response, an SDI esito). */
  via?: string;
  /** A partial collection (212 with an amount still to collect): further collections may follow. */
  partial?: boolean;
  /** The buyer's answer passed back to the sender over the network it came by (a Peppol Invoice Response). */
  response?: FollowUpOutcome;
  /** The status reported to the tax platform (the French PPF): `compliance.reported` said the same. */
  report?: FollowUpOutcome;
}

/** A tax authority's clearance as kept: what it gave (nothing but its name when it refused the invoice) and the connector. */
export type ClearanceRecord = Partial<Clearance> & { authority: string; connectorId: string };

/** What became of a step's follow-up beyond this platform (services/documents/follow-ups.ts). */
export interface FollowUpOutcome {
  /** The connector that carried it. */
  via: string;
  /**
   * `unsupported`: the other side takes no such message (nothing was sent); `disabled`: the
   * organization turned automatic reporting off for the country (nothing was filed).
   */
  status: 'sent' | 'reported' | 'unsupported' | 'disabled' | 'failed';
  at: string;
  attempts: number;
  /** The network's id of what was sent (the response's message id, the platform's reference of the report). */
  messageId?: string;
  errorCode?: string;
  message?: string;
}

export interface DocumentNote {
  id: string;
  text: string;
  at: string;
}

/**
 * One business document as one tenant sees it: an outgoing document of the sender, or the incoming
 * copy the recipient's organization received. It holds the three representations of the legal
 * record: the original bytes as they came, the structured XML and the normalised JSON.
 */
export const Document = defineEntity({
  name: 'Document',
  tableName: 'documents',
  properties: {
    id: p.string().primary(),
    /** The tenancy organization (a foreign key in the database). */
    organizationId: p.string(),
    /** The company of the organization the document belongs to (sender or recipient). */
    companyId: p.string(),
    livemode: p.boolean(),
    direction: p.enum(DIRECTIONS),
    type: p.string(),
    documentSubtype: p.string().nullable(),
    /** Input format of the send (`json`, `ubl-xml`, `cii-xml`, `auto`, `raw`). */
    format: p.string(),
    number: p.string().nullable(),
    issueDate: p.string().length(10).nullable(),
    dueDate: p.string().length(10).nullable(),
    currency: p.string().length(3).nullable(),
    /** BT-112 total with VAT (or BT-115 when absent): what the amount filters compare. */
    totalAmount: p.decimal('string').precision(18).scale(2).nullable(),
    /** Who the seller is for duplicate-number detection (VAT, Peppol id or company id; incoming: seller VAT, its electronic address or the sender). */
    sellerKey: p.string().nullable(),
    senderPeppolId: p.string().nullable(),
    senderName: p.string().nullable(),
    receiverPeppolId: p.string().nullable(),
    receiverName: p.string().nullable(),
    /** The `to` echo of the send: peppolId, addressingIdentifier, addressingSuffix, companyId. */
    recipient: p.json<Record<string, string>>().nullable(),
    metadata: p.json<Record<string, unknown>>().nullable(),
    /** API lifecycle status (sent, received, under_review, approved, partially_paid, paid, disputed, rejected). */
    status: p.string(),
    /** Current French lifecycle code (200–213). */
    lifecycleCode: p.string().nullable(),
    lifecycle: p.json<LifecycleEntry[]>(),
    deliveryStatus: p.enum(DELIVERY_STATUSES),
    /** Connector chosen by the router; null for raw deposits. */
    connectorId: p.string().nullable(),
    connectorMessageId: p.string().nullable(),
    /** What proves the network exchange (AS4 message id, signed receipt, SBDH instance id, payload hash), as the connector gave it. */
    evidence: p.json<ExchangeEvidence>().nullable(),
    /** What the tax authority's clearance gave it (its id, receipt, QR, signed original) and who cleared it. */
    clearance: p.json<ClearanceRecord>().nullable(),
    /** `cleared` / `reported` by the authority, or `rejected` (the number is free again for the corrected send); null outside clearance. */
    clearanceStatus: p.string().nullable(),
    /** Incoming: the rules' verdict when it arrived (null: sent by us, validated before sending; or not validated). */
    validation: p.json<ReceivedValidation>().nullable(),
    /** Incoming: the SBDH instance id of the business envelope (from the evidence), a duplicate key with the sender. */
    instanceIdentifier: p.string().nullable(),
    /** Incoming: the booked copy this one repeats (same business document under another network message); null for a booked document. */
    duplicateOf: p.string().nullable(),
    deliveryAttempts: p.integer().default(0),
    nextAttemptAt: p.datetime().nullable(),
    errorCode: p.string().nullable(),
    errorMessage: p.text().nullable(),
    sentAt: p.datetime().nullable(),
    deliveredAt: p.datetime().nullable(),
    /** The other side's copy (incoming copy of an outgoing document and back). */
    counterpartId: p.string().nullable(),
    /**
     * Original artefact: the bytes as received (UBL rendered from JSON, caller XML, PDF, raw file),
     * named by their SHA-256 in the artefact store (services/documents/originals.ts).
     */
    originalSha256: p.string().length(64).nullable(),
    /** The original of a document stored before the artefact store, until scripts/artefacts-migrate.ts moves it. */
    originalContent: p.blob().nullable(),
    originalContentType: p.string().nullable(),
    originalFilename: p.string().nullable(),
    fileId: p.string().nullable(),
    storedFormat: p.string().nullable(),
    /** Structured XML (UBL or CII) when there is one. */
    xml: p.text().nullable(),
    xmlSyntax: p.string().nullable(),
    /** Normalised JSON (the canonical EN 16931 model, or the body of a non-billing type). */
    normalized: p.json<Record<string, unknown>>().nullable(),
    hasPdf: p.boolean().default(false),
    /** A structured invoice carrying a PDF copy of itself (an application/pdf attachment): its PDF representation. */
    pdfCopy: p.boolean().default(false),
    /**
     * The form the sender asked the document to travel in (`factur-x`), when it is not the original's:
     * `outputSha256` names what is delivered (the Factur-X PDF) in the artefact store; `xml` is then the CII it embeds.
     */
    outputFormat: p.string().length(32).nullable(),
    outputSha256: p.string().length(64).nullable(),
    readAt: p.datetime().nullable(),
    archivedAt: p.datetime().nullable(),
    /** The send's Idempotency-Key (idempotencyDigest of credential and key) and request hash: a retry finds this document (send.ts). */
    idempotencyKey: p.string().nullable(),
    idempotencyRequestHash: p.string().nullable(),
    notes: p.json<DocumentNote[]>(),
    relatedDocumentIds: p.json<string[]>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  indexes: [
    { name: 'documents_org_list_index', properties: ['organizationId', 'livemode', 'id'] },
    { name: 'documents_company_index', properties: ['organizationId', 'companyId', 'id'] },
    { name: 'documents_type_status_index', properties: ['organizationId', 'type', 'status'] },
    { name: 'documents_issue_date_index', properties: ['organizationId', 'issueDate'] },
    { name: 'documents_total_amount_index', properties: ['organizationId', 'totalAmount'] },
    { name: 'documents_number_index', properties: ['organizationId', 'number'] },
    { name: 'documents_delivery_due_index', properties: ['nextAttemptAt'], where: { deliveryStatus: 'pending' } },
    { name: 'documents_duplicate_of_index', properties: ['duplicateOf'], where: { duplicateOf: { $ne: null } } },
  ],
  uniques: [
    // A seller never sends the same invoice number twice (outgoing billing documents only).
    // An invoice a tax authority rejected was never issued: its number is free for the corrected send.
    { name: 'documents_seller_number_unique', properties: ['organizationId', 'livemode', 'sellerKey', 'type', 'number'], where: `direction = 'outgoing' and type in ('invoice', 'credit-note', 'debit-note') and clearance_status is distinct from 'rejected'` },
    // The network hands a document to a recipient once.
    { name: 'documents_counterpart_unique', properties: ['organizationId', 'counterpartId'], where: { direction: 'incoming' } },
    // A connector hands one network message over once (the inbound hand-off relies on it).
    { name: 'documents_inbound_message_unique', properties: ['connectorId', 'connectorMessageId'], where: { direction: 'incoming' } },
    // One booked incoming copy of a business document (later copies are stored with duplicateOf; inbox.ts relies on these).
    { name: 'documents_inbound_instance_unique', properties: ['companyId', 'livemode', 'senderPeppolId', 'instanceIdentifier'], where: { direction: 'incoming', duplicateOf: null, instanceIdentifier: { $ne: null } } },
    // One document per Idempotency-Key of a send (a key older than its 24 hours is let go first).
    { name: 'documents_idempotency_key_unique', properties: ['organizationId', 'idempotencyKey'], where: { idempotencyKey: { $ne: null } } },
    { name: 'documents_inbound_invoice_unique', properties: ['companyId', 'livemode', 'sellerKey', 'type', 'number', 'issueDate'], where: { direction: 'incoming', duplicateOf: null, sellerKey: { $ne: null } } },
  ],
});
export type Document = InferEntity<typeof Document>;
