/**
 * portability-messages: the e-mails of the French change of approved platform (spec "Portability"),
 * and what a platform needs around them: the registry of approved platforms (recipient of each
 * message), the Peppol access point of a participant outside France, company suggestions.
 *
 * A message is built by mappings/portability (subject grammar, state ↔ code, the 18-column CSV),
 * logged in `portability_messages` whether or not it is mailed, then handed to the mail service
 * outside any transaction. The requests themselves (resolve, evidence chain, clocks, mandate,
 * routing, annuaire) are the `portability` service's.
 *
 * Broker event emitted after a message is recorded (and after its send, when there is one):
 * `portability.message.recorded` (PORTABILITY_MESSAGE_RECORDED_EVENT, payload PortabilityMessageRecorded).
 * The `portability` service folds it into the request's evidence chain. Balanced (emit).
 *
 * Action called on the `portability` service: `portability.annuaire` ({siren}) for the annuaire
 * snapshot kept with each message (`annuaire: null` when that service is not running or fails).
 */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';
import { PAGE_PARAMS, pageSchema, type Page } from '../shared/pagination.ts';
import {
  DIRECTION_ROLES, PORTABILITY_CSV_COLUMNS, PORTABILITY_MESSAGE_TYPES, PORTABILITY_STATES, PORTABILITY_STATUS_CODES,
  type DirectionRole, type PortabilityCsvFields, type PortabilityMessageType, type PortabilityState, type PortabilityStatusCode,
} from '../../mappings/portability/index.ts';

const SERVICE = 'portability-messages';

export const PORTABILITY_MESSAGE_RECORDED_EVENT = 'portability.message.recorded';
export interface PortabilityMessageRecorded {
  organizationId: string;
  messageId: string;
  requestRef: string;
  messageType: PortabilityMessageType;
  state: PortabilityState;
  statusCode: PortabilityStatusCode;
  directionRole: DirectionRole | null;
  taxpayerSiren: string;
  reasonCode: string | null;
  reasonText: string | null;
  createdAt: string;
  csvSha256: string;
}

/** Why a message was or was not mailed; a mail failure is the SMTP error's own text instead. */
export const DISPATCH_REASONS = ['sent', 'dispatch_disabled', 'not_configured', 'no_recipient', 'sandbox'] as const;
/** Which SMTP route carried it: the deployment's server (CSV inline) or the direct relay to the platforms (CSV attached). */
export const MESSAGE_TRANSPORTS = ['smtp', 'relay'] as const;
export type MessageTransport = (typeof MESSAGE_TRANSPORTS)[number];

export interface PortabilityMessageView {
  id: string;
  subject: string;
  messageType: PortabilityMessageType;
  statusCode: PortabilityStatusCode;
  state: PortabilityState;
  requestRef: string;
  taxpayerSiren: string;
  directionRole: DirectionRole | null;
  filename: string;
  csvHeader: string;
  csvRow: string;
  csvSha256: string;
  to: string | null;
  recipientSource: string;
  dispatched: boolean;
  reason: string;
  smtpMessageId: string | null;
  transport: MessageTransport | null;
  createdAt: string;
}

/** How the recipient was found: the caller's `to`, a platform of the registry snapshot (which one), or nobody. */
export interface RecipientResolution {
  source: 'explicit' | 'registry' | 'unresolved';
  /** The platform the message is addressed to (the other side of the switch), as the caller named it. */
  counterpart: { role: DirectionRole; id: string | null; name: string | null } | null;
  platform: { name: string; matricule: string | null; email: string } | null;
  registry: { source: string; snapshotDate: string };
}

export interface PortabilityMessageProof extends PortabilityMessageView {
  csvFields: PortabilityCsvFields;
  reasonCode: string | null;
  reasonText: string | null;
  recipientResolution: RecipientResolution;
  /** What `portability.annuaire` answered for the SIREN when the message was recorded; null when it could not be asked. */
  annuaire: Record<string, unknown> | null;
}

const str = { type: 'string' };
const nullableStr = { type: ['string', 'null'] };
const viewProperties = {
  id: { type: 'string', examples: ['pmsg_01JD7Z3V9Q1M2N3P4R5S6T7V8W'] },
  subject: { type: 'string', examples: ['[PORTABILITE][REQUEST][REQ][SIREN:120027016][REF:PORT-2026-0001]'] },
  messageType: { type: 'string', enum: [...PORTABILITY_MESSAGE_TYPES] }, statusCode: { type: 'string', enum: [...PORTABILITY_STATUS_CODES] },
  state: { type: 'string', enum: [...PORTABILITY_STATES] }, requestRef: str, taxpayerSiren: { type: 'string', pattern: '^\\d{9}$' },
  directionRole: { type: ['string', 'null'], enum: [...DIRECTION_ROLES, null] },
  filename: { type: 'string', examples: ['PORTABILITE_REQUEST_REQ_120027016_PORT-2026-0001_20261127T083000Z.csv'] },
  csvHeader: { type: 'string', description: 'The 18 column names joined by `;`' }, csvRow: { type: 'string', description: 'The data row (semicolon CSV, quoted where needed)' },
  csvSha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 (hex) of the CSV file: header and row, each ended by CRLF, UTF-8' },
  to: { type: ['string', 'null'], description: 'The recipient address, or null when none was found' },
  recipientSource: { type: 'string', pattern: '^(explicit|unresolved|registry:.+)$', examples: ['registry:Example Platform', 'explicit', 'unresolved'] },
  dispatched: { type: 'boolean' },
  reason: { type: 'string', description: '`sent`, `dispatch_disabled` (EINV_PORTABILITY_DISPATCH off), `not_configured` (no SMTP server), `no_recipient`, `sandbox` (a test key never reaches a real platform), or the mail error', examples: ['sent', 'sandbox'] },
  smtpMessageId: nullableStr, transport: { type: ['string', 'null'], enum: [...MESSAGE_TRANSPORTS, null] }, createdAt: { type: 'string', format: 'date-time' },
};
export const messageSchema = { type: 'object', required: Object.keys(viewProperties), properties: viewProperties };

const proofProperties = {
  ...viewProperties,
  csvFields: { type: 'object', required: [...PORTABILITY_CSV_COLUMNS], properties: Object.fromEntries(PORTABILITY_CSV_COLUMNS.map((c) => [c, str])) },
  reasonCode: nullableStr, reasonText: nullableStr,
  recipientResolution: {
    type: 'object', required: ['source', 'counterpart', 'platform', 'registry'],
    properties: {
      source: { type: 'string', enum: ['explicit', 'registry', 'unresolved'] },
      counterpart: { type: ['object', 'null'], required: ['role', 'id', 'name'], properties: { role: { type: 'string', enum: [...DIRECTION_ROLES] }, id: nullableStr, name: nullableStr } },
      platform: { type: ['object', 'null'], required: ['name', 'matricule', 'email'], properties: { name: str, matricule: nullableStr, email: str } },
      registry: { type: 'object', required: ['source', 'snapshotDate'], properties: { source: str, snapshotDate: { type: 'string', format: 'date' } } },
    },
  },
  annuaire: { type: ['object', 'null'], additionalProperties: true, description: 'The `GET /v1/portability/annuaire/{siren}` answer when the message was recorded; null when the portability service could not be asked' },
};
const proofSchema = { type: 'object', required: Object.keys(proofProperties), properties: proofProperties };

const optionalText = (max: number) => ({ type: 'string', optional: true, min: 1, max });

export interface CreateMessageParams {
  messageType: PortabilityMessageType;
  state: PortabilityState;
  requestRef: string;
  taxpayerSiren: string;
  directionRole?: DirectionRole;
  taxpayerSiret?: string;
  taxpayerName?: string;
  gainingPaId?: string;
  losingPaId?: string;
  gainingPaName?: string;
  losingPaName?: string;
  effectiveDate?: string;
  transferredAddresses?: string[];
  mandateRef?: string;
  mandateSignatory?: string;
  requestDatetime?: string;
  to?: string;
  reasonCode?: string;
  reasonText?: string;
}
export const createMessage = defineAction<CreateMessageParams, PortabilityMessageView>(SERVICE, 'createMessage', {
  params: {
    ...STRICT_REMOVE,
    messageType: { type: 'enum', values: [...PORTABILITY_MESSAGE_TYPES] },
    state: { type: 'enum', values: [...PORTABILITY_STATES] },
    requestRef: { type: 'string', min: 1, max: 128 },
    taxpayerSiren: { type: 'string', pattern: /^\d{9}$/, messages: { stringPattern: 'taxpayerSiren must be exactly 9 digits' } },
    directionRole: { type: 'enum', values: [...DIRECTION_ROLES], optional: true },
    taxpayerSiret: { type: 'string', optional: true, pattern: /^\d{14}$/, messages: { stringPattern: 'taxpayerSiret must be exactly 14 digits' } },
    taxpayerName: optionalText(200), gainingPaId: optionalText(100), losingPaId: optionalText(100), gainingPaName: optionalText(200), losingPaName: optionalText(200),
    effectiveDate: optionalText(40), transferredAddresses: { type: 'array', optional: true, max: 100, items: { type: 'string', min: 1, max: 140 } },
    mandateRef: optionalText(128), mandateSignatory: optionalText(200), requestDatetime: optionalText(40),
    to: { type: 'email', optional: true, max: 254 }, reasonCode: optionalText(64), reasonText: optionalText(1000),
  },
  http: {
    method: 'POST', path: '/v1/portability/messages', access: 'compliance', tag: 'Portability', status: 201, location: (m: PortabilityMessageView) => `/v1/portability/messages/${m.id}`,
    summary: 'Build, log and (when this deployment dispatches) mail one portability message to the other platform of a switch',
    description: 'Builds the subject `[PORTABILITE][<MESSAGE_TYPE>][<STATUS_CODE>][SIREN:<9 digits>][REF:<requestRef>]` and the 18-column semicolon CSV (`request_datetime` now in UTC unless given with its timezone), logs the message whether or not it is mailed, then mails it. Recipient: `to` when given (always wins), else the other platform of the switch (for a `GAINING_PA` sender the losing one, for a `LOSING_PA` sender the gaining one; without `directionRole`, REQUEST and COMPLETION go to the losing platform, ACK and DECISION to the gaining one) found by id (matricule) or name in the registry snapshot (`GET /v1/portability/platforms`); its portability address, else its contact address. A sandbox key never reaches a platform (`reason: sandbox`); a live message is mailed only when the deployment dispatches (EINV_PORTABILITY_DISPATCH) and has an SMTP server; the CSV travels inline in the body, or attached as `filename` through a direct relay (EINV_PORTABILITY_RELAY_URL). A `rejected` state needs `reasonCode`. 400 for a SIREN not of 9 digits, an unknown type or state, a `requestRef` containing `]` or a line break, a date without its timezone.',
    errors: { 400: 'INVALID_REQUEST (SIREN, SIRET, requestRef, addresses), INVALID_ENUM (messageType, state, directionRole), INVALID_DATE (effectiveDate, requestDatetime), MISSING_FIELD (reasonCode on a rejection)' },
    response: messageSchema,
  },
});

export interface ListMessagesParams {
  limit?: number;
  cursor?: string;
  requestRef?: string;
  siren?: string;
  state?: PortabilityState;
  messageType?: PortabilityMessageType;
  dispatched?: boolean;
}
export const listMessages = defineAction<ListMessagesParams, Page<PortabilityMessageView> & { total: number }>(SERVICE, 'listMessages', {
  params: {
    ...STRICT_REMOVE, ...PAGE_PARAMS,
    requestRef: { type: 'string', optional: true, min: 1, max: 128 }, siren: { type: 'string', optional: true, pattern: /^\d{9}$/, messages: { stringPattern: 'siren must be exactly 9 digits' } },
    state: { type: 'enum', values: [...PORTABILITY_STATES], optional: true }, messageType: { type: 'enum', values: [...PORTABILITY_MESSAGE_TYPES], optional: true },
    dispatched: { type: 'boolean', optional: true, convert: true },
  },
  http: {
    method: 'GET', path: '/v1/portability/messages', access: 'compliance', tag: 'Portability',
    summary: 'The organization\'s portability messages, newest first, with the number matching the filters (`total`); filters `requestRef`, `siren`, `state`, `messageType`, `dispatched`',
    response: (() => { const page = pageSchema(messageSchema) as { required: string[]; properties: Record<string, unknown> }; return { ...page, required: [...page.required, 'total'], properties: { ...page.properties, total: { type: 'integer', minimum: 0 } } }; })(),
  },
});

export const getMessage = defineAction<{ id: string }, PortabilityMessageProof>(SERVICE, 'getMessage', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 } },
  http: {
    method: 'GET', path: '/v1/portability/messages/:id', access: 'compliance', tag: 'Portability',
    summary: 'One message with its proof: the CSV (row, fields, SHA-256), the recipient and how it was resolved, the mail id, and the annuaire snapshot taken when it was recorded',
    response: proofSchema,
  },
});

export interface ParsedMessage {
  messageType: PortabilityMessageType;
  statusCode: PortabilityStatusCode;
  state: PortabilityState;
  siren: string;
  requestRef: string;
  fields?: PortabilityCsvFields;
}
export const parseMessage = defineAction<{ subject: string; csvRow?: string }, ParsedMessage>(SERVICE, 'parseMessage', {
  params: { ...STRICT_REMOVE, subject: { type: 'string', min: 1, max: 1000 }, csvRow: { type: 'string', optional: true, max: 64 * 1024 } },
  http: {
    method: 'POST', path: '/v1/portability/messages/parse', access: 'compliance', tag: 'Portability',
    summary: 'Read an inbound portability message: its subject (and optionally its CSV data row, without the header) → type, status code, state, SIREN, reference and the 18 fields',
    description: 'A subject off the grammar, a SIREN not of 9 digits, an unknown message type or status code, a reference containing `]`, or a row that is not one record of exactly 18 columns is 400.',
    errors: { 400: 'INVALID_REQUEST (subject off the grammar, SIREN, reference, CSV row not 18 columns), INVALID_ENUM (message type, status code)' },
    response: {
      type: 'object', required: ['messageType', 'statusCode', 'state', 'siren', 'requestRef'],
      properties: {
        messageType: { type: 'string', enum: [...PORTABILITY_MESSAGE_TYPES] }, statusCode: { type: 'string', enum: [...PORTABILITY_STATUS_CODES] }, state: { type: 'string', enum: [...PORTABILITY_STATES] },
        siren: { type: 'string', pattern: '^\\d{9}$' }, requestRef: str,
        fields: { type: 'object', required: [...PORTABILITY_CSV_COLUMNS], properties: Object.fromEntries(PORTABILITY_CSV_COLUMNS.map((c) => [c, str])) },
      },
    },
  },
});

// ---------- the registry of approved platforms ----------

export const PLATFORM_STATUSES = ['registered', 'pending_interop'] as const;
export type PlatformStatus = (typeof PLATFORM_STATUSES)[number];
export const MATRICULE_CONFIDENCES = ['confirmed', 'published', 'inferred'] as const;

export interface PlatformView {
  name: string;
  website: string | null;
  email: string | null;
  portabilityEmail: string | null;
  contactEmail: string | null;
  registeredOn: string | null;
  status: PlatformStatus;
  /** Only for signed-in readers, and only when the snapshot has one (never invented). */
  matricule?: string;
  matriculeConfidence?: (typeof MATRICULE_CONFIDENCES)[number];
}
export const listPlatforms = defineAction<{ q?: string; status?: PlatformStatus }, { data: PlatformView[]; total: number; source: string; snapshotDate: string }>(SERVICE, 'listPlatforms', {
  params: { ...STRICT_REMOVE, q: { type: 'string', optional: true, max: 200 }, status: { type: 'enum', values: [...PLATFORM_STATUSES], optional: true } },
  http: {
    method: 'GET', path: '/v1/portability/platforms', access: 'public', optionalAuth: true, tag: 'Portability',
    summary: 'The French approved platforms (registry snapshot shipped with the product, or the operator\'s EINV_PORTABILITY_PLATFORMS_FILE), by name, e-mail or website (`q`) and `status`; matricules only for signed-in readers, and only where the snapshot has one',
    description: '`source` and `snapshotDate` say where the list comes from and when it was taken. `matricule` is absent when unknown (never invented); `matriculeConfidence` says how it is known: `confirmed` (by the platform), `published` (an official list), `inferred` (deduced, e.g. from traffic). Public: anyone may read the list; with a valid credential the matricules are shown (an invalid one is 401).',
    errors: { 401: 'INVALID_TOKEN, EXPIRED_TOKEN, REVOKED_KEY: a credential was sent and is not valid' },
    response: {
      type: 'object', required: ['data', 'total', 'source', 'snapshotDate'],
      properties: {
        data: {
          type: 'array',
          items: {
            type: 'object', required: ['name', 'website', 'email', 'portabilityEmail', 'contactEmail', 'registeredOn', 'status'],
            properties: {
              name: str, website: nullableStr, email: nullableStr, portabilityEmail: nullableStr, contactEmail: nullableStr, registeredOn: { type: ['string', 'null'], format: 'date' },
              status: { type: 'string', enum: [...PLATFORM_STATUSES] }, matricule: { type: 'string', pattern: '^\\d{4}$' }, matriculeConfidence: { type: 'string', enum: [...MATRICULE_CONFIDENCES] },
            },
          },
        },
        total: { type: 'integer', minimum: 0 }, source: str, snapshotDate: { type: 'string', format: 'date' },
      },
    },
  },
});

// ---------- routing platform of a participant outside France ----------

export interface AccessPointView {
  participantId: string;
  registered: boolean;
  canReceive: boolean;
  endpoint: { url: string; transportProfile: string; certificateSubject: string | null; certificateNotAfter: string | null } | null;
  /** Read from the endpoint certificate's subject: O (the operator), CN (its Peppol seat id), C. */
  platform: { name: string | null; seatId: string | null; country: string | null } | null;
  network: string;
  checkedAt: string;
}
export const accessPoint = defineAction<{ participantId: string }, AccessPointView>(SERVICE, 'accessPoint', {
  params: { ...STRICT_REMOVE, participantId: { type: 'string', min: 3, max: 160 } },
  http: {
    method: 'GET', path: '/v1/portability/access-point/:participantId', access: 'directory', tag: 'Portability',
    summary: 'The platform routing a Peppol participant (outside France): resolved at the time of the call through the SML, the participant\'s SMP and its signed endpoint, named from the endpoint certificate (O = operator, CN = seat id)',
    description: 'Asks, at the time of the call, the Peppol discovery connectors (peppol-discovery, or the peppol-as4 access point\'s own discovery) of the caller\'s mode: production for live keys, the Peppol test network for test keys. 400 for a participant id that is not `<scheme>:<identifier>`; 404 when the SML has no record of it; 503 UPSTREAM_UNAVAILABLE when no discovery connector runs, or DNS or the SMP does not answer (or signs with an untrusted certificate).',
    errors: { 503: 'UPSTREAM_UNAVAILABLE: no live Peppol discovery connector, or the SML/SMP did not answer' },
    response: {
      type: 'object', required: ['participantId', 'registered', 'canReceive', 'endpoint', 'platform', 'network', 'checkedAt'],
      properties: {
        participantId: str, registered: { type: 'boolean' }, canReceive: { type: 'boolean' },
        endpoint: {
          type: ['object', 'null'], required: ['url', 'transportProfile', 'certificateSubject', 'certificateNotAfter'],
          properties: { url: str, transportProfile: str, certificateSubject: nullableStr, certificateNotAfter: { type: ['string', 'null'], format: 'date-time' } },
        },
        platform: { type: ['object', 'null'], required: ['name', 'seatId', 'country'], properties: { name: nullableStr, seatId: nullableStr, country: nullableStr } },
        network: str, checkedAt: { type: 'string', format: 'date-time' },
      },
    },
  },
});

// ---------- company suggestions ----------

export interface CompanySuggestion {
  name: string;
  country: string | null;
  peppolId: string;
  source: 'platform' | 'peppol-directory';
  /** 1 for an identifier match or an exact name, lower for prefix and partial matches. */
  score: number;
}
export interface CompanyQuery {
  q: string;
  country: string | null;
  /** How `q` was read: a Peppol id, a VAT number, a bare number under the country's register scheme, or a name. */
  kind: 'peppolId' | 'vatNumber' | 'registrationNumber' | 'name';
  /** The Peppol id looked up for an identifier; null for a name, or a bare number no scheme covers. */
  peppolId: string | null;
  /** Why an identifier could not be looked up (a bare number without a country, or one whose country has no register scheme). */
  note: string | null;
}
export const suggestCompanies = defineAction<{ q: string; country?: string }, { data: CompanySuggestion[]; query: CompanyQuery; sources: Array<{ source: string; available: boolean; message: string | null }> }>(SERVICE, 'suggestCompanies', {
  params: { ...STRICT_REMOVE, q: { type: 'string', min: 1, max: 200, trim: true }, country: { type: 'string', optional: true, pattern: /^[A-Z]{2}$/ } },
  http: {
    method: 'GET', path: '/v1/portability/companies', access: 'directory', tag: 'Portability',
    summary: 'Companies to switch, from a name (ranked suggestions) or an identifier (direct lookup): a Peppol id, a VAT number, or a bare number with `country` looked up under that country\'s register scheme (FR SIREN/SIRET, BE enterprise number, DK CVR, SE/NO organisation number …); a country without one gets no invented scheme (`query.note` says so)',
    description: 'Looks among this platform\'s participants (the caller\'s mode) and, when configured, the Peppol Directory (EINV_PEPPOL_DIRECTORY_URL); `sources` says which answered.',
    response: {
      type: 'object', required: ['data', 'query', 'sources'],
      properties: {
        data: {
          type: 'array',
          items: {
            type: 'object', required: ['name', 'country', 'peppolId', 'source', 'score'],
            properties: { name: str, country: nullableStr, peppolId: str, source: { type: 'string', enum: ['platform', 'peppol-directory'] }, score: { type: 'number', minimum: 0, maximum: 1 } },
          },
        },
        query: {
          type: 'object', required: ['q', 'country', 'kind', 'peppolId', 'note'],
          properties: { q: str, country: nullableStr, kind: { type: 'string', enum: ['peppolId', 'vatNumber', 'registrationNumber', 'name'] }, peppolId: nullableStr, note: nullableStr },
        },
        sources: { type: 'array', items: { type: 'object', required: ['source', 'available', 'message'], properties: { source: str, available: { type: 'boolean' }, message: nullableStr } } },
      },
    },
  },
});

