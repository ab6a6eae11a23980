/**
 * AFNOR XP Z12-013 under /afnor/: every operation of the Flow Service 1.3.0 and Directory Service
 * 1.3.0 annexes (read in place from the corpus) driven against the real application, its successes
 * and main errors, each answer checked against the annex with openapi-backend (status declared,
 * media type, JSON body, declared headers). Two platform organizations each hold a French company
 * (a SIRET imported onto it); the supplier uploads an invoice as an AFNOR flow, which is our
 * document, delivered to the buyer over the sandbox network; the lifecycle moves made through /v1
 * (and a CDAR filed through /afnor/) show as lifecycle flows with their CDAR files. A createFlow
 * retried after a lost answer (by trackingId, by file digest, or under Idempotency-Key) answers the
 * first flow instead of sending the invoice twice.
 */
import { createHash, createHmac } from 'node:crypto';
import { Ajv, type ValidateFunction } from 'ajv';
import { loseTheAnswer as loseAnswer, sqlOn } from '../support/lost-answer.ts';
import addFormats from 'ajv-formats';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { eventually, startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { isValidSiret } from '../../mappings/identifiers/siret.ts';
import { verifyWebhookSignature } from '../../services/webhooks/signature.ts';
import { canonicalToCii, ublToCanonical } from '../../mappings/index.ts';
import { conformanceProblems, DIRECTORY_SPEC_FILE, FLOW_SPEC_FILE, loadAfnorSpec, type AfnorSpec, type Answer } from '../support/afnor-openapi.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000';
process.env.EINV_MAX_BODY_BYTES = String(2 * 1024 * 1024);
const AUDIENCE = 'https://api.einvoicing.test/afnor';
process.env.EINV_JWT_AUDIENCE = AUDIENCE;

let t: TestApp;
let flowSpec: AfnorSpec;
let directorySpec: AfnorSpec;
let receiver: Receiver;

interface Party { organizationId: string; key: string; name: string; legalName: string; companyId: string; peppolId: string; siret: string; siren: string; vatNumber: string; headers: Record<string, string> }
let supplier: Party;
let buyer: Party;
/** A key of the supplier's company holding only documents.read. */
let readOnlyKey: string;

/** A SIRET of this SIREN with a valid check digit. */
function siretOf(siren: string, from = 1): string {
  for (let e = from; e < 10_000; e++) {
    const siret = `${siren}${String(e).padStart(4, '0')}`;
    for (let d = 0; d < 10; d++) if (isValidSiret(`${siret}${d}`)) return `${siret}${d}`;
  }
  throw new Error(`no SIRET for ${siren}`);
}

async function frenchParty(label: string, vatNumber: string, name: string, metadata?: Record<string, unknown>): Promise<Party> {
  const org = await bootstrap(t.baseUrl, { label, keyType: 'platform' });
  const company = await api(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber, name, address: { street: '1 rue de la Paix', city: 'Paris', postalCode: '75002', country: 'FR' }, ...(metadata ? { metadata } : {}) } });
  if (company.status !== 201) throw new Error(`company: ${company.status} ${company.text}`);
  const siren = vatNumber.slice(4);
  const siret = siretOf(siren);
  const imported = await api(t.baseUrl, 'POST', '/v1/companies/import', { key: org.apiKey, body: { siret, backendCompanyId: company.body.id } });
  if (imported.status !== 200 && imported.status !== 201) throw new Error(`import: ${imported.status} ${imported.text}`);
  const fresh = await api(t.baseUrl, 'GET', `/v1/companies/${company.body.id}`, { key: org.apiKey });
  return { organizationId: org.organizationId, key: org.apiKey, name: fresh.body.name, legalName: fresh.body.legalName ?? fresh.body.name, companyId: company.body.id, peppolId: fresh.body.peppolId, siret, siren, vatNumber, headers: { 'x-service-company': company.body.id } };
}

/** Which operations were answered, with which statuses: the last test checks every one was driven. */
const seen = new Map<string, Set<number>>();

interface Call { key?: string | null; headers?: Record<string, string>; path?: Record<string, string>; query?: Record<string, string>; json?: unknown; form?: FormData; rawBody?: string; contentType?: string }

async function afnor(spec: AfnorSpec, operationId: string, options: Call = {}): Promise<Answer> {
  const op = spec.operations.get(operationId)!;
  const service = spec === flowSpec ? 'flow-service' : 'directory-service';
  let path = op.path;
  for (const [name, value] of Object.entries(options.path ?? {})) path = path.replace(`{${name}}`, encodeURIComponent(value));
  const url = new URL(`${t.baseUrl}/afnor/${service}${path}`);
  for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: BodyInit | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form) body = options.form;
  else if (options.rawBody !== undefined) {
    body = options.rawBody;
    if (options.contentType) headers['content-type'] = options.contentType;
  }
  const res = await fetch(url, { method: op.method, headers, ...(body !== undefined ? { body } : {}) });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('utf8');
  let json: unknown;
  try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
  const answer = { status: res.status, headers: res.headers, text, bytes, json };
  expect(conformanceProblems(spec, operationId, answer)).toEqual([]);
  // Never a 500: what goes wrong is the client's or an upstream's, in a status the annex declares.
  expect(answer.status).not.toBe(500);
  const statuses = seen.get(`${service} ${operationId}`) ?? new Set<number>();
  statuses.add(answer.status);
  seen.set(`${service} ${operationId}`, statuses);
  return answer;
}

/** The annex's `Flow` schema (the callback body of a flow webhook), compiled with formats checked. */
function flowSchemaValidator(): ValidateFunction {
  const ajv = new Ajv({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  ajv.addSchema({ $id: 'afnor-flow', components: (flowSpec.document as { components: unknown }).components }, 'afnor-flow');
  return ajv.compile({ $ref: 'afnor-flow#/components/schemas/Flow' });
}
const flow = (operationId: string, options: Call = {}) => afnor(flowSpec, operationId, options);
const dir = (operationId: string, options: Call = {}) => afnor(directorySpec, operationId, options);
const asSupplier = (options: Call = {}): Call => ({ key: supplier.key, ...options, headers: { ...supplier.headers, ...options.headers } });
const asBuyer = (options: Call = {}): Call => ({ key: buyer.key, ...options, headers: { ...buyer.headers, ...options.headers } });
const errorCode = (a: Answer) => (a.json as { errorCode: string }).errorCode;

/** A UBL invoice the supplier's company issues to the buyer's: our own rendering of a JSON invoice, renumbered. */
let invoiceTemplate: { xml: string; number: string };
let n = 0;
function invoice(number = `AFNOR-${Date.now()}-${++n}`): { xml: string; number: string } {
  return { xml: invoiceTemplate.xml.split(`>${invoiceTemplate.number}<`).join(`>${number}<`), number };
}

function upload(file: string | Buffer, flowInfo: Record<string, unknown> | string, fileType = 'application/xml'): FormData {
  const form = new FormData();
  form.append('flowInfo', new Blob([typeof flowInfo === 'string' ? flowInfo : JSON.stringify(flowInfo)], { type: 'application/json' }), 'flowInfo.json');
  form.append('file', new Blob([new Uint8Array(Buffer.from(file))], { type: fileType }), 'invoice.xml');
  return form;
}

beforeAll(async () => {
  [flowSpec, directorySpec] = await Promise.all([loadAfnorSpec(FLOW_SPEC_FILE), loadAfnorSpec(DIRECTORY_SPEC_FILE)]);
  receiver = await startReceiver();
  t = await startTestApp();
  supplier = await frenchParty('afnor-supplier', 'FR44732829320', 'Atelier SARL', { routingCodes: [{ routingIdentifier: 'SERVICE-42', name: 'Comptabilité fournisseurs' }, { routingIdentifier: 'bad code!' }] });
  buyer = await frenchParty('afnor-buyer', 'FR40303265045', 'Client SA');
  const restricted = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: supplier.key, body: { name: 'read only', scopes: ['documents.read'], keyType: 'personal', companyId: supplier.companyId } });
  if (restricted.status !== 201) throw new Error(`api key: ${restricted.status} ${restricted.text}`);
  readOnlyKey = restricted.body.key;
  // The template: a French invoice as our API renders a JSON send of the supplier's company to the buyer's.
  const number = `TPL-${Date.now()}`;
  const sent = await api(t.baseUrl, 'POST', '/v1/documents/send', {
    key: supplier.key, headers: supplier.headers,
    body: {
      type: 'invoice', format: 'json', to: buyer.peppolId,
      document: {
        number, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO-1',
        seller: { name: 'Atelier SARL', vatNumber: supplier.vatNumber, address: { street: '2 rue de Lyon', city: 'Lyon', postalCode: '69001', country: 'FR' } },
        buyer: { name: 'Client SA', vatNumber: buyer.vatNumber, address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } },
        lines: [{ description: 'Work', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 20 }],
      },
    },
  });
  if (sent.status !== 201) throw new Error(`template send: ${sent.status} ${sent.text}`);
  const xml = await fetch(`${t.baseUrl}/v1/documents/${sent.body.id}/xml`, { headers: { authorization: `Bearer ${supplier.key}` } });
  invoiceTemplate = { xml: await xml.text(), number };
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await receiver?.close();
});

describe('Flow Service', () => {
  let flowId: string;
  let number: string;
  let trackingId: string;

  it('getHealth answers 200 without a credential', async () => {
    expect((await flow('getHealth')).status).toBe(200);
  });

  it('createFlow: an uploaded invoice is our document, sent and delivered as a /v1 send is', async () => {
    const inv = invoice();
    number = inv.number;
    trackingId = `trk-${inv.number}`;
    const sha256 = createHash('sha256').update(inv.xml).digest('hex');
    const res = await flow('createFlow', asSupplier({ form: upload(inv.xml, { trackingId, name: `${inv.number}.xml`, flowSyntax: 'UBL', flowProfile: 'Basic', processingRule: 'B2B', sha256 }) }));
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ trackingId, name: `${inv.number}.xml`, flowSyntax: 'UBL', sha256 });
    flowId = (res.json as { flowId: string }).flowId;
    const doc = await api(t.baseUrl, 'GET', `/v1/documents/${flowId}`, { key: supplier.key });
    expect(doc.status).toBe(200);
    expect(doc.body).toMatchObject({ id: flowId, type: 'invoice', direction: 'outgoing', number: inv.number, metadata: { afnor: { trackingId, flowSyntax: 'UBL' } } });
    const original = await fetch(`${t.baseUrl}/v1/documents/${flowId}/original`, { headers: { authorization: `Bearer ${supplier.key}` } });
    expect(await original.text()).toBe(inv.xml);
    await eventually(async () => (await api(t.baseUrl, 'GET', `/v1/documents/${flowId}`, { key: supplier.key })).body.deliveryStatus === 'delivered', 15_000, 'delivery');
  });

  it('createFlow: a CII flow too, kept as CII', async () => {
    const cii = canonicalToCii(ublToCanonical(Buffer.from(invoice().xml)).canonical);
    const res = await flow('createFlow', asSupplier({ form: upload(cii, { name: 'cii.xml', flowSyntax: 'CII' }) }));
    expect(res.status).toBe(202);
    const id = (res.json as { flowId: string }).flowId;
    expect((await api(t.baseUrl, 'GET', `/v1/documents/${id}`, { key: supplier.key })).body).toMatchObject({ format: 'cii-xml', direction: 'outgoing' });
    expect((await flow('getFlow', asSupplier({ path: { flowId: id } }))).json).toMatchObject({ flowId: id, flowSyntax: 'CII', name: 'cii.xml', processingRuleSource: 'Computed' });
  });

  it('an OAuth machine token names its organization with the Organization-Id alias', async () => {
    const integration = await api(t.baseUrl, 'POST', '/v1/integrations', { key: supplier.key, body: { name: 'afnor-erp' } });
    expect(integration.status).toBe(201);
    const token = await api(t.baseUrl, 'POST', '/oauth/token', { body: { grant_type: 'client_credentials', client_id: integration.body.clientId, client_secret: integration.body.clientSecret, audience: AUDIENCE } });
    expect(token.status).toBe(200);
    const bearer = token.body.access_token as string;
    const found = await flow('searchFlows', { key: bearer, headers: { 'Organization-Id': supplier.organizationId, ...supplier.headers }, json: { where: { trackingId } } });
    expect((found.json as { results: Array<{ flowId: string }> }).results.map((r) => r.flowId)).toEqual([flowId]);
    expect(errorCode(await flow('searchFlows', { key: bearer, headers: supplier.headers, json: { where: { trackingId } } }))).toBe('ORGANIZATION_FORBIDDEN');
    expect((await dir('getCompanyBySiren', { key: bearer, headers: { 'Organization-Id': supplier.organizationId }, path: { siren: buyer.siren } })).status).toBe(200);
  });

  it('createFlow refuses what it cannot take, in the AFNOR error shape', async () => {
    const inv = invoice();
    const info = { name: 'x.xml', flowSyntax: 'UBL' };
    expect(errorCode(await flow('createFlow', { form: upload(inv.xml, info) }))).toBe('MISSING_AUTH');
    expect((await flow('createFlow', { key: 'svc_test_nope', form: upload(inv.xml, info) })).status).toBe(401);
    expect(errorCode(await flow('createFlow', { key: supplier.key, form: upload(inv.xml, info) }))).toBe('COMPANY_REQUIRED');
    expect(errorCode(await flow('createFlow', { key: readOnlyKey, form: upload(inv.xml, info) }))).toBe('INSUFFICIENT_SCOPE');
    const missingInfo = new FormData();
    missingInfo.append('file', new Blob([inv.xml]), 'x.xml');
    expect(errorCode(await flow('createFlow', asSupplier({ form: missingInfo })))).toBe('MISSING_FIELD');
    expect((await flow('createFlow', asSupplier({ form: upload(inv.xml, { name: 'x.xml' }) }))).status).toBe(400);
    expect((await flow('createFlow', asSupplier({ form: upload(inv.xml, '{not json') }))).status).toBe(400);
    expect((await flow('createFlow', asSupplier({ form: upload(inv.xml, { ...info, flowSyntax: 'CII' }) }))).json).toMatchObject({ errorCode: 'INVALID_REQUEST', details: expect.stringContaining('FlowTypeError') });
    expect((await flow('createFlow', asSupplier({ form: upload(inv.xml, { ...info, sha256: 'a'.repeat(64) }) }))).json).toMatchObject({ details: expect.stringContaining('ChecksumMismatch') });
    expect((await flow('createFlow', asSupplier({ form: upload('', info) }))).json).toMatchObject({ details: expect.stringContaining('EmptyFlow') });
    expect((await flow('createFlow', asSupplier({ form: upload(inv.xml, { ...info, flowSyntax: 'FRR' }) }))).status).toBe(400);
    expect((await flow('createFlow', asSupplier({ form: upload('<not-an-invoice/>', info) }))).status).toBe(400);
    expect((await flow('createFlow', asSupplier({ rawBody: inv.xml, contentType: 'application/xml' }))).status).toBe(400);
    // Too large for the body limit (2 MiB here): 413.
    expect((await flow('createFlow', asSupplier({ form: upload(Buffer.alloc(3 * 1024 * 1024, 0x20), info) }))).status).toBe(413);
    // The same invoice number again (DUPLICATE_DOCUMENT): 422, the status the annex gives a rejected flow.
    const again = await flow('createFlow', asSupplier({ form: upload(invoice(number).xml, info) }));
    expect(again.status).toBe(422);
    expect(errorCode(again)).toBe('DUPLICATE_DOCUMENT');
    // An invoice our rules refuse (no currency): 422 UBL_VALIDATION_FAILED.
    const broken = invoice().xml.replace(/<cbc:DocumentCurrencyCode>[^<]*<\/cbc:DocumentCurrencyCode>/, '');
    expect(errorCode(await flow('createFlow', asSupplier({ form: upload(broken, info) })))).toBe('UBL_VALIDATION_FAILED');
  });

  it('getFlow: the metadata, the original file, the converted XML; 404 and 400', async () => {
    const meta = await flow('getFlow', asSupplier({ path: { flowId } }));
    expect(meta.json).toMatchObject({ flowId, trackingId, flowType: 'CustomerInvoice', flowDirection: 'Out', flowSyntax: 'UBL', processingRule: 'B2B', processingRuleSource: 'Input', acknowledgement: { status: 'Ok' } });
    const original = await flow('getFlow', asSupplier({ path: { flowId }, query: { docType: 'Original' } }));
    expect(original.headers.get('content-disposition')).toBe(`attachment;filename=${number}.xml`);
    expect(original.text).toContain(`>${number}<`);
    const converted = await flow('getFlow', asSupplier({ path: { flowId }, query: { docType: 'Converted' } }));
    expect(converted.text).toContain('<Invoice');
    // The readable view is our drawn PDF of the invoice (GET /v1/documents/{id}/pdf).
    const readable = await flow('getFlow', asSupplier({ path: { flowId }, query: { docType: 'ReadableView' } }));
    expect([readable.status, readable.text.slice(0, 5)]).toEqual([200, '%PDF-']);
    expect((await flow('getFlow', asSupplier({ path: { flowId: 'doc_00000000000000000000000000' } }))).status).toBe(404);
    expect((await flow('getFlow', asSupplier({ path: { flowId }, query: { docType: 'Everything' } }))).status).toBe(400);
    expect((await flow('getFlow', { path: { flowId } })).status).toBe(401);
    // Another organization sees nothing of it.
    expect((await flow('getFlow', asBuyer({ path: { flowId } }))).status).toBe(404);
  });

  it('searchFlows: by tracking id, by direction on each side, with lifecycle flows; 400 without criteria', async () => {
    const byTracking = await flow('searchFlows', asSupplier({ json: { where: { trackingId } } }));
    expect((byTracking.json as { results: Array<{ flowId: string }> }).results.map((r) => r.flowId)).toEqual([flowId]);
    const incoming = await eventually(async () => {
      const res = await flow('searchFlows', asBuyer({ json: { where: { flowType: ['SupplierInvoice'], flowDirection: ['In'] }, limit: 100 } }));
      return (res.json as { results: Array<{ name: string; flowType: string }> }).results.find((r) => r.name.startsWith(number));
    }, 15_000, 'the buyer\'s incoming flow');
    expect(incoming).toMatchObject({ flowType: 'SupplierInvoice', flowDirection: 'In', acknowledgement: { status: 'Ok' } });
    const page = await flow('searchFlows', asSupplier({ json: { where: { updatedAfter: '2000-01-01T00:00:00Z', flowType: ['CustomerInvoice'] }, limit: 1 } }));
    expect((page.json as { results: unknown[]; nextCursor?: string }).nextCursor).toEqual(expect.any(String));
    const next = await flow('searchFlows', asSupplier({ json: { where: { updatedAfter: '2000-01-01T00:00:00Z', flowType: ['CustomerInvoice'] }, limit: 1, cursor: (page.json as { nextCursor: string }).nextCursor } }));
    expect((next.json as { results: Array<{ flowId: string }> }).results[0]!.flowId).not.toBe((page.json as { results: Array<{ flowId: string }> }).results[0]!.flowId);
    expect((await flow('searchFlows', asSupplier({ json: { where: { flowType: ['MultiFlowReport'] } } }))).json).toMatchObject({ results: [] });
    expect((await flow('searchFlows', asSupplier({ json: { where: {} } }))).status).toBe(400);
    expect((await flow('searchFlows', asSupplier({ json: { limit: 10 } }))).status).toBe(400);
    expect((await flow('searchFlows', asSupplier({ json: { where: { flowType: ['Invoice'] } } }))).status).toBe(400);
    expect((await flow('searchFlows', asSupplier({ json: { where: { trackingId }, limit: 500 } }))).status).toBe(400);
    expect((await flow('searchFlows', { json: { where: { trackingId } } })).status).toBe(401);
    expect((await flow('searchFlows', { key: readOnlyKey, json: { where: { trackingId } } })).status).toBe(403);
  });

  it('lifecycle: moves made through /v1 show as lifecycle flows with their CDAR, and a CDAR filed through /afnor/ moves our lifecycle', async () => {
    const buyerDoc = await eventually(async () => {
      const found = await api(t.baseUrl, 'POST', '/v1/documents/search', { key: buyer.key, headers: buyer.headers, body: { filters: { number, direction: 'incoming' } } });
      return found.body.data[0]?.id as string | undefined;
    }, 15_000, 'the buyer\'s copy');
    const moved = await api(t.baseUrl, 'POST', `/v1/documents/${buyerDoc}/lifecycle`, { key: buyer.key, headers: buyer.headers, body: { status: 'under_review' } });
    expect(moved.status).toBe(200);
    const step = moved.body.history.length - 1;

    // The buyer's own move: an outgoing lifecycle flow of a supplier invoice, whose file is the step's CDAR.
    const lc = await flow('searchFlows', asBuyer({ json: { where: { flowType: ['SupplierInvoiceLC'], flowDirection: ['Out'] }, limit: 100 } }));
    const mine = (lc.json as { results: Array<{ flowId: string; name: string; flowSyntax: string }> }).results.find((r) => r.flowId === `${buyerDoc}-lc-${step}`);
    expect(mine).toMatchObject({ flowSyntax: 'CDAR', name: `${number}-204.xml` });
    const cdar = await flow('getFlow', asBuyer({ path: { flowId: mine!.flowId }, query: { docType: 'Original' } }));
    expect(cdar.text).toContain('CrossDomainAcknowledgementAndResponse');
    expect(cdar.text).toContain('>204<');
    expect((await flow('getFlow', asBuyer({ path: { flowId: `${buyerDoc}-lc-99` } }))).status).toBe(404);

    // The supplier sees the buyer's status reach its own copy as an incoming lifecycle flow.
    const seenBySupplier = await eventually(async () => {
      const res = await flow('searchFlows', asSupplier({ json: { where: { flowType: ['CustomerInvoiceLC'], flowDirection: ['In'] }, limit: 100 } }));
      return (res.json as { results: Array<{ flowId: string; name: string }> }).results.find((r) => r.flowId.startsWith(flowId) && r.name.endsWith('-204.xml'));
    }, 15_000, 'the 204 on the supplier\'s copy');
    expect((await flow('getFlow', asSupplier({ path: { flowId: seenBySupplier.flowId } }))).json).toMatchObject({ flowType: 'CustomerInvoiceLC', flowDirection: 'In', flowSyntax: 'CDAR' });

    // The buyer approves by filing a CDAR (205) through /afnor/: our lifecycle moves.
    const cdar205 = cdar.text.replace(/<ram:ProcessConditionCode>204<\/ram:ProcessConditionCode>/, '<ram:ProcessConditionCode>205</ram:ProcessConditionCode>');
    expect(cdar205).not.toBe(cdar.text);
    const filed = await flow('createFlow', asBuyer({ form: upload(cdar205, { name: `${number}-205.xml`, flowSyntax: 'CDAR' }) }));
    expect(filed.status).toBe(202);
    expect((filed.json as { flowId: string }).flowId).toBe(`${buyerDoc}-lc-${step + 1}`);
    const after = await api(t.baseUrl, 'GET', `/v1/documents/${buyerDoc}/lifecycle`, { key: buyer.key, headers: buyer.headers });
    expect(after.body).toMatchObject({ currentCode: '205', status: 'approved' });
    // A status the company may not file (200, the platform's own) and a CDAR about no invoice of its own.
    const cdar200 = cdar.text.replace(/<ram:ProcessConditionCode>204<\/ram:ProcessConditionCode>/, '<ram:ProcessConditionCode>200</ram:ProcessConditionCode>');
    expect((await flow('createFlow', asBuyer({ form: upload(cdar200, { name: 'x.xml', flowSyntax: 'CDAR' }) }))).status).toBe(400);
    expect(errorCode(await flow('createFlow', asSupplier({ form: upload(cdar205, { name: 'x.xml', flowSyntax: 'CDAR' }) })))).toBe('DOCUMENT_NOT_FOUND');
  });

  it('webhooks: subscribe, list, deliveries through our webhooks service, unsubscribe', async () => {
    const created = await flow('createWebhook', asBuyer({ json: { callbackUrl: `${receiver.url}`, flowTypes: ['SupplierInvoice'], flowDirection: 'In' } }));
    expect(created.status).toBe(201);
    const { webhookId, signingKey } = created.json as { webhookId: string; signingKey: string };
    const listed = await flow('listWebhooks', asBuyer());
    expect(listed.json).toMatchObject({ count: 1, webhookIds: [webhookId], webhooks: [{ webhookId, callbackUrl: receiver.url, flowTypes: ['SupplierInvoice'], flowDirection: 'In' }] });
    // The native webhook of /v1 is not an AFNOR subscription: not listed, not deletable here.
    const native = await api(t.baseUrl, 'POST', '/v1/webhooks', { key: buyer.key, headers: buyer.headers, body: { url: receiver.url, events: ['document.sent'] } });
    expect((await flow('listWebhooks', asBuyer())).json).toMatchObject({ count: 1 });

    const inv = invoice();
    expect((await flow('createFlow', asSupplier({ form: upload(inv.xml, { name: 'n.xml', flowSyntax: 'UBL' }) }))).status).toBe(202);
    // The callback is the annex's: the Flow of the buyer's copy, signed with Afnor-Signature over `<body>@<timestamp>`.
    const delivery = await eventually(async () => receiver.requests.find((r) => r.headers['afnor-signature'] && r.rawBody.includes(`"${inv.number}.xml"`)), 15_000, `the delivery to the AFNOR subscriber (got: ${JSON.stringify(receiver.requests.map((r) => r.rawBody.slice(0, 300)))})`);
    const body = JSON.parse(delivery.rawBody) as Record<string, unknown>;
    const validFlow = flowSchemaValidator();
    expect({ valid: validFlow(body), errors: validFlow.errors ?? null }).toEqual({ valid: true, errors: null });
    expect(body).toMatchObject({ flowType: 'SupplierInvoice', flowDirection: 'In', name: `${inv.number}.xml`, acknowledgement: { status: 'Ok' } });
    const timestamp = delivery.headers['afnor-signature-timestamp'] as string;
    expect(timestamp).toMatch(/^\d+$/);
    const key = Buffer.from(signingKey, 'base64');
    const fingerprint = createHash('sha256').update(`${delivery.rawBody}@${timestamp}`).digest('hex');
    expect(delivery.headers['afnor-signature']).toBe(createHmac('sha256', key).update(fingerprint).digest('base64'));
    expect(verifyWebhookSignature(delivery.headers['x-service-signature'] as string, delivery.rawBody, key.toString('utf8'))).toBe(true);

    expect((await flow('createWebhook', asBuyer({ json: { flowTypes: ['SupplierInvoice'] } }))).status).toBe(400);
    expect((await flow('createWebhook', asBuyer({ json: { callbackUrl: receiver.url, flowTypes: ['AggregatedCustomerPaymentReport'] } }))).status).toBe(400);
    expect((await flow('createWebhook', { json: { callbackUrl: receiver.url } })).status).toBe(401);
    expect((await flow('createWebhook', { key: readOnlyKey, json: { callbackUrl: receiver.url } })).status).toBe(403);
    expect((await flow('listWebhooks', {})).status).toBe(401);
    expect((await flow('listWebhooks', { key: readOnlyKey })).status).toBe(403);
    expect((await flow('deleteWebhook', asBuyer({ path: { webhookUid: 'not-a-uuid' } }))).status).toBe(400);
    expect((await flow('deleteWebhook', asSupplier({ path: { webhookUid: webhookId } }))).status).toBe(404);
    const nativeUuid = (await import('../../services/gateway/afnor/flows.ts')).webhookUuid(native.body.id);
    expect((await flow('deleteWebhook', asBuyer({ path: { webhookUid: nativeUuid } }))).status).toBe(404);
    expect((await flow('deleteWebhook', { path: { webhookUid: webhookId } })).status).toBe(401);
    expect((await flow('deleteWebhook', { key: readOnlyKey, path: { webhookUid: webhookId } })).status).toBe(403);
    expect((await flow('deleteWebhook', asBuyer({ path: { webhookUid: webhookId } }))).status).toBe(204);
    expect((await flow('deleteWebhook', asBuyer({ path: { webhookUid: webhookId } }))).status).toBe(404);
    expect((await flow('listWebhooks', asBuyer())).json).toMatchObject({ count: 0, webhookIds: [] });
  });

  describe('retries', () => {
    const sql = (text: string, values: unknown[] = []) => sqlOn(t.databaseUrl, text, values);
    const loseTheAnswer = (key: string) => loseAnswer(t.databaseUrl, key);
    const documentsNumbered = async (number: string) => (await sql(`select count(*)::int as n from documents where organization_id = $1 and number = $2`, [supplier.organizationId, number])).rows[0].n as number;
    const flowIdOf = (a: Answer) => (a.json as { flowId: string }).flowId;

    it('createFlow: the same flow again under its trackingId answers the first flow, even when the first answer was lost; another file under it is refused', async () => {
      const inv = invoice();
      const info = { trackingId: `retry-${inv.number}`, name: `${inv.number}.xml`, flowSyntax: 'UBL', processingRule: 'B2B' };
      const first = await flow('createFlow', asSupplier({ form: upload(inv.xml, info) }));
      expect(first.status).toBe(202);
      // A retry (a new multipart body, its members in another order): the first answer, stored.
      const { trackingId, ...rest } = info;
      const retried = await flow('createFlow', asSupplier({ form: upload(inv.xml, { ...rest, trackingId }) }));
      expect([retried.status, retried.json, retried.headers.get('idempotent-replayed')]).toEqual([202, first.json, 'true']);
      // The gateway died after the send committed, before it kept the answer: the document keeps the key.
      await loseTheAnswer(`afnor:trackingId:${trackingId}`);
      const afterLoss = await flow('createFlow', asSupplier({ form: upload(inv.xml, info) }));
      expect([afterLoss.status, flowIdOf(afterLoss)]).toEqual([202, flowIdOf(first)]);
      expect(afterLoss.json).toMatchObject({ trackingId, name: info.name, flowSyntax: 'UBL', submittedAt: (first.json as { submittedAt: string }).submittedAt });
      expect(await documentsNumbered(inv.number)).toBe(1);

      // Another file under the used trackingId: a conflict naming it, in the annex's Error, and nothing sent.
      const other = invoice();
      const conflict = await flow('createFlow', asSupplier({ form: upload(other.xml, { ...info, name: `${other.number}.xml` }) }));
      expect(conflict.status).toBe(422);
      expect(conflict.json).toMatchObject({ errorCode: 'IDEMPOTENCY_BODY_MISMATCH', errorMessage: expect.stringContaining(`trackingId '${trackingId}'`) });
      // Refused by the document that keeps the key too, when the gateway's stored answer is gone.
      await loseTheAnswer(`afnor:trackingId:${trackingId}`);
      const conflictAfterLoss = await flow('createFlow', asSupplier({ form: upload(other.xml, { ...info, name: `${other.number}.xml` }) }));
      expect(conflictAfterLoss.json).toMatchObject({ errorCode: 'IDEMPOTENCY_BODY_MISMATCH', errorMessage: expect.stringContaining(`trackingId '${trackingId}'`) });
      expect(await documentsNumbered(other.number)).toBe(0);
    });

    it('createFlow: without trackingId the same file again answers the first flow, even when the first answer was lost', async () => {
      const inv = invoice();
      const info = { name: `${inv.number}.xml`, flowSyntax: 'UBL' };
      const first = await flow('createFlow', asSupplier({ form: upload(inv.xml, info) }));
      expect(first.status).toBe(202);
      const retried = await flow('createFlow', asSupplier({ form: upload(inv.xml, info) }));
      expect([retried.status, retried.json]).toEqual([202, first.json]);
      await loseTheAnswer(`afnor:sha256:${createHash('sha256').update(inv.xml).digest('hex')}`);
      const afterLoss = await flow('createFlow', asSupplier({ form: upload(inv.xml, info) }));
      expect([afterLoss.status, flowIdOf(afterLoss)]).toEqual([202, flowIdOf(first)]);
      expect(await documentsNumbered(inv.number)).toBe(1);
    });

    it('Idempotency-Key on AFNOR POSTs is honoured as on /v1: a replay of the first answer, another body under it refused', async () => {
      const key = `afnor-key-${Date.now()}`;
      const inv = invoice();
      const info = { trackingId: `keyed-${inv.number}`, name: `${inv.number}.xml`, flowSyntax: 'UBL' };
      const first = await flow('createFlow', asSupplier({ form: upload(inv.xml, info), headers: { 'Idempotency-Key': key } }));
      expect(first.status).toBe(202);
      const retried = await flow('createFlow', asSupplier({ form: upload(inv.xml, info), headers: { 'Idempotency-Key': key } }));
      expect([retried.status, retried.json, retried.headers.get('idempotent-replayed')]).toEqual([202, first.json, 'true']);
      await loseTheAnswer(key);
      const afterLoss = await flow('createFlow', asSupplier({ form: upload(inv.xml, info), headers: { 'Idempotency-Key': key } }));
      expect([afterLoss.status, flowIdOf(afterLoss)]).toEqual([202, flowIdOf(first)]);
      expect(await documentsNumbered(inv.number)).toBe(1);
      const other = invoice();
      const mismatch = await flow('createFlow', asSupplier({ form: upload(other.xml, { name: 'o.xml', flowSyntax: 'UBL' }), headers: { 'Idempotency-Key': key } }));
      expect(mismatch.status).toBe(422);
      expect(mismatch.json).toMatchObject({ errorCode: 'IDEMPOTENCY_BODY_MISMATCH', errorMessage: expect.stringContaining('Idempotency-Key') });
      expect(await documentsNumbered(other.number)).toBe(0);

      // A JSON POST too: one subscription for two attempts.
      const hookKey = `afnor-hook-${Date.now()}`;
      const body = { callbackUrl: `${receiver.url}/retried`, flowTypes: ['CustomerInvoice'] };
      const created = await flow('createWebhook', asSupplier({ json: body, headers: { 'Idempotency-Key': hookKey } }));
      const again = await flow('createWebhook', asSupplier({ json: body, headers: { 'Idempotency-Key': hookKey } }));
      expect([created.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 201, 'true']);
      expect((again.json as { webhookId: string }).webhookId).toBe((created.json as { webhookId: string }).webhookId);
      expect((await flow('listWebhooks', asSupplier())).json).toMatchObject({ count: 1 });
      expect((await flow('deleteWebhook', asSupplier({ path: { webhookUid: (created.json as { webhookId: string }).webhookId } }))).status).toBe(204);
    });
  });

  it('rate limited: 429 where the annex declares it, 503 where it does not', async () => {
    const org = await bootstrap(t.baseUrl, { label: 'afnor-limited' });
    expect((await api(t.baseUrl, 'POST', '/v1/sandbox/rate-limit/exhaust', { key: org.apiKey, body: { durationSeconds: 60 } })).status).toBe(200);
    const limited = await flow('searchFlows', { key: org.apiKey, json: { where: { trackingId: 'x' } } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toEqual(expect.any(String));
    expect((await flow('getFlow', { key: org.apiKey, path: { flowId: 'doc_x' } })).status).toBe(429);
    expect((await flow('listWebhooks', { key: org.apiKey })).status).toBe(503);
    expect((await dir('getCompanyBySiren', { key: org.apiKey, path: { siren: supplier.siren } })).status).toBe(429);
  });
});

describe('Directory Service', () => {
  it('getHealth answers 200 without a credential', async () => {
    expect((await dir('getHealth')).status).toBe(200);
  });

  it('SIREN: search and read a legal unit of this platform; 404, 400, 401, 403', async () => {
    const found = await dir('searchCompanyBySiren', asBuyer({ json: { filters: { siren: { op: 'strict', value: supplier.siren } } } }));
    expect(found.json).toMatchObject({ totalNumberOfResults: 1, results: [{ siren: supplier.siren, businessName: supplier.legalName, entityType: 'PrivateVatRegistered', administrativeStatus: 'A' }] });
    const byName = await dir('searchCompanyBySiren', asBuyer({ json: { filters: { businessName: { op: 'contains', value: supplier.vatNumber.toLowerCase() } }, fields: ['siren'] } }));
    expect(byName.json).toMatchObject({ results: [{ siren: supplier.siren }] });
    expect((byName.json as { results: Array<Record<string, unknown>> }).results[0]).not.toHaveProperty('businessName');
    const one = await dir('getCompanyBySiren', asBuyer({ path: { siren: buyer.siren } }));
    expect(one.json).toMatchObject({ siren: buyer.siren, businessName: buyer.legalName });
    expect((await dir('getCompanyBySiren', asBuyer({ path: { siren: '123456789' } }))).status).toBe(404);
    expect((await dir('getCompanyBySiren', asBuyer({ path: { siren: '12345' } }))).status).toBe(400);
    expect((await dir('getCompanyBySiren', asBuyer({ path: { siren: buyer.siren }, query: { fields: 'siren,everything' } }))).status).toBe(400);
    expect((await dir('searchCompanyBySiren', asBuyer({ json: { filters: { siren: { op: 'startWith', value: '7' } } } }))).status).toBe(400);
    expect((await dir('searchCompanyBySiren', { json: {} })).status).toBe(401);
    expect((await dir('searchCompanyBySiren', { key: readOnlyKey, json: {} })).status).toBe(403);
    expect((await dir('getCompanyBySiren', { key: readOnlyKey, path: { siren: buyer.siren } })).status).toBe(403);
  });

  it('SIRET: search and read a facility, with its legal unit included', async () => {
    const found = await dir('searchFacilityBySiret', asSupplier({ json: { filters: { siret: { op: 'strict', value: buyer.siret } }, include: ['siren'] } }));
    expect(found.json).toMatchObject({ totalNumberOfResults: 1, results: [{ siret: buyer.siret, siren: buyer.siren, name: buyer.name, facilityType: 'P', address: { postalCode: '75002', locality: 'Paris', countryCode: 'FR' }, legalUnit: { siren: buyer.siren } }] });
    const byLocality = await dir('searchFacilityBySiret', asSupplier({ json: { filters: { locality: { op: 'strict', value: 'paris' }, postalCode: { op: 'startWith', value: '75' } } } }));
    expect((byLocality.json as { totalNumberOfResults: number }).totalNumberOfResults).toBe(2);
    const one = await dir('getFacilityBySiret', asSupplier({ path: { siret: supplier.siret }, query: { include: 'siren' } }));
    expect(one.json).toMatchObject({ siret: supplier.siret, legalUnit: { siren: supplier.siren, businessName: supplier.legalName } });
    expect((await dir('getFacilityBySiret', asSupplier({ path: { siret: siretOf(buyer.siren, 500) } }))).status).toBe(404);
    expect((await dir('getFacilityBySiret', asSupplier({ path: { siret: '1234' } }))).status).toBe(400);
    expect((await dir('searchFacilityBySiret', asSupplier({ json: { filters: { postalCode: { op: 'contains', value: '75' } } } }))).status).toBe(400);
    expect((await dir('searchFacilityBySiret', { json: {} })).status).toBe(401);
    expect((await dir('getFacilityBySiret', { path: { siret: supplier.siret } })).status).toBe(401);
  });

  it('routing codes: the company\'s published codes under its SIRET (malformed ones left out)', async () => {
    const found = await dir('searchRoutingCode', asBuyer({ json: { filters: { siret: { op: 'strict', value: supplier.siret } }, include: ['siren', 'siret'] } }));
    expect(found.json).toMatchObject({ totalNumberOfResults: 1, results: [{ routingIdentifier: 'SERVICE-42', siret: supplier.siret, routingIdentifierType: '0224', routingCodeName: 'Comptabilité fournisseurs', legalUnit: { siren: supplier.siren }, facility: { siret: supplier.siret } }] });
    const one = await dir('getRoutingCodeBySiretAndId', asBuyer({ path: { siret: supplier.siret, 'routing-identifier': 'SERVICE-42' }, query: { fields: 'routingIdentifier,routingCodeName' } }));
    expect(one.json).toEqual({ routingIdentifier: 'SERVICE-42', routingCodeName: 'Comptabilité fournisseurs' });
    expect((await dir('getRoutingCodeBySiretAndId', asBuyer({ path: { siret: supplier.siret, 'routing-identifier': 'NOPE' } }))).status).toBe(404);
    expect((await dir('getRoutingCodeBySiretAndId', asBuyer({ path: { siret: 'abc', 'routing-identifier': 'NOPE' } }))).status).toBe(400);
    expect((await dir('searchRoutingCode', asBuyer({ json: { limit: -1 } }))).status).toBe(400);
    expect((await dir('searchRoutingCode', { json: {} })).status).toBe(401);
    expect((await dir('getRoutingCodeBySiretAndId', { path: { siret: supplier.siret, 'routing-identifier': 'SERVICE-42' } })).status).toBe(401);
  });

  it('directory lines: SIREN, SIREN_SIRET and SIREN_SIRET_CODE addresses', async () => {
    const found = await dir('searchDirectoryLine', asBuyer({ json: { filters: { siren: { op: 'strict', value: supplier.siren } }, sorting: [{ field: 'addressingIdentifier', order: 'ascending' }] } }));
    expect((found.json as { results: Array<{ addressingIdentifier: string }> }).results.map((r) => r.addressingIdentifier)).toEqual([
      supplier.siren, `${supplier.siren}_${supplier.siret}`, `${supplier.siren}_${supplier.siret}_SERVICE-42`,
    ]);
    const paged = await dir('searchDirectoryLine', asBuyer({ json: { filters: { siren: { op: 'strict', value: supplier.siren } }, limit: 1, ignore: 1 } }));
    expect(paged.json).toMatchObject({ totalNumberOfResults: 3 });
    expect((paged.json as { results: unknown[] }).results).toHaveLength(1);
    const line = await dir('getDirectoryLineById', asBuyer({ path: { 'addressing-identifier': `${supplier.siren}_${supplier.siret}_SERVICE-42` }, query: { include: 'siren,siret,routingCode' } }));
    expect(line.json).toMatchObject({ addressingIdentifier: `${supplier.siren}_${supplier.siret}_SERVICE-42`, platformType: 'WK', directoryLineStatus: 'Enabled', routingIdentifier: 'SERVICE-42', legalUnit: { siren: supplier.siren }, facility: { siret: supplier.siret }, routingCode: { routingIdentifier: 'SERVICE-42' } });
    expect((await dir('getDirectoryLineById', asBuyer({ path: { 'addressing-identifier': buyer.siren } }))).json).toMatchObject({ addressingIdentifier: buyer.siren, siren: buyer.siren });
    expect((await dir('getDirectoryLineById', asBuyer({ path: { 'addressing-identifier': '999999999' } }))).status).toBe(404);
    expect((await dir('getDirectoryLineById', asBuyer({ path: { 'addressing-identifier': buyer.siren }, query: { include: 'everything' } }))).status).toBe(400);
    expect((await dir('searchDirectoryLine', asBuyer({ json: { filters: { siren: { op: 'contains', value: '7' } } } }))).status).toBe(400);
    expect((await dir('searchDirectoryLine', asBuyer({ rawBody: 'siren=1', contentType: 'text/plain' }))).status).toBe(400);
    expect((await dir('searchDirectoryLine', { json: {} })).status).toBe(401);
    expect((await dir('getDirectoryLineById', { path: { 'addressing-identifier': buyer.siren } })).status).toBe(401);
  });
});

it('what is no AFNOR operation answers in the AFNOR error shape too, never 500', async () => {
  const cases: Array<[string, string, number]> = [
    ['GET', '/afnor/flow-service/v2/flows', 404], ['GET', '/afnor/nothing', 404], ['PUT', '/afnor/flow-service/v1/flows', 400],
    ['GET', `/afnor/flow-service/v1/flows/${'x'.repeat(65)}`, 400], ['GET', '/afnor/flow-service/v1/flows/%E0%A4%A', 404],
    ['GET', '/afnor/directory-service/v1/directory-line/code:%00', 404],
  ];
  for (const [method, path, status] of cases) {
    const res = await fetch(`${t.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${supplier.key}`, ...supplier.headers } });
    const body = await res.json() as { errorCode?: unknown; errorMessage?: unknown };
    expect({ method, path, status: res.status, body: { errorCode: typeof body.errorCode, errorMessage: typeof body.errorMessage } }).toEqual({ method, path, status, body: { errorCode: 'string', errorMessage: 'string' } });
  }
});

it('drove every operation of both annexes, each to a success and (but the health checks) to an error', () => {
  for (const [service, spec] of [['flow-service', flowSpec], ['directory-service', directorySpec]] as const) {
    for (const operationId of spec.operations.keys()) {
      const statuses = [...(seen.get(`${service} ${operationId}`) ?? [])];
      expect({ operationId, success: statuses.some((s) => s < 300) }).toEqual({ operationId, success: true });
      if (operationId !== 'getHealth') expect({ operationId, error: statuses.some((s) => s >= 400) }).toEqual({ operationId, error: true });
    }
  }
  expect(flowSpec.operations.size + directorySpec.operations.size).toBe(16);
});
