/**
 * The send pipeline: envelope rules, recipient resolution through the routed connector, the
 * artefact built once (JSON rendered to UBL on a worker, validated as XML), the issuer check,
 * duplicate numbers, and the document with its deposit step and delivery job in one transaction.
 */
import type { Context } from 'moleculer';
import { emOf } from '../../mixins/orm.mixin.ts';
import { WAKE_EVENT } from '../../mixins/scheduler.mixin.ts';
import { scheduleJobs } from '../shared/scheduler/scheduler.ts';
import { call } from '../shared/call.ts';
import { principalOf, type Principal, type RequestIdempotency } from '../shared/auth.ts';
import { IDEMPOTENCY_TTL_MS } from '../idempotency/idempotency.contract.ts';
import { companyClock, systemClock } from '../shared/clock.ts';
import { DomainError, specCodeOf, decodeBase64Field } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { compileParamsChecker } from '../shared/params-checker.ts';
import { validate } from '../validation/validation.contract.ts';
import { candidateConnectors, discoverRecipient, registeredManifests, verifyingConnectors } from '../connectors/adapters.contract.ts';
import { companyOf, tenantDefaults } from '../tenancy/tenancy.contract.ts';
import type { CheckResult, Participant } from '../../adapters/sdk/index.ts';
import { rawDeposit, detectFormat, detectUblOrder, parseRecipient, countryOfPeppolId, withJsonLocations, type CanonicalInvoice, type DeliveryTarget, type ParsedRecipient, type PurchaseOrder } from '../../mappings/index.ts';
import type { WorkerPool } from '../shared/worker-pool.ts';
import { PARSE_TASKS, type JsonEnvelope, type ParsedForSend, type RenderedJson } from './parse.tasks.ts';
import { RENDER_TASKS } from './render.tasks.ts';
import type { FacturX } from '../../mappings/index.ts';
import { Document, type LifecycleEntry } from './document.entity.ts';
import { BILLING_TYPES } from './lifecycle.ts';
import { applyStep, entryFor } from './lifecycle-steps.ts';
import { pdfCopyOf } from './pdf-copy.ts';
import { storeOriginal } from './originals.ts';
import { documentView, recordedFormat } from './document-views.ts';
import { asDomainError, duplicate, issue, missing, pure, validationFailed } from './document-errors.ts';
import { DELIVER_JOB } from './delivery.ts';
import { checkIssuer } from '../../mappings/canonical/issuer.ts';
import type { CompanyRef } from '../tenancy/tenancy.contract.ts';
import type { DocsThis } from './service-state.ts';
import * as contract from './documents.contract.ts';
import type { DocumentView, SendParams, BatchItemResult } from './documents.contract.ts';

/** Batch items sent side by side. */
const BATCH_CONCURRENCY = 4;

// ---------------------------------------------------------------------------------------------
// send

interface Artefact {
  number: string | null;
  issueDate: string | null;
  dueDate: string | null;
  currency: string | null;
  totalAmount: string | null;
  sellerKey: string | null;
  original: Buffer;
  originalContentType: string;
  filename: string | null;
  xml: string | null;
  xmlSyntax: string | null;
  normalized: Record<string, unknown> | null;
  hasPdf: boolean;
  storedFormat: string | null;
  fileId: string | null;
  /** The form it travels in when not the record's own (Factur-X), and those bytes. */
  outputFormat?: 'factur-x';
  outputContent?: Buffer;
}

function fromCanonical(c: CanonicalInvoice): Pick<Artefact, 'number' | 'issueDate' | 'dueDate' | 'currency' | 'totalAmount' | 'sellerKey' | 'normalized'> {
  return {
    number: c.number ?? null,
    issueDate: c.issueDate ?? null,
    dueDate: c.dueDate ?? null,
    currency: c.currency ?? null,
    totalAmount: c.totals?.taxInclusive ?? c.totals?.payable ?? null,
    sellerKey: c.seller?.vatId ?? (c.seller?.electronicAddress ? `${c.seller.electronicAddress.scheme}:${c.seller.electronicAddress.value}` : null),
    normalized: c as unknown as Record<string, unknown>,
  };
}

/**
 * A JSON document's size without serialising it on the event loop (what the inline-or-worker choice
 * needs): a line renders to a few hundred bytes of UBL.
 */
function estimatedJsonBytes(document: Record<string, unknown>): number {
  return 2_000 + (Array.isArray(document.lines) ? document.lines.length * 400 : 0);
}

/** A parse task of the send path, on the document workers (or inline when small); pure-layer errors become DomainErrors. */
async function parseOnWorkers<T>(workers: WorkerPool, fn: string, args: unknown[], size: number, tasks: string = PARSE_TASKS): Promise<T> {
  try {
    return await workers.run<T>(tasks, fn, args, size);
  } catch (err) {
    return asDomainError(err);
  }
}

/** Where a send goes: its country and network select the rules; the Peppol ids address a derived UBL (BT-34 / BT-49). */
interface Destination {
  country?: string | undefined;
  network?: 'peppol' | undefined;
  senderPeppolId?: string | null | undefined;
  recipientPeppolId?: string | null | undefined;
}

/** A send is validated with the destination country's packs and the rules of the network carrying it. */
async function buildArtefact(workers: WorkerPool, ctx: Context, p: FormattedSend, destination: Destination): Promise<Artefact> {
  const base = { filename: null, xml: null, xmlSyntax: null, hasPdf: false, storedFormat: null, fileId: null } as const;
  const destinationParams = { ...(destination.country ? { country: destination.country } : {}), ...(destination.network ? { network: destination.network } : {}) };
  switch (p.format) {
    case 'json': {
      if (!p.document) throw missing('document', 'format=json needs `document`');
      if (!BILLING_TYPES.has(p.type)) {
        const number = typeof p.document.number === 'string' || typeof p.document.number === 'number' ? String(p.document.number) : '';
        if (!number) throw missing('document.number', 'document.number is required');
        const issueDate = typeof p.document.issueDate === 'string' ? p.document.issueDate.slice(0, 10) : null;
        return { ...base, number, issueDate, dueDate: null, currency: typeof p.document.currency === 'string' ? p.document.currency : null, totalAmount: null, sellerKey: null, original: Buffer.from(JSON.stringify(p.document)), originalContentType: 'application/json', normalized: { type: p.type, ...p.document } };
      }
      // Normalised once, here: validation gets the rendered UBL, and its findings are located in
      // the JSON body for the caller.
      const envelope: JsonEnvelope = { type: p.type, documentSubtype: p.documentSubtype, selfBilled: p.selfBilled, document: p.document };
      const { canonical, xml } = await parseOnWorkers<RenderedJson>(workers, 'renderJson', [envelope, systemClock.now().toISOString().slice(0, 10)], estimatedJsonBytes(p.document));
      const result = await call(ctx, validate, { format: 'ubl-xml', xml, ...destinationParams });
      if (!result.valid) throw validationFailed(withJsonLocations(result.findings));
      return { ...base, ...fromCanonical(canonical), original: Buffer.from(xml, 'utf8'), originalContentType: 'application/xml', xml, xmlSyntax: 'ubl-2.1' };
    }
    case 'ubl-xml':
    case 'cii-xml': {
      if (!p.xml) throw missing('xml', `format=${p.format} needs \`xml\``);
      const bytes = Buffer.from(p.xml, 'utf8');
      if (p.type === 'purchase-order') return purchaseOrderArtefact(workers, ctx, p.xml, bytes, destinationParams);
      const detected = detectFormat(bytes).format;
      const expected = p.format === 'ubl-xml' ? 'ubl' : 'cii';
      if (detected !== expected) {
        const msg = detected === 'zugferd-1'
          ? `format=${p.format} but the XML is a ZUGFeRD 1.0 CrossIndustryDocument: send it with format=auto, which reads it and delivers its EN 16931 form`
          : `format=${p.format} but the XML is ${detected === 'ubl' ? 'UBL' : detected === 'cii' ? 'CII' : 'neither UBL nor CII'}`;
        throw new DomainError('INVALID_REQUEST', msg, { details: [issue('xml', 'format', msg)] });
      }
      const result = await call(ctx, validate, { format: p.format, xml: p.xml, ...destinationParams });
      if (!result.valid) throw validationFailed(result.findings);
      const parsed = await parseOnWorkers<ParsedForSend>(workers, 'canonicalFromXml', [p.format, bytes], bytes.length);
      return { ...base, ...fromCanonical(parsed.canonical), original: bytes, originalContentType: 'application/xml', xml: p.xml, xmlSyntax: parsed.syntax };
    }
    case 'auto': {
      const content = p.file?.content;
      if (!content) throw missing('file.content', 'format=auto needs `file.content` (base64) or a raw body');
      // Validation checks the base64 (on a worker, refusing it with the same 400 as decodeBase64Field);
      // only a valid deposit is decoded here, without a second multi-megabyte check on the event loop.
      const result = await call(ctx, validate, { format: 'auto', file: { content }, ...destinationParams });
      if (!result.valid) throw validationFailed(result.findings);
      const bytes = Buffer.from(content, 'base64');
      // A ZUGFeRD 1.0 deposit travels as EN 16931 UBL on a Peppol network, as CII elsewhere.
      const target: DeliveryTarget = {
        syntax: destination.network === 'peppol' ? 'ubl' : 'cii',
        ...(destination.senderPeppolId ? { sellerEndpoint: destination.senderPeppolId } : {}),
        ...(destination.recipientPeppolId ? { buyerEndpoint: destination.recipientPeppolId } : {}),
      };
      const deposit = await parseOnWorkers<ParsedForSend>(workers, 'canonicalFromDeposit', [bytes, target], bytes.length);
      if (deposit.derivedFrom && target.syntax === 'ubl') {
        // The validation above ran the rules on the derived CII; the UBL a Peppol network carries
        // (with its BIS identifiers and the routing's endpoints) is checked as it will be delivered.
        const delivered = await call(ctx, validate, { format: 'ubl-xml', xml: deposit.xml!, ...destinationParams });
        if (!delivered.valid) throw validationFailed(delivered.findings);
      }
      return {
        ...base, ...fromCanonical(deposit.canonical), original: bytes,
        originalContentType: deposit.pdf ? 'application/pdf' : 'application/xml', filename: p.file?.filename ?? p.filename ?? null,
        xml: deposit.xml ?? bytes.toString('utf8'), xmlSyntax: deposit.syntax, hasPdf: deposit.pdf === true,
      };
    }
    default: {
      // raw: stored as is, no routing, no structured validation
      const bytes = p.file?.content ? decodeBase64Field(p.file.content, 'file.content') : undefined;
      if (!bytes || bytes.length === 0) throw missing('file.content', 'format=raw needs `file.content` (base64) or a raw body');
      const declared = p.file?.contentType ?? p.contentType;
      const deposit = pure(() => rawDeposit(bytes, declared));
      const number = typeof p.document?.number === 'string' ? p.document.number : null;
      return {
        ...base, number, issueDate: null, dueDate: null, currency: null, totalAmount: null, sellerKey: null,
        original: bytes, originalContentType: deposit.contentType, filename: p.file?.filename ?? p.filename ?? null,
        normalized: null, storedFormat: deposit.storedFormat, fileId: newId('file'),
      };
    }
  }
}

/** Is the recipient French: a French reception point, or a Peppol id of a French scheme (0009 SIREN …)? */
function frenchRecipient(resolved: Resolved): boolean {
  return resolved.country === 'FR' || (resolved.peppolId !== null && countryOfPeppolId(resolved.peppolId) === 'FR');
}

/**
 * outputFormat=factur-x: the invoice drawn and its CII embedded (a CII record as it is, else the
 * invoice written as EN 16931 CII, which is validated with the destination's rules first: it is what
 * travels). The original stays the record; `xml` becomes the CII delivered.
 */
async function withFacturX(workers: WorkerPool, ctx: Context, artefact: Artefact, documentId: string, destination: Destination): Promise<Artefact> {
  const canonical = artefact.normalized as unknown as CanonicalInvoice;
  const cii = artefact.xmlSyntax?.startsWith('cii') && artefact.xml ? artefact.xml : undefined;
  const built = await parseOnWorkers<FacturX>(workers, 'renderFacturX', [canonical, { documentId, ...(cii ? { cii } : {}) }], 4_000 + canonical.lines.length * 4_000, RENDER_TASKS);
  if (!cii) {
    const destinationParams = { ...(destination.country ? { country: destination.country } : {}), ...(destination.network ? { network: destination.network } : {}) };
    const result = await call(ctx, validate, { format: 'cii-xml', xml: built.xml, ...destinationParams });
    if (!result.valid) throw validationFailed(result.findings);
  }
  return { ...artefact, xml: built.xml, xmlSyntax: 'cii-d16b', outputFormat: 'factur-x', outputContent: Buffer.from(built.pdf.buffer, built.pdf.byteOffset, built.pdf.byteLength) };
}

/** What outputFormat=factur-x needs: a structured invoice (not already a PDF) for a French recipient. */
function assertFacturXOutput(p: FormattedSend, resolved: Resolved | undefined, artefact: Artefact): void {
  const refuse = (message: string): never => { throw new DomainError('INVALID_REQUEST', message, { details: [issue('outputFormat', 'factur-x', message)] }); };
  if (!BILLING_TYPES.has(p.type) || !artefact.normalized) refuse(`outputFormat=factur-x takes an invoice, credit note or debit note sent as json, ubl-xml, cii-xml or auto (XML), not a ${p.type} sent as ${p.format}`);
  if (artefact.hasPdf) refuse('outputFormat=factur-x: this deposit is a PDF already; it travels as it is');
  if (!resolved || !frenchRecipient(resolved)) refuse('outputFormat=factur-x is for French recipients (a French reception point or a French Peppol id such as 0009:<SIREN>)');
}
/**
 * A purchase order as its UBL 2.1 Order (Peppol BIS Order 3.0): the schema judges it, the API's
 * purchase order is its normalised JSON, its payable amount the total payments are counted against.
 */
async function purchaseOrderArtefact(workers: WorkerPool, ctx: Context, xml: string, bytes: Buffer, destinationParams: { country?: string; network?: 'peppol' }): Promise<Artefact> {
  if (!detectUblOrder(bytes)) {
    const msg = 'a purchase-order sent as ubl-xml must be a UBL 2.1 Order (namespace urn:oasis:names:specification:ubl:schema:xsd:Order-2)';
    throw new DomainError('INVALID_REQUEST', msg, { details: [issue('xml', 'format', msg)] });
  }
  const result = await call(ctx, validate, { format: 'ubl-xml', xml, ...destinationParams });
  if (!result.valid) throw validationFailed(result.findings);
  const order = await parseOnWorkers<PurchaseOrder>(workers, 'purchaseOrderFromXml', [bytes], bytes.length);
  return {
    number: order.number || null, issueDate: order.issueDate || null, dueDate: null, currency: order.currency, totalAmount: money2(order.totals.payable),
    sellerKey: null, original: bytes, originalContentType: 'application/xml', filename: null, xml, xmlSyntax: 'ubl-2.1',
    normalized: order as unknown as Record<string, unknown>, hasPdf: false, storedFormat: null, fileId: null,
  };
}

const money2 = (n: number): string => n.toFixed(2);

interface Resolved {
  parsed: ParsedRecipient;
  participant: Participant;
  connectorId: string;
  echo: Record<string, string>;
  peppolId: string | null;
  name: string | null;
  country: string | undefined;
  /** The network of the connector carrying it, when that network's rules apply whatever the CustomizationID. */
  network: 'peppol' | undefined;
}

async function resolveRecipient(ctx: Context, p: SendParams, auth: Principal, senderCountry: string | null): Promise<Resolved> {
  const parsed = pure(() => parseRecipient(p.to, p.metadata));
  const participant: Participant = {};
  if (parsed.kind === 'company') participant.companyId = parsed.companyId;
  else participant.peppolId = parsed.peppolId;
  if (parsed.kind === 'reception-point') {
    participant.addressingIdentifier = parsed.addressingIdentifier;
    participant.country = 'FR';
  }
  if (parsed.recipientRouting?.addressingSuffix) participant.addressingSuffix = parsed.recipientRouting.addressingSuffix;
  const manifests = registeredManifests(ctx.broker);
  // A Peppol id that names its country (9945:PL…, 9947:RO…) puts that country's own connector first (its
  // tax platform clears the document). Only routing reads it, not the rule packs.
  const routingCountry = participant.country ?? (participant.peppolId ? countryOfPeppolId(participant.peppolId) : undefined);
  const candidates = candidateConnectors(manifests, { livemode: auth.livemode, country: routingCountry ?? null, senderCountry, documentType: p.type });
  const shown = participant.peppolId ?? participant.companyId ?? p.to!;
  if (!candidates.length) {
    if (auth.livemode) {
      // Nothing here carries it; the network's own directory can still say the recipient is unknown.
      const directories = verifyingConnectors(manifests, { livemode: true, documentType: p.type });
      if (directories.length) assertReachable((await discoverRecipient(ctx, directories, { recipient: participant, documentType: p.type, livemode: true })).check, shown, p.type);
      throw new DomainError('UPSTREAM_UNAVAILABLE', 'No live network connector is configured on this deployment; use a sandbox (test) key or install a live connector', { retryAfter: 60 });
    }
    throw new DomainError('RECIPIENT_CANNOT_RECEIVE', `No connector carries documents of type ${p.type}`, { details: [issue('type', 'routing', `no connector carries ${p.type}`)] });
  }
  const { manifest, check } = await discoverRecipient(ctx, candidates, { recipient: participant, documentType: p.type, livemode: auth.livemode });
  assertReachable(check, shown, p.type);
  const echo: Record<string, string> = { ...(parsed.to as Record<string, string>) };
  if (parsed.kind === 'company') echo.companyId = parsed.companyId;
  if (check.peppolId && !echo.peppolId) echo.peppolId = check.peppolId;
  if (check.name) echo.name = check.name;
  return { parsed, participant, connectorId: manifest.id, echo, peppolId: check.peppolId ?? echo.peppolId ?? null, name: check.name ?? null, country: participant.country, network: manifest.network };
}

/** 422 when the network does not know the recipient, or knows it does not take this type. */
function assertReachable(check: CheckResult, shown: string, type: string): void {
  if (!check.known) {
    throw new DomainError('RECIPIENT_NOT_FOUND', `Recipient ${shown} is not registered on the network`, { details: [issue('to', 'registered', `${shown} is registered nowhere`)] });
  }
  if (!check.canReceive) {
    throw new DomainError('RECIPIENT_CANNOT_RECEIVE', `Recipient ${shown} does not accept documents of type ${type}`, {
      details: [issue('type', 'recipientCapabilities', `${shown} accepts: ${check.documentTypes.join(', ') || 'nothing'}`)],
      extra: { documentTypes: check.documentTypes },
    });
  }
}

/** Where the issuing party sits in the caller's own format, for the error's `field`. */
const ISSUER_FIELD: Record<string, Record<'seller' | 'buyer', string>> = {
  json: { seller: 'document.seller', buyer: 'document.buyer' },
  'ubl-xml': { seller: 'cac:AccountingSupplierParty', buyer: 'cac:AccountingCustomerParty' },
  'cii-xml': { seller: 'ram:SellerTradeParty', buyer: 'ram:BuyerTradeParty' },
};

/** The company sending a document must be the one issuing it (mappings/canonical/issuer.ts has the rules). */
function assertIssuer(artefact: Artefact, company: CompanyRef, p: Pick<FormattedSend, 'format' | 'selfBilled'>): void {
  const canonical = artefact.normalized as unknown as CanonicalInvoice | null;
  if (!canonical?.seller) return;
  const verdict = checkIssuer(canonical, company);
  if (verdict.ok) return;
  const syntax = p.format === 'auto' ? (artefact.xmlSyntax?.startsWith('cii') ? 'cii-xml' : 'ubl-xml') : p.format;
  // A self-billed JSON invoice names its issuer (the buyer) as `document.seller`: the roles are swapped.
  const swapped = p.format === 'json' && p.selfBilled === true;
  const field = swapped ? 'document.seller' : ISSUER_FIELD[syntax]?.[verdict.expected] ?? verdict.expected;
  const named = verdict.named.length ? verdict.named.join(', ') : 'no identifier';
  const mine = [company.vatNumber && `VAT ${company.vatNumber}`, company.peppolId && `Peppol id ${company.peppolId}`].filter(Boolean).join(', ');
  const message = `The ${verdict.expected} of this document (${named}) is not the sending company (${mine || company.id}); send it from the company it names${verdict.expected === 'seller' ? ', or name this company as its tax representative or payee' : ''}`;
  throw new DomainError('ISSUER_MISMATCH', message, { details: [issue(field, 'issuer', message)] });
}

/** A send whose format is known: the caller's, or the organization's preferred one. */
type FormattedSend = SendParams & { format: string };

/**
 * A send without `format` takes the one the organization's platform prefers for its tenants
 * (`defaults.preferredFormat`, PATCH /v1/platform/settings); without one, `format` is missing.
 */
async function withFormat(ctx: Context, auth: Principal, p: SendParams): Promise<FormattedSend> {
  if (p.format) return p as FormattedSend;
  const { preferredFormat } = await call(ctx, tenantDefaults, { organizationId: auth.organizationId });
  if (!preferredFormat) throw missing('format', 'format is required (json, ubl-xml, cii-xml, auto or raw): this organization sets no preferred format');
  return { ...p, format: preferredFormat };
}

/**
 * The document an earlier run of this very send created, within its key's 24 hours: its answer
 * never reached the client (the gateway died, the client timed out, a 5xx released the claim), so
 * the client's retry with the same Idempotency-Key gets that document, not a duplicate-number 409.
 * The same key with another body is refused as the gateway refuses it while it holds the answer.
 */
async function earlierSend(em: ReturnType<typeof emOf>, organizationId: string, idempotency: RequestIdempotency): Promise<DocumentView | undefined> {
  const doc = await em.findOne(Document, { organizationId, idempotencyKey: idempotency.key, createdAt: { $gt: new Date(Date.now() - IDEMPOTENCY_TTL_MS) } });
  if (!doc) return undefined;
  if (doc.idempotencyRequestHash !== idempotency.requestHash) {
    throw new DomainError('IDEMPOTENCY_BODY_MISMATCH', 'This Idempotency-Key was already used with a different request body; use a new key for a different request');
  }
  return documentView(doc);
}

export async function sendOne(this: DocsThis, ctx: Context, params: SendParams, idempotency?: RequestIdempotency): Promise<DocumentView> {
  const auth = principalOf(ctx);
  const em = emOf(ctx).fork();
  if (idempotency) {
    const earlier = await earlierSend(em, auth.organizationId, idempotency);
    if (earlier) return earlier;
  }
  const p = await withFormat(ctx, auth, params);
  // The acting company is tenancy's: asked before any transaction opens.
  const company = await call(ctx, companyOf, { organizationId: auth.organizationId, companyId: auth.companyId! });
  if (!company) throw new DomainError('COMPANY_FORBIDDEN', `Company '${auth.companyId}' is not one this credential may act for`);
  if (p.from && p.from !== company.id && p.from !== company.peppolId) {
    throw new DomainError('COMPANY_FORBIDDEN', `from '${p.from}' is not the acting company (${company.id}${company.peppolId ? ` / ${company.peppolId}` : ''})`, { details: [issue('from', 'actingCompany', 'from must be the id or Peppol id of the company this call acts for')] });
  }
  if (p.documentSubtype !== undefined && p.documentSubtype !== '' && p.type !== 'invoice') {
    throw new DomainError('INVALID_REQUEST', 'documentSubtype is only allowed with type=invoice', { details: [issue('documentSubtype', 'invoice-only', 'documentSubtype is only allowed with type=invoice')] });
  }
  const routed = p.format !== 'raw' && p.type !== 'event';
  if (routed && !p.to) throw missing('to', 'to is required for every type except event');
  // A purchase order also travels as its own UBL 2.1 Order (Peppol BIS Order 3.0).
  if (p.format !== 'json' && p.format !== 'raw' && !BILLING_TYPES.has(p.type) && !(p.type === 'purchase-order' && p.format === 'ubl-xml')) {
    throw new DomainError('INVALID_REQUEST', `format=${p.format} carries invoices, credit notes and debit notes (and purchase orders as ubl-xml); send a ${p.type} as json or raw`, { details: [issue('format', 'type', `format=${p.format} needs an invoice, credit-note or debit-note`)] });
  }

  const resolved = routed ? await resolveRecipient.call(this, ctx, p, auth, company.country ?? null) : undefined;
  const destination: Destination = { country: resolved?.country, network: resolved?.network, senderPeppolId: company.peppolId, recipientPeppolId: resolved?.peppolId };
  let artefact = await buildArtefact(this.workers, ctx, p, destination);
  if (BILLING_TYPES.has(p.type)) assertIssuer(artefact, company, p);
  const documentId = newId('document');
  if (p.outputFormat === 'factur-x') {
    assertFacturXOutput(p, resolved, artefact);
    artefact = await withFacturX(this.workers, ctx, artefact, documentId, destination);
  }
  const sellerKey = BILLING_TYPES.has(p.type) && artefact.number ? (artefact.sellerKey ?? company.vatNumber ?? company.id) : null;

  const clock = await companyClock(em, company.id);
  const now = clock.now();
  // The legal record goes to the artefact store before the transaction opens (originals.ts).
  const stored = { organizationId: auth.organizationId, livemode: auth.livemode, country: company.country ?? null, storedAt: now };
  const originalSha256 = await storeOriginal(this.broker, { ...stored, bytes: artefact.original, contentType: artefact.originalContentType });
  // The form it travels in (a Factur-X PDF) is kept as long: it is what the recipient received.
  const outputSha256 = artefact.outputContent ? await storeOriginal(this.broker, { ...stored, bytes: artefact.outputContent, contentType: 'application/pdf' }) : null;
  const metadata = p.metadata ? { ...p.metadata } : null;
  const routing = resolved?.parsed.recipientRouting;
  const finalMetadata = routing ? { ...(metadata ?? {}), recipientRouting: { ...routing } } : metadata;

  let doc!: Document;
  try {
    await em.transactional(async (tx) => {
      // A key past its 24 hours is free again: the document that held it lets it go.
      if (idempotency) await tx.nativeUpdate(Document, { organizationId: auth.organizationId, idempotencyKey: idempotency.key, createdAt: { $lte: new Date(Date.now() - IDEMPOTENCY_TTL_MS) } }, { idempotencyKey: null, idempotencyRequestHash: null });
      if (sellerKey) {
        // An invoice a tax authority refused was never issued: its number is free (as the unique index says).
        const existing = await tx.findOne(Document, { organizationId: auth.organizationId, livemode: auth.livemode, sellerKey, type: p.type, number: artefact.number, direction: 'outgoing', $or: [{ clearanceStatus: null }, { clearanceStatus: { $ne: 'rejected' } }] });
        if (existing) throw duplicate(artefact.number!, existing.id);
      }
      const lifecycle: LifecycleEntry[] = [];
      doc = tx.create(Document, {
        id: documentId,
        organizationId: auth.organizationId,
        companyId: company.id,
        livemode: auth.livemode,
        direction: 'outgoing',
        type: p.type,
        documentSubtype: p.documentSubtype !== undefined ? String(p.documentSubtype) : null,
        format: recordedFormat(p.format, artefact.xmlSyntax),
        number: artefact.number,
        issueDate: artefact.issueDate,
        dueDate: artefact.dueDate,
        currency: artefact.currency,
        totalAmount: artefact.totalAmount,
        sellerKey,
        senderPeppolId: company.peppolId ?? null,
        senderName: company.name,
        receiverPeppolId: resolved?.peppolId ?? null,
        receiverName: resolved?.name ?? null,
        recipient: resolved?.echo ?? null,
        metadata: finalMetadata,
        status: routed ? 'sent' : 'stored',
        lifecycleCode: null,
        lifecycle,
        deliveryStatus: routed ? 'pending' : 'stored',
        connectorId: resolved?.connectorId ?? null,
        connectorMessageId: null,
        evidence: null,
        deliveryAttempts: 0,
        nextAttemptAt: routed ? now : null,
        errorCode: null,
        errorMessage: null,
        sentAt: null,
        deliveredAt: null,
        counterpartId: null,
        originalSha256,
        originalContent: null,
        originalContentType: artefact.originalContentType,
        originalFilename: artefact.filename,
        fileId: artefact.fileId,
        storedFormat: artefact.storedFormat,
        xml: artefact.xml,
        xmlSyntax: artefact.xmlSyntax,
        normalized: artefact.normalized,
        hasPdf: artefact.hasPdf,
        pdfCopy: !artefact.hasPdf && pdfCopyOf(artefact.normalized) !== null,
        outputFormat: artefact.outputFormat ?? null,
        outputSha256,
        readAt: null,
        archivedAt: null,
        idempotencyKey: idempotency?.key ?? null,
        idempotencyRequestHash: idempotency?.requestHash ?? null,
        notes: [],
        relatedDocumentIds: [],
      });
      if (routed && BILLING_TYPES.has(p.type)) {
        // 200 Deposited: the send passed format, identifier and directory controls.
        const deposited = applyStep(tx, doc, entryFor('200', 'seller_platform', now));
        if (deposited) await this.recordEvent(ctx, tx, deposited);
      }
      if (routed) scheduleJobs(tx, [{ kind: DELIVER_JOB, ref: doc.id, companyId: company.id, dueAt: now }]);
      await tx.flush();
    });
  } catch (err) {
    if ((err as { name?: string }).name !== 'UniqueConstraintViolationException') throw err;
    // A run of the same send that overtook this one (its claim lapsed while this one was slow) won.
    const earlier = idempotency ? await earlierSend(em.fork(), auth.organizationId, idempotency) : undefined;
    if (earlier) return earlier;
    if (sellerKey) throw duplicate(artefact.number!, null);
    throw err;
  }
  if (routed) void this.broker.broadcast(WAKE_EVENT, { kind: DELIVER_JOB });
  return documentView(doc);
}

/** Each batch item is checked with the send contract's own schema (a bad item fails alone). */
const checkSendItem = compileParamsChecker<SendParams>(contract.send.params);

export async function sendBatch(this: DocsThis, ctx: Context<{ documents: unknown[] }>): Promise<{ results: BatchItemResult[] }> {
  const results: BatchItemResult[] = new Array(ctx.params.documents.length);
  const one = async (index: number, item: unknown): Promise<BatchItemResult> => {
    try {
      return { index, status: 'created', document: await sendOne.call(this, ctx, checkSendItem(item)), error: null };
    } catch (err) {
      // Other items may already be sent: a failing item is reported in its row, never by failing the batch.
      const code = specCodeOf(err);
      if (!code) {
        this.logger.error(`[${(ctx.meta as { requestId?: string }).requestId}] batch item ${index} failed`, err);
        return { index, status: 'failed', document: null, error: { code: 'INTERNAL_ERROR', message: 'An internal error occurred for this item; retry it with backoff and report the requestId', details: [] } };
      }
      const e = err as { message: string; data?: { details?: unknown[] } };
      return { index, status: 'failed', document: null, error: { code, message: e.message, details: e.data?.details ?? [] } };
    }
  };
  // A few items at a time (each is its own transaction); results keep the input order.
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, results.length) }, async () => {
    while (next < results.length) {
      const index = next++;
      results[index] = await one(index, ctx.params.documents[index]);
    }
  }));
  return { results };
}
