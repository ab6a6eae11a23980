/**
 * portability: France, change of approved platform (spec: "Portability (France change of approved
 * platform)", compliance.md A.7). Resolving a taxpayer, migration requests with their legal clocks
 * and hash-linked evidence chain, the mandate's signature, the routing switch per SIREN and what the
 * annuaire says about a SIREN. The inter-platform messages (subject plus 18-field CSV) belong to the
 * `portability-messages` service; this one folds the `portability.message.recorded` events it emits.
 */
import { defineAction, STRICT_REMOVE, type JsonSchema } from '../shared/contract.ts';
import { PORTABILITY_STATES, STATUS_CODE_BY_STATE, type PortabilityState } from '../../mappings/index.ts';
import { ROUTING_ROLES, type RoutingRole } from './portability.entity.ts';

const SERVICE = 'portability';
const TAG = 'Portability';

/** The states and their wire codes are the portability wire format's (mappings/portability), one table for both services. */
export const REQUEST_STATES = PORTABILITY_STATES;
export type RequestState = PortabilityState;
export const STATUS_CODES = STATUS_CODE_BY_STATE;
export const SIGNATURE_METHODS = ['paper', 'external', 'approval'] as const;
export type SignatureMethod = (typeof SIGNATURE_METHODS)[number];

/** Emitted by portability-messages when a message of a request is logged (its contract owns the event). */
export { PORTABILITY_MESSAGE_RECORDED_EVENT as MESSAGE_RECORDED_EVENT, type PortabilityMessageRecorded } from '../portability-messages/portability-messages.contract.ts';

const str = { type: 'string' } as const;
const nullableStr = { type: ['string', 'null'] } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const date = { type: 'string', format: 'date' } as const;

// ---------- resolve ----------

export interface Taxpayer {
  name: string | null;
  country: string | null;
  registrationNumber: string | null;
  peppolId: string | null;
  addressingIdentifier: string | null;
  /** Which layer answered: `platform` (a company of this platform), `registry` (the company registry of its VAT number's country), `identifier` (the identifier itself says it). */
  resolvedFrom: 'platform' | 'registry' | 'identifier';
}
export interface Resolution {
  taxpayer: Taxpayer;
  regime: 'FR_CTC' | 'PEPPOL' | 'UNKNOWN';
  requirements: { addressChanges: string[]; reGrant: boolean; archiveHolder: 'outgoing_platform' };
  stillNeeded: string[];
}

const taxpayerSchema: JsonSchema = {
  type: 'object', required: ['name', 'country', 'registrationNumber', 'peppolId', 'addressingIdentifier', 'resolvedFrom'],
  properties: {
    name: nullableStr, country: { type: ['string', 'null'], pattern: '^[A-Z]{2}$' }, registrationNumber: { ...nullableStr, description: 'SIREN for a French company' },
    peppolId: { ...nullableStr, examples: ['0009:552100554'] }, addressingIdentifier: { ...nullableStr, description: 'French electronic address: `SIREN` or `SIREN_SIRET`' },
    resolvedFrom: { type: 'string', enum: ['platform', 'registry', 'identifier'], description: '`platform`: a company registered through this platform; `registry`: the company registry of the VAT number\'s country (a French SIREN is asked under its FR VAT number; VIES live, the sandbox registry for test keys); `identifier`: what a checksum-valid SIRET, SIREN, VAT number or Peppol id says by itself' },
  },
};
const resolutionSchema: JsonSchema = {
  type: 'object', required: ['taxpayer', 'regime', 'requirements', 'stillNeeded'],
  properties: {
    taxpayer: taxpayerSchema,
    regime: { type: 'string', enum: ['FR_CTC', 'PEPPOL', 'UNKNOWN'], description: '`FR_CTC`: French reform, an approved platform (PA) declared in the annuaire; `PEPPOL`: a Peppol participant elsewhere' },
    requirements: {
      type: 'object', required: ['addressChanges', 'reGrant', 'archiveHolder'],
      properties: {
        addressChanges: { type: 'array', items: str, description: 'The addresses whose routing changes (directory lines, Peppol id)' },
        reGrant: { type: 'boolean', description: 'The taxpayer signs a new mandate for the incoming platform' },
        archiveHolder: { type: 'string', const: 'outgoing_platform', description: 'Who keeps what was exchanged before the effective date' },
      },
    },
    stillNeeded: { type: 'array', items: str, description: 'Taxpayer facts no layer could give' },
  },
};

const taxpayerParam = { type: 'string', min: 1, max: 320, trim: true, openapi: { type: 'string', description: 'SIRET, SIREN, VAT number, Peppol id (`scheme:id`), registration number, domain, e-mail or `name:<company>`', examples: ['55210055400013', 'name:Acme SAS'] } } as const;
const countryParam = { type: 'string', optional: true, pattern: /^[A-Z]{2}$/, openapi: { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2; used only when the identifier has no country of its own' } } as const;

export const resolve = defineAction<{ taxpayer: string; country?: string }, Resolution>(SERVICE, 'resolve', {
  params: { ...STRICT_REMOVE, taxpayer: taxpayerParam, country: countryParam },
  http: {
    method: 'POST', path: '/v1/portability/resolve', access: 'companies.read', tag: TAG,
    summary: 'Who a taxpayer is and what a change of platform means for it: its identity (from this platform\'s companies, else the company registry of its VAT number\'s country, else what a checksum-valid identifier says), the regime, the addresses that change and what is still unknown',
    errors: { 400: 'INVALID_REQUEST: a SIRET or SIREN failing its check digit; MISSING_FIELD: a registration number with no country', 404: 'RESOURCE_NOT_FOUND: no layer resolves the taxpayer' },
    response: resolutionSchema,
  },
});

// ---------- requests ----------

export interface Signatory { name: string; email?: string; role?: string }
export interface CreateRequestParams {
  taxpayer: string;
  country?: string;
  signatory?: Signatory;
  outgoingPlatform?: { name?: string; matricule?: string; email?: string };
  effectiveDate?: string;
  addressScope?: string[];
  overrides?: { minimalServiceMonths?: number };
  signedAt?: string;
  signatureMethod?: SignatureMethod;
}

export interface MandateView {
  reference: string;
  taxpayerId: string | null;
  incomingPlatform: string | null;
  outgoingPlatform: string | null;
  effectiveDate: string | null;
  addressScope: string[];
  signatory: Signatory | null;
  signedAt: string | null;
  signedBy: string | null;
  signatureMethod: SignatureMethod | null;
  agreementSha256: string | null;
  mandateSha256: string;
}
export interface Clocks { notifyBy: string; objectionWindowEnds: string; annuaireUpdateBy: string; continuityUntil: string }
export interface Verification { intact: boolean; length: number; brokenAt: number | null }
export interface RequestView {
  requestRef: string;
  organizationId: string;
  state: RequestState;
  statusCode: string;
  taxpayer: Taxpayer;
  mandate: MandateView;
  mandateGaps: string[];
  clocks: Clocks;
  tacitApproval: boolean;
  objections: Array<{ ground: string | null; admissible: boolean; messageId: string; at: string }>;
  evidence: { verification: Verification; manifestSha256: string };
  createdAt: string;
}

const signatorySchema: JsonSchema = { type: 'object', required: ['name'], properties: { name: str, email: str, role: str } };
const mandateSchema: JsonSchema = {
  type: 'object',
  required: ['reference', 'taxpayerId', 'incomingPlatform', 'outgoingPlatform', 'effectiveDate', 'addressScope', 'signatory', 'signedAt', 'signedBy', 'signatureMethod', 'agreementSha256', 'mandateSha256'],
  properties: {
    reference: str, taxpayerId: { ...nullableStr, description: 'SIREN (or registration number) of the taxpayer' },
    incomingPlatform: { ...nullableStr, description: 'Matricule of this platform' }, outgoingPlatform: nullableStr,
    effectiveDate: { type: ['string', 'null'], format: 'date', description: 'Null only when the chain\'s first row does not verify' }, addressScope: { type: 'array', items: str },
    signatory: { anyOf: [signatorySchema, { type: 'null' }], description: 'Who will sign (declared; not a signature)' },
    signedAt: { type: ['string', 'null'], format: 'date-time', description: 'Null until a signature is recorded; never invented' },
    signedBy: nullableStr, signatureMethod: { type: ['string', 'null'], enum: [...SIGNATURE_METHODS, null] },
    agreementSha256: { ...nullableStr, description: 'Digest of the signed agreement (the rendered text, or the caller\'s signed file)' },
    mandateSha256: { type: 'string', description: 'Digest of the mandate\'s canonical content (the approval check\'s context key carries it)' },
  },
};
const verificationSchema: JsonSchema = {
  type: 'object', required: ['intact', 'length', 'brokenAt'],
  properties: { intact: { type: 'boolean' }, length: { type: 'integer', minimum: 1 }, brokenAt: { type: ['integer', 'null'], description: 'The first row (seq, from 1) that does not verify' } },
};
export const requestViewSchema: JsonSchema = {
  type: 'object',
  required: ['requestRef', 'organizationId', 'state', 'statusCode', 'taxpayer', 'mandate', 'mandateGaps', 'clocks', 'tacitApproval', 'objections', 'evidence', 'createdAt'],
  properties: {
    requestRef: { type: 'string', examples: ['prq_01JD7Z3V9Q1M2N3P4R5S6T7V8W'] }, organizationId: str,
    state: { type: 'string', enum: [...REQUEST_STATES], description: 'Folded from the evidence chain on every read' },
    statusCode: { type: 'string', enum: Object.values(STATUS_CODES) },
    taxpayer: taxpayerSchema, mandate: mandateSchema,
    mandateGaps: { type: 'array', items: str, description: 'What the mandate still lacks: `signatory`, `signature`, or a decree item (`taxpayerId`, `incomingPlatform`, `effectiveDate`, `addressScope`)' },
    clocks: {
      type: 'object', required: ['notifyBy', 'objectionWindowEnds', 'annuaireUpdateBy', 'continuityUntil'],
      properties: { notifyBy: dateTime, objectionWindowEnds: dateTime, annuaireUpdateBy: dateTime, continuityUntil: date },
    },
    tacitApproval: { type: 'boolean', description: 'True once the objection window closed with no decision and no admissible objection (silence is agreement)' },
    objections: {
      type: 'array',
      items: { type: 'object', required: ['ground', 'admissible', 'messageId', 'at'], properties: { ground: nullableStr, admissible: { type: 'boolean' }, messageId: str, at: dateTime } },
    },
    evidence: { type: 'object', required: ['verification', 'manifestSha256'], properties: { verification: verificationSchema, manifestSha256: str } },
    createdAt: dateTime,
  },
};

const isoDateParam = (description: string) => ({ type: 'string', optional: true, pattern: /^\d{4}-\d{2}-\d{2}$/, openapi: { type: 'string', format: 'date', description } });
const signedAtParam = { type: 'string', optional: true, max: 64, openapi: { type: 'string', format: 'date-time', description: 'When the taxpayer signed, as the caller asserts it (ISO 8601 with offset); never in the future' } };

export const createRequest = defineAction<CreateRequestParams, RequestView>(SERVICE, 'createRequest', {
  params: {
    ...STRICT_REMOVE,
    taxpayer: taxpayerParam,
    country: countryParam,
    signatory: { type: 'object', optional: true, strict: 'remove', props: { name: { type: 'string', min: 1, max: 200 }, email: { type: 'email', optional: true, max: 254 }, role: { type: 'string', optional: true, max: 100 } } },
    outgoingPlatform: { type: 'object', optional: true, strict: 'remove', props: { name: { type: 'string', optional: true, max: 200 }, matricule: { type: 'string', optional: true, pattern: /^\d{4}$/ }, email: { type: 'email', optional: true, max: 254 } } },
    effectiveDate: isoDateParam('Default: the first business day after the objection window could close'),
    addressScope: { type: 'array', optional: true, max: 100, items: { type: 'string', min: 1, max: 100 }, openapi: { type: 'array', maxItems: 100, items: { type: 'string' }, description: 'Default: the resolved directory line and Peppol id; a French company with neither: its SIREN and SIRET' } },
    overrides: { type: 'object', optional: true, strict: 'remove', props: { minimalServiceMonths: { type: 'number', integer: true, min: 1, max: 120, optional: true } } },
    signedAt: signedAtParam,
    signatureMethod: { type: 'enum', optional: true, values: [...SIGNATURE_METHODS] },
  },
  http: {
    method: 'POST', path: '/v1/portability/requests', access: 'companies.write', tag: TAG, status: 201,
    location: (r: RequestView) => `/v1/portability/requests/${r.requestRef}`,
    summary: 'File a change of approved platform for a taxpayer: the mandate (reference, effective date, address scope), its gaps (a missing signatory is a gap, not a failure), the legal clocks (acknowledge in 24 h, decide in 5 French business days, 12 months of reception continuity) computed on the platform clock, and the first row of the evidence chain',
    errors: { 400: 'INVALID_REQUEST, INVALID_DATE: a bad identifier, an effective date before the objection window could close, a signature dated in the future, signatureMethod approval with signedAt', 404: 'RESOURCE_NOT_FOUND: no layer resolves the taxpayer' },
    response: requestViewSchema,
  },
});

const requestRefParam = { type: 'string', min: 1, max: 64, pattern: /^prq_[0-9A-Z]{26}$/, messages: { stringPattern: 'not a portability request reference' } } as const;

export const getRequest = defineAction<{ requestRef: string }, RequestView>(SERVICE, 'getRequest', {
  params: { ...STRICT_REMOVE, requestRef: requestRefParam },
  http: {
    method: 'GET', path: '/v1/portability/requests/:requestRef', access: 'companies.read', tag: TAG,
    summary: 'A request with its state folded from its evidence chain on this read (messages of the other platform, signatures, tacit acceptance when the objection window lapsed, execution from the effective date with the gaining routing switch for the SIREN made once (as POST /v1/portability/routing would, idempotent on the SIREN), completion once the annuaire names this platform), the chain\'s verification and manifest digest',
    errors: { 404: 'RESOURCE_NOT_FOUND: no such request among the caller\'s' },
    response: requestViewSchema,
  },
});

// ---------- mandate signature ----------

export interface OpenedSignature {
  requestRef: string;
  checkId: string;
  contextKey: string;
  status: 'open';
  agreement: string;
  agreementSha256: string;
  mandateSha256: string;
  objectId: string;
}
export const openSignature = defineAction<{ requestRef: string; userIds: string[]; objectId?: string }, OpenedSignature>(SERVICE, 'openSignature', {
  params: {
    ...STRICT_REMOVE, requestRef: requestRefParam,
    userIds: { type: 'array', min: 1, max: 20, items: { type: 'string', min: 1, max: 255 } },
    objectId: { type: 'string', optional: true, min: 1, max: 64, openapi: { type: 'string', description: 'A document of yours that holds the agreement; when omitted the rendered agreement is stored with the request' } },
  },
  http: {
    method: 'POST', path: '/v1/portability/requests/:requestRef/mandate/signature', access: 'companies.write', tag: TAG, status: 201,
    location: (r: OpenedSignature) => `/v1/portability/requests/${r.requestRef}/mandate/signature`,
    summary: 'Open an approval check for the mandate, bound to the context key `portability:<requestRef>:<mandateSha256>`, for the users named; answers the agreement text with its digest and the mandate\'s',
    errors: {
      404: 'RESOURCE_NOT_FOUND: no such request among the caller\'s; DOCUMENT_NOT_FOUND: objectId is not a document of yours',
      409: 'MANDATE_INCOMPLETE: a decree item (taxpayerId, incomingPlatform, effectiveDate, addressScope) is missing; SIGNATURE_EXISTS: the mandate is already signed',
      502: 'UPSTREAM_ERROR: the approval service did not answer (in time) or refused the check',
    },
    response: {
      type: 'object', required: ['requestRef', 'checkId', 'contextKey', 'status', 'agreement', 'agreementSha256', 'mandateSha256', 'objectId'],
      properties: {
        requestRef: str, checkId: str, contextKey: { type: 'string', examples: ['portability:prq_01JD7Z3V9Q1M2N3P4R5S6T7V8W:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'] },
        status: { type: 'string', const: 'open' }, agreement: { type: 'string', description: 'The agreement text the users approve' },
        agreementSha256: str, mandateSha256: str, objectId: { type: 'string', description: 'Where the agreement is kept: your document, or the stored rendering' },
      },
    },
  },
});

export interface SignatureView {
  requestRef: string;
  signed: boolean;
  /** The approval check's status: `none` when no check was opened. */
  status: 'none' | 'open' | 'passed' | 'refused' | 'withdrawn';
  checkId: string | null;
  method: SignatureMethod | null;
  signedAt: string | null;
  signedBy: string | null;
  agreementSha256: string | null;
  mandateSha256: string;
}
const signatureViewSchema: JsonSchema = {
  type: 'object', required: ['requestRef', 'signed', 'status', 'checkId', 'method', 'signedAt', 'signedBy', 'agreementSha256', 'mandateSha256'],
  properties: {
    requestRef: str, signed: { type: 'boolean' }, status: { type: 'string', enum: ['none', 'open', 'passed', 'refused', 'withdrawn'] },
    checkId: nullableStr, method: { type: ['string', 'null'], enum: [...SIGNATURE_METHODS, null] }, signedAt: { type: ['string', 'null'], format: 'date-time' },
    signedBy: nullableStr, agreementSha256: nullableStr, mandateSha256: str,
  },
};

export const readSignature = defineAction<{ requestRef: string }, SignatureView>(SERVICE, 'readSignature', {
  params: { ...STRICT_REMOVE, requestRef: requestRefParam },
  http: {
    method: 'GET', path: '/v1/portability/requests/:requestRef/mandate/signature', access: 'companies.read', tag: TAG,
    summary: 'The mandate signature: `signed` stays false while the approval check is open, refused or withdrawn; the first read that finds the check passed writes the signature into the evidence chain',
    errors: { 404: 'RESOURCE_NOT_FOUND: no such request among the caller\'s', 502: 'UPSTREAM_ERROR: the approval service did not answer' },
    response: signatureViewSchema,
  },
});

export interface DepositSignedParams {
  requestRef: string;
  file: { content: string; contentType?: string; filename?: string };
}
/** The signed file may not be larger than this (spec: Limits, signed agreement file). */
export const SIGNED_FILE_MAX_BYTES = 10 * 1024 * 1024;

export const depositSignedMandate = defineAction<DepositSignedParams, SignatureView & { fileId: string }>(SERVICE, 'depositSignedMandate', {
  params: {
    ...STRICT_REMOVE, requestRef: requestRefParam,
    file: { type: 'object', props: { content: { type: 'string' }, contentType: { type: 'string', optional: true }, filename: { type: 'string', optional: true } } },
  },
  http: {
    method: 'POST', path: '/v1/portability/requests/:requestRef/mandate/signature/document', access: 'companies.write', tag: TAG, status: 201, rawBody: true,
    location: (r: SignatureView) => `/v1/portability/requests/${r.requestRef}/mandate/signature`,
    multipart: {
      type: 'object', required: ['file', 'signedBy', 'signedAt'],
      properties: {
        file: { type: 'string', format: 'binary', description: 'The signed mandate (at most 10 MB)' },
        signedBy: { type: 'string', maxLength: 200, description: 'Who signed' },
        signedAt: { type: 'string', format: 'date-time', description: 'When it was signed (ISO 8601 with offset); never in the future' },
      },
    },
    summary: 'Deposit the signed mandate (multipart: `file`, `signedBy`, `signedAt`): the file is stored and the signature recorded in the evidence chain with `agreementSha256`, the digest of your file',
    errors: {
      400: 'INVALID_REQUEST: not multipart, a part missing, signedAt not ISO 8601 or in the future',
      404: 'RESOURCE_NOT_FOUND: no such request among the caller\'s',
      409: 'SIGNATURE_EXISTS: a signature is already recorded',
      413: 'PAYLOAD_TOO_LARGE: the signed file is over 10 MB',
    },
    response: { ...signatureViewSchema, required: [...(signatureViewSchema.required as string[]), 'fileId'], properties: { ...(signatureViewSchema.properties as object), fileId: str } },
  },
});

// ---------- stored files ----------

const fileIdParam = { type: 'string', min: 1, max: 64, pattern: /^pfile_[0-9A-Z]{26}$/, messages: { stringPattern: 'not a portability file id' } } as const;
const FILE_ERRORS = {
  404: 'RESOURCE_NOT_FOUND: no such request among the caller\'s, or no such file of the request',
  502: 'UPSTREAM_ERROR: the stored bytes no longer hash to the digest the evidence chain recorded, or the chain does not verify up to the row that recorded it (never served)',
};
const FILE_HEADERS = {
  'Content-Disposition': { description: '`attachment` with the stored file name (`filename*` in UTF-8)', schema: { type: 'string' } },
  'Repr-Digest': { description: 'RFC 9530: `sha-256=:<base64>:`, the SHA-256 of the bytes as the evidence chain recorded it (`agreementSha256`)', schema: { type: 'string', examples: ['sha-256=:n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=:'] } },
  ETag: { description: 'The same SHA-256, hex, quoted', schema: { type: 'string' } },
} as const;

export const downloadFile = defineAction<{ requestRef: string; fileId: string }, Buffer>(SERVICE, 'downloadFile', {
  params: { ...STRICT_REMOVE, requestRef: requestRefParam, fileId: fileIdParam },
  http: {
    method: 'GET', path: '/v1/portability/requests/:requestRef/files/:fileId', access: 'companies.read', tag: TAG,
    summary: 'A stored file of a request, byte for byte with its content type: the rendered agreement (the `objectId` of an opened signature) or the deposited signed mandate (the `fileId` of the deposit); checked against the SHA-256 the evidence chain recorded, given in `Repr-Digest` and `ETag`',
    responseMediaType: '*/*', responseHeaders: FILE_HEADERS, errors: FILE_ERRORS,
    response: { type: 'string', format: 'binary' },
  },
});

export const downloadSignedMandate = defineAction<{ requestRef: string }, Buffer>(SERVICE, 'downloadSignedMandate', {
  params: { ...STRICT_REMOVE, requestRef: requestRefParam },
  http: {
    method: 'GET', path: '/v1/portability/requests/:requestRef/mandate/signature/document', access: 'companies.read', tag: TAG,
    summary: 'The signed mandate deposited for the request (POST …/mandate/signature/document), byte for byte with its content type; checked against the `agreementSha256` the evidence chain recorded, given in `Repr-Digest` and `ETag`; 404 when none was deposited',
    responseMediaType: '*/*', responseHeaders: FILE_HEADERS, errors: FILE_ERRORS,
    response: { type: 'string', format: 'binary' },
  },
});

// ---------- routing and annuaire ----------

export interface RoutingParams {
  organizationId: string;
  siren: string;
  siret?: string;
  effectiveDate: string;
  role: RoutingRole;
  connectionId?: string;
  minimalServiceMonths?: number;
}
export interface RoutingView {
  organizationId: string;
  connectionId: string | null;
  role: RoutingRole;
  siren: string;
  siret: string | null;
  effectiveDate: string;
  serviceUntil: string | null;
  created: boolean;
  address: { id: string; siren: string; active: boolean };
}
export const setRouting = defineAction<RoutingParams, RoutingView>(SERVICE, 'setRouting', {
  params: {
    ...STRICT_REMOVE,
    organizationId: { type: 'string', min: 1, max: 255 },
    siren: { type: 'string', pattern: /^\d{9}$/, messages: { stringPattern: 'siren must be exactly 9 digits' } },
    siret: { type: 'string', optional: true, pattern: /^\d{14}$/, messages: { stringPattern: 'siret must be exactly 14 digits' } },
    effectiveDate: { type: 'string', pattern: /^\d{4}-\d{2}-\d{2}$/, openapi: { type: 'string', format: 'date' } },
    role: { type: 'enum', values: [...ROUTING_ROLES] },
    connectionId: { type: 'string', optional: true, min: 1, max: 255, openapi: { type: 'string', description: 'The company (connection) of the organization the address routes to; required when the organization has more than one' } },
    minimalServiceMonths: { type: 'number', integer: true, optional: true, min: 1, max: 120, openapi: { type: 'integer', minimum: 1, maximum: 120, default: 12, description: 'Losing platform: how long reception stays open after the effective date' } },
  },
  http: {
    method: 'POST', path: '/v1/portability/routing', access: 'companies.write', tag: TAG,
    summary: 'Switch the routing of a SIREN (idempotent on the SIREN: the same one again answers the first switch, `created` false). GAINING_PA: the address is valid from the effective date; LOSING_PA: emission stops on that date and reception stays open `minimalServiceMonths` (12) more',
    errors: {
      400: 'INVALID_REQUEST: a SIREN or SIRET failing its check digit, a SIRET of another SIREN; MISSING_FIELD: connectionId when the organization has more than one connection; INVALID_DATE',
      403: 'ORGANIZATION_FORBIDDEN: organizationId is not the caller\'s',
      404: 'COMPANY_NOT_FOUND: connectionId is not a company of the organization',
    },
    response: {
      type: 'object', required: ['organizationId', 'connectionId', 'role', 'siren', 'siret', 'effectiveDate', 'serviceUntil', 'created', 'address'],
      properties: {
        organizationId: str, connectionId: nullableStr, role: { type: 'string', enum: [...ROUTING_ROLES] }, siren: str, siret: nullableStr,
        effectiveDate: date, serviceUntil: { type: ['string', 'null'], format: 'date', description: 'Losing platform: the last day reception stays open; null for the gaining one' },
        created: { type: 'boolean' },
        address: {
          type: 'object', required: ['id', 'siren', 'active'],
          properties: { id: { type: 'string', description: 'The electronic address: `SIREN` or `SIREN_SIRET`' }, siren: str, active: { type: 'boolean', description: 'Gaining: from the effective date on; losing: until serviceUntil (reception)' } },
        },
      },
    },
  },
});

export interface AnnuaireView {
  siren: string;
  currentPaMatricule: string | null;
  effectiveFrom: string | null;
  effectiveTo: string | null;
  isFlowie: boolean;
  level: 'SIREN' | 'SIRET' | null;
  source: 'routing' | 'default';
}
/** The annuaire's public default matricule: nobody declared a platform for the SIREN. */
export const DEFAULT_MATRICULE = '9998';

export const annuaire = defineAction<{ siren: string; livemode?: boolean }, AnnuaireView>(SERVICE, 'annuaire', {
  params: {
    ...STRICT_REMOVE,
    siren: { type: 'string', pattern: /^\d{9}$/, messages: { stringPattern: 'siren must be exactly 9 digits' } },
    livemode: { type: 'boolean', optional: true, convert: true, openapi: { type: 'boolean', description: 'Internal callers without a credential: which mode to read (default live); a credential\'s own mode always wins' } },
  },
  http: {
    method: 'GET', path: '/v1/portability/annuaire/:siren', access: 'companies.read', tag: TAG,
    summary: 'Which approved platform the annuaire routes a SIREN to today (platform clock), from this platform\'s routing switches: `currentPaMatricule` (9998, the public default, when nobody is declared; null when another platform took over and its matricule is not known here), the validity of the deciding line, `isFlowie` (routing to this platform is in effect) and the line\'s level',
    response: {
      type: 'object', required: ['siren', 'currentPaMatricule', 'effectiveFrom', 'effectiveTo', 'isFlowie', 'level', 'source'],
      properties: {
        siren: str, currentPaMatricule: { ...nullableStr, examples: ['9998'] }, effectiveFrom: { type: ['string', 'null'], format: 'date' }, effectiveTo: { type: ['string', 'null'], format: 'date' },
        isFlowie: { type: 'boolean' }, level: { type: ['string', 'null'], enum: ['SIREN', 'SIRET', null] },
        source: { type: 'string', enum: ['routing', 'default'], description: '`routing`: a routing switch recorded here decides; `default`: none does' },
      },
    },
  },
});
