/**
 * AFNOR XP Z12-013 Flow Service requests → our documents, pure: flow ids, the search criteria as one
 * documents search plus per-flow filters, CDAR statuses as lifecycle moves, webhook ids as UUIDs.
 * The `Flow` objects themselves are mappings/afnor/flow.ts (the webhooks service delivers them too).
 */
import type { SearchParams } from '../../documents/documents.contract.ts';
import { DomainError } from '../../shared/errors.ts';
import type { Flow } from '../../../mappings/afnor/flow.ts';

export * from '../../../mappings/afnor/flow.ts';

/** The document types that are invoice flows; the others (orders, quotes …) are no AFNOR flow. */
export const INVOICE_DOCUMENT_TYPES = ['invoice', 'credit-note', 'debit-note'] as const;

const LC_ID = /^(.{1,50})-lc-(\d{1,5})$/;
const clip = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);

/** A flow id → the document and, for a lifecycle flow, the step. */
export function parseFlowId(flowId: string): { documentId: string; step?: number } {
  const lc = LC_ID.exec(flowId);
  return lc ? { documentId: lc[1]!, step: Number(lc[2]) } : { documentId: flowId };
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
