/**
 * documents: the send pipeline (envelope rules, recipient resolution through the routed connector,
 * validation through `validation.validate`, duplicate numbers), delivery on the scheduler, the
 * receive side, reads and search, the French lifecycle and document actions. Every event is written
 * through the outbox in the transaction of the state change it reports.
 */
import type { Context, Service, ServiceSchema } from 'moleculer';
import FastestValidator from 'fastest-validator';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OrmMixin, emOf } from '../../mixins/orm.mixin.ts';
import { OutboxMixin, recordEvent, type OutboxEventInput } from '../../mixins/outbox.mixin.ts';
import { SchedulerMixin, WAKE_EVENT } from '../../mixins/scheduler.mixin.ts';
import { OUTBOX_WRITTEN_EVENT } from '../events/events.contract.ts';
import { completeJobs, releaseJobs, rescheduleJob, scheduleJobs, type ClaimedJob } from '../shared/scheduler/scheduler.ts';
import { implement } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import { principalOf, type Principal } from '../shared/auth.ts';
import { companyClock, systemClock } from '../shared/clock.ts';
import { loadConfig } from '../shared/config.ts';
import { DomainError, specCodeOf, rethrowAsDomainError, decodeBase64Field, type FieldIssue } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { encodeCursor, readPageRequest, type Page } from '../shared/pagination.ts';
import { Company } from '../tenancy/company.entity.ts';
import { Organization } from '../tenancy/organization.entity.ts';
import { validate } from '../validation/validation.contract.ts';
import { adapterContracts, registeredManifests } from '../connectors/adapters.contract.ts';
import { connectorSettings } from '../shared/connector-settings.ts';
import type { CheckResult, ConnectorManifest, OutboundMessage, Participant, SendResult, StatusResult } from '../../adapters/sdk/index.ts';
import { rawDeposit, detectFormat, parseRecipient, withJsonLocations, type CanonicalInvoice, type ParsedRecipient } from '../../mappings/index.ts';
import { acquireWorkerPool, releaseWorkerPool, type WorkerPool } from '../shared/worker-pool.ts';
import { PARSE_TASKS, type JsonEnvelope, type ParsedForSend, type RenderedJson } from './parse.tasks.ts';
import { Document, type LifecycleEntry } from './document.entity.ts';
import { FRENCH_STATUSES, allowedTransitions, apiStatusOf, canMove, resolveTransition, type Party } from './lifecycle.ts';
import { SearchError, afterCursor, compileFilters, cursorValues, orderBy, parseSort } from './search.ts';
import { candidateConnectors } from './router.ts';
import { ConnectorSlots } from './connector-slots.ts';
import * as contract from './documents.contract.ts';
import type { DocumentView, SendParams, LifecycleView, BatchItemResult } from './documents.contract.ts';

const BILLING_TYPES = new Set(['invoice', 'credit-note', 'debit-note']);
export const DELIVER_JOB = 'document.deliver';
/** A temporary transport failure is re-sent automatically up to this many times (spec: TRANSPORT_FAILURE). */
export const MAX_RESENDS = 5;
/** Batch items sent side by side. */
const BATCH_CONCURRENCY = 4;

// ---------------------------------------------------------------------------------------------
// helpers

/** Errors of the pure layers become DomainErrors at this boundary (their fields survive NATS). */
function asDomainError(err: unknown): never {
  if (err instanceof SearchError) throw new DomainError('INVALID_REQUEST', err.message, { details: [{ field: err.field, rule: err.rule, message: err.message }] });
  return rethrowAsDomainError(err);
}

function pure<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    return asDomainError(err);
  }
}

const issue = (field: string, rule: string, message: string): FieldIssue => ({ field, rule, message });
const missing = (field: string, message: string) => new DomainError('MISSING_FIELD', message, { details: [issue(field, 'required', message)] });


/** BT-109, the total without VAT, from the normalised document (null for documents without one). */
function netTotalOf(doc: Document): number | null {
  const net = (doc.normalized as { totals?: { taxExclusive?: unknown } } | null | undefined)?.totals?.taxExclusive;
  return net === undefined || net === null || Number.isNaN(Number(net)) ? null : Number(net);
}

/**
 * What a document is recorded as: the syntax `auto` detected (a hybrid PDF is its embedded CII),
 * so both sides see `ubl-xml` or `cii-xml` rather than how the caller asked us to look.
 */
function recordedFormat(requested: string, xmlSyntax: string | null): string {
  if (requested !== 'auto' || !xmlSyntax) return requested;
  return xmlSyntax.startsWith('cii') ? 'cii-xml' : 'ubl-xml';
}

function iso(d: Date | null | undefined): string | null {
  return d ? new Date(d).toISOString() : null;
}

/** Which representations exist (list queries read flags instead of the heavy columns). */
interface Representations { original: boolean; xml: boolean; json: boolean }

function linksOf(doc: Document, has?: Representations): Record<string, string> {
  const base = `/v1/documents/${doc.id}`;
  const links: Record<string, string> = { self: base, lifecycle: `${base}/lifecycle` };
  if (has ? has.original : doc.originalContent != null) links.original = `${base}/original`;
  if (has ? has.xml : !!doc.xml) links.xml = `${base}/xml`;
  if (has ? has.json : !!doc.normalized) links.json = `${base}/json`;
  if (doc.hasPdf) links.pdf = `${base}/pdf`;
  return links;
}

export function documentView(doc: Document, has?: Representations): DocumentView {
  const view: DocumentView = {
    id: doc.id,
    type: doc.type,
    documentSubtype: doc.documentSubtype ?? null,
    direction: doc.direction,
    format: doc.format,
    status: doc.status,
    lifecycleCode: doc.lifecycleCode ?? null,
    deliveryStatus: doc.deliveryStatus,
    companyId: doc.companyId,
    number: doc.number ?? null,
    issueDate: doc.issueDate ?? null,
    dueDate: doc.dueDate ?? null,
    currency: doc.currency ?? null,
    totalAmount: doc.totalAmount === null || doc.totalAmount === undefined ? null : Number(doc.totalAmount),
    from: { peppolId: doc.senderPeppolId ?? null, name: doc.senderName ?? null },
    to: { ...(doc.recipient ?? {}) },
    errorCode: doc.errorCode ?? null,
    errorMessage: doc.errorMessage ?? null,
    sentAt: iso(doc.sentAt),
    deliveredAt: iso(doc.deliveredAt),
    read: doc.readAt != null,
    archived: doc.archivedAt != null,
    notes: doc.notes ?? [],
    relatedDocumentIds: doc.relatedDocumentIds ?? [],
    metadata: doc.metadata ?? null,
    links: linksOf(doc, has),
    createdAt: iso(doc.createdAt)!,
    updatedAt: iso(doc.updatedAt)!,
  };
  if (doc.fileId) {
    view.fileId = doc.fileId;
    view.storedFormat = doc.storedFormat ?? 'raw';
  }
  return view;
}

function scopeOf(auth: Principal): Record<string, unknown> {
  return { organization: auth.organizationId, livemode: auth.livemode, ...(auth.companyId ? { companyId: auth.companyId } : {}) };
}

async function findDocument(em: EntityManager, auth: Principal, id: string): Promise<Document> {
  const doc = await em.findOne(Document, { id, ...scopeOf(auth) });
  if (!doc) throw new DomainError('DOCUMENT_NOT_FOUND', `Document '${id}' was not found`);
  return doc;
}

function partyOf(doc: Document): Party {
  return doc.direction === 'incoming' ? 'buyer' : 'supplier';
}

function currentPartial(doc: Document): boolean {
  return doc.lifecycle.at(-1)?.partial === true;
}

function entryFor(code: string, emittedBy: string, at: Date, extra: Partial<LifecycleEntry> = {}): LifecycleEntry {
  const s = FRENCH_STATUSES[code]!;
  return { code, label: s.label, status: s.apiStatus, emittedBy, at: at.toISOString(), ...extra };
}

/** Peppol participant schemes of French companies (SIRET, SIREN, SIRENE) used by the French addressing rules. */
const FRENCH_SCHEMES = ['0009:', '0225:', '0002:'];

/**
 * Whether a document falls under the French e-invoicing reform, whose lifecycle codes (200–213) and
 * tax-platform reporting apply: addressed through the French directory, or from a French seller to a
 * French buyer. Other documents (a Belgian invoice over Peppol) keep the same API lifecycle, but
 * their events carry no French framework.
 */
function isFrenchReform(doc: Document): boolean {
  const receiver = doc.receiverPeppolId ?? (doc.recipient as { peppolId?: string } | null)?.peppolId ?? '';
  if (doc.recipient?.addressingIdentifier || FRENCH_SCHEMES.some((scheme) => receiver.startsWith(scheme))) return true;
  const n = doc.normalized as { seller?: { address?: { country?: string } }; buyer?: { address?: { country?: string } } } | null | undefined;
  return n?.seller?.address?.country === 'FR' && n?.buyer?.address?.country === 'FR';
}

function complianceOf(code: string, doc: Document): Record<string, unknown> | null {
  if (!isFrenchReform(doc)) return null;
  const s = FRENCH_STATUSES[code]!;
  return { framework: 'fr-ctc', code, label: s.label, reportedToTaxAuthority: s.reportedToTaxAuthority, country: 'FR' };
}

/**
 * Steps whose webhook is not `lifecycle.updated` (spec, French lifecycle table): issued (201) fires
 * `document.sent`, received by the platform (202) `document.delivered`, made available (203)
 * `document.received`, a technical rejection (213) `document.failed`: each emitted by its caller.
 */
const STEPS_WITH_THEIR_OWN_EVENT = new Set(['201', '202', '203', '213']);

/**
 * Appends a lifecycle step and returns the lifecycle.updated event it fires, if any. Deposit (200)
 * fires one only under the French reform, where it is a status reported to the tax platform.
 */
function applyStep(doc: Document, entry: LifecycleEntry): OutboxEventInput | null {
  const previous = doc.lifecycleCode ?? null;
  doc.lifecycle = [...doc.lifecycle, entry];
  doc.lifecycleCode = entry.code;
  if (BILLING_TYPES.has(doc.type) && !(doc.deliveryStatus === 'failed' && entry.code !== '213')) doc.status = apiStatusOf(entry.code, entry.partial === true, doc.direction);
  if (STEPS_WITH_THEIR_OWN_EVENT.has(entry.code) || (entry.code === '200' && !isFrenchReform(doc))) return null;
  return {
    organizationId: doc.organization.id, companyId: doc.companyId, type: 'lifecycle.updated', livemode: doc.livemode,
    data: { documentId: doc.id, previousStatus: previous, currentStatus: entry.code, status: doc.status, label: entry.label, compliance: complianceOf(entry.code, doc) },
  };
}

function validationFailed(findings: Array<{ rule: string; severity: string; location: string; path?: string; message: string }>): DomainError {
  const fatal = findings.filter((f) => f.severity === 'fatal');
  return new DomainError('UBL_VALIDATION_FAILED', `The document fails ${fatal.length} rule(s): ${[...new Set(fatal.map((f) => f.rule))].join(', ')}`, {
    // The caller's own terms first: the JSON path for a JSON send, the XPath for XML.
    details: fatal.map((f) => ({ field: f.path ?? f.location, rule: f.rule, message: f.message })),
    extra: { findings },
  });
}

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

/** A parse task of the send path, on the document workers (or inline when small); pure-layer errors become DomainErrors. */
/**
 * A JSON document's size without serialising it on the event loop (what the inline-or-worker choice
 * needs): a line renders to a few hundred bytes of UBL.
 */
function estimatedJsonBytes(document: Record<string, unknown>): number {
  return 2_000 + (Array.isArray(document.lines) ? document.lines.length * 400 : 0);
}

async function parseOnWorkers<T>(workers: WorkerPool, fn: string, args: unknown[], size: number): Promise<T> {
  try {
    return await workers.run<T>(PARSE_TASKS, fn, args, size);
  } catch (err) {
    return asDomainError(err);
  }
}

async function buildArtefact(workers: WorkerPool, ctx: Context, p: SendParams, country: string | undefined): Promise<Artefact> {
  const base = { filename: null, xml: null, xmlSyntax: null, hasPdf: false, storedFormat: null, fileId: null } as const;
  const countryParam = country ? { country } : {};
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
      const result = await call(ctx, validate, { format: 'ubl-xml', xml, ...countryParam });
      if (!result.valid) throw validationFailed(withJsonLocations(result.findings));
      return { ...base, ...fromCanonical(canonical), original: Buffer.from(xml, 'utf8'), originalContentType: 'application/xml', xml, xmlSyntax: 'ubl-2.1' };
    }
    case 'ubl-xml':
    case 'cii-xml': {
      if (!p.xml) throw missing('xml', `format=${p.format} needs \`xml\``);
      const bytes = Buffer.from(p.xml, 'utf8');
      const detected = detectFormat(bytes).format;
      const expected = p.format === 'ubl-xml' ? 'ubl' : 'cii';
      if (detected !== expected) {
        const msg = `format=${p.format} but the XML is ${detected === 'ubl' ? 'UBL' : detected === 'cii' ? 'CII' : 'neither UBL nor CII'}`;
        throw new DomainError('INVALID_REQUEST', msg, { details: [issue('xml', 'format', msg)] });
      }
      const result = await call(ctx, validate, { format: p.format, xml: p.xml, ...countryParam });
      if (!result.valid) throw validationFailed(result.findings);
      const parsed = await parseOnWorkers<ParsedForSend>(workers, 'canonicalFromXml', [p.format, bytes], bytes.length);
      return { ...base, ...fromCanonical(parsed.canonical), original: bytes, originalContentType: 'application/xml', xml: p.xml, xmlSyntax: parsed.syntax };
    }
    case 'auto': {
      const content = p.file?.content;
      if (!content) throw missing('file.content', 'format=auto needs `file.content` (base64) or a raw body');
      // Validation checks the base64 (on a worker, refusing it with the same 400 as decodeBase64Field);
      // only a valid deposit is decoded here, without a second multi-megabyte check on the event loop.
      const result = await call(ctx, validate, { format: 'auto', file: { content }, ...countryParam });
      if (!result.valid) throw validationFailed(result.findings);
      const bytes = Buffer.from(content, 'base64');
      const deposit = await parseOnWorkers<ParsedForSend>(workers, 'canonicalFromDeposit', [bytes], bytes.length);
      const hybrid = deposit.hybridXml !== undefined;
      return {
        ...base, ...fromCanonical(deposit.canonical), original: bytes,
        originalContentType: hybrid ? 'application/pdf' : 'application/xml', filename: p.file?.filename ?? p.filename ?? null,
        xml: deposit.hybridXml ?? bytes.toString('utf8'), xmlSyntax: deposit.syntax, hasPdf: hybrid,
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

interface Resolved {
  parsed: ParsedRecipient;
  participant: Participant;
  connectorId: string;
  echo: Record<string, string>;
  peppolId: string | null;
  name: string | null;
  country: string | undefined;
}

async function resolveRecipient(ctx: Context, p: SendParams, auth: Principal): Promise<Resolved> {
  const parsed = pure(() => parseRecipient(p.to, p.metadata));
  const participant: Participant = {};
  if (parsed.kind === 'company') participant.companyId = parsed.companyId;
  else participant.peppolId = parsed.peppolId;
  if (parsed.kind === 'reception-point') {
    participant.addressingIdentifier = parsed.addressingIdentifier;
    participant.country = 'FR';
  }
  if (parsed.recipientRouting?.addressingSuffix) participant.addressingSuffix = parsed.recipientRouting.addressingSuffix;
  const candidates = candidateConnectors(registeredManifests(ctx.broker), { livemode: auth.livemode, country: participant.country ?? null, documentType: p.type });
  if (!candidates.length) {
    if (auth.livemode) throw new DomainError('UPSTREAM_UNAVAILABLE', 'No live network connector is configured on this deployment; use a sandbox (test) key or install a live connector', { retryAfter: 60 });
    throw new DomainError('RECIPIENT_CANNOT_RECEIVE', `No connector carries documents of type ${p.type}`, { details: [issue('type', 'routing', `no connector carries ${p.type}`)] });
  }
  const { manifest, check } = await discover(ctx, candidates, { recipient: participant, documentType: p.type, livemode: auth.livemode });
  const shown = participant.peppolId ?? participant.companyId ?? p.to!;
  if (!check.known) {
    throw new DomainError('RECIPIENT_NOT_FOUND', `Recipient ${shown} is not registered on the network`, { details: [issue('to', 'registered', `${shown} is registered nowhere`)] });
  }
  if (!check.canReceive) {
    throw new DomainError('RECIPIENT_CANNOT_RECEIVE', `Recipient ${shown} does not accept documents of type ${p.type}`, {
      details: [issue('type', 'recipientCapabilities', `${shown} accepts: ${check.documentTypes.join(', ') || 'nothing'}`)],
      extra: { documentTypes: check.documentTypes },
    });
  }
  const echo: Record<string, string> = { ...(parsed.to as Record<string, string>) };
  if (parsed.kind === 'company') echo.companyId = parsed.companyId;
  if (check.peppolId && !echo.peppolId) echo.peppolId = check.peppolId;
  if (check.name) echo.name = check.name;
  return { parsed, participant, connectorId: manifest.id, echo, peppolId: check.peppolId ?? echo.peppolId ?? null, name: check.name ?? null, country: participant.country };
}

/** The first candidate that reaches the recipient (a connector without discovery is taken at its word). */
async function discover(ctx: Context, candidates: ConnectorManifest[], req: { recipient: Participant; documentType: string; livemode: boolean }): Promise<{ manifest: ConnectorManifest; check: CheckResult }> {
  let first: { manifest: ConnectorManifest; check: CheckResult } | undefined;
  for (const manifest of candidates) {
    const check: CheckResult = manifest.capabilities.discover
      ? await call(ctx, adapterContracts(manifest.id).check, req)
      : { known: true, canReceive: true, documentTypes: [...manifest.documentTypes] };
    if (check.known) return { manifest, check };
    first ??= { manifest, check };
  }
  return first!;
}

type DocsThis = Service & {
  recordEvent(ctx: Context, em: EntityManager, input: OutboxEventInput): Promise<unknown>;
  /** Document workers: the send path's parsing runs there, off the event loop. */
  workers: WorkerPool;
};

async function sendOne(this: DocsThis, ctx: Context, p: SendParams): Promise<DocumentView> {
  const auth = principalOf(ctx);
  const em = emOf(ctx).fork();
  const company = await em.findOne(Company, { id: auth.companyId!, organization: auth.organizationId });
  if (!company) throw new DomainError('COMPANY_FORBIDDEN', `Company '${auth.companyId}' is not one this credential may act for`);
  if (p.from && p.from !== company.id && p.from !== company.peppolId) {
    throw new DomainError('COMPANY_FORBIDDEN', `from '${p.from}' is not the acting company (${company.id}${company.peppolId ? ` / ${company.peppolId}` : ''})`, { details: [issue('from', 'actingCompany', 'from must be the id or Peppol id of the company this call acts for')] });
  }
  if (p.documentSubtype !== undefined && p.documentSubtype !== '' && p.type !== 'invoice') {
    throw new DomainError('INVALID_REQUEST', 'documentSubtype is only allowed with type=invoice', { details: [issue('documentSubtype', 'invoice-only', 'documentSubtype is only allowed with type=invoice')] });
  }
  const routed = p.format !== 'raw' && p.type !== 'event';
  if (routed && !p.to) throw missing('to', 'to is required for every type except event');
  if (p.format !== 'json' && p.format !== 'raw' && !BILLING_TYPES.has(p.type)) {
    throw new DomainError('INVALID_REQUEST', `format=${p.format} carries invoices, credit notes and debit notes; send a ${p.type} as json or raw`, { details: [issue('format', 'type', `format=${p.format} needs an invoice, credit-note or debit-note`)] });
  }

  const resolved = routed ? await resolveRecipient.call(this, ctx, p, auth) : undefined;
  const artefact = await buildArtefact(this.workers, ctx, p, resolved?.country);
  const sellerKey = BILLING_TYPES.has(p.type) && artefact.number ? (artefact.sellerKey ?? company.vatNumber ?? company.id) : null;

  const clock = await companyClock(em, company.id);
  const now = clock.now();
  const metadata = p.metadata ? { ...p.metadata } : null;
  const routing = resolved?.parsed.recipientRouting;
  const finalMetadata = routing ? { ...(metadata ?? {}), recipientRouting: { ...routing } } : metadata;

  let doc!: Document;
  try {
    await em.transactional(async (tx) => {
      if (sellerKey) {
        const existing = await tx.findOne(Document, { organization: auth.organizationId, livemode: auth.livemode, sellerKey, type: p.type, number: artefact.number, direction: 'outgoing' });
        if (existing) throw duplicate(artefact.number!, existing.id);
      }
      const lifecycle: LifecycleEntry[] = [];
      doc = tx.create(Document, {
        id: newId('document'),
        organization: auth.organizationId,
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
        deliveryAttempts: 0,
        nextAttemptAt: routed ? now : null,
        errorCode: null,
        errorMessage: null,
        sentAt: null,
        deliveredAt: null,
        counterpartId: null,
        originalContent: artefact.original,
        originalContentType: artefact.originalContentType,
        originalFilename: artefact.filename,
        fileId: artefact.fileId,
        storedFormat: artefact.storedFormat,
        xml: artefact.xml,
        xmlSyntax: artefact.xmlSyntax,
        normalized: artefact.normalized,
        hasPdf: artefact.hasPdf,
        readAt: null,
        archivedAt: null,
        notes: [],
        relatedDocumentIds: [],
      });
      if (routed && BILLING_TYPES.has(p.type)) {
        // 200 Deposited: the send passed format, identifier and directory controls.
        const deposited = applyStep(doc, entryFor('200', 'seller_platform', now));
        if (deposited) await this.recordEvent(ctx, tx, deposited);
      }
      if (routed) scheduleJobs(tx, [{ kind: DELIVER_JOB, ref: doc.id, companyId: company.id, dueAt: now }]);
      await tx.flush();
    });
  } catch (err) {
    if ((err as { name?: string }).name === 'UniqueConstraintViolationException' && sellerKey) throw duplicate(artefact.number!, null);
    throw err;
  }
  if (routed) void this.broker.broadcast(WAKE_EVENT, { kind: DELIVER_JOB });
  return documentView(doc);
}

function duplicate(number: string, existingId: string | null): DomainError {
  return new DomainError('DUPLICATE_DOCUMENT', `Invoice number ${number} was already sent by this seller; send it with a new number`, {
    details: [issue('document.number', 'unique', `number ${number} already used by this seller`)],
    extra: existingId ? { existingId } : {},
  });
}

// ---------------------------------------------------------------------------------------------
// delivery (scheduler jobs)

function payloadOf(doc: Document): OutboundMessage['payload'] {
  return {
    content: Buffer.from(doc.originalContent ?? Buffer.alloc(0)).toString('base64'),
    contentType: doc.originalContentType ?? 'application/octet-stream',
    ...(doc.originalFilename ? { filename: doc.originalFilename } : {}),
    ...(doc.xml ? { xml: doc.xml, syntax: doc.xmlSyntax ?? undefined } : {}),
    ...(doc.normalized ? { normalized: doc.normalized } : {}),
    ...(doc.hasPdf ? { pdf: true } : {}),
  } as OutboundMessage['payload'];
}

function retryDelayMs(attempt: number): number {
  const base = loadConfig().documents.deliveryRetryMs;
  return Math.min(base * 2 ** (attempt - 1), 6 * 3_600_000);
}

/** A claimed job's first wave of outcomes is awaited this long; slower ones are recorded when they end. */
const FIRST_WAVE_MS = 500;
/** A delivery waits this long for a slot of its connector before its job goes back to the queue. */
const SLOT_WAIT_MS = 5_000;
/** A job handed back because its connector is saturated is due again after this long. */
const SATURATED_RETRY_MS = 1_000;
/** Deliveries started or waiting for a slot in this instance at most; past it the claim loop waits. */
const MAX_PENDING_DELIVERIES = 1_000;

interface DeliveryState { slots: ConnectorSlots; inflight: Set<Promise<void>>; stopping: boolean }
type DeliveryThis = Service & { delivery: DeliveryState };

/**
 * Hands claimed jobs to their connectors: each delivery takes a slot of its own connector (or,
 * when the connector stays saturated, goes back to the queue so it holds no lease meanwhile), calls
 * it outside any transaction, and records the outcome when it ends. The handler returns after a
 * short first wave, so a connector that hangs holds its own slots and nothing else.
 */
async function deliverDue(this: DeliveryThis, jobs: ClaimedJob[], em: EntityManager): Promise<void> {
  const rows = await em.fork().find(Document, { id: { $in: jobs.map((j) => j.ref) } }, { fields: ['id', 'connectorId'] });
  const connectorOf = new Map(rows.map((r) => [r.id, r.connectorId ?? null]));
  const { slots, inflight } = this.delivery;
  const started = jobs.map((job) => {
    const connectorId = connectorOf.get(job.ref) ?? null;
    const run: Promise<void> = (async () => {
      const taken = connectorId ? await slots.take(connectorId, SLOT_WAIT_MS) : true;
      // Saturated, or the service is stopping: the job goes back to the queue untouched.
      if (!taken || this.delivery.stopping) {
        if (taken && connectorId) slots.give(connectorId);
        await releaseJobs(em.fork(), [job.id], SATURATED_RETRY_MS);
        return;
      }
      try {
        await deliverJob.call(this, job, em);
      } finally {
        if (connectorId) slots.give(connectorId);
      }
    })()
      .catch((err: unknown) => { this.logger.error(`delivery of ${job.ref} could not be recorded; it is attempted again when its lease ends`, err); })
      .finally(() => { inflight.delete(run); });
    inflight.add(run);
    return run;
  });
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(started), new Promise<void>((resolve) => { timer = setTimeout(resolve, FIRST_WAVE_MS); })]);
  clearTimeout(timer);
  while (inflight.size >= MAX_PENDING_DELIVERIES) await Promise.race(inflight);
}

/** How long a connector may take to answer: within the job's lease, so nobody else claims it meanwhile. */
function deliveryTimeoutMs(): number {
  const cfg = loadConfig();
  return Math.max(1_000, Math.min(cfg.documents.deliveryTimeoutMs, cfg.events.schedulerLeaseMs - 5_000));
}

/** Claim (done by the scheduler), call the connector with no transaction or connection held, then record. */
async function deliverJob(this: Service, job: ClaimedJob, em: EntityManager): Promise<void> {
  const seen = await em.fork().findOne(Document, { id: job.ref });
  if (!seen || seen.deliveryStatus !== 'pending' || !seen.connectorId) { await completeJobs(em.fork(), [job.id]); return; }
  const adapter = adapterContracts(seen.connectorId);
  const waitingForConfirmation = seen.connectorMessageId !== null;
  const options = { timeout: deliveryTimeoutMs(), retries: 0 };

  let outcome: SendResult | StatusResult;
  try {
    if (waitingForConfirmation) {
      outcome = await call(this.broker, adapter.status, { messageId: seen.connectorMessageId!, livemode: seen.livemode }, options);
    } else {
      const msg: OutboundMessage = {
        documentId: seen.id, livemode: seen.livemode, type: seen.type, number: seen.number ?? null,
        sender: { peppolId: seen.senderPeppolId ?? null, name: seen.senderName ?? null, organizationId: seen.organization.id, companyId: seen.companyId },
        recipient: recipientOf(seen),
        payload: payloadOf(seen),
        attempt: seen.deliveryAttempts + 1,
      };
      outcome = await call(this.broker, adapter.send, msg, options);
    }
  } catch (err) {
    // The adapter failed, timed out, is unreachable or its circuit is open: a transport failure
    // like any other, re-sent on the same schedule, so the document always ends delivered or failed.
    this.logger.warn(`delivery of ${seen.id} through adapter.${seen.connectorId} failed: ${(err as Error).message}`);
    outcome = { outcome: 'transient', errorMessage: (err as Error).message.startsWith('adapter.') ? (err as Error).message : `adapter.${seen.connectorId}: ${(err as Error).message}` };
  }
  await recordDelivery.call(this, job, em, seen, waitingForConfirmation, outcome);
}

/** Records a connector's answer, if the document is still where it was when the call began. */
async function recordDelivery(this: Service, job: ClaimedJob, em: EntityManager, seen: Document, waitingForConfirmation: boolean, outcome: SendResult | StatusResult): Promise<void> {
  const events: OutboxEventInput[] = [];
  await em.fork().transactional(async (tx) => {
    const doc = await tx.findOne(Document, { id: seen.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    // Someone else recorded this attempt meanwhile (a lease taken over): theirs stands.
    if (!doc || doc.deliveryStatus !== 'pending' || doc.deliveryAttempts !== seen.deliveryAttempts || doc.connectorMessageId !== seen.connectorMessageId) return;
    if (!waitingForConfirmation && outcome.outcome !== 'transient') doc.deliveryAttempts += 1;
    const now = (await companyClock(tx, doc.companyId)).now();
    const base = { organizationId: doc.organization.id, companyId: doc.companyId, livemode: doc.livemode };
    const billing = BILLING_TYPES.has(doc.type);
    const step = (code: string, by: string, extra: Partial<LifecycleEntry> = {}) => {
      const event = billing ? applyStep(doc, entryFor(code, by, now, extra)) : null;
      if (event) events.push(event);
    };

    const sent = () => {
      if (doc.sentAt) return;
      doc.sentAt = now;
      events.push({ ...base, type: 'document.sent', data: { documentId: doc.id, type: doc.type, sentAt: now.toISOString() } });
      step('201', 'seller_platform');
    };
    const failed = (errorCode: string, errorMessage: string) => {
      doc.deliveryStatus = 'failed';
      doc.errorCode = errorCode;
      doc.errorMessage = errorMessage;
      doc.nextAttemptAt = null;
      doc.status = 'rejected';
      step('213', 'platform', { reason: errorMessage, reasonCode: errorCode });
      events.push({ ...base, type: 'document.failed', data: { documentId: doc.id, errorCode, errorMessage } });
    };
    switch (outcome.outcome) {
      case 'delivered': {
        sent();
        doc.deliveryStatus = 'delivered';
        doc.deliveredAt = now;
        doc.nextAttemptAt = null;
        const local = 'localDocumentId' in outcome ? outcome.localDocumentId : undefined;
        if (local) doc.counterpartId = local;
        step('202', 'buyer_platform');
        step('203', 'buyer_platform');
        events.push({ ...base, type: 'document.delivered', data: { documentId: doc.id, deliveredAt: now.toISOString() } });
        await completeJobs(tx, [job.id]);
        break;
      }
      case 'accepted':
      case 'pending': {
        sent();
        if ('messageId' in outcome) doc.connectorMessageId = outcome.messageId;
        doc.nextAttemptAt = new Date(now.getTime() + outcome.checkAfterMs);
        await rescheduleJob(tx, job.id, doc.nextAttemptAt);
        break;
      }
      case 'rejected':
        // The network's own code (AP_REJECTED, SBDH_ERROR, EBMS:…, a PPF or SDI code) is the document's errorCode.
        failed(outcome.errorCode, outcome.errorMessage);
        await completeJobs(tx, [job.id]);
        break;
      case 'transient': {
        doc.deliveryAttempts += 1;
        doc.errorMessage = outcome.errorMessage;
        if (doc.deliveryAttempts > MAX_RESENDS) {
          failed('TRANSPORT_FAILURE', `Delivery failed after ${doc.deliveryAttempts} attempts: ${outcome.errorMessage}`);
          await completeJobs(tx, [job.id]);
        } else {
          doc.nextAttemptAt = new Date(now.getTime() + retryDelayMs(doc.deliveryAttempts));
          await rescheduleJob(tx, job.id, doc.nextAttemptAt);
        }
        break;
      }
    }
    for (const e of events) await recordEvent(tx, e);
    await tx.flush();
  });
  if (events.length) void this.broker.broadcast(OUTBOX_WRITTEN_EVENT, {});
}

function recipientOf(doc: Document): Participant {
  const r = doc.recipient ?? {};
  const out: Participant = {};
  if (r.companyId) out.companyId = r.companyId;
  if (r.peppolId) out.peppolId = r.peppolId;
  if (r.addressingIdentifier) out.addressingIdentifier = r.addressingIdentifier;
  if (r.addressingSuffix) out.addressingSuffix = r.addressingSuffix;
  if (r.addressingIdentifier) out.country = 'FR';
  return out;
}

// ---------------------------------------------------------------------------------------------
// reads and search

const LIST_COLUMNS = [
  'id', 'organization_id', 'company_id', 'livemode', 'direction', 'type', 'document_subtype', 'format', 'number', 'issue_date', 'due_date',
  'currency', 'total_amount', 'seller_key', 'sender_peppol_id', 'sender_name', 'receiver_peppol_id', 'receiver_name', 'recipient', 'metadata',
  'status', 'lifecycle_code', 'lifecycle', 'delivery_status', 'connector_id', 'connector_message_id', 'delivery_attempts', 'next_attempt_at',
  'error_code', 'error_message', 'sent_at', 'delivered_at', 'counterpart_id', 'original_content_type', 'original_filename', 'file_id',
  'stored_format', 'xml_syntax', 'has_pdf', 'read_at', 'archived_at', 'notes', 'related_document_ids', 'created_at', 'updated_at',
].map((c) => `"${c}"`).join(', ')
  + ', ("original_content" is not null) as "has_original", ("xml" is not null) as "has_xml", ("normalized" is not null) as "has_json"';

/** Runs one parameterised statement with server-side bind parameters ($1…), never inlined values. */
async function runBound(em: EntityManager, sqlText: string, params: unknown[]): Promise<Array<Record<string, unknown>>> {
  let n = 0;
  const text = sqlText.replace(/\?/g, () => `$${++n}`);
  const compiled = { sql: text, parameters: params, query: { kind: 'RawNode', sqlFragments: [text], parameters: [] }, queryId: { queryId: 'documents-search' } };
  const res = await em.getKysely().executeQuery(compiled as never);
  return res.rows as Array<Record<string, unknown>>;
}

export interface SearchInput {
  filters?: unknown;
  sort?: unknown;
  query?: string;
  limit?: number;
  cursor?: string | number;
}

/** Builds the statement of a search (exported for the benchmark and the injection test). */
export function buildSearchSql(auth: Pick<Principal, 'organizationId' | 'livemode' | 'companyId'>, input: SearchInput): { sql: string; params: unknown[]; limit: number; keys: ReturnType<typeof parseSort> } {
  const params: unknown[] = [auth.organizationId, auth.livemode];
  let where = '"organization_id" = ? and "livemode" = ?';
  if (auth.companyId) { where += ' and "company_id" = ?'; params.push(auth.companyId); }
  const compiled = compileFilters(input.filters, params);
  if (compiled.sql !== 'true') where += ` and (${compiled.sql})`;
  if (input.query && input.query.trim()) {
    const like = `%${input.query.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    where += ` and ("number" ilike ? escape '\\' or "sender_name" ilike ? escape '\\' or "receiver_name" ilike ? escape '\\')`;
    params.push(like, like, like);
  }
  const keys = parseSort(input.sort);
  const page = readPageRequest({ ...(input.limit !== undefined ? { limit: input.limit } : {}), ...(input.cursor !== undefined ? { cursor: String(input.cursor) } : {}) });
  if (page.after !== undefined) {
    let values: unknown;
    try { values = JSON.parse(page.after); } catch { values = undefined; }
    if (!Array.isArray(values)) throw new SearchError('cursor', 'cursor', 'The cursor is not valid; pass the cursor of a previous page or omit it');
    where += ` and ${afterCursor(keys, values, params)}`;
  }
  params.push(page.limit + 1);
  return { sql: `select ${LIST_COLUMNS} from "documents" where ${where} order by ${orderBy(keys)} limit ?`, params, limit: page.limit, keys };
}

async function runSearch(ctx: Context, input: SearchInput): Promise<Page<DocumentView>> {
  const auth = principalOf(ctx);
  const em = emOf(ctx);
  const built = pure(() => buildSearchSql(auth, input));
  const rows = await runBound(em, built.sql, built.params);
  const hasMore = rows.length > built.limit;
  const visible = hasMore ? rows.slice(0, built.limit) : rows;
  const last = visible.at(-1);
  return {
    data: visible.map((r) => documentView(em.map(Document, r), { original: r.has_original === true, xml: r.has_xml === true, json: r.has_json === true })),
    hasMore,
    cursor: hasMore && last ? encodeCursor(JSON.stringify(cursorValues(built.keys, last))) : null,
  };
}

// ---------------------------------------------------------------------------------------------
// lifecycle

function lifecycleView(doc: Document): LifecycleView {
  const party = partyOf(doc);
  const billing = BILLING_TYPES.has(doc.type) && doc.lifecycle.length > 0;
  return {
    documentId: doc.id,
    status: doc.status,
    currentCode: doc.lifecycleCode ?? null,
    party,
    history: doc.lifecycle as unknown as Array<Record<string, unknown>>,
    allowedTransitions: billing ? allowedTransitions(doc.lifecycleCode ?? null, currentPartial(doc), party) : [],
  };
}

function invalidTransition(doc: Document, message: string): DomainError {
  return new DomainError('INVALID_TRANSITION', message, { extra: { currentStatus: doc.status, currentCode: doc.lifecycleCode ?? null, allowedTransitions: lifecycleView(doc).allowedTransitions } });
}

/**
 * Loads a document and its counterpart on this platform (the other party's copy) and locks both,
 * always in id order, so a buyer and a supplier moving the same invoice at once never deadlock.
 */
async function lockWithCounterpart(tx: EntityManager, auth: Principal, id: string): Promise<{ doc: Document; counterpart: Document | null }> {
  const seen = await findDocument(tx, auth, id);
  const otherId = seen.counterpartId ?? (await tx.findOne(Document, { counterpartId: seen.id }))?.id ?? null;
  const ids = [seen.id, ...(otherId ? [otherId] : [])].sort();
  const rows = await tx.find(Document, { id: { $in: ids } }, { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { id: 'asc' }, refresh: true });
  const doc = rows.find((r) => r.id === seen.id)!;
  return { doc, counterpart: rows.find((r) => r.id !== seen.id) ?? null };
}

/** Applies a step to a document and to its counterpart; lifecycle.updated on both sides. */
async function applyEverywhere(this: DocsThis, ctx: Context, tx: EntityManager, doc: Document, counterpart: Document | null, entry: LifecycleEntry): Promise<void> {
  for (const event of [applyStep(doc, entry), counterpart ? applyStep(counterpart, { ...entry }) : null]) {
    if (event) await this.recordEvent(ctx, tx, event);
  }
}

// ---------------------------------------------------------------------------------------------
// the service

const DocumentsService: ServiceSchema = {
  name: 'documents',
  mixins: [OrmMixin, OutboxMixin, SchedulerMixin({ [DELIVER_JOB]: { batch: 50, async handle(this: Service, jobs, em) { await deliverDue.call(this as DeliveryThis, jobs, em); } } })],

  created() {
    (this as unknown as DeliveryThis).delivery = { slots: new ConnectorSlots((id) => connectorSettings(id).concurrency), inflight: new Set(), stopping: false };
  },

  started() {
    const self = this as unknown as DocsThis;
    self.workers = acquireWorkerPool();
    self.workers.preload(PARSE_TASKS);
  },
  async stopped() {
    // Deliveries still talking to a connector record their outcome before the database closes;
    // those still waiting for a slot go back to the queue.
    const delivery = (this as unknown as DeliveryThis).delivery;
    delivery.stopping = true;
    await Promise.allSettled([...delivery.inflight]);
    await releaseWorkerPool((this as unknown as DocsThis).workers);
  },

  actions: {
    send: implement(contract.send, async function (this: DocsThis, ctx) {
      return sendOne.call(this, ctx, ctx.params);
    }),

    sendBatch: implement(contract.sendBatch, async function (this: DocsThis, ctx) {
      const checker = itemChecker();
      const results: BatchItemResult[] = new Array(ctx.params.documents.length);
      const one = async (index: number, item: unknown): Promise<BatchItemResult> => {
        try {
          return { index, status: 'created', document: await sendOne.call(this, ctx, checker(item)), error: null };
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
    }),

    list: implement(contract.list, async (ctx) => {
      const p = ctx.params;
      const filters: Record<string, unknown>[] = [];
      if (p.companyId) filters.push({ companyId: p.companyId });
      if (p.type) filters.push({ type: p.type });
      if (p.status) filters.push({ status: p.status });
      if (p.direction) filters.push({ direction: p.direction });
      if (p.from) filters.push({ issueDate: { $gte: p.from } });
      if (p.to) filters.push({ issueDate: { $lte: p.to } });
      if (p.amountMin !== undefined) filters.push({ totalAmount: { $gte: p.amountMin } });
      if (p.amountMax !== undefined) filters.push({ totalAmount: { $lte: p.amountMax } });
      return runSearch(ctx, { filters: filters.length ? { $and: filters } : undefined, ...(p.limit !== undefined ? { limit: p.limit } : {}), ...(p.cursor !== undefined ? { cursor: p.cursor } : {}) });
    }),

    search: implement(contract.search, async (ctx) => runSearch(ctx, ctx.params)),

    get: implement(contract.get, async (ctx) => documentView(await findDocument(emOf(ctx), principalOf(ctx), ctx.params.id))),

    originalRepresentation: implement(contract.originalRepresentation, async (ctx) => {
      const doc = await findDocument(emOf(ctx), principalOf(ctx), ctx.params.id);
      const meta = ctx.meta as { $responseType?: string; $responseHeaders?: Record<string, string> };
      meta.$responseType = doc.originalContentType ?? 'application/octet-stream';
      if (doc.originalFilename) meta.$responseHeaders = { 'Content-Disposition': `attachment; filename="${doc.originalFilename.replace(/["\\\r\n]/g, '_')}"` };
      return Buffer.from(doc.originalContent ?? Buffer.alloc(0));
    }),

    xmlRepresentation: implement(contract.xmlRepresentation, async (ctx) => {
      const doc = await findDocument(emOf(ctx), principalOf(ctx), ctx.params.id);
      if (!doc.xml) throw new DomainError('RESOURCE_NOT_FOUND', `Document '${doc.id}' has no structured XML (format ${doc.format})`);
      (ctx.meta as { $responseType?: string }).$responseType = 'application/xml; charset=utf-8';
      return doc.xml;
    }),

    jsonRepresentation: implement(contract.jsonRepresentation, async (ctx) => {
      const doc = await findDocument(emOf(ctx), principalOf(ctx), ctx.params.id);
      if (!doc.normalized) throw new DomainError('RESOURCE_NOT_FOUND', `Document '${doc.id}' has no normalised JSON (format ${doc.format})`);
      return doc.normalized;
    }),

    pdfRepresentation: implement(contract.pdfRepresentation, async (ctx) => {
      const doc = await findDocument(emOf(ctx), principalOf(ctx), ctx.params.id);
      if (!doc.hasPdf) throw new DomainError('RESOURCE_NOT_FOUND', `Document '${doc.id}' has no PDF`);
      (ctx.meta as { $responseType?: string }).$responseType = 'application/pdf';
      return Buffer.from(doc.originalContent ?? Buffer.alloc(0));
    }),

    getLifecycle: implement(contract.getLifecycle, async (ctx) => lifecycleView(await findDocument(emOf(ctx), principalOf(ctx), ctx.params.id))),

    postLifecycle: implement(contract.postLifecycle, async function (this: DocsThis, ctx) {
      const auth = principalOf(ctx);
      return emOf(ctx).transactional(async (tx) => {
        const { doc, counterpart } = await lockWithCounterpart(tx, auth, ctx.params.id);
        if (!BILLING_TYPES.has(doc.type) || doc.lifecycle.length === 0) throw invalidTransition(doc, `A ${doc.type} sent as ${doc.format} has no French lifecycle`);
        const party = partyOf(doc);
        const total = doc.totalAmount === null || doc.totalAmount === undefined ? null : Number(doc.totalAmount);
        const res = resolveTransition(ctx.params, party, total, netTotalOf(doc));
        if (!res.ok) {
          const code = res.rule === 'required' ? 'MISSING_FIELD' : 'INVALID_REQUEST';
          if (res.rule === 'party') throw invalidTransition(doc, res.message);
          throw new DomainError(code, res.message, { details: [issue(res.field, res.rule, res.message)] });
        }
        if (!canMove(doc.lifecycleCode ?? null, currentPartial(doc), res.code, party)) {
          const target = FRENCH_STATUSES[res.code]!;
          throw invalidTransition(doc, `Cannot move from ${doc.lifecycleCode} (${FRENCH_STATUSES[doc.lifecycleCode ?? '']?.label ?? 'none'}) to ${res.code} (${target.label}) as the ${party}`);
        }
        const p = ctx.params;
        const now = (await companyClock(tx, doc.companyId)).now();
        const extra: Partial<LifecycleEntry> = {};
        if (p.reason) extra.reason = p.reason;
        if (p.reasonCode) extra.reasonCode = p.reasonCode;
        if (p.note) extra.note = p.note;
        if (Object.keys(res.amounts).length) extra.amounts = res.amounts;
        if (p.paymentDate) extra.paymentDate = p.paymentDate;
        if (p.paymentReference) extra.paymentReference = p.paymentReference;
        if (p.paymentCurrency) extra.paymentCurrency = p.paymentCurrency;
        if (res.partial) extra.partial = true;
        await applyEverywhere.call(this, ctx, tx, doc, counterpart, entryFor(res.code, party, now, extra));
        await tx.flush();
        return lifecycleView(doc);
      });
    }),

    documentAction: implement(contract.documentAction, async function (this: DocsThis, ctx) {
      const auth = principalOf(ctx);
      const p = ctx.params;
      return emOf(ctx).transactional(async (tx) => {
        const { doc, counterpart } = await lockWithCounterpart(tx, auth, p.id);
        const now = (await companyClock(tx, doc.companyId)).now();
        const changes: Record<string, unknown> = {};
        if (p.relatedDocumentId) {
          const related = await tx.findOne(Document, { id: p.relatedDocumentId, organization: auth.organizationId, livemode: auth.livemode });
          if (!related) throw new DomainError('DOCUMENT_NOT_FOUND', `Related document '${p.relatedDocumentId}' was not found`, { details: [issue('relatedDocumentId', 'exists', 'not a document of this organization')] });
        }
        switch (p.action) {
          case 'link':
            if (!p.relatedDocumentId) throw missing('relatedDocumentId', 'action=link needs relatedDocumentId');
            if (!doc.relatedDocumentIds.includes(p.relatedDocumentId)) {
              changes.relatedDocumentIds = { from: doc.relatedDocumentIds, to: [...doc.relatedDocumentIds, p.relatedDocumentId] };
              doc.relatedDocumentIds = [...doc.relatedDocumentIds, p.relatedDocumentId];
            }
            break;
          case 'add-note': {
            const text = p.note ?? (p.relatedDocumentId ? `Completed by ${p.relatedDocumentId}` : undefined);
            if (!text) throw missing('note', 'action=add-note needs note');
            const note = { id: newId('note'), text, at: now.toISOString() };
            doc.notes = [...doc.notes, note];
            changes.notes = { added: note };
            if (p.relatedDocumentId && !doc.relatedDocumentIds.includes(p.relatedDocumentId)) {
              changes.relatedDocumentIds = { from: doc.relatedDocumentIds, to: [...doc.relatedDocumentIds, p.relatedDocumentId] };
              doc.relatedDocumentIds = [...doc.relatedDocumentIds, p.relatedDocumentId];
            }
            break;
          }
          case 'mark-read':
          case 'mark-unread': {
            const read = p.action === 'mark-read';
            if ((doc.readAt != null) !== read) { changes.read = { from: !read, to: read }; doc.readAt = read ? now : null; }
            break;
          }
          case 'archive':
          case 'unarchive': {
            const archived = p.action === 'archive';
            if ((doc.archivedAt != null) !== archived) { changes.archived = { from: !archived, to: archived }; doc.archivedAt = archived ? now : null; }
            break;
          }
        }
        // A link or note naming the completing document lifts a suspension (208 → 209), by the supplier.
        if ((p.action === 'link' || p.action === 'add-note') && p.relatedDocumentId && doc.lifecycleCode === '208') {
          if (partyOf(doc) !== 'supplier') throw invalidTransition(doc, 'Only the supplier completes a suspended invoice (209)');
          await applyEverywhere.call(this, ctx, tx, doc, counterpart, entryFor('209', 'supplier', now, { relatedDocumentId: p.relatedDocumentId }));
          changes.lifecycleCode = { from: '208', to: '209' };
        }
        if (Object.keys(changes).length) {
          await this.recordEvent(ctx, tx, { organizationId: auth.organizationId, companyId: doc.companyId, type: 'document.updated', livemode: doc.livemode, data: { documentId: doc.id, changes } });
        }
        await tx.flush();
        return documentView(doc);
      });
    }),

    lookupParticipant: implement(contract.lookupParticipant, async (ctx) => {
      const em = emOf(ctx);
      const { participant, livemode } = ctx.params;
      const where: Record<string, unknown> = { organization: { sandbox: !livemode } };
      if (participant.companyId) where.id = participant.companyId;
      else if (participant.addressingIdentifier) {
        const siren = participant.addressingIdentifier.slice(0, 9);
        where.$or = [{ registrationNumber: { $in: [participant.addressingIdentifier, siren] } }, { peppolId: `0009:${siren}` }];
      } else if (participant.peppolId) where.peppolId = participant.peppolId;
      else return null;
      const company = await em.findOne(Company, where, { populate: ['organization'] });
      if (!company || company.status !== 'active') return null;
      return {
        organizationId: company.organization.id, companyId: company.id, peppolId: company.peppolId ?? null, name: company.name, country: company.country,
        documentTypes: ['invoice', 'credit-note', 'debit-note', 'purchase-order', 'purchase-request', 'sales-order', 'quote', 'goods-receipt'],
      };
    }),

    receiveInbound: implement(contract.receiveInbound, async function (this: DocsThis, ctx) {
      const p = ctx.params;
      const em = emOf(ctx);
      const organization = await em.findOne(Organization, { id: p.recipient.organizationId });
      if (!organization) throw new DomainError('RECIPIENT_NOT_FOUND', `Organization '${p.recipient.organizationId}' is gone`);
      if (!await em.findOne(Company, { id: p.recipient.companyId, organization: organization.id }, { fields: ['id'] })) throw new DomainError('RECIPIENT_NOT_FOUND', `Company '${p.recipient.companyId}' is not one of ${organization.id}`);
      if (p.messageId.includes('\u0000')) throw new DomainError('INVALID_REQUEST', 'The network message id contains a NUL byte');
      // A connector hands over documents only for the modes its manifest serves (a test network never fills a live inbox).
      const manifest = registeredManifests(ctx.broker).find((m) => m.id === p.connectorId);
      if (!manifest?.modes.includes(p.livemode ? 'live' : 'test')) throw new DomainError('INVALID_REQUEST', `Connector ${p.connectorId} does not serve ${p.livemode ? 'live' : 'test'} mode`);
      const livemode = p.livemode;
      const normalized = p.payload.normalized ?? null;
      const billing = BILLING_TYPES.has(p.type);
      const canonical = billing && normalized ? (normalized as unknown as CanonicalInvoice) : undefined;
      const now = (await companyClock(em, p.recipient.companyId)).now();
      const id = newId('document');
      // No read first: the unique index on (connector, network message id) decides, so two
      // concurrent hand-offs of one message make one document and both answer it.
      try {
        await em.fork().transactional(async (tx) => {
          const doc = tx.create(Document, {
            id, organization: organization.id, companyId: p.recipient.companyId, livemode, direction: 'incoming', type: p.type, documentSubtype: null,
            format: p.payload.xml ? recordedFormat('auto', p.payload.syntax ?? 'ubl-2.1') : 'json',
            number: p.number, issueDate: canonical?.issueDate ?? null, dueDate: canonical?.dueDate ?? null, currency: canonical?.currency ?? null,
            totalAmount: canonical?.totals?.taxInclusive ?? canonical?.totals?.payable ?? null, sellerKey: null,
            senderPeppolId: p.sender.peppolId, senderName: p.sender.name, receiverPeppolId: p.recipient.peppolId, receiverName: p.recipient.name,
            recipient: { ...(p.recipient.peppolId ? { peppolId: p.recipient.peppolId } : {}), companyId: p.recipient.companyId, ...(p.recipient.name ? { name: p.recipient.name } : {}) },
            metadata: null, status: 'received', lifecycleCode: null, lifecycle: [], deliveryStatus: 'received', connectorId: p.connectorId,
            connectorMessageId: p.messageId, deliveryAttempts: 0, nextAttemptAt: null, errorCode: null, errorMessage: null, sentAt: null, deliveredAt: now,
            counterpartId: p.messageId, originalContent: Buffer.from(p.payload.content, 'base64'), originalContentType: p.payload.contentType,
            originalFilename: p.payload.filename ?? null, fileId: null, storedFormat: null, xml: p.payload.xml ?? null, xmlSyntax: p.payload.syntax ?? null,
            normalized, hasPdf: p.payload.pdf === true, readAt: null, archivedAt: null, notes: [], relatedDocumentIds: [],
          });
          if (billing) {
            // The buyer's copy shares the history so far: deposited, issued, received, made available.
            doc.lifecycle = ['200', '201', '202'].map((code) => entryFor(code, FRENCH_STATUSES[code]!.emittedBy, now));
            doc.lifecycleCode = '202';
            applyStep(doc, entryFor('203', 'buyer_platform', now)); // its event is document.received, below
          }
          await this.recordEvent(ctx, tx, {
            organizationId: organization.id, companyId: p.recipient.companyId, type: 'document.received', livemode,
            data: { documentId: id, type: p.type, number: p.number, direction: 'incoming', sender: { peppolId: p.sender.peppolId, name: p.sender.name }, receiver: { peppolId: p.recipient.peppolId, name: p.recipient.name } },
          });
          await tx.flush();
        });
      } catch (err) {
        if ((err as { name?: string }).name !== 'UniqueConstraintViolationException') throw err;
        const first = await em.fork().findOne(Document, { $or: [{ connectorId: p.connectorId, connectorMessageId: p.messageId }, { organization: organization.id, counterpartId: p.messageId }], direction: 'incoming' }, { fields: ['id'] });
        if (!first) throw err;
        return { documentId: first.id, duplicate: true };
      }

      return { documentId: id, duplicate: false };
    }),
  },
};

/** Each batch item is checked with the send contract's own schema (a bad item fails alone). */
function itemChecker(): (item: unknown) => SendParams {
  // Lazily compiled once per process.
  checkerCache ??= compileSendChecker();
  return checkerCache;
}
let checkerCache: ((item: unknown) => SendParams) | undefined;

function compileSendChecker(): (item: unknown) => SendParams {
  // fastest-validator is CommonJS with an ES-style default export in its typings.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Validator = FastestValidator as unknown as new () => { compile(schema: unknown): (v: unknown) => true | Array<{ type: string; field: string; message?: string }> };
  const check = new Validator().compile(contract.send.params);
  return (item) => {
    const copy = { ...(item as Record<string, unknown>) };
    const result = check(copy);
    if (result === true) return copy as unknown as SendParams;
    const details = result.map((e) => ({ field: e.field, rule: e.type, message: e.message ?? `${e.field} is invalid` }));
    const code = result[0]?.type === 'required' ? 'MISSING_FIELD' : result[0]?.type === 'enumValue' ? 'INVALID_ENUM' : 'INVALID_REQUEST';
    throw new DomainError(code, details.map((d) => d.message).join('; '), { details });
  };
}


export default DocumentsService;
