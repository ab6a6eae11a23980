/**
 * events: the event catalogue and envelope (spec: Events), the outbox dispatcher and the event log
 * (`GET /v1/events`, `POST /v1/events/ack`).
 */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';
import { PAGE_PARAMS, pageSchema, type Page } from '../shared/pagination.ts';

const SERVICE = 'events';

/** `apiVersion` of every envelope (a date string, spec: Versioning 5). */
export const API_VERSION = '2026-11-22';

/** Events delivered to webhooks (spec: Events catalogue). */
export const WEBHOOK_EVENT_TYPES = [
  'document.received', 'document.duplicate_received', 'document.sent', 'document.delivered', 'document.failed', 'document.updated',
  'lifecycle.updated', 'company.smp_registered', 'compliance.reported',
] as const;
/** Events that exist only in the event log and are never delivered to webhooks. */
export const LOG_ONLY_EVENT_TYPES = ['company.imported', 'company.import.pending', 'artefacts.swept'] as const;
export const EVENT_TYPES = [...WEBHOOK_EVENT_TYPES, ...LOG_ONLY_EVENT_TYPES] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/** Names a webhook may subscribe to: the catalogue, `*`, and `compliance.reported.failed` (only failed reports). */
export const SUBSCRIBABLE_EVENTS = [...WEBHOOK_EVENT_TYPES, 'compliance.reported.failed', '*'] as const;

const str = { type: 'string' } as const;
const nullableStr = { type: ['string', 'null'] } as const;
const party = { type: 'object', required: ['peppolId', 'name'], properties: { peppolId: nullableStr, name: nullableStr } } as const;
const companyFacts = {
  type: 'object', required: ['companyId', 'peppolId', 'siret', 'siren', 'country'],
  properties: { companyId: str, peppolId: str, siret: str, siren: str, country: str },
} as const;

/** The `data` of each event type, as the events table of the spec gives it (the OpenAPI `webhooks` section). */
export const EVENT_DATA_SCHEMAS: Readonly<Record<EventType, Record<string, unknown>>> = {
  'document.received': {
    type: 'object', required: ['documentId', 'type', 'number', 'direction', 'sender', 'receiver'],
    properties: { documentId: str, type: str, number: nullableStr, direction: { const: 'incoming' }, sender: party, receiver: party },
  },
  'document.duplicate_received': {
    type: 'object', required: ['documentId', 'duplicateOf', 'matchedOn', 'type', 'number', 'direction', 'sender', 'receiver'],
    description: 'An incoming document arrived again under another network message: kept as documentId (status duplicate), not booked; duplicateOf is the booked copy',
    properties: {
      documentId: str, duplicateOf: str, type: str, number: nullableStr, direction: { const: 'incoming' }, sender: party, receiver: party,
      matchedOn: { type: 'string', enum: ['instance_identifier', 'seller_number_issue_date'], description: 'instance_identifier: the same SBDH instance id from the same sender; seller_number_issue_date: the same seller, type, number and issue date' },
    },
  },
  'document.sent': { type: 'object', required: ['documentId', 'type', 'sentAt'], properties: { documentId: str, type: str, sentAt: { type: 'string', format: 'date-time' } } },
  'document.delivered': { type: 'object', required: ['documentId', 'deliveredAt'], properties: { documentId: str, deliveredAt: { type: 'string', format: 'date-time' } } },
  'document.failed': { type: 'object', required: ['documentId', 'errorCode', 'errorMessage'], properties: { documentId: str, errorCode: str, errorMessage: str } },
  'document.updated': {
    type: 'object', required: ['documentId', 'changes'],
    properties: { documentId: str, changes: { type: 'object', description: 'Field diff: `{field: {from, to}}`, or `{notes: {added}}`', additionalProperties: { type: 'object', additionalProperties: true } } },
  },
  'lifecycle.updated': {
    type: 'object', required: ['documentId', 'previousStatus', 'currentStatus', 'compliance'],
    properties: {
      documentId: str, previousStatus: nullableStr, currentStatus: { type: 'string', description: 'French lifecycle code 200–213' }, status: str, label: str,
      compliance: {
        type: ['object', 'null'], description: 'French-reform documents only: the framework and whether the status is reported to the tax platform',
        properties: { framework: { const: 'fr-ctc' }, code: str, label: str, reportedToTaxAuthority: { type: 'boolean' }, country: { const: 'FR' } },
      },
    },
  },
  'company.smp_registered': { type: 'object', required: ['companyId', 'peppolId'], properties: { companyId: str, peppolId: str } },
  'compliance.reported': {
    type: 'object', required: ['documentId', 'reportedTo', 'status'],
    properties: {
      documentId: str, reportedTo: { type: 'string', examples: ['PPF', 'SDI'] }, status: { type: 'string', enum: ['reported', 'failed'], description: '`failed` on failure' },
      lifecycleCode: { type: 'string', description: 'The lifecycle status reported (France: 200, 210, 212, 213)' },
      connectorId: { type: 'string', description: 'The connector that carried the report or brought the verdict' },
      networkReportId: { type: 'string', description: 'The tax platform\'s reference of the report' },
      authorityId: { type: 'string', description: 'Clearance: the authority\'s id of the invoice (KSeF number, ANAF index, ZATCA clearance id …)' },
      clearance: { type: 'string', enum: ['cleared', 'reported'], description: 'Clearance: cleared before delivery, or reported (B2C)' },
      errorCode: { type: 'string', description: 'The tax platform\'s own code on failure (PPF 00025, SDI 00200 …)', examples: ['PPF:00025', 'SDI:00306'] },
      errorMessage: str,
    },
  },
  'company.imported': companyFacts,
  'company.import.pending': companyFacts,
  'artefacts.swept': {
    type: 'object', required: ['expired', 'unnamed', 'sweptAt'],
    description: 'Log only: the retention sweep deleted artefacts of the organization in this mode (services/shared/artefacts/README.md)',
    properties: {
      expired: { type: 'integer', minimum: 0, description: 'Artefacts whose retention period had ended: their bytes deleted, listed as expired in the archive export' },
      unnamed: { type: 'integer', minimum: 0, description: 'Stored bytes no artefact named (a write that did not complete), past the grace period' },
      sweptAt: { type: 'string', format: 'date-time' },
    },
  },
};

export function isLogOnly(type: string): boolean {
  return (LOG_ONLY_EVENT_TYPES as readonly string[]).includes(type);
}

/** The envelope every delivery carries and every log record starts with. */
export interface EventEnvelope {
  id: string;
  type: string;
  livemode: boolean;
  createdAt: string;
  apiVersion: string;
  data: Record<string, unknown>;
}

export interface EventRecord extends EventEnvelope {
  companyId: string | null;
  acknowledged: boolean;
  acknowledgedAt: string | null;
}

/** Broadcast by the outbox helper after a write commits: wakes the dispatchers at once. */
export const OUTBOX_WRITTEN_EVENT = 'events.outbox.written';

export const envelopeSchema = {
  type: 'object',
  required: ['id', 'type', 'livemode', 'createdAt', 'apiVersion', 'data'],
  properties: {
    id: { type: 'string', examples: ['evt_01JD7Z3V9Q1M2N3P4R5S6T7V8W'] },
    type: { type: 'string', examples: ['document.sent'] },
    livemode: { type: 'boolean' },
    createdAt: { type: 'string', format: 'date-time' },
    apiVersion: { type: 'string', examples: [API_VERSION] },
    data: { type: 'object', additionalProperties: true, description: 'The event\'s payload: its fields per type are in the `webhooks` section of the OpenAPI document and the README' },
  },
};
const eventRecordSchema = {
  ...envelopeSchema,
  required: [...envelopeSchema.required, 'companyId', 'acknowledged', 'acknowledgedAt'],
  properties: {
    ...envelopeSchema.properties,
    companyId: { type: ['string', 'null'] },
    acknowledged: { type: 'boolean' },
    acknowledgedAt: { type: ['string', 'null'], format: 'date-time' },
  },
};

export const listEvents = defineAction<{ type?: string; limit?: number; cursor?: string }, Page<EventRecord>>(SERVICE, 'listEvents', {
  params: { ...STRICT_REMOVE, ...PAGE_PARAMS, type: { type: 'string', optional: true, min: 1, max: 64 } },
  http: {
    method: 'GET', path: '/v1/events', access: 'receive', tag: 'Events',
    summary: 'The event log: every event (webhook events and log-only ones), newest first, acknowledged or not; filter by `type`',
    response: pageSchema(eventRecordSchema),
  },
});

export const ackEvents = defineAction<{ eventIds: string[] }, { acknowledged: number; eventIds: string[]; notFound: string[] }>(SERVICE, 'ackEvents', {
  params: { ...STRICT_REMOVE, eventIds: { type: 'array', min: 1, max: 1000, items: { type: 'string', min: 1, max: 64 } } },
  http: {
    method: 'POST', path: '/v1/events/ack', access: 'receive', tag: 'Events',
    summary: 'Acknowledge events in bulk; acknowledged events stay listable, marked as such',
    response: {
      type: 'object', required: ['acknowledged', 'eventIds', 'notFound'],
      properties: { acknowledged: { type: 'integer' }, eventIds: { type: 'array', items: { type: 'string' } }, notFound: { type: 'array', items: { type: 'string' } } },
    },
  },
});

/** Events written and not yet dispatched, and how long the oldest has waited (the `einv_outbox_*` gauges). */
export const outboxLag = defineAction<Record<string, never>, { pending: number; oldestAgeSeconds: number }>(SERVICE, 'outboxLag', { params: {} });

/** Runs the dispatcher until the outbox is empty (tests, operations); returns the events dispatched. */
export const drainOutbox = defineAction<Record<string, never>, { dispatched: number }>(SERVICE, 'drainOutbox', { params: {} });

// ---------- the committed feed (followers with their own cursor, e.g. webhooks) ----------

/**
 * A follower's place in the feed: the writing transaction's id and the event id within it. The
 * feed is ordered by (txId, id) and only shows transactions older than every one still running, so
 * a follower that moves its cursor past an event can never later meet one that sorts before it.
 */
export interface FeedCursor {
  /** PostgreSQL transaction id (xid8) of the write, as a decimal string. */
  txId: string;
  /** Last event id taken within that transaction; null: none yet. */
  eventId: string | null;
}

export interface FeedEvent {
  envelope: EventEnvelope;
  organizationId: string;
  companyId: string | null;
}

/** Committed events after `after`, oldest first. */
export const readFeed = defineAction<{ after: FeedCursor; limit: number }, { events: FeedEvent[]; cursor: FeedCursor }>(SERVICE, 'readFeed', {
  params: {
    after: { type: 'object', strict: true, props: { txId: { type: 'string', numeric: true, max: 20 }, eventId: { type: 'string', nullable: true, max: 64 } } },
    limit: { type: 'number', integer: true, positive: true, max: 1000 },
  },
});

/** One event of an organization in the given mode (and company, when set), or null. */
export const findEvent = defineAction<{ organizationId: string; id: string; livemode: boolean; companyId?: string }, FeedEvent | null>(SERVICE, 'findEvent', {
  params: {
    organizationId: { type: 'string', min: 1, max: 255 }, id: { type: 'string', min: 1, max: 64 }, livemode: 'boolean',
    companyId: { type: 'string', optional: true, max: 255 },
  },
});

// ---------- internal: sandbox reset, usage statistics ----------

/** Wipes an organization's sandbox events, or one company's (`POST /v1/sandbox/reset`, scope `events`); live events are never touched. */
export const resetSandbox = defineAction<{ organizationId: string; companyId?: string }, { events: number }>(SERVICE, 'resetSandbox', {
  params: { organizationId: { type: 'string', min: 1, max: 255 }, companyId: { type: 'string', optional: true, max: 255 } },
});

export interface ComplianceReportCounts {
  reported: number;
  failed: number;
  /** Reports (either outcome) per company. */
  byCompany: Record<string, number>;
}
/** `compliance.reported` events of the organization in [from, to) (business time), by outcome and company. */
export const complianceReportCounts = defineAction<{ organizationId: string; livemode: boolean; companyId?: string; from: string; to: string }, ComplianceReportCounts>(SERVICE, 'complianceReportCounts', {
  params: { organizationId: { type: 'string', min: 1, max: 255 }, livemode: 'boolean', companyId: { type: 'string', optional: true, max: 255 }, from: 'string', to: 'string' },
});
