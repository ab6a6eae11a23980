/**
 * AFNOR XP Z12-013 Flow Service 1.3.0 `Flow` objects from a document's facts, pure (the gateway's
 * /afnor/ routes answer them, the webhooks service delivers them to AFNOR subscribers). A "flow" is
 * not a store of its own:
 *
 * - an invoice flow is one of our documents (invoice, credit note, debit note); its `flowId` is the
 *   document id;
 * - a lifecycle flow (`CustomerInvoiceLC` / `SupplierInvoiceLC`, syntax CDAR) is one step of a
 *   document's lifecycle history; its `flowId` is `<documentId>-lc-<step>` and its file is the
 *   step's CDAR D22B message.
 *
 * Seen from the company (the AFNOR "OD" / Solution Compatible): what it sent is `Out`, what reached
 * it is `In`. A document it sent is a `CustomerInvoice` (an invoice to its customer), one it
 * received a `SupplierInvoice`.
 */

/** What a flow is made of: the fields of our document view it reads. */
export interface FlowDocument {
  id: string;
  direction: 'outgoing' | 'incoming';
  format: string;
  deliveryStatus: string;
  number: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  deliveredAt: string | null;
  /** application/pdf when the original is a hybrid PDF (a Factur-X flow). */
  originalContentType?: string;
  links: Record<string, string>;
  metadata: Record<string, unknown> | null;
  createdAt: string;
  updatedAt: string;
}

/** A document's lifecycle, as our lifecycle view gives it. */
export interface FlowLifecycle {
  party?: 'buyer' | 'supplier';
  history: Array<Record<string, unknown>>;
}

export const FLOW_SYNTAXES = ['CII', 'UBL', 'Factur-X', 'CDAR', 'FRR'] as const;
export const FLOW_PROFILES = ['Basic', 'CIUS', 'Extended-CTC-FR', 'Undefined'] as const;
export const FLOW_PROCESSING_RULES = ['B2B', 'B2BInt', 'B2C', 'B2G', 'B2GInt', 'OutOfScope', 'B2GOutOfScope', 'ArchiveOnly', 'NotApplicable', 'Undefined'] as const;
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

export function lifecycleFlowId(documentId: string, step: number): string {
  return `${documentId}-lc-${step}`;
}

/** The flow info the send stored, when the document came in through /afnor/. */
export function storedFlowInfo(doc: Pick<FlowDocument, 'metadata'>): Partial<FlowInfo> {
  const afnor = doc.metadata?.afnor;
  return afnor && typeof afnor === 'object' ? (afnor as Partial<FlowInfo>) : {};
}

function syntaxOf(doc: FlowDocument, info: Partial<FlowInfo>): FlowSyntax {
  if (info.flowSyntax && (FLOW_SYNTAXES as readonly string[]).includes(info.flowSyntax)) return info.flowSyntax;
  // A hybrid PDF original; every structured invoice has a drawn PDF link, which is no Factur-X.
  if (doc.originalContentType === 'application/pdf') return 'Factur-X';
  return doc.format === 'cii-xml' ? 'CII' : 'UBL';
}

const clip = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);

/** Intake checks passed when the send was accepted; a delivery that failed is the flow's error. */
function acknowledgementOf(doc: FlowDocument): Flow['acknowledgement'] {
  if (doc.deliveryStatus !== 'failed') return { status: 'Ok' };
  return {
    status: 'Error',
    details: [{ level: 'Error', item: doc.number ?? doc.id, reasonCode: 'OtherTechnicalError', reasonMessage: doc.errorMessage ?? doc.errorCode ?? 'delivery failed' }],
  };
}

/** An invoice document as its AFNOR flow. */
export function documentFlow(doc: FlowDocument): Flow {
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
export function lifecycleFlows(doc: FlowDocument, lifecycle: FlowLifecycle): Flow[] {
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
