import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const PARTNER_ROLES = ['customer', 'supplier', 'both'] as const;
export type PartnerRole = (typeof PARTNER_ROLES)[number];

/**
 * A counterparty of an organization: who it invoices (customer), who invoices it (supplier), or
 * both. Identified by its VAT number and Peppol id (one of them at least); when it is itself a
 * company of this platform, `partnerOrganizationId` and `partnerCompanyId` say which.
 */
export const Partner = defineEntity({
  name: 'Partner',
  tableName: 'partners',
  properties: {
    id: p.string().primary(),
    /** The tenancy organization whose partner it is (a foreign key in the database). */
    organizationId: p.string(),
    livemode: p.boolean(),
    name: p.string(),
    country: p.string().length(2).nullable(),
    vatNumber: p.string().nullable(),
    peppolId: p.string().nullable(),
    role: p.enum(PARTNER_ROLES),
    partnerOrganizationId: p.string().nullable(),
    partnerCompanyId: p.string().nullable(),
    metadata: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  indexes: [{ name: 'partners_list_index', properties: ['organizationId', 'livemode', 'id'] }],
});
export type Partner = InferEntity<typeof Partner>;
