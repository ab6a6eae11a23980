/**
 * documents: send (every type and format, raw-body deposits), batch, list, get and the three
 * representations, search, the French lifecycle and document actions; internal actions the
 * connectors' host uses (directory lookup, inbox).
 */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';
import { objectSchema } from '../shared/json-schema.ts';
import { LIFECYCLE_ENTRY_SCHEMA, NOTE_SCHEMA, RECIPIENT_ECHO_SCHEMA, SEARCH_FILTER_SCHEMA, SEND_METADATA_SCHEMA } from './document-body.schema.ts';
import { DOCUMENT_BODY_SCHEMA } from '../../mappings/json/document-schema.ts';
import { PAGE_PARAMS, pageSchema, type Page } from '../shared/pagination.ts';
import type { AcceptResult, InboundDocument, NetworkStatus } from '../../adapters/sdk/index.ts';
import type { ReportingExchange } from '../../mappings/peppol/reporting.ts';
import type { TransitionRequest } from './lifecycle.ts';

const SERVICE = 'documents';

export const DOCUMENT_TYPES = ['invoice', 'credit-note', 'debit-note', 'purchase-order', 'purchase-request', 'sales-order', 'quote', 'goods-receipt', 'event'] as const;
/** API statuses a document can have: the spec's lifecycle names plus `sent` / `received` before any buyer move, `duplicate` for a repeated incoming copy (see `duplicateOf`) and `stored` for raw deposits. */
export const DOCUMENT_STATUSES = ['draft', 'sent', 'received', 'duplicate', 'stored', 'under_review', 'approved', 'partially_paid', 'paid', 'disputed', 'rejected'] as const;
export const SEND_FORMATS = ['json', 'ubl-xml', 'cii-xml', 'auto', 'raw'] as const;
/** Forms a sender may ask a structured invoice to travel in instead of its record's own syntax. */
export const OUTPUT_FORMATS = ['factur-x'] as const;
export const DOCUMENT_ACTIONS = ['link', 'add-note', 'mark-read', 'mark-unread', 'archive', 'unarchive'] as const;

export interface SendParams {
  type: string;
  documentSubtype?: string | number;
  selfBilled?: boolean;
  /** Absent: the organization's `defaults.preferredFormat` (platform settings); MISSING_FIELD when it has none. */
  format?: string;
  from?: string;
  to?: string;
  document?: Record<string, unknown>;
  xml?: string;
  file?: { content: string; contentType?: string; filename?: string };
  metadata?: Record<string, unknown>;
  /** The form the document travels in when not its record's own: `factur-x` (French recipients). */
  outputFormat?: (typeof OUTPUT_FORMATS)[number];
  /** Raw-body deposit form (query parameters). */
  contentType?: string;
  filename?: string;
}

/** The rules' verdict on a received document: valid, which packs ran, how many findings, the first ones. */
export interface ReceivedValidation {
  valid: boolean;
  packs: string[];
  errors: number;
  warnings: number;
  findings: Array<{ rule: string; severity: string; message: string; location: string }>;
}

export interface DocumentView {
  id: string;
  type: string;
  documentSubtype: string | null;
  direction: 'outgoing' | 'incoming';
  format: string;
  status: string;
  lifecycleCode: string | null;
  deliveryStatus: string;
  companyId: string;
  number: string | null;
  issueDate: string | null;
  dueDate: string | null;
  currency: string | null;
  totalAmount: number | null;
  from: { peppolId: string | null; name: string | null };
  to: Record<string, string | null>;
  errorCode: string | null;
  errorMessage: string | null;
  sentAt: string | null;
  deliveredAt: string | null;
  read: boolean;
  archived: boolean;
  notes: Array<{ id: string; text: string; at: string }>;
  relatedDocumentIds: string[];
  /** Incoming: the booked document this copy repeats (status `duplicate`); null otherwise. */
  duplicateOf: string | null;
  /** Incoming: the rules' verdict when it arrived; null for documents sent from here. */
  validation: ReceivedValidation | null;
  /** What a tax authority's clearance gave it; null outside clearance. */
  clearance: ClearanceView | null;
  metadata: Record<string, unknown> | null;
  fileId?: string;
  storedFormat?: string;
  /** The media type of the original as it was received (application/pdf for a hybrid Factur-X / ZUGFeRD), when one is kept. */
  originalContentType?: string;
  links: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

export interface ClearanceView {
  authority: string;
  status: 'cleared' | 'reported' | 'rejected';
  authorityId: string | null;
  at: string | null;
  qr: string | null;
  details: Record<string, string>;
}

const nullable = (type: string) => ({ type: [type, 'null'] });
export const documentSchema = {
  type: 'object',
  required: ['id', 'type', 'direction', 'status', 'deliveryStatus', 'to'],
  properties: {
    id: { type: 'string', examples: ['doc_01JD7Z3V9Q1M2N3P4R5S6T7V8W'] },
    type: { type: 'string', enum: [...DOCUMENT_TYPES] },
    documentSubtype: nullable('string'),
    direction: { type: 'string', enum: ['outgoing', 'incoming'] },
    format: { type: 'string', enum: [...SEND_FORMATS] },
    status: { type: 'string', enum: [...DOCUMENT_STATUSES], description: 'API lifecycle status: sent or received before any buyer move, then under_review, approved, partially_paid, paid, disputed, rejected; stored for raw deposits; duplicate for an incoming copy of a document already received (see duplicateOf), which is kept but never booked: no lifecycle, no document.received' },
    lifecycleCode: { ...nullable('string'), description: 'Current French lifecycle code (200–213)' },
    deliveryStatus: { type: 'string', enum: ['pending', 'delivered', 'failed', 'stored', 'received'] },
    companyId: { type: 'string' },
    number: nullable('string'),
    issueDate: nullable('string'),
    dueDate: nullable('string'),
    currency: nullable('string'),
    totalAmount: nullable('number'),
    from: { type: 'object', properties: { peppolId: nullable('string'), name: nullable('string') } },
    to: RECIPIENT_ECHO_SCHEMA,
    errorCode: { ...nullable('string'), description: 'AP_REJECTED, TRANSPORT_FAILURE or SBDH_ERROR when delivery failed' },
    errorMessage: nullable('string'),
    sentAt: { ...nullable('string'), format: 'date-time' },
    deliveredAt: { ...nullable('string'), format: 'date-time' },
    read: { type: 'boolean' },
    archived: { type: 'boolean' },
    notes: { type: 'array', items: NOTE_SCHEMA },
    relatedDocumentIds: { type: 'array', items: { type: 'string' } },
    duplicateOf: { ...nullable('string'), description: 'Incoming: the id of the document this one repeats. The same business document arrived before under another network message (same SBDH instance id from the same sender, or same seller, type, number and issue date for the same company); this copy is kept with status duplicate and is not booked. Null otherwise.' },
    validation: {
      type: ['object', 'null'],
      description: 'Incoming: the rules\' verdict when it arrived (the packs its CustomizationID selects plus the network\'s own): valid, the packs, how many errors (fatal findings) and warnings, and the first 50 findings. Null for documents sent from here (validated before sending) and for one stored while the validator could not run.',
      required: ['valid', 'packs', 'errors', 'warnings', 'findings'],
      properties: {
        valid: { type: 'boolean' },
        packs: { type: 'array', items: { type: 'string' } },
        errors: { type: 'integer' },
        warnings: { type: 'integer' },
        findings: {
          type: 'array',
          items: { type: 'object', required: ['rule', 'severity', 'message', 'location'], properties: { rule: { type: 'string' }, severity: { type: 'string' }, message: { type: 'string' }, location: { type: 'string' } } },
        },
      },
    },
    clearance: {
      type: ['object', 'null'],
      description: 'Clearance countries: what the tax authority gave the invoice. `cleared` (or `reported`, B2C) with the authority\'s id, when, and the content of the QR code the law requires on its visual form; `rejected`: the authority refused it (errorCode is its code) and its number is free for the corrected send. The authority\'s receipt and signed original, when there are, are at links.clearanceReceipt and links.clearanceOriginal. Null outside clearance.',
      required: ['authority', 'status', 'authorityId', 'at', 'qr', 'details'],
      properties: {
        authority: { type: 'string', examples: ['KSeF', 'ANAF', 'ZATCA'] }, status: { type: 'string', enum: ['cleared', 'reported', 'rejected'] },
        authorityId: nullable('string'), at: { ...nullable('string'), format: 'date-time' }, qr: nullable('string'),
        details: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
    metadata: { ...nullable('object'), additionalProperties: true },
    fileId: { type: 'string', description: 'Raw uploads: the stored file' },
    storedFormat: { type: 'string', description: 'Raw uploads: gzip, zip, pdf, xml or raw' },
    originalContentType: { type: 'string', description: 'The media type of the original as received (application/pdf for a hybrid Factur-X / ZUGFeRD invoice), when the original is kept' },
    links: { type: 'object', description: 'Paths of the representations: original, xml, json, pdf (a structured invoice, or a document carrying a PDF), preview (readable HTML) and facturx (structured invoices), lifecycle, and clearanceReceipt / clearanceOriginal (the tax authority\'s receipt and signed original, when it gave them)', additionalProperties: { type: 'string' } },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

const envelopeParams = {
  type: { type: 'enum', values: [...DOCUMENT_TYPES] },
  documentSubtype: { type: 'multi', optional: true, rules: [{ type: 'string', max: 64 }, { type: 'number', integer: true }] },
  selfBilled: { type: 'boolean', optional: true, convert: true },
  format: { type: 'enum', values: [...SEND_FORMATS], optional: true, description: 'Required unless the organization\'s platform settings set `defaults.preferredFormat`, which an absent format takes' },
  from: { type: 'string', optional: true, min: 1, max: 255 },
  to: { type: 'string', optional: true, min: 1, max: 255 },
  document: { type: 'object', optional: true, openapi: DOCUMENT_BODY_SCHEMA },
  xml: { type: 'string', optional: true, min: 1 },
  file: { type: 'object', optional: true, props: { content: { type: 'string', min: 1 }, contentType: { type: 'string', optional: true, max: 255 }, filename: { type: 'string', optional: true, max: 255 } } },
  metadata: { type: 'object', optional: true, openapi: SEND_METADATA_SCHEMA },
  contentType: { type: 'string', optional: true, max: 255 },
  filename: { type: 'string', optional: true, max: 255 },
  outputFormat: { type: 'enum', values: [...OUTPUT_FORMATS], optional: true, description: '`factur-x`: an invoice, credit note or debit note (json, ubl-xml or cii-xml) for a French recipient travels as Factur-X, a PDF/A-3 drawn from it with its CII embedded (EN 16931 profile; the CII is validated with the destination\'s rules first). The original stays the record; `xml` becomes the CII it carries, `pdf` and `facturx` answer the PDF delivered. 400 INVALID_REQUEST (`details[0].field` outputFormat) for another recipient or format' },
} as const;

export const send = defineAction<SendParams, DocumentView>(SERVICE, 'send', {
  params: { ...STRICT_REMOVE, ...envelopeParams },
  http: {
    method: 'POST', path: '/v1/documents/send', access: 'send', company: 'required', status: 201, tag: 'Documents',
    rawBody: true, largeBody: true, idempotencyKeyFromPayload: true, consumesDocumentQuota: true,
    location: (r: DocumentView) => `/v1/documents/${r.id}`,
    summary: 'Send a document (json, ubl-xml, cii-xml, auto, raw). A non-JSON body is a raw-body deposit: the file itself, with `format` (default raw), `type`, `to`, `contentType` and `filename` as query parameters',
    response: documentSchema,
    errors: {
      413: 'PAYLOAD_TOO_LARGE: body over EINV_MAX_BODY_BYTES, or a document over an input cap (details[].rule: max-elements, max-attributes, max-depth, max-text-length, max-inflated-bytes, max-embedded-files, max-objects)',
      409: 'DUPLICATE_DOCUMENT (the seller already sent this number; `existingId`), IDEMPOTENCY_IN_PROGRESS, IDEMPOTENCY_BODY_MISMATCH',
      422: 'UBL_VALIDATION_FAILED (`findings`), RECIPIENT_NOT_FOUND, RECIPIENT_CANNOT_RECEIVE (`documentTypes`), ISSUER_MISMATCH (the document names another company as its issuer), DOCUMENT_TOO_COMPLEX (processing exceeded its CPU-time or memory budget)',
      503: 'UPSTREAM_UNAVAILABLE: every document worker busy and the queue full; honour Retry-After',
    },
  },
});

export interface BatchItemResult {
  index: number;
  status: 'created' | 'failed';
  document: DocumentView | null;
  error: { code: string; message: string; details: unknown[] } | null;
}

export const sendBatch = defineAction<{ documents: SendParams[] }, { results: BatchItemResult[] }>(SERVICE, 'sendBatch', {
  params: { ...STRICT_REMOVE, documents: { type: 'array', min: 1, max: 100, items: { type: 'object', openapi: { ...objectSchema(envelopeParams), description: 'One send envelope, exactly as POST /v1/documents/send takes it' } } } },
  http: {
    method: 'POST', path: '/v1/documents/send/batch', access: 'send', company: 'required', tag: 'Documents',
    largeBody: true, idempotencyKeyFromPayload: true,
    consumesDocumentQuota: (params) => (Array.isArray(params.documents) ? params.documents.length : 0),
    summary: 'Send up to 100 documents; each item is atomic on its own, results come in input order',
    response: {
      type: 'object', required: ['results'],
      properties: { results: { type: 'array', items: { type: 'object', required: ['index', 'status', 'document', 'error'], properties: { index: { type: 'integer' }, status: { type: 'string', enum: ['created', 'failed'] }, document: { oneOf: [documentSchema, { type: 'null' }] }, error: { type: ['object', 'null'], required: ['code', 'message', 'details'], properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, rule: { type: 'string' }, message: { type: 'string' } } } } } } } } } },
    },
  },
});

export interface ListParams {
  companyId?: string;
  type?: string;
  status?: string;
  from?: string;
  to?: string;
  amountMin?: number;
  amountMax?: number;
  search?: string;
  direction?: string;
  duplicate?: boolean;
  limit?: number;
  cursor?: string;
}

export const list = defineAction<ListParams, Page<DocumentView>>(SERVICE, 'list', {
  params: {
    ...STRICT_REMOVE, ...PAGE_PARAMS,
    companyId: { type: 'string', optional: true, max: 64 },
    type: { type: 'enum', optional: true, values: [...DOCUMENT_TYPES] },
    status: { type: 'enum', optional: true, values: [...DOCUMENT_STATUSES] },
    direction: { type: 'enum', optional: true, values: ['outgoing', 'incoming'] },
    duplicate: { type: 'boolean', optional: true, convert: true },
    from: { type: 'string', optional: true, pattern: /^\d{4}-\d{2}-\d{2}$/, messages: { stringPattern: "The 'from' field must be a date YYYY-MM-DD." } },
    to: { type: 'string', optional: true, pattern: /^\d{4}-\d{2}-\d{2}$/, messages: { stringPattern: "The 'to' field must be a date YYYY-MM-DD." } },
    amountMin: { type: 'number', optional: true, convert: true },
    amountMax: { type: 'number', optional: true, convert: true },
    search: { type: 'string', optional: true, max: 512 },
  },
  http: {
    method: 'GET', path: '/v1/documents', access: 'documents.read', tag: 'Documents',
    summary: 'List documents, newest first; filters companyId, type, status, direction, duplicate (true: only incoming copies marked duplicate, false: without them), from/to (issue date), amountMin/amountMax (total); `search` is accepted and ignored',
    response: pageSchema(documentSchema),
  },
});

export const get = defineAction<{ id: string }, DocumentView>(SERVICE, 'get', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 } },
  http: {
    method: 'GET', path: '/v1/documents/:id', access: 'documents.read', tag: 'Documents',
    summary: 'One document, with links to its representations (original artefact, structured XML, normalised JSON, PDF, HTML preview and Factur-X of a structured invoice)',
    response: documentSchema,
  },
});

const RENDER_ERRORS = { 422: 'DOCUMENT_TOO_COMPLEX: the invoice is too large to draw (more lines than a rendering takes, or over the worker budget); the XML and JSON representations still serve it' };

const representation = (name: 'original' | 'xml' | 'json' | 'pdf' | 'preview' | 'facturx', summary: string, mediaType: string, rendered = false) =>
  defineAction<{ id: string }, Buffer | string | Record<string, unknown>>(SERVICE, `${name}Representation`, {
    params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 } },
    http: {
      method: 'GET', path: `/v1/documents/:id/${name}`, access: 'documents.read', tag: 'Documents', summary,
      ...(name === 'json' ? {} : { responseMediaType: mediaType }),
      ...(rendered ? { errors: RENDER_ERRORS } : {}),
      response: name === 'json'
        ? { type: 'object', additionalProperties: true, description: 'Canonical EN 16931 model (BT/BG names in the field docs) or the body of a non-billing document' }
        : name === 'preview' ? { type: 'string', description: 'A self-contained HTML page (UTF-8)' } : { type: 'string', format: 'binary' },
    },
  });

export const originalRepresentation = representation('original', 'The original artefact, byte for byte, with the content type it was stored with (the legal record)', '*/*');
export const xmlRepresentation = representation('xml', 'The structured XML (UBL 2.1 or CII D16B; for a document sent as Factur-X, the CII it embeds)', 'application/xml');
export const jsonRepresentation = representation('json', 'The normalised JSON (canonical EN 16931 model, or the structured body of a non-billing document)', 'application/json');
export const pdfRepresentation = representation('pdf', 'The PDF of the document: a hybrid\'s own (Factur-X / ZUGFeRD), the PDF copy a structured invoice carries of itself (an application/pdf attachment, BT-125, as Peppol BIS Billing 3.0.20 allows), the Factur-X it was sent as, else a PDF drawn from the invoice (seller, buyer, lines, VAT breakdown, totals, dates, payment; in embedded DejaVu Sans fonts, so Latin, Greek and Cyrillic show as written and other characters, such as CJK or right-to-left scripts, as "?" with a footer saying so, and the preview shows them). 404 when the document is no structured invoice and carries no PDF', 'application/pdf', true);
export const previewRepresentation = representation('preview', 'The invoice as a readable HTML page (any syntax it came in: UBL, CII, Factur-X, FatturaPA, KSeF …): seller, buyer, lines, VAT breakdown, totals, dates, payment terms and means. Self-contained and escaped, no script, served with a Content-Security-Policy that lets nothing load or run. 404 when the document is no structured invoice', 'text/html', true);
export const facturxRepresentation = representation('facturx', 'The invoice as Factur-X: a PDF/A-3 whose visual is the PDF representation\'s, embedding its CII as factur-x.xml (AFRelationship Alternative, in the /AF array) with the Factur-X XMP extension schema (EN 16931 profile unless the CII names another). A document sent as Factur-X answers the bytes it was delivered as; another is built from its record, the same bytes on every call. 404 when the document is no structured invoice', 'application/pdf', true);

/** What a tax authority's clearance gave beside its id: its receipt (KSeF UPO …) and its signed version of the invoice (ANAF's signed archive …). */
export const clearancePart = defineAction<{ id: string; part: 'receipt' | 'original' }, Buffer>(SERVICE, 'clearancePart', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 }, part: { type: 'enum', values: ['receipt', 'original'] } },
  http: {
    method: 'GET', path: '/v1/documents/:id/clearance/:part', access: 'documents.read', tag: 'Documents',
    summary: 'The tax authority\'s receipt (`receipt`: KSeF UPO, ANAF response …) or its signed version of the invoice (`original`: the legal original where the authority signs it), byte for byte with its content type; 404 when it gave none',
    responseMediaType: '*/*', response: { type: 'string', format: 'binary' },
  },
});

/** What proves a document's network exchange, as GET /v1/documents/:id/evidence shows it. */
export interface EvidenceView {
  documentId: string;
  direction: 'incoming' | 'outgoing';
  /** The connector that carried it (`peppol-as4` …), null for a stored-only document. */
  network: string | null;
  deliveryStatus: string;
  /** SHA-256 (hex) of the original artefact as stored (the legal record). */
  originalSha256: string | null;
  /** The exchange's evidence as the network gave it; null before (or without) a network exchange. */
  exchange: {
    messageId: string;
    instanceIdentifier: string | null;
    exchangedAt: string;
    payloadSha256: string | null;
    counterpartAccessPoint: string | null;
    /** Base64 DER of the other access point's certificate. */
    counterpartCertificate: string | null;
    endpointUrl: string | null;
    /** The signed receipt, as XML. */
    receipt: string | null;
    receiptMessageId: string | null;
    details: Record<string, string>;
  } | null;
}

const nullableString = { type: ['string', 'null'] };
const evidenceSchema = {
  type: 'object',
  required: ['documentId', 'direction', 'network', 'deliveryStatus', 'originalSha256', 'exchange'],
  properties: {
    documentId: { type: 'string' },
    direction: { type: 'string', enum: ['incoming', 'outgoing'] },
    network: nullableString,
    deliveryStatus: { type: 'string' },
    originalSha256: nullableString,
    exchange: {
      type: ['object', 'null'],
      required: ['messageId', 'instanceIdentifier', 'exchangedAt', 'payloadSha256', 'counterpartAccessPoint', 'counterpartCertificate', 'endpointUrl', 'receipt', 'receiptMessageId', 'details'],
      properties: {
        messageId: { type: 'string', description: 'The network\'s id of the message (AS4 eb:MessageId)' },
        instanceIdentifier: { ...nullableString, description: 'SBDH InstanceIdentifier' },
        exchangedAt: { type: 'string', format: 'date-time' },
        payloadSha256: { ...nullableString, description: 'SHA-256 (hex) of the business document as it travelled' },
        counterpartAccessPoint: { ...nullableString, description: 'The other access point\'s seat id (certificate CN)' },
        counterpartCertificate: { ...nullableString, description: 'Base64 DER of the other access point\'s certificate' },
        endpointUrl: nullableString,
        receipt: { ...nullableString, description: 'The signed AS4 receipt (XML): received for a sent document, sent for a received one' },
        receiptMessageId: nullableString,
        details: { type: 'object', additionalProperties: { type: 'string' }, description: 'Document type and process ids, COUNTRY_C1, MLS_TO / MLS_TYPE' },
      },
    },
  },
};

export const getEvidence = defineAction<{ id: string }, EvidenceView>(SERVICE, 'getEvidence', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 } },
  http: {
    method: 'GET', path: '/v1/documents/:id/evidence', access: 'documents.read', tag: 'Documents',
    summary: 'What proves the exchange: network message id, SBDH instance id, payload hash, the other access point and its certificate, the endpoint, the signed receipt',
    response: evidenceSchema,
  },
});

export const getEvidenceBundle = defineAction<{ id: string }, string>(SERVICE, 'getEvidenceBundle', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 } },
  http: {
    method: 'GET', path: '/v1/documents/:id/evidence/bundle', access: 'documents.read', tag: 'Documents',
    summary: 'The evidence as one signed bundle: a compact JWS (ES256, `typ` evidence+jws) of {statement, issuedAt, evidence}, verifiable with /.well-known/jwks.json',
    responseMediaType: 'application/jose',
    response: { type: 'string', description: 'Compact JWS' },
  },
});

export interface SearchParams {
  query?: string;
  filters?: Record<string, unknown>;
  sort?: unknown;
  limit?: number;
  cursor?: string;
}

export const search = defineAction<SearchParams, Page<DocumentView>>(SERVICE, 'search', {
  params: {
    ...STRICT_REMOVE,
    query: { type: 'string', optional: true, max: 512 },
    filters: { type: 'object', optional: true, openapi: { $ref: '#/components/schemas/SearchFilter' } },
    sort: { type: 'any', optional: true },
    limit: { type: 'number', integer: true, min: 1, max: 100, optional: true, convert: true },
    cursor: { type: 'multi', optional: true, rules: [{ type: 'string', max: 2048 }, { type: 'number', integer: true }] },
  },
  http: {
    method: 'POST', path: '/v1/documents/search', access: 'documents.search', tag: 'Documents',
    summary: 'Search documents: `query` (text over number and party names), `filters` (predicate tree: $and/$or to any depth; $eq $ne $lt $lte $gt $gte $contains $notContains $in $notIn $null $notNull; bare scalar = $eq, bare array = $in; companyId only $eq), `sort` (map, field:dir string or a list of both), cursor pages',
    response: pageSchema(documentSchema),
    schemas: { SearchFilter: SEARCH_FILTER_SCHEMA },
  },
});

export interface LifecycleView {
  documentId: string;
  status: string;
  currentCode: string | null;
  party: 'buyer' | 'supplier';
  history: Array<Record<string, unknown>>;
  allowedTransitions: Array<{ code: string; label: string; status: string }>;
}

const lifecycleSchema = {
  type: 'object', required: ['documentId', 'status', 'currentCode', 'history', 'allowedTransitions'],
  properties: {
    documentId: { type: 'string' }, status: { type: 'string' }, currentCode: nullable('string'),
    party: { type: 'string', enum: ['buyer', 'supplier'], description: 'Your party for this document: the recipient of an invoice is the buyer' },
    history: { type: 'array', items: LIFECYCLE_ENTRY_SCHEMA },
    allowedTransitions: { type: 'array', items: { type: 'object', properties: { code: { type: 'string' }, label: { type: 'string' }, status: { type: 'string' } } } },
  },
};

export const getLifecycle = defineAction<{ id: string }, LifecycleView>(SERVICE, 'getLifecycle', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 } },
  http: { method: 'GET', path: '/v1/documents/:id/lifecycle', access: 'documents.read', tag: 'Documents', summary: 'Lifecycle history (French codes 200–213) and the transitions your party may make next', response: lifecycleSchema },
});

/** One lifecycle step of a French-reform document as its CDAR D22B message (the wire form platforms exchange and the PPF receives). */
export const lifecycleCdar = defineAction<{ id: string; step: number }, string>(SERVICE, 'lifecycleCdar', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 }, step: { type: 'number', integer: true, min: 0, max: 10_000, convert: true } },
  http: {
    method: 'GET', path: '/v1/documents/:id/lifecycle/:step/cdar', access: 'documents.read', tag: 'Documents',
    summary: 'The CDAR D22B status message (France, BR-FR-CDV 1.4.0) of one step of a French-reform document\'s lifecycle, `step` being its position in `history` (0 first): what the platforms exchange and, for 200, 210, 212 and 213, what is filed with the PPF. 404 for a step that does not exist or a document outside the French reform; 422 UBL_VALIDATION_FAILED with what the document lacks when no valid message can be made',
    responseMediaType: 'application/xml', response: { type: 'string' },
  },
});

/** The lifecycle POST body (defined by the pure state machine) plus the document id from the path. */
export type TransitionParams = TransitionRequest & { id: string };

export const postLifecycle = defineAction<TransitionParams, LifecycleView>(SERVICE, 'postLifecycle', {
  params: {
    ...STRICT_REMOVE,
    id: { type: 'string', min: 1, max: 64 },
    status: { type: 'enum', values: ['under_review', 'approved', 'disputed', 'rejected', 'paid', 'partially_paid'] },
    reason: { type: 'string', optional: true, max: 1024 },
    reasonCode: { type: 'string', optional: true, max: 64 },
    remainingAmount: { type: 'number', optional: true, min: 0 },
    note: { type: 'string', optional: true, max: 1024 },
    paymentDate: { type: 'string', optional: true, pattern: /^\d{4}-\d{2}-\d{2}/ },
    paymentReference: { type: 'string', optional: true, max: 255 },
    paymentAmount: { type: 'number', optional: true, positive: true },
    paymentCurrency: { type: 'string', optional: true, pattern: /^[A-Z]{3}$/ },
  },
  http: { method: 'POST', path: '/v1/documents/:id/lifecycle', access: 'lifecycle', tag: 'Documents', summary: 'Move the lifecycle: under_review (204), approved (205, or 206 with remainingAmount), disputed (207, or 208 with reasonCode=suspended), rejected (210), paid (211 by the buyer, 212 by the supplier), partially_paid (partial 212, repeatable)', response: lifecycleSchema },
});

export interface ActionParams {
  id: string;
  action: string;
  relatedDocumentId?: string;
  note?: string;
}

export const documentAction = defineAction<ActionParams, DocumentView>(SERVICE, 'documentAction', {
  params: {
    ...STRICT_REMOVE,
    id: { type: 'string', min: 1, max: 64 },
    action: { type: 'enum', values: [...DOCUMENT_ACTIONS] },
    relatedDocumentId: { type: 'string', optional: true, min: 1, max: 64 },
    note: { type: 'string', optional: true, min: 1, max: 4096 },
  },
  http: { method: 'POST', path: '/v1/documents/:id/actions', access: 'documents.write', tag: 'Documents', summary: 'link (relatedDocumentId), add-note (note, optional relatedDocumentId), mark-read, mark-unread, archive, unarchive; a link or note with relatedDocumentId on a suspended document (208) completes it (209)', response: documentSchema },
});

/** Internal (connector host's `outbound.statusReceived`): what the network later says of a sent document. */
export const recordNetworkStatus = defineAction<NetworkStatus & { connectorId: string }, { documentId: string } | null>(SERVICE, 'recordNetworkStatus', {
  params: {
    connectorId: 'string',
    documentId: { type: 'string', optional: true, min: 1, max: 64 },
    messageId: { type: 'string', optional: true, min: 1, max: 500 },
    invoice: { type: 'object', optional: true, props: { number: { type: 'string', min: 1, max: 200 }, issueDate: { type: 'string', optional: true, max: 10 }, sellerPeppolId: { type: 'string', min: 1, max: 200 } } },
    status: { type: 'enum', values: ['accepted', 'acknowledged', 'rejected', 'answered'] },
    lifecycle: { type: 'object', optional: true, props: { status: { type: 'enum', values: ['received', 'under_review', 'approved', 'disputed', 'rejected', 'paid'] }, code: { type: 'string', optional: true, pattern: /^2[0-1][0-9]$/ }, at: { type: 'string', optional: true, max: 64 }, reason: { type: 'string', optional: true, max: 4096 }, reasonCode: { type: 'string', optional: true, max: 64 }, note: { type: 'string', optional: true, max: 4096 } } },
    compliance: { type: 'object', optional: true, props: { reportedTo: { type: 'string', max: 32 }, status: { type: 'enum', values: ['reported', 'failed'] }, code: { type: 'string', optional: true, max: 64 }, message: { type: 'string', optional: true, max: 4096 } } },
    reasons: { type: 'array', max: 1000, items: { type: 'object', props: { code: { type: 'string', max: 64 }, description: { type: 'string', optional: true, max: 4096 }, location: { type: 'string', optional: true, max: 4096 } } } },
    evidence: { type: 'record', key: { type: 'string', max: 64 }, value: { type: 'string', max: 4096 } },
  },
});

/**
 * Internal (connector host's inbound hand-off): stores an incoming document and commits before it
 * answers; the same (connectorId, messageId) again answers the first document with duplicate: true.
 */
export const receiveInbound = defineAction<InboundDocument & { connectorId: string }, AcceptResult>(SERVICE, 'receiveInbound', {
  params: { messageId: { type: 'string', min: 1, max: 500 }, livemode: 'boolean', type: 'string', sender: 'object', recipient: 'object', payload: 'object', evidence: { type: 'object', optional: true }, connectorId: 'string' },
});

/**
 * Internal (reporting): the month's Peppol AS4 exchanges of one mode across every organization, as
 * Peppol Reporting counts them (the report is the service provider's, not a tenant's): each
 * document of connector `peppol-as4` whose evidence says it was exchanged within the month (UTC).
 */
export const peppolExchanges = defineAction<{ month: string; livemode: boolean }, ReportingExchange[]>(SERVICE, 'peppolExchanges', {
  params: { month: { type: 'string', pattern: /^[0-9]{4}-(0[1-9]|1[0-2])$/ }, livemode: 'boolean' },
});

// ---------- internal: sandbox reset, usage statistics ----------

/**
 * Wipes an organization's sandbox documents and their pending work (deliveries, follow-ups) for
 * `POST /v1/sandbox/reset` (only one company's with `companyId`). Live documents, and other
 * organizations' copies of the same exchanges, stay.
 */
export const resetSandbox = defineAction<{ organizationId: string; companyId?: string }, { documents: number; scheduledJobs: number }>(SERVICE, 'resetSandbox', {
  params: { organizationId: { type: 'string', min: 1, max: 255 }, companyId: { type: 'string', optional: true, max: 255 } },
});

export interface DocumentUsage {
  /** Outgoing documents created in the period. */
  sent: number;
  /** Incoming documents booked in the period (repeated copies left out). */
  received: number;
  byType: Record<string, { sent: number; received: number }>;
  /** API lifecycle status (sent, received, approved, paid …) → documents. */
  byStatus: Record<string, number>;
  /** Delivery status (pending, delivered, failed …) → outgoing documents. */
  byDeliveryStatus: Record<string, number>;
  /** Incoming documents whose rules' verdict on arrival was invalid. */
  receivedInvalid: number;
  byCompany: Record<string, { sent: number; received: number }>;
}
/** What an organization's documents created in [from, to) add up to (platform usage, statistics). */
export const usage = defineAction<{ organizationId: string; livemode: boolean; companyId?: string; from: string; to: string }, DocumentUsage>(SERVICE, 'usage', {
  params: { organizationId: { type: 'string', min: 1, max: 255 }, livemode: 'boolean', companyId: { type: 'string', optional: true, max: 255 }, from: 'string', to: 'string' },
});

/**
 * Internal (categorization): another service changed what it keeps about a document of the caller
 * (its tags); this records `document.updated` with that field diff through the documents outbox.
 * DOCUMENT_NOT_FOUND when the caller cannot see the document.
 */
export const recordDocumentUpdate = defineAction<{ id: string; changes: Record<string, unknown> }, { documentId: string }>(SERVICE, 'recordDocumentUpdate', {
  params: { id: { type: 'string', min: 1, max: 64 }, changes: { type: 'object' } },
});

/**
 * Internal (webhooks: deliveries to AFNOR XP Z12-013 flow subscribers, whose body is the flow of the
 * event's document): documents of one organization by id, with their lifecycle; unknown ids and
 * other organizations' documents are left out.
 */
export const flowFacts = defineAction<{ organizationId: string; ids: string[] }, Array<{ document: DocumentView; lifecycle: LifecycleView }>>(SERVICE, 'flowFacts', {
  params: { organizationId: { type: 'string', min: 1, max: 255 }, ids: { type: 'array', max: 1000, items: { type: 'string', min: 1, max: 64 } } },
});
