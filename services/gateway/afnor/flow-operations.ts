/**
 * The AFNOR XP Z12-013 Flow Service 1.3.0 operations, on our documents, lifecycle and webhooks.
 * A flow uploaded here is sent exactly as POST /v1/documents/send sends it (format auto: the
 * same validation, routing and delivery), a CDAR flow is the lifecycle move POST
 * /v1/documents/:id/lifecycle makes, and a subscription is one of our webhooks.
 */
import { createHash } from 'node:crypto';
import * as documents from '../../documents/documents.contract.ts';
import * as webhooks from '../../webhooks/webhooks.contract.ts';
import { DomainError } from '../../shared/errors.ts';
import { ingestAuto, readCdar, MappingError } from '../../../mappings/index.ts';
import {
  ACK_STATUSES, FLOW_DIRECTIONS, FLOW_PROFILES, FLOW_SYNTAXES, FLOW_TYPES, INVOICE_DOCUMENT_TYPES, FLOW_PROCESSING_RULES,
  cdarMove, documentFlow, flowQuery, lifecycleFlowId, lifecycleFlows, parseFlowId, storedFlowInfo, webhookIdOfUuid, webhookUuid,
  type Flow, type FlowFilters, type FlowInfo,
} from './flows.ts';
import { assertSubscribable, describe, eventsFor, flowWebhook, isFlowWebhook, signingKeyOf, type FlowWebhookParams } from './flow-webhooks.ts';
import { readMultipart } from './multipart.ts';
import { checkBody, notFound, type AfnorCall, type AfnorOperation, type AfnorRequest, type RequestIdentity } from './operation.ts';

const FLOW = 'flow-service';
/** The error statuses each Flow Service operation declares (Annex A). */
const CREATE = [202, 400, 401, 403, 413, 422, 429, 500, 503];
const SEARCH = [200, 400, 401, 403, 429, 500, 503];
const GET = [200, 400, 401, 403, 404, 429, 500, 503];
const WEBHOOK_LIST_CREATE = [200, 201, 400, 401, 403, 500, 503];
const WEBHOOK_DELETE = [204, 400, 401, 403, 404, 500, 503];
const HEALTH = [200, 500, 503];

const FLOW_INFO_SCHEMA = {
  $$strict: true,
  trackingId: { type: 'string', optional: true, min: 1, max: 64 },
  name: { type: 'string', min: 1, max: 255 },
  processingRule: { type: 'enum', optional: true, values: [...FLOW_PROCESSING_RULES] },
  flowSyntax: { type: 'enum', values: [...FLOW_SYNTAXES] },
  flowProfile: { type: 'enum', optional: true, values: [...FLOW_PROFILES] },
  sha256: { type: 'string', optional: true, pattern: /^[a-f0-9]{64}$/ },
};

const SEARCH_SCHEMA = {
  $$strict: true,
  limit: { type: 'number', integer: true, min: 1, max: 100, optional: true },
  cursor: { type: 'string', optional: true, max: 2048 },
  where: {
    type: 'object', strict: true,
    props: {
      updatedAfter: { type: 'string', optional: true, max: 64 },
      updatedBefore: { type: 'string', optional: true, max: 64 },
      processingRule: { type: 'array', optional: true, max: 20, items: { type: 'enum', values: [...FLOW_PROCESSING_RULES] } },
      flowType: { type: 'array', optional: true, max: 40, items: { type: 'enum', values: [...FLOW_TYPES] } },
      flowDirection: { type: 'array', optional: true, max: 2, items: { type: 'enum', values: [...FLOW_DIRECTIONS] } },
      trackingId: { type: 'string', optional: true, max: 64 },
      ackStatus: { type: 'enum', optional: true, values: [...ACK_STATUSES] },
    },
  },
};

const WEBHOOK_SCHEMA = {
  $$strict: true,
  callbackUrl: { type: 'string', min: 1, max: 2048 },
  flowTypes: { type: 'array', optional: true, max: 40, items: { type: 'enum', values: [...FLOW_TYPES] } },
  flowDirection: { type: 'enum', optional: true, values: [...FLOW_DIRECTIONS] },
  ackStatus: { type: 'enum', optional: true, values: [...ACK_STATUSES] },
};

const DOC_TYPES = ['Metadata', 'Original', 'Converted', 'ReadableView'] as const;

function invalid(field: string, message: string, rule = field): DomainError {
  return new DomainError('INVALID_REQUEST', message, { details: [{ field, rule, message }] });
}

/** A mapping's refusal (unreadable XML, a PDF without invoice) as the 400 it is. */
function readable<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof MappingError) throw new DomainError(err.code === 'PAYLOAD_TOO_LARGE' ? 'PAYLOAD_TOO_LARGE' : 'INVALID_REQUEST', err.message, { details: err.details });
    throw err;
  }
}

/** The file of a flow upload and what the caller said of it. */
async function flowUpload(request: AfnorRequest, maxBytes: number): Promise<{ info: FlowInfo; file: Buffer; contentType: string | undefined }> {
  const parts = await readMultipart(request.raw ?? Buffer.alloc(0), request.contentType, maxBytes);
  const infoPart = parts.get('flowInfo');
  const filePart = parts.get('file');
  if (!infoPart) throw new DomainError('MISSING_FIELD', 'The part flowInfo is required', { details: [{ field: 'flowInfo', rule: 'required', message: 'flowInfo is required' }] });
  if (!filePart) throw new DomainError('MISSING_FIELD', 'The part file is required', { details: [{ field: 'file', rule: 'required', message: 'file is required' }] });
  let info: unknown;
  try {
    info = JSON.parse(infoPart.bytes.toString('utf8'));
  } catch {
    throw invalid('flowInfo', 'flowInfo must be a JSON object', 'json');
  }
  checkBody(FLOW_INFO_SCHEMA, info);
  if (filePart.bytes.length === 0) throw invalid('file', 'The flow is empty (EmptyFlow)', 'EmptyFlow');
  const flowInfo = info as FlowInfo;
  if (flowInfo.sha256 && createHash('sha256').update(filePart.bytes).digest('hex') !== flowInfo.sha256) {
    throw invalid('flowInfo.sha256', 'The SHA-256 of the file is not flowInfo.sha256 (ChecksumMismatch)', 'ChecksumMismatch');
  }
  return { info: flowInfo, file: filePart.bytes, contentType: filePart.contentType };
}

type FlowUpload = Awaited<ReturnType<typeof flowUpload>>;
/** A request's upload, read once for both its identity and its handling. */
const uploads = new WeakMap<AfnorRequest, Promise<FlowUpload>>();

function uploadOf(request: AfnorRequest): Promise<FlowUpload> {
  let upload = uploads.get(request);
  if (!upload) {
    upload = flowUpload(request, Number.MAX_SAFE_INTEGER);
    uploads.set(request, upload);
  }
  return upload;
}

/**
 * When two uploads are the same flow: the same flowInfo (its members in any order) and the same
 * file. A retry without Idempotency-Key is known by its trackingId, the sender's own id of the flow
 * (Annex A, CoreFlowInfo), else by its file's SHA-256 (the annex's integrity fingerprint): sent again
 * by the same credential within the idempotency window, it answers the first flow.
 */
async function flowIdentity(request: AfnorRequest): Promise<RequestIdentity> {
  const { info, file, contentType } = await uploadOf(request);
  const digest = createHash('sha256').update(file).digest('hex');
  const flowInfo = Object.fromEntries(Object.entries(info).sort(([a], [b]) => a.localeCompare(b)));
  return {
    content: { flowInfo, file: digest, fileType: contentType ?? null },
    derivedKey: info.trackingId
      ? { key: `afnor:trackingId:${info.trackingId}`, subject: `trackingId '${info.trackingId}'` }
      : { key: `afnor:sha256:${digest}`, subject: `a file of SHA-256 ${digest}` },
  };
}

/** What the submission answers (`FullFlowInfo`). */
function fullFlowInfo(flowId: string, submittedAt: string, info: FlowInfo): Record<string, unknown> {
  return {
    flowId, submittedAt, name: info.name, flowSyntax: info.flowSyntax,
    ...(info.trackingId ? { trackingId: info.trackingId } : {}),
    ...(info.processingRule ? { processingRule: info.processingRule } : {}),
    ...(info.flowProfile ? { flowProfile: info.flowProfile } : {}),
    ...(info.sha256 ? { sha256: info.sha256 } : {}),
  };
}

/** An invoice flow (CII, UBL, Factur-X): sent as POST /v1/documents/send with format auto. */
async function submitInvoice(call: AfnorCall, info: FlowInfo, file: Buffer, contentType: string | undefined) {
  const deposit = await ingestAuto(file).catch((err: unknown) => readable(() => { throw err; }));
  const syntax = deposit.hybrid ? 'Factur-X' : deposit.format === 'cii-xml' ? 'CII' : 'UBL';
  if (syntax !== info.flowSyntax) throw invalid('flowInfo.flowSyntax', `The file is ${syntax}, not ${info.flowSyntax} (FlowTypeError)`, 'FlowTypeError');
  const buyer = deposit.parsed.canonical.buyer?.electronicAddress;
  if (!buyer?.value) {
    throw new DomainError('MISSING_FIELD', 'The invoice names no electronic address of the buyer (BT-49): the flow cannot be routed', { details: [{ field: 'file', rule: 'BT-49', message: 'the buyer electronic address (BT-49) is required' }] });
  }
  const doc = await call.send(documents.send, {
    type: deposit.parsed.canonical.kind === 'credit-note' ? 'credit-note' : 'invoice',
    format: 'auto',
    to: buyer.scheme ? `${buyer.scheme}:${buyer.value}` : buyer.value,
    file: { content: file.toString('base64'), ...(contentType ? { contentType } : {}), filename: info.name },
    metadata: { afnor: info },
  });
  return fullFlowInfo(doc.id, doc.createdAt, info);
}

/** A CDAR flow: the lifecycle move it states, on the company's copy of the invoice it names. */
async function submitLifecycle(call: AfnorCall, info: FlowInfo, file: Buffer) {
  const facts = readable(() => readCdar(file));
  const move = cdarMove(facts);
  const found = await call.run(documents.search, {
    filters: { $and: [{ number: facts.invoice.number }, { direction: move.direction }, { type: { $in: [...INVOICE_DOCUMENT_TYPES] } }] }, limit: 2,
  });
  const doc = found.data[0];
  if (!doc) throw new DomainError('DOCUMENT_NOT_FOUND', `No ${move.direction} invoice ${facts.invoice.number} of this company`);
  const lifecycle = await call.run(documents.postLifecycle, { id: doc.id, ...move.transition });
  const step = lifecycle.history.length - 1;
  return fullFlowInfo(lifecycleFlowId(doc.id, step), String(lifecycle.history[step]?.at ?? new Date().toISOString()), info);
}

/** Nothing may be filed here for these syntaxes: e-reporting goes through the reporting service. */
function unsupportedSyntax(syntax: string): never {
  throw invalid('flowInfo.flowSyntax', `${syntax} flows are not accepted here: e-reporting is filed by the platform (FlowTypeError)`, 'FlowTypeError');
}

async function invoiceDocument(call: AfnorCall, id: string) {
  const doc = await call.run(documents.get, { id });
  if (!(INVOICE_DOCUMENT_TYPES as readonly string[]).includes(doc.type)) throw notFound(`Flow ${id}`);
  return doc;
}

/** A Buffer that crossed the transporter arrives as its JSON form. */
function bytesOf(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  if (value && typeof value === 'object' && (value as { type?: unknown }).type === 'Buffer') return Buffer.from((value as { data: number[] }).data);
  return Buffer.from(JSON.stringify(value), 'utf8');
}

function extensionOf(contentType: string | undefined): string {
  if (!contentType) return 'bin';
  if (contentType.includes('pdf')) return 'pdf';
  if (contentType.includes('xml')) return 'xml';
  if (contentType.includes('json')) return 'json';
  return 'bin';
}

async function getFlow(call: AfnorCall) {
  const flowId = call.request.path.flowId!;
  if (flowId.length > 64) throw invalid('flowId', 'flowId is at most 64 characters');
  const docType = call.request.query.get('docType') ?? 'Metadata';
  if (!(DOC_TYPES as readonly string[]).includes(docType)) throw new DomainError('INVALID_ENUM', `docType must be one of ${DOC_TYPES.join(', ')}`, { details: [{ field: 'docType', rule: 'enum', message: `not one of ${DOC_TYPES.join(', ')}` }] });
  const { documentId, step } = parseFlowId(flowId);
  const doc = await invoiceDocument(call, documentId);
  let flow: Flow;
  if (step === undefined) {
    flow = documentFlow(doc);
  } else {
    const lifecycle = await call.run(documents.getLifecycle, { id: doc.id });
    const found = lifecycleFlows(doc, lifecycle)[step];
    if (!found) throw notFound(`Flow ${flowId}`);
    flow = found;
  }
  // The annex declares Content-Disposition on this answer whatever its media type.
  if (docType === 'Metadata') return { status: 200, json: flow, headers: { 'Content-Disposition': `attachment;filename=${flow.flowId}.json` } };
  let bytes: Buffer;
  if (step !== undefined) {
    if (docType === 'ReadableView') throw notFound(`A readable view of lifecycle flow ${flowId}`);
    bytes = bytesOf(await call.run(documents.lifecycleCdar, { id: doc.id, step }));
    return { status: 200, file: { bytes, filename: flow.name } };
  }
  const contract = docType === 'Original' ? documents.originalRepresentation : docType === 'Converted' ? documents.xmlRepresentation : documents.pdfRepresentation;
  bytes = bytesOf(await call.run(contract, { id: doc.id }));
  const base = (storedFlowInfo(doc).name ?? flow.name).replace(/\.[A-Za-z0-9]{1,5}$/, '');
  const filename = docType === 'Original' ? (storedFlowInfo(doc).name ?? `${base}.${extensionOf(call.responseType())}`) : `${base}.${docType === 'Converted' ? 'xml' : 'pdf'}`;
  return { status: 200, file: { bytes, filename } };
}

async function searchFlows(call: AfnorCall) {
  const body = call.request.json;
  checkBody(SEARCH_SCHEMA, body);
  const { where, limit = 25, cursor } = body as { where: FlowFilters; limit?: number; cursor?: string };
  const query = flowQuery(where, limit, cursor);
  if (!query.search) return { status: 200, json: { limit, filters: where, results: [] } };
  const page = await call.run(documents.search, query.search);
  const results: Flow[] = [];
  for (const doc of page.data) {
    results.push(documentFlow(doc));
    if (query.lifecycles) results.push(...lifecycleFlows(doc, await call.run(documents.getLifecycle, { id: doc.id })));
  }
  return { status: 200, json: { limit, filters: where, results: results.filter(query.keep), ...(page.hasMore && page.cursor ? { nextCursor: page.cursor } : {}) } };
}

/** Our webhooks that are AFNOR flow subscriptions (at most 1,000 webhooks are looked at). */
async function flowWebhooks(call: AfnorCall): Promise<webhooks.WebhookView[]> {
  const found: webhooks.WebhookView[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10; page++) {
    const res = await call.run(webhooks.listWebhooks, { limit: 100, ...(cursor ? { cursor } : {}) });
    found.push(...res.data.filter(isFlowWebhook));
    if (!res.hasMore || !res.cursor) break;
    cursor = res.cursor;
  }
  return found;
}

async function webhookOf(call: AfnorCall): Promise<webhooks.WebhookView> {
  const uid = call.request.path.webhookUid!;
  const id = webhookIdOfUuid(uid);
  if (!id) throw invalid('webhookUid', 'webhookUid must be a UUID', 'uuid');
  const hook = await call.run(webhooks.getWebhook, { id });
  if (!isFlowWebhook(hook)) throw notFound(`Webhook ${uid}`);
  return hook;
}

export const FLOW_OPERATIONS: readonly AfnorOperation[] = [
  {
    service: FLOW, operationId: 'createFlow', method: 'POST', path: '/v1/flows', declared: CREATE, body: 'multipart',
    identity: flowIdentity,
    async handle(call) {
      const { info, file, contentType } = await uploadOf(call.request);
      if (info.flowSyntax === 'CDAR') return { status: 202, json: await submitLifecycle(call, info, file) };
      if (info.flowSyntax === 'FRR') unsupportedSyntax(info.flowSyntax);
      return { status: 202, json: await submitInvoice(call, info, file, contentType) };
    },
  },
  { service: FLOW, operationId: 'searchFlows', method: 'POST', path: '/v1/flows/search', declared: SEARCH, body: 'json', handle: searchFlows },
  { service: FLOW, operationId: 'getFlow', method: 'GET', path: '/v1/flows/{flowId}', declared: GET, handle: getFlow },
  {
    service: FLOW, operationId: 'listWebhooks', method: 'GET', path: '/v1/webhooks', declared: WEBHOOK_LIST_CREATE,
    async handle(call) {
      const hooks = await flowWebhooks(call);
      return { status: 200, json: { count: hooks.length, webhookIds: hooks.map((h) => webhookUuid(h.id)), webhooks: hooks.map(flowWebhook) } };
    },
  },
  {
    service: FLOW, operationId: 'createWebhook', method: 'POST', path: '/v1/webhooks', declared: WEBHOOK_LIST_CREATE, body: 'json',
    async handle(call) {
      checkBody(WEBHOOK_SCHEMA, call.request.json);
      const params = call.request.json as FlowWebhookParams;
      const events = eventsFor(params);
      assertSubscribable(events);
      const hook = await call.run(webhooks.createFlowWebhook, { url: params.callbackUrl, events, description: describe(params) }, { access: 'receive' });
      return { status: 201, json: { webhookId: webhookUuid(hook.id), signingKey: signingKeyOf(hook.secret ?? ''), createdAt: hook.createdAt } };
    },
  },
  {
    service: FLOW, operationId: 'deleteWebhook', method: 'DELETE', path: '/v1/webhooks/{webhookUid}', declared: WEBHOOK_DELETE,
    async handle(call) {
      const hook = await webhookOf(call);
      await call.run(webhooks.deleteWebhook, { id: hook.id });
      return { status: 204 };
    },
  },
  { service: FLOW, operationId: 'getHealth', method: 'GET', path: '/v1/healthcheck', declared: HEALTH, public: true, handle: async () => ({ status: 200 }) },
];
