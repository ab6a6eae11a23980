/**
 * directory: who is reachable. Today it answers for the participants of this platform (the
 * companies tenancy holds); SMP/SML discovery and the French directory plug in here, behind the
 * same action, without its callers changing.
 */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';
import { PAGE_PARAMS, pageSchema, type Page } from '../shared/pagination.ts';
import type { DirectoryEntry, Participant } from '../../adapters/sdk/index.ts';
import type { FrenchCompaniesParams, FrenchCompany } from '../tenancy/tenancy.contract.ts';

const SERVICE = 'directory';

/** Document types a company of this platform receives. */
export const PLATFORM_DOCUMENT_TYPES = ['invoice', 'credit-note', 'debit-note', 'purchase-order', 'purchase-request', 'sales-order', 'quote', 'goods-receipt'] as const;

/** A participant among this platform's companies of that mode, or null. */
export const lookupParticipant = defineAction<{ participant: Participant; livemode: boolean }, DirectoryEntry | null>(SERVICE, 'lookupParticipant', {
  params: { participant: 'object', livemode: 'boolean' },
});

export interface VerifyParams {
  peppolId: string;
  /** An API document type (`invoice`) or its upper-case name (`INVOICE`, `CREDIT_NOTE`). */
  documentType: string;
}
export interface Verification {
  peppolId: string;
  documentType: string;
  /** The participant is registered on the network. */
  registered: boolean;
  /** It accepts `documentType`. */
  canReceive: boolean;
  documentTypes: string[];
  name: string | null;
  country: string | null;
  /** The connector (network) that answered. */
  network: string;
  /** Where it would be delivered, when the network's discovery tells (Peppol: the AS4 endpoint from the SMP). */
  endpoint: { url: string; transportProfile: string; certificateSubject: string | null; certificateNotAfter: string | null } | null;
  checkedAt: string;
  /** Answered from the directory's cache (positive answers kept 60 s, negative 15 s). */
  cached: boolean;
}
export const verify = defineAction<VerifyParams, Verification>(SERVICE, 'verify', {
  params: { ...STRICT_REMOVE, peppolId: { type: 'string', min: 3, max: 140 }, documentType: { type: 'string', min: 1, max: 64 } },
  http: {
    method: 'POST', path: '/v1/directory/verify', access: 'directory', tag: 'Directory',
    summary: 'Whether a participant can receive a document type, asked of the networks the caller\'s mode reaches (the sandbox network for test keys); 400 for a malformed Peppol id or an unknown document type',
    response: {
      type: 'object', required: ['peppolId', 'documentType', 'registered', 'canReceive', 'documentTypes', 'name', 'country', 'network', 'endpoint', 'checkedAt', 'cached'],
      properties: {
        peppolId: { type: 'string' }, documentType: { type: 'string' }, registered: { type: 'boolean' }, canReceive: { type: 'boolean' },
        documentTypes: { type: 'array', items: { type: 'string' } }, name: { type: ['string', 'null'] }, country: { type: ['string', 'null'] },
        network: { type: 'string' }, checkedAt: { type: 'string', format: 'date-time' }, cached: { type: 'boolean' },
        endpoint: {
          type: ['object', 'null'], description: 'Where it would be delivered, when the network\'s discovery tells (Peppol: the AS4 endpoint its SMP signed)',
          required: ['url', 'transportProfile', 'certificateSubject', 'certificateNotAfter'],
          properties: { url: { type: 'string' }, transportProfile: { type: 'string' }, certificateSubject: { type: ['string', 'null'] }, certificateNotAfter: { type: ['string', 'null'], format: 'date-time' } },
        },
      },
    },
  },
});

export interface DirectoryListing { peppolId: string; name: string; country: string; documentTypes: string[] }
export const search = defineAction<{ q?: string; country?: string; source?: 'platform' | 'peppol'; limit?: number; cursor?: string }, Page<DirectoryListing>>(SERVICE, 'search', {
  params: {
    ...STRICT_REMOVE, ...PAGE_PARAMS, q: { type: 'string', optional: true, max: 200 }, country: { type: 'string', optional: true, pattern: /^[A-Z]{2}$/ },
    source: { type: 'enum', values: ['platform', 'peppol'], optional: true },
  },
  http: {
    method: 'GET', path: '/v1/directory/search', access: 'directory', tag: 'Directory',
    summary: 'Participants by name or Peppol id (`q`) and country, with the document types they receive. `source=platform` (default): those registered through this platform, in the caller\'s mode. `source=peppol`: the Peppol Directory this deployment is configured with (EINV_PEPPOL_DIRECTORY_URL; it lists only participants that published a business card, so absence there is no proof; `POST /v1/directory/verify` asks the network itself); needs `q` or `country`; 503 UPSTREAM_UNAVAILABLE when none is configured or it does not answer.',
    errors: { 400: 'INVALID_REQUEST: source=peppol without q or country, or a cursor of another source', 503: 'UPSTREAM_UNAVAILABLE: no Peppol Directory configured, or it did not answer' },
    response: pageSchema({
      type: 'object', required: ['peppolId', 'name', 'country', 'documentTypes'],
      properties: { peppolId: { type: 'string' }, name: { type: 'string' }, country: { type: 'string' }, documentTypes: { type: 'array', items: { type: 'string' } } },
    }),
  },
});

/**
 * Internal (no HTTP route; the AFNOR XP Z12-013 Directory Service under /afnor/ reads it): the
 * French companies reachable on this platform in the caller's mode, as the French directory's
 * legal units, facilities and lines are made of.
 */
export const frenchCompanies = defineAction<Omit<FrenchCompaniesParams, 'livemode'>, { total: number; rows: FrenchCompany[] }>(SERVICE, 'frenchCompanies', {
  params: { siren: 'any|optional', siret: 'any|optional', name: 'any|optional', postalCode: 'any|optional', locality: 'any|optional', limit: 'number', offset: 'number' },
});
