/**
 * partners: an organization's counterparties, matched against the directory (a partner that is a
 * company of this platform says which), with the documents exchanged with each.
 */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';
import { PAGE_PARAMS, pageSchema, type Page } from '../shared/pagination.ts';
import { documentSchema, type DocumentView } from '../documents/documents.contract.ts';
import { PARTNER_ROLES, type PartnerRole } from './partner.entity.ts';

const SERVICE = 'partners';

export interface PartnerView {
  id: string;
  name: string;
  country: string | null;
  vatNumber: string | null;
  peppolId: string | null;
  role: PartnerRole;
  /** The partner is a company of this platform (in the same mode). */
  onPlatform: boolean;
  partnerOrganizationId: string | null;
  partnerCompanyId: string | null;
  /** French partners: the SIREN and the identifiers it is addressed by. */
  enrichment: { siren: string; peppolIds: string[] } | null;
  metadata: Record<string, unknown> | null;
  createdAt: string;
  updatedAt: string;
}

const nullableString = { type: ['string', 'null'] };
export const partnerSchema = {
  type: 'object',
  required: ['id', 'name', 'country', 'vatNumber', 'peppolId', 'role', 'onPlatform', 'partnerOrganizationId', 'partnerCompanyId', 'enrichment', 'metadata', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', examples: ['ptn_01JD7Z3V9Q1M2N3P4R5S6T7V8W'] }, name: { type: 'string' }, country: nullableString, vatNumber: nullableString,
    peppolId: { type: ['string', 'null'], description: '<scheme>:<identifier>' }, role: { type: 'string', enum: [...PARTNER_ROLES] }, onPlatform: { type: 'boolean' },
    partnerOrganizationId: nullableString, partnerCompanyId: nullableString,
    enrichment: {
      type: ['object', 'null'], required: ['siren', 'peppolIds'],
      properties: { siren: { type: 'string' }, peppolIds: { type: 'array', items: { type: 'string' } } },
    },
    metadata: { type: ['object', 'null'], additionalProperties: true },
    createdAt: { type: 'string', format: 'date-time' }, updatedAt: { type: 'string', format: 'date-time' },
  },
};

export interface CreatePartnerParams {
  name?: string;
  vatNumber?: string;
  peppolId?: string;
  country?: string;
  role: PartnerRole;
  metadata?: Record<string, unknown>;
}
export const createPartner = defineAction<CreatePartnerParams, PartnerView>(SERVICE, 'createPartner', {
  params: {
    ...STRICT_REMOVE,
    name: { type: 'string', optional: true, min: 1, max: 200, trim: true },
    vatNumber: { type: 'string', optional: true, min: 1, max: 32 },
    peppolId: { type: 'string', optional: true, min: 3, max: 140 },
    country: { type: 'string', optional: true, pattern: /^[A-Z]{2}$/ },
    role: { type: 'enum', values: [...PARTNER_ROLES] },
    metadata: { type: 'object', optional: true },
  },
  http: {
    method: 'POST', path: '/v1/partners', access: 'partners', tag: 'Partners', status: 201, location: (p: PartnerView) => `/v1/partners/${p.id}`,
    summary: 'Add a partner by VAT number and/or Peppol id (one at least; the Peppol id follows from the VAT number when absent). It is matched against the directory: a company of this platform in the same mode is linked (`onPlatform`, its name when none is given). 400 MISSING_FIELD, INVALID_VAT_FORMAT; 409 COMPANY_EXISTS (`existingId`) when the VAT number or Peppol id is already a partner',
    errors: { 409: 'COMPANY_EXISTS: that VAT number or Peppol id is already a partner (`existingId`); IDEMPOTENCY_IN_PROGRESS, IDEMPOTENCY_BODY_MISMATCH' },
    response: partnerSchema,
  },
});

export const listPartners = defineAction<{ q?: string; role?: PartnerRole; country?: string; limit?: number; cursor?: string }, Page<PartnerView>>(SERVICE, 'listPartners', {
  params: { ...STRICT_REMOVE, ...PAGE_PARAMS, q: { type: 'string', optional: true, max: 200 }, role: { type: 'enum', values: [...PARTNER_ROLES], optional: true }, country: { type: 'string', optional: true, pattern: /^[A-Z]{2}$/ } },
  http: { method: 'GET', path: '/v1/partners', access: 'partners', tag: 'Partners', summary: 'The organization\'s partners, newest first; `q` over name, VAT number and Peppol id; `role` (a `both` partner is also a customer and a supplier) and `country` filters', response: pageSchema(partnerSchema) },
});

export const getPartner = defineAction<{ id: string }, PartnerView>(SERVICE, 'getPartner', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 } },
  http: { method: 'GET', path: '/v1/partners/:id', access: 'partners', tag: 'Partners', summary: 'One partner, by the id its creation returned', response: partnerSchema },
});

export interface UpdatePartnerParams { id: string; name?: string; role?: PartnerRole; country?: string; metadata?: Record<string, unknown> }
export const updatePartner = defineAction<UpdatePartnerParams, PartnerView>(SERVICE, 'updatePartner', {
  params: {
    ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 }, name: { type: 'string', optional: true, min: 1, max: 200, trim: true },
    role: { type: 'enum', values: [...PARTNER_ROLES], optional: true }, country: { type: 'string', optional: true, pattern: /^[A-Z]{2}$/ }, metadata: { type: 'object', optional: true },
  },
  http: { method: 'PATCH', path: '/v1/partners/:id', access: 'partners', tag: 'Partners', summary: 'Change a partner\'s name, role, country or metadata (its identifiers are what it is: add another partner instead)', response: partnerSchema },
});

export const deletePartner = defineAction<{ id: string }, { id: string; deleted: true }>(SERVICE, 'deletePartner', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 } },
  http: {
    method: 'DELETE', path: '/v1/partners/:id', access: 'partners', tag: 'Partners', summary: 'Remove a partner (its documents stay)',
    response: { type: 'object', required: ['id', 'deleted'], properties: { id: { type: 'string' }, deleted: { const: true } } },
  },
});

export const partnerDocuments = defineAction<{ id: string; limit?: number; cursor?: string }, Page<DocumentView>>(SERVICE, 'partnerDocuments', {
  params: { ...STRICT_REMOVE, ...PAGE_PARAMS, id: { type: 'string', min: 1, max: 64 } },
  http: {
    method: 'GET', path: '/v1/partners/:id/documents', access: 'documents.read', tag: 'Partners',
    summary: 'Documents exchanged with the partner, sent and received, newest first (matched on every Peppol id it goes by)',
    response: pageSchema(documentSchema),
  },
});
