import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Organization } from './organization.entity.ts';

export const COMPANY_STATUSES = ['active', 'pending_verification'] as const;
export type CompanyStatus = (typeof COMPANY_STATUSES)[number];

export const REGISTRATION_STATUSES = ['active', 'deregistered'] as const;
export type RegistrationStatus = (typeof REGISTRATION_STATUSES)[number];

/** Postal address as the API shows it (spec: CompanyCreate.address). */
export interface Address {
  street?: string;
  streetLine2?: string;
  city?: string;
  postalCode?: string;
  /** ISO 3166 alpha-2 */
  country?: string;
}

/** A legal entity that sends and receives documents on behalf of its organization. */
export const Company = defineEntity({
  name: 'Company',
  tableName: 'companies',
  properties: {
    id: p.string().primary(),
    organization: p.manyToOne(Organization).ref().deleteRule('cascade').index(),
    name: p.string(),
    legalName: p.string().nullable(),
    slug: p.string(),
    country: p.string().length(2),
    vatNumber: p.string().nullable(),
    taxNumber: p.string().nullable(),
    registrationNumber: p.string().nullable(),
    address: p.json<Address>().nullable(),
    isPublic: p.boolean().default(false),
    dataProviderType: p.string().nullable(),
    dataProviderSyncDate: p.datetime().nullable(),
    peppolId: p.string().nullable(),
    status: p.enum(COMPANY_STATUSES).default('active'),
    smpRegistered: p.boolean().default(false),
    metadata: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
    /** Peppol registration: null never registered, `active` published (or being published), `deregistered`. */
    registrationStatus: p.enum(REGISTRATION_STATUSES).nullable(),
    registeredAt: p.datetime().nullable(),
    /** Removed by its organization: hidden everywhere, its documents kept until `retainUntil`. */
    deletedAt: p.datetime().nullable(),
    retainUntil: p.datetime().nullable(),
    /** French establishment number the company was imported by (POST /v1/companies/import). */
    siret: p.string().length(14).nullable(),
    /** From when its routing address is valid (import `effectiveDate`). */
    effectiveDate: p.string().length(10).nullable(),
    /** Suspended by its platform: its tenant keys, and platform keys naming it, are refused (403 COMPANY_SUSPENDED) until resumed. */
    suspendedAt: p.datetime().nullable(),
  },
});
export type Company = InferEntity<typeof Company>;
