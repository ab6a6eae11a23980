/** Pure presenters: entity → API shape. */
import type { ApiKey } from './api-key.entity.ts';
import type { Company } from './company.entity.ts';
import type { ApiKeyView, CompanyView } from './tenancy.contract.ts';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function apiKeyView(k: ApiKey): ApiKeyView {
  return {
    id: k.id,
    keyPrefix: k.keyPrefix,
    name: k.name,
    scopes: k.scopes as ApiKeyView['scopes'],
    keyType: k.keyType,
    livemode: k.livemode,
    companyId: k.company?.id ?? null,
    createdAt: k.createdAt.toISOString(),
    expiresAt: iso(k.expiresAt),
  };
}

export function companyView(c: Company): CompanyView {
  return {
    id: c.id,
    organizationId: c.organization.id,
    name: c.name,
    slug: c.slug,
    legalName: c.legalName ?? null,
    country: c.country,
    vatNumber: c.vatNumber ?? null,
    taxNumber: c.taxNumber ?? null,
    registrationNumber: c.registrationNumber ?? null,
    legalAddressId: null,
    address: c.address ?? null,
    isPublic: c.isPublic,
    dataProviderType: c.dataProviderType ?? null,
    dataProviderSyncDate: iso(c.dataProviderSyncDate),
    peppolId: c.peppolId ?? null,
    status: c.status,
    smpRegistered: c.smpRegistered,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
    ...(c.metadata ? { metadata: c.metadata } : {}),
  };
}

export function slugify(name: string): string {
  return name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 48) || 'company';
}
