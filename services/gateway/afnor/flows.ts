/**
 * AFNOR XP Z12-013 Flow Service 1.3.0 ↔ our documents, pure. A "flow" is not a store of its own:
 *
 * - an invoice flow is one of our documents (invoice, credit note, debit note); its `flowId` is the
 *   document id;
 * - a lifecycle flow (`CustomerInvoiceLC` / `SupplierInvoiceLC`, syntax CDAR) is one step of a
 *   document's lifecycle history; its `flowId` is `<documentId>-lc-<step>` and its file is the
 *   step's CDAR D22B message (GET /v1/documents/:id/lifecycle/:step/cdar).
 *
 * Seen from the company (the AFNOR "OD" / Solution Compatible): what it sent is `Out`, what reached
 * it is `In`. A document it sent is a `CustomerInvoice` (an invoice to its customer), one it
 * received a `SupplierInvoice`.
 */
import type { DocumentView, LifecycleView, SearchParams } from '../../documents/documents.contract.ts';
import { DomainError } from '../../shared/errors.ts';

export const FLOW_SYNTAXES = ['CII', 'UBL', 'Factur-X', 'CDAR', 'FRR'] as const;
export const FLOW_PROFILES = ['Basic', 'CIUS', 'Extended-CTC-FR', 'Undefined'] as const;
export const PROCESSING_RULES = ['B2B', 'B2BInt', 'B2C', 'B2G', 'B2GInt', 'OutOfScope', 'B2GOutOfScope', 'ArchiveOnly', 'NotApplicable', 'Undefined'] as const;
export const FLOW_DIRECTIONS = ['In', 'Out'] as const;
export const ACK_STATUSES = ['Pending', 'Ok', 'Error'] as const;
export const FLOW_TYPES = [
  'CustomerInvoice', 'SupplierInvoice', 'CustomerInvoiceLC', 'SupplierInvoiceLC', 'StateCustomerInvoiceLC', 'StateSupplierInvoiceLC',
  'AggregatedCustomerTransactionReport', 'UnitaryCustomerTransactionReport', 'AggregatedCustomerPaymentReport', 'UnitaryCustomerPaymentReport',
  'UnitarySupplierTransactionReport', 'MultiFlowReport', 'StateCustomerInvoice', 'StateSupplierInvoice', 'StateTransactionReport',
  'StateTransactionReportLC', 'StatePaymentReport', 'StatePaymentReportLC', 'Undefined',
] as const;

export type FlowSyntax = (typeof FLOW_SYNTAXES)[number];
export type FlowType = (typeof FLOW_TYPES)[number];
export type FlowDirection = (typeof FLOW_DIRECTIONS)[number];
export type AckStatus = (typeof ACK_STATUSES)[number];

/** The document types that are invoice flows; the others (orders, quotes …) are no AFNOR flow. */
export const INVOICE_DOCUMENT_TYPES = ['invoice', 'credit-note', 'debit-note'] as const;

/** What the caller said of its flow (`flowInfo`), kept in the document's metadata under `afnor`. */
export interface FlowInfo {
  trackingId?: string;
  name: string;
  processingRule?: string;
  flowSyntax: FlowSyntax;
  flowProfile?: string;
  sha256?: string;
}

export interface AcknowledgementDetail { level: 'Error' | 'Warning'; item: string; reasonCode: string; reasonMessage: string }

/** The `Flow` schema of the Flow Service (CoreFlowInfo + FullFlowInfoExtension + FlowExtension). */
export interface Flow {
  flowId: string;
  submittedAt: string;
  trackingId?: string;
  name: string;
  processingRule: string;
  flowSyntax: FlowSyntax;
  flowProfile: string;
  updatedAt: string;
  flowType: FlowType;
  processingRuleSource: 'Input' | 'Computed';
  flowDirection: FlowDirection;
  acknowledgement: { status: AckStatus; details?: AcknowledgementDetail[] };
}

const LC_ID = /^(.{1,50})-lc-(\d{1,5})$/;

export function lifecycleFlowId(documentId: string, step: number): string {
  return `${documentId}-lc-${step}`;
}

/** A flow id → the document and, for a lifecycle flow, the step. */
export function parseFlowId(flowId: string): { documentId: string; step?: number } {
  const lc = LC_ID.exec(flowId);
  return lc ? { documentId: lc[1]!, step: Number(lc[2]) } : { documentId: flowId };
}

/** The flow info the send stored, when the document came in through /afnor/. */
export function storedFlowInfo(doc: Pick<DocumentView, 'metadata'>): Partial<FlowInfo> {
  const afnor = doc.metadata?.afnor;
  return afnor && typeof afnor === 'object' ? (afnor as Partial<FlowInfo>) : {};
}

function syntaxOf(doc: DocumentView, info: Partial<FlowInfo>): FlowSyntax {
  if (info.flowSyntax && (FLOW_SYNTAXES as readonly string[]).includes(info.flowSyntax)) return info.flowSyntax;
  if (doc.links.pdf && doc.format !== 'json') return 'Factur-X';
  return doc.format === 'cii-xml' ? 'CII' : 'UBL';
}

const clip = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);

/** Intake checks passed when the send was accepted; a delivery that failed is the flow's error. */
function acknowledgementOf(doc: DocumentView): Flow['acknowledgement'] {
  if (doc.deliveryStatus !== 'failed') return { status: 'Ok' };
  return {
    status: 'Error',
    details: [{ level: 'Error', item: doc.number ?? doc.id, reasonCode: 'OtherTechnicalError', reasonMessage: doc.errorMessage ?? doc.errorCode ?? 'delivery failed' }],
  };
}

/** An invoice document as its AFNOR flow. */
export function documentFlow(doc: DocumentView): Flow {
  const info = storedFlowInfo(doc);
  const outgoing = doc.direction === 'outgoing';
  const syntax = syntaxOf(doc, info);
  const updatedAt = doc.deliveryStatus === 'failed' ? doc.updatedAt : doc.deliveredAt ?? doc.createdAt;
  return {
    flowId: doc.id,
    submittedAt: doc.createdAt,
    ...(info.trackingId ? { trackingId: info.trackingId } : {}),
    name: clip(info.name ?? `${doc.number ?? doc.id}.${syntax === 'Factur-X' ? 'pdf' : 'xml'}`, 255),
    processingRule: info.processingRule ?? 'B2B',
    flowSyntax: syntax,
    flowProfile: info.flowProfile ?? 'Basic',
    updatedAt: updatedAt < doc.createdAt ? doc.createdAt : updatedAt,
    flowType: outgoing ? 'CustomerInvoice' : 'SupplierInvoice',
    processingRuleSource: info.processingRule ? 'Input' : 'Computed',
    flowDirection: outgoing ? 'Out' : 'In',
    acknowledgement: acknowledgementOf(doc),
  };
}

/** Parties that speak for the company itself in a lifecycle step (its own moves and its platform's). */
const OWN_EMITTERS: Record<'buyer' | 'supplier', readonly string[]> = { buyer: ['buyer', 'buyer_platform'], supplier: ['supplier', 'seller_platform'] };

/** Each lifecycle step of a document as a lifecycle flow (CDAR). */
export function lifecycleFlows(doc: DocumentView, lifecycle: LifecycleView): Flow[] {
  const party = lifecycle.party ?? (doc.direction === 'outgoing' ? 'supplier' : 'buyer');
  return lifecycle.history.map((entry, step) => {
    const at = String(entry.at);
    return {
      flowId: lifecycleFlowId(doc.id, step),
      submittedAt: at,
      name: clip(`${doc.number ?? doc.id}-${String(entry.code)}.xml`, 255),
      processingRule: 'B2B',
      flowSyntax: 'CDAR',
      flowProfile: 'Basic',
      updatedAt: at,
      flowType: doc.direction === 'outgoing' ? 'CustomerInvoiceLC' : 'SupplierInvoiceLC',
      processingRuleSource: 'Computed',
      flowDirection: OWN_EMITTERS[party].includes(String(entry.emittedBy)) ? 'Out' : 'In',
      acknowledgement: { status: 'Ok' },
    } satisfies Flow;
  });
}

/** `SearchFlowFilters`, as the request gives them (validated against the AFNOR schema's enums). */
export interface FlowFilters {
  updatedAfter?: string;
  updatedBefore?: string;
  processingRule?: string[];
  flowType?: string[];
  flowDirection?: string[];
  trackingId?: string;
  ackStatus?: string;
}

export interface FlowQuery {
  /** The documents search to run; undefined when no flow of ours can match (report flow types only). */
  search: SearchParams | undefined;
  /** Whether the documents' lifecycle steps are wanted as flows too. */
  lifecycles: boolean;
  /** Applied to each flow built from the page (what the documents search cannot say). */
  keep(flow: Flow): boolean;
}

const LC_TYPES: readonly string[] = ['CustomerInvoiceLC', 'SupplierInvoiceLC'];
const INVOICE_TYPES: readonly string[] = ['CustomerInvoice', 'SupplierInvoice'];

function invalid(field: string, message: string): DomainError {
  return new DomainError('INVALID_REQUEST', message, { details: [{ field, rule: field, message }] });
}

function instant(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw invalid(`where.${field}`, `where.${field} must be an ISO 8601 date-time`);
  return ms;
}

/**
 * `POST /v1/flows/search` → one documents search plus per-flow filters. The documents search
 * narrows by type, direction (from the flow types) and update time, sorted by update time then id
 * so `updatedAfter` pagination and our cursors both hold; attributes a document row does not carry
 * (ack status, tracking id, processing rule, a lifecycle step's direction) filter the flows built
 * from the page.
 */
export function flowQuery(where: FlowFilters, limit: number, cursor: string | undefined): FlowQuery {
  const criteria = Object.values(where).filter((v) => v !== undefined && !(Array.isArray(v) && v.length === 0));
  if (criteria.length === 0) throw invalid('where', 'where needs at least one criterion');
  const after = instant(where.updatedAfter, 'updatedAfter');
  const before = instant(where.updatedBefore, 'updatedBefore');
  const types = where.flowType?.length ? where.flowType : undefined;
  const invoices = !types || types.some((t) => INVOICE_TYPES.includes(t));
  const lifecycles = !types || types.some((t) => LC_TYPES.includes(t));
  const keep = (flow: Flow): boolean => {
    const at = Date.parse(flow.updatedAt);
    return (after === undefined || at > after)
      && (before === undefined || at < before)
      && (!types || types.includes(flow.flowType))
      && (!where.flowDirection?.length || where.flowDirection.includes(flow.flowDirection))
      && (!where.processingRule?.length || where.processingRule.includes(flow.processingRule))
      && (where.trackingId === undefined || flow.trackingId === where.trackingId)
      && (where.ackStatus === undefined || flow.acknowledgement.status === where.ackStatus);
  };
  if (!invoices && !lifecycles) return { search: undefined, lifecycles, keep };
  const directions = new Set<string>();
  for (const t of types ?? ['CustomerInvoice', 'SupplierInvoice']) {
    if (t.startsWith('Customer')) directions.add('outgoing');
    if (t.startsWith('Supplier')) directions.add('incoming');
  }
  const filters: Array<Record<string, unknown>> = [{ type: { $in: [...INVOICE_DOCUMENT_TYPES] } }, { direction: { $in: [...directions] } }];
  // A document is touched by each of its steps: its own updatedAt is never before any flow's of it.
  if (where.updatedAfter !== undefined) filters.push({ updatedAt: { $gt: new Date(after!).toISOString() } });
  if (!lifecycles && where.flowDirection?.length) filters.push({ direction: { $in: where.flowDirection.map((d) => (d === 'Out' ? 'outgoing' : 'incoming')) } });
  return {
    search: { filters: { $and: filters }, sort: 'updatedAt:asc', limit, ...(cursor ? { cursor } : {}) },
    lifecycles,
    keep,
  };
}

/** The ULID of our `wh_<ULID>` webhook ids is 128 bits: exactly a UUID, which AFNOR's `WebhookId` is. */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function webhookUuid(webhookId: string): string {
  const ulid = webhookId.replace(/^wh_/, '').toUpperCase();
  let n = 0n;
  for (const ch of ulid) {
    const v = CROCKFORD.indexOf(ch);
    if (v < 0) throw new Error(`not a ULID: ${webhookId}`);
    n = (n << 5n) | BigInt(v);
  }
  const hex = n.toString(16).padStart(32, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The inverse of webhookUuid; undefined for a string that is not a UUID. */
export function webhookIdOfUuid(uuid: string): string | undefined {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(uuid)) return undefined;
  let n = BigInt(`0x${uuid.replace(/-/g, '')}`);
  let out = '';
  for (let i = 0; i < 26; i++) {
    out = CROCKFORD[Number(n & 31n)]! + out;
    n >>= 5n;
  }
  return `wh_${out}`;
}

/** What a CDAR lifecycle flow asks of one of our documents: which copy, and the move. */
export interface CdarMove {
  /** The copy the status is about: the buyer's statuses move its incoming copy, 212 the seller's. */
  direction: 'incoming' | 'outgoing';
  transition: { status: string; reason?: string; reasonCode?: string; paymentDate?: string; paymentAmount?: number };
}

const CDAR_STATUSES: Record<string, { status: string; direction: CdarMove['direction']; reasonCode?: string }> = {
  '204': { status: 'under_review', direction: 'incoming' },
  '205': { status: 'approved', direction: 'incoming' },
  '207': { status: 'disputed', direction: 'incoming' },
  '208': { status: 'disputed', direction: 'incoming', reasonCode: 'suspended' },
  '210': { status: 'rejected', direction: 'incoming' },
  '211': { status: 'paid', direction: 'incoming' },
  '212': { status: 'paid', direction: 'outgoing' },
};

/**
 * A CDAR status (MDT-105) a company files through /afnor/ → the lifecycle move of ours it is.
 * Statuses the platforms set themselves (200–203, 213, 501) and partial approval (206, which
 * needs the remaining amount our move takes) are not the company's to file here: 400.
 */
export function cdarMove(facts: { code: string; statusAt?: string; reasonCodes: string[]; details: Array<{ reason?: string }>; amounts: Record<string, string> }): CdarMove {
  const known = CDAR_STATUSES[facts.code];
  if (!known) throw invalid('file', `A company files the lifecycle statuses ${Object.keys(CDAR_STATUSES).join(', ')} through this API (the CDAR names ${facts.code})`);
  const reason = facts.details.find((d) => d.reason)?.reason;
  const amount = facts.amounts.MEN ?? facts.amounts.MPA;
  const transition: CdarMove['transition'] = {
    status: known.status,
    ...(reason ? { reason: clip(reason, 1024) } : {}),
    ...(known.reasonCode ? { reasonCode: known.reasonCode } : facts.reasonCodes[0] ? { reasonCode: clip(facts.reasonCodes[0], 64) } : {}),
    ...(known.status === 'paid' && facts.statusAt ? { paymentDate: facts.statusAt.slice(0, 10) } : {}),
    ...(known.status === 'paid' && amount !== undefined ? { paymentAmount: Number(amount) } : {}),
  };
  return { direction: known.direction, transition };
}
