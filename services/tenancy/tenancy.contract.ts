/**
 * tenancy: organizations, their companies and their API keys; resolves credentials to a Principal.
 */
import { defineAction, SCOPES, STRICT_REMOVE, type Scope } from '../shared/contract.ts';
import { objectSchema } from '../shared/json-schema.ts';
import { PAGE_PARAMS, pageSchema, type Page } from '../shared/pagination.ts';
import { KEY_TYPES, type KeyType, type Principal } from '../shared/auth.ts';
import type { Address, CompanyStatus } from './company.entity.ts';
import type { Participant } from '../../adapters/sdk/index.ts';

const SERVICE = 'tenancy';

/** Billing plan of an organization: sets its per-minute rate limit and monthly document quota. */
export const PLANS = ['free', 'starter', 'pro', 'platform', 'white_label'] as const;
export type Plan = (typeof PLANS)[number];

// ---------- shapes ----------

export interface ApiKeyView {
  id: string;
  /** The full key: present only in the response that created it. */
  key?: string;
  keyPrefix: string;
  name: string;
  scopes: Scope[];
  keyType: KeyType;
  livemode: boolean;
  companyId: string | null;
  createdAt: string;
  expiresAt: string | null;
}

export interface CompanyView {
  id: string;
  organizationId: string;
  name: string;
  slug: string;
  legalName: string | null;
  country: string;
  vatNumber: string | null;
  taxNumber: string | null;
  registrationNumber: string | null;
  legalAddressId: string | null;
  address: Address | null;
  isPublic: boolean;
  dataProviderType: string | null;
  dataProviderSyncDate: string | null;
  peppolId: string | null;
  status: CompanyStatus;
  smpRegistered: boolean;
  createdAt: string;
  updatedAt: string;
  metadata?: Record<string, unknown>;
}

export interface Identity {
  authMethod: Principal['authMethod'];
  userId: string | null;
  email: string | null;
  keyType: KeyType | null;
  apiKeyId: string | null;
  organizationId: string;
  organizationIds: string[];
  organizations: Array<{ id: string; name: string; country: string | null; vatNumber: string | null }>;
  scopes: Scope[];
  isTestMode: boolean;
}

const nullableString = { type: ['string', 'null'] };
const addressSchema = {
  type: ['object', 'null'],
  properties: { street: { type: 'string' }, streetLine2: { type: 'string' }, city: { type: 'string' }, postalCode: { type: 'string' }, country: { type: 'string' } },
};
export const apiKeyResponse = {
  type: 'object',
  required: ['id', 'keyPrefix', 'name', 'scopes', 'keyType', 'livemode', 'createdAt'],
  properties: {
    id: { type: 'string', examples: ['key_01JD7Z3V9Q1M2N3P4R5S6T7V8W'] },
    key: { type: 'string', description: 'The full key. Returned once, at creation.' },
    keyPrefix: { type: 'string', examples: ['svc_test_Ab12Cd'] },
    name: { type: 'string' },
    scopes: { type: 'array', items: { type: 'string', enum: [...SCOPES] } },
    keyType: { type: 'string', enum: [...KEY_TYPES] },
    livemode: { type: 'boolean' },
    companyId: nullableString,
    createdAt: { type: 'string', format: 'date-time' },
    expiresAt: { type: ['string', 'null'], format: 'date-time' },
  },
};
export const companyResponse = {
  type: 'object',
  required: ['id', 'organizationId', 'name', 'slug', 'country', 'status', 'smpRegistered', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string' }, organizationId: { type: 'string' }, name: { type: 'string' }, slug: { type: 'string' },
    legalName: nullableString, country: { type: 'string' }, vatNumber: nullableString, taxNumber: nullableString,
    registrationNumber: nullableString, legalAddressId: nullableString, address: addressSchema, isPublic: { type: 'boolean' },
    dataProviderType: nullableString, dataProviderSyncDate: { type: ['string', 'null'], format: 'date-time' },
    peppolId: { type: ['string', 'null'], description: '<scheme>:<identifier>' },
    status: { type: 'string', enum: ['active', 'pending_verification'] }, smpRegistered: { type: 'boolean' },
    createdAt: { type: 'string', format: 'date-time' }, updatedAt: { type: 'string', format: 'date-time' },
    metadata: { type: 'object', additionalProperties: true, description: 'Free key/values given at creation' },
  },
};

// ---------- actions ----------

export interface AuthenticateKeyParams {
  key: string;
  /** X-Service-Company as sent, if any. */
  companyHeader?: string;
}
export interface KeyAuthentication {
  principal: Principal;
  /** The key's own expiry (callers that keep the principal a moment never keep it past this). */
  expiresAt: string | null;
}
/** Resolves an API key (and the acting company) to a Principal, or throws 401/403 codes. */
export const authenticateKey = defineAction<AuthenticateKeyParams, KeyAuthentication>(SERVICE, 'authenticateKey', {
  params: { key: { type: 'string', min: 1, max: 512 }, companyHeader: { type: 'string', optional: true, max: 128 } },
});

export const me = defineAction<Record<string, never>, Identity>(SERVICE, 'me', {
  params: { ...STRICT_REMOVE },
  http: {
    method: 'GET', path: '/v1/me', access: 'authenticated', tag: 'Identity',
    summary: 'Who the caller is: organization, key type, scopes, test mode',
    response: {
      type: 'object',
      required: ['authMethod', 'organizationId', 'organizationIds', 'organizations', 'scopes', 'isTestMode'],
      properties: {
        authMethod: { type: 'string', enum: ['api_key', 'jwt', 'client_credentials'] },
        userId: nullableString, email: nullableString,
        keyType: { type: ['string', 'null'], enum: [...KEY_TYPES, null] }, apiKeyId: nullableString,
        organizationId: { type: 'string' }, organizationIds: { type: 'array', items: { type: 'string' } },
        organizations: {
          type: 'array',
          items: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, country: nullableString, vatNumber: nullableString } },
        },
        scopes: { type: 'array', items: { type: 'string' } },
        isTestMode: { type: 'boolean' },
      },
    },
  },
});

export const actingCompany = defineAction<Record<string, never>, CompanyView>(SERVICE, 'actingCompany', {
  params: { ...STRICT_REMOVE },
  http: {
    method: 'GET', path: '/v1/me/company', access: 'authenticated', company: 'required', tag: 'Identity',
    summary: 'The company this call acts for (the key\'s company, or X-Service-Company for platform and white-label keys)',
    response: companyResponse,
  },
});

export interface CreateApiKeyParams {
  name: string;
  scopes?: Scope[];
  keyType?: KeyType;
  companyId?: string;
}
export const createApiKey = defineAction<CreateApiKeyParams, ApiKeyView>(SERVICE, 'createApiKey', {
  params: {
    ...STRICT_REMOVE,
    name: { type: 'string', min: 1, max: 100, trim: true },
    scopes: { type: 'array', optional: true, min: 1, unique: true, items: { type: 'enum', values: [...SCOPES] } },
    keyType: { type: 'enum', values: [...KEY_TYPES], optional: true },
    companyId: { type: 'string', optional: true, max: 64 },
  },
  http: {
    method: 'POST', path: '/v1/api-keys', access: 'platform', tag: 'API keys', status: 201, secretFields: ['key'],
    location: (key: ApiKeyView) => `/v1/api-keys/${key.id}`,
    summary: 'Create an API key in the caller\'s organization (same mode as the caller); the full key is returned once. Its scopes must be the caller\'s (403 INSUFFICIENT_SCOPE); platform and white-label keys only from an organization-wide `*` credential; a personal key creates personal keys of its own company only (403 COMPANY_FORBIDDEN). At most EINV_MAX_API_KEYS_PER_ORGANIZATION live keys: 409 LIMIT_EXCEEDED.',
    response: apiKeyResponse,
  },
});

export const listApiKeys = defineAction<{ limit?: number; cursor?: string }, Page<ApiKeyView>>(SERVICE, 'listApiKeys', {
  params: { ...STRICT_REMOVE, ...PAGE_PARAMS },
  http: { method: 'GET', path: '/v1/api-keys', access: 'platform', tag: 'API keys', summary: 'List the organization\'s active keys (prefix only)', response: pageSchema(apiKeyResponse) },
});

export const revokeApiKey = defineAction<{ id: string }, { id: string; revoked: true; revokedAt: string }>(SERVICE, 'revokeApiKey', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 } },
  http: {
    method: 'DELETE', path: '/v1/api-keys/:id', access: 'platform', tag: 'API keys',
    summary: 'Revoke a key; later calls with it get 401 REVOKED_KEY',
    response: { type: 'object', required: ['id', 'revoked', 'revokedAt'], properties: { id: { type: 'string' }, revoked: { const: true }, revokedAt: { type: 'string', format: 'date-time' } } },
  },
});

export const listCompanies = defineAction<{ limit?: number; cursor?: string }, Page<CompanyView>>(SERVICE, 'listCompanies', {
  params: { ...STRICT_REMOVE, ...PAGE_PARAMS },
  http: { method: 'GET', path: '/v1/companies', access: 'companies.read', tag: 'Companies', summary: 'List the organization\'s companies', response: pageSchema(companyResponse) },
});

export const getCompany = defineAction<{ id: string }, CompanyView>(SERVICE, 'getCompany', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 128 } },
  http: {
    method: 'GET', path: '/v1/companies/:id', access: 'companies.read', tag: 'Companies',
    summary: 'One company, by id, by `vat:<VAT number>` or by `peppol:<scheme>:<identifier>`',
    response: companyResponse,
  },
});

export interface CreateCompanyParams {
  vatNumber: string;
  name?: string;
  address?: Address;
  metadata?: Record<string, unknown>;
}
export const addressParams = {
  type: 'object', optional: true, strict: 'remove',
  props: {
    street: { type: 'string', optional: true, max: 200 }, streetLine2: { type: 'string', optional: true, max: 200 }, city: { type: 'string', optional: true, max: 100 },
    postalCode: { type: 'string', optional: true, max: 20 }, country: { type: 'string', optional: true, pattern: /^[A-Z]{2}$/ },
  },
} as const;
export const createCompany = defineAction<CreateCompanyParams, CompanyView>(SERVICE, 'createCompany', {
  params: {
    ...STRICT_REMOVE,
    // The shape is checked by the action, so a wrong one is INVALID_VAT_FORMAT as the spec says.
    vatNumber: { type: 'string', min: 1, max: 32 },
    name: { type: 'string', optional: true, min: 1, max: 200, trim: true },
    address: addressParams,
    metadata: { type: 'object', optional: true },
  },
  http: {
    method: 'POST', path: '/v1/companies', access: 'companies.write', tag: 'Companies', status: 201,
    location: (c: CompanyView) => `/v1/companies/${c.id}`,
    summary: 'Create a company of the organization from its VAT number. The VAT number (country prefix, uppercase, no spaces) is checked against the company registry of its country (a `registry` connector: VIES for live keys when enabled, the sandbox registry for test keys). Without `name` the registry\'s name and address are used. The Peppol id is derived from the VAT prefix\'s ICD scheme. A registry that cannot answer does not refuse the company: it is created `pending_verification` and checked again later. 400 INVALID_VAT_FORMAT; 409 COMPANY_EXISTS (`existingId`) when the organization already has a company with this VAT number; 422 VAT_NOT_FOUND, VAT_INACTIVE.',
    errors: {
      400: 'INVALID_VAT_FORMAT: not `^[A-Z]{2}[A-Z0-9]+$`, or not the shape of its country',
      409: 'COMPANY_EXISTS: the organization already has a company with this VAT number (`existingId`)',
      422: 'VAT_NOT_FOUND (the registry does not know it) or VAT_INACTIVE (it has ceased)',
    },
    response: companyResponse,
  },
});

export interface RegistrationView {
  companyId: string;
  registrationStatus: 'active';
  peppolId: string;
  smpRegistered: boolean;
  registeredAt: string;
}
export interface MigrationKeyView { companyId: string; peppolId: string; migrationKey: string; createdAt: string }

export const prepareCompanyMigration = defineAction<{ id: string }, MigrationKeyView>(SERVICE, 'prepareCompanyMigration', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 128 } },
  http: {
    method: 'POST', path: '/v1/companies/:id/migration-key', access: 'companies.write', tag: 'Companies',
    summary: 'Let the company move to another Peppol provider: the SML is told that the SMP presenting this key may take over the company\'s participant. Give `migrationKey` to the new provider (it registers the company with it); until it does, the company stays reachable here. Each call prepares a new key. 404 COMPANY_NOT_FOUND; 409 INVALID_TRANSITION when the company is not published through this SMP; 503 UPSTREAM_UNAVAILABLE when no SML is configured or it does not answer.',
    errors: { 404: 'COMPANY_NOT_FOUND', 409: 'INVALID_TRANSITION: the company is not published through this SMP', 503: 'UPSTREAM_UNAVAILABLE: no SML configured, or it did not answer' },
    response: {
      type: 'object', required: ['companyId', 'peppolId', 'migrationKey', 'createdAt'],
      properties: { companyId: { type: 'string' }, peppolId: { type: 'string' }, migrationKey: { type: 'string', description: 'Secret: whoever holds it can take the participant over' }, createdAt: { type: 'string', format: 'date-time' } },
    },
  },
});

export const registerCompany = defineAction<{ id: string; migrationKey?: string }, RegistrationView>(SERVICE, 'registerCompany', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 128 }, migrationKey: { type: 'string', min: 8, max: 100, optional: true } },
  http: {
    method: 'POST', path: '/v1/companies/:id/register', access: 'companies.write', tag: 'Companies',
    summary: 'Register the company on the network: the registration is active at once, its publication follows. Creates the registration (`registrationStatus: active`) and schedules the publication of the company\'s Peppol id; `smpRegistered` turns true and `company.smp_registered` is sent once it is published. Registering again is harmless. A company the network knows through another provider arrives with that provider\'s `migrationKey` (body, optional): the SML moves the participant to this SMP at once and the answer has `smpRegistered: true`. 404 COMPANY_NOT_FOUND; 409 INVALID_TRANSITION while the company is `pending_verification`; 400 INVALID_REQUEST when the SML refuses the key; 503 UPSTREAM_UNAVAILABLE when no SML is configured or it does not answer.',
    errors: { 400: 'INVALID_REQUEST: the SML refused the migration key', 404: 'COMPANY_NOT_FOUND', 409: 'INVALID_TRANSITION: the company is still pending verification', 503: 'UPSTREAM_UNAVAILABLE: no SML configured, or it did not answer' },
    response: {
      type: 'object', required: ['companyId', 'registrationStatus', 'peppolId', 'smpRegistered', 'registeredAt'],
      properties: {
        companyId: { type: 'string' }, registrationStatus: { type: 'string', enum: ['active'] }, peppolId: { type: 'string' },
        smpRegistered: { type: 'boolean' }, registeredAt: { type: 'string', format: 'date-time' },
      },
    },
  },
});

export type ReachabilityHopName = 'sml' | 'smp' | 'certificate' | 'endpoint' | 'receipt' | 'inbound';
export interface ReachabilityView {
  companyId: string;
  peppolId: string;
  documentType: string;
  /** The connector that ran the test. */
  network: string;
  /** Every hop passed: a customer's access point reaches the company. */
  reachable: boolean;
  /** The hops tried, in order; it stops at the first that fails (the last one, `ok: false`). */
  hops: Array<{ hop: ReachabilityHopName; ok: boolean; detail: string; ms: number }>;
  testedAt: string;
}

export const testCompanyReachability = defineAction<{ id: string; documentType?: 'invoice' | 'credit-note' }, ReachabilityView>(SERVICE, 'testCompanyReachability', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 128 }, documentType: { type: 'enum', values: ['invoice', 'credit-note'], optional: true } },
  http: {
    method: 'POST', path: '/v1/companies/:id/reachability-test', access: 'companies.write', tag: 'Companies',
    summary: 'Send a test document to the company the way a customer\'s access point would, and report each hop: `sml` (the U-NAPTR name asked and the SMP it gives), `smp` (service group and signed metadata for the document type: HTTP statuses, signature verdict, the AS4 endpoint and its activation window), `certificate` (the published access point certificate: chain, validity, seat id, and that it is this platform\'s), `endpoint` (a real AS4 exchange of a minimal test invoice), `receipt` (a signed receipt that verifies) and `inbound` (the receipt comes from this platform\'s own access point, which checked the message and serves the company; a test message is acknowledged, never stored). The test stops at the first hop that fails: 200 with `reachable: false` and that hop\'s `detail` naming the cause. `documentType` (body, optional): `invoice` (default) or `credit-note`. 404 COMPANY_NOT_FOUND; 409 INVALID_TRANSITION when the company has no Peppol id or is not registered (`POST /v1/companies/{id}/register`); 503 UPSTREAM_UNAVAILABLE when no connector of the key\'s mode can run the test.',
    errors: { 404: 'COMPANY_NOT_FOUND', 409: 'INVALID_TRANSITION: the company has no Peppol id or is not registered on the network', 503: 'UPSTREAM_UNAVAILABLE: no connector of this mode runs the test, or it failed' },
    response: {
      type: 'object', required: ['companyId', 'peppolId', 'documentType', 'network', 'reachable', 'hops', 'testedAt'],
      properties: {
        companyId: { type: 'string' }, peppolId: { type: 'string' }, documentType: { type: 'string', enum: ['invoice', 'credit-note'] },
        network: { type: 'string', examples: ['peppol-as4'] }, reachable: { type: 'boolean' },
        hops: {
          type: 'array',
          items: {
            type: 'object', required: ['hop', 'ok', 'detail', 'ms'],
            properties: {
              hop: { type: 'string', enum: ['sml', 'smp', 'certificate', 'endpoint', 'receipt', 'inbound'] }, ok: { type: 'boolean' },
              detail: { type: 'string', examples: ['metadata HTTP 200, signature refused: the signature does not verify'] }, ms: { type: 'integer', minimum: 0 },
            },
          },
        },
        testedAt: { type: 'string', format: 'date-time' },
      },
    },
  },
});

export interface CompanyDeletion {
  id: string;
  deleted: true;
  /** Until when its documents stay readable (statutory retention of its country). */
  retainUntil: string;
}
export const deleteCompany = defineAction<{ id: string }, CompanyDeletion>(SERVICE, 'deleteCompany', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 128 } },
  http: {
    method: 'DELETE', path: '/v1/companies/:id', access: 'companies.write', tag: 'Companies',
    summary: 'Remove a company: deregistered from the network, its keys revoked, its documents kept for the statutory retention. The company disappears from lists and lookups and stops receiving; the API keys bound to it are revoked. Its documents stay readable until `retainUntil` (10 years for Italy, 6 for France, EINV_RETENTION_YEARS otherwise). 404 COMPANY_NOT_FOUND.',
    errors: { 404: 'COMPANY_NOT_FOUND' },
    response: {
      type: 'object', required: ['id', 'deleted', 'retainUntil'],
      properties: { id: { type: 'string' }, deleted: { const: true }, retainUntil: { type: 'string', format: 'date-time' } },
    },
  },
});

export interface ImportCompanyParams {
  /** 14 digits; its first nine are the SIREN. */
  siret: string;
  mode?: 'portability';
  /** An existing company of the organization that this SIRET is: its data stays authoritative. */
  backendCompanyId?: string;
  /** The organization to provision the company in (the caller's own). */
  organizationId?: string;
  companyName?: string;
  /** Overrides the country (default FR). */
  countryCode?: string;
  /** From when the routing address is valid (YYYY-MM-DD). */
  effectiveDate?: string;
}
export interface ImportedCompany {
  /** The company's id. */
  id: string;
  organizationId: string;
  peppolId: string;
  siret: string;
  siren: string;
  country: string;
  /** `imported` (backend company linked), `provisioned` (created in the named organization), `pending` (neither: awaiting verification). */
  outcome: 'imported' | 'provisioned' | 'pending';
  status: CompanyStatus;
  registrationStatus: 'active' | null;
  effectiveDate: string | null;
}
const importParams = {
  siret: { type: 'string', min: 1, max: 32 },
  mode: { type: 'enum', values: ['portability'], optional: true },
  backendCompanyId: { type: 'string', optional: true, min: 1, max: 128 },
  organizationId: { type: 'string', optional: true, min: 1, max: 128 },
  companyName: { type: 'string', optional: true, min: 1, max: 200, trim: true },
  countryCode: { type: 'string', optional: true, pattern: /^[A-Z]{2}$/ },
  effectiveDate: { type: 'string', optional: true, pattern: /^\d{4}-\d{2}-\d{2}$/ },
} as const;
const importedSchema = {
  type: 'object',
  required: ['id', 'organizationId', 'peppolId', 'siret', 'siren', 'country', 'outcome', 'status', 'registrationStatus', 'effectiveDate'],
  properties: {
    id: { type: 'string' }, organizationId: { type: 'string' }, peppolId: { type: 'string', examples: ['0009:120027016'] },
    siret: { type: 'string' }, siren: { type: 'string' }, country: { type: 'string' },
    outcome: { type: 'string', enum: ['imported', 'provisioned', 'pending'] }, status: { type: 'string', enum: ['active', 'pending_verification'] },
    registrationStatus: { type: ['string', 'null'], enum: ['active', null] }, effectiveDate: { type: ['string', 'null'], format: 'date' },
  },
};
export const importCompany = defineAction<ImportCompanyParams, ImportedCompany>(SERVICE, 'importCompany', {
  params: { ...STRICT_REMOVE, ...importParams },
  http: {
    method: 'POST', path: '/v1/companies/import', access: 'companies.write', tag: 'Companies',
    summary: 'Import a French company by its SIRET (portability from another platform). In priority order: with `backendCompanyId` that company is linked and its data kept (`imported`); else with `organizationId` (the caller\'s) a company is provisioned there (`provisioned`); else it is registered `pending_verification` (`pending`, event `company.import.pending`). The first two register it at once (event `company.imported`). The Peppol id is 0009 plus the SIREN. The same SIRET again re-syncs the same company. 400 INVALID_REQUEST for a SIRET whose check digit is wrong; 403 ORGANIZATION_FORBIDDEN; 404 COMPANY_NOT_FOUND for an unknown backend company',
    errors: { 403: 'ORGANIZATION_FORBIDDEN: `organizationId` is not the caller\'s organization', 404: 'COMPANY_NOT_FOUND: `backendCompanyId` is not a company of the organization' },
    response: importedSchema,
  },
});

export interface ImportBatchItemResult {
  index: number;
  status: 'imported' | 'failed';
  companyId: string | null;
  peppolId: string | null;
  error: { code: string; message: string } | null;
}
/** Items imported side by side at most. */
export const IMPORT_BATCH_CONCURRENCY = 5;
export const importCompanies = defineAction<{ items: unknown[] }, { results: ImportBatchItemResult[] }>(SERVICE, 'importCompanies', {
  params: { ...STRICT_REMOVE, items: { type: 'array', min: 1, max: 500, items: { type: 'object', openapi: { ...objectSchema(importParams), description: 'One import, exactly as POST /v1/companies/import takes it' } } } },
  http: {
    method: 'POST', path: '/v1/companies/import/batch', access: 'companies.write', tag: 'Companies',
    summary: 'Import up to 500 companies, each the body of POST /v1/companies/import and idempotent on its SIRET, five at a time. Answers 200 with one result per item in input order; a failed item (its own `error`) never fails the others',
    response: {
      type: 'object', required: ['results'],
      properties: {
        results: {
          type: 'array',
          items: {
            type: 'object', required: ['index', 'status', 'companyId', 'peppolId', 'error'],
            properties: {
              index: { type: 'integer' }, status: { type: 'string', enum: ['imported', 'failed'] }, companyId: { type: ['string', 'null'] }, peppolId: { type: ['string', 'null'] },
              error: { type: ['object', 'null'], required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } },
            },
          },
        },
      },
    },
  },
});

/** Scheduler job kinds of tenancy. */
export const VERIFY_COMPANY_JOB = 'company.verify';
export const PUBLISH_COMPANY_JOB = 'company.publish';
/** Removes a deleted company's participant from the SML (its ref is the Peppol id, the company row being gone). */
export const UNPUBLISH_COMPANY_JOB = 'company.unpublish';

export interface ProvisionParams {
  /** `expiresAt`: a sandbox organization removed by the scheduler then (SANDBOX_EXPIRY_JOB). */
  organization: { name: string; sandbox: boolean; plan?: string; country?: string; vatNumber?: string; expiresAt?: string };
  company: { name: string; country: string; vatNumber?: string; registrationNumber?: string; peppolId?: string; address?: Address };
  apiKey: { name: string; keyType: KeyType; scopes?: Scope[]; email?: string; expiresAt?: string };
}
export interface ProvisionResult {
  organizationId: string;
  company: CompanyView;
  apiKey: ApiKeyView & { key: string };
}
/** Creates an organization with its first company and key in one transaction (sandbox bootstrap, onboarding). */
export const provision = defineAction<ProvisionParams, ProvisionResult>(SERVICE, 'provision', {
  params: {
    organization: { type: 'object', props: { name: 'string', sandbox: 'boolean', plan: 'string|optional', country: 'string|optional', vatNumber: 'string|optional', expiresAt: 'string|optional' } },
    company: { type: 'object', props: { name: 'string', country: 'string', vatNumber: 'string|optional', registrationNumber: 'string|optional', peppolId: 'string|optional', address: 'object|optional' } },
    apiKey: { type: 'object', props: { name: 'string', keyType: { type: 'enum', values: [...KEY_TYPES] }, scopes: 'array|optional', email: 'string|optional', expiresAt: 'string|optional' } },
  },
});

/** Broadcast when an API key is revoked: gateways drop what they keep of it at once. */
export const API_KEY_REVOKED_EVENT = 'tenancy.apiKey.revoked';
export interface ApiKeyRevoked { apiKeyId: string; organizationId: string }

// ---------- internal reads (other services ask tenancy instead of reading its tables) ----------

export interface OrganizationProfile {
  organizationId: string;
  plan: Plan;
  sandbox: boolean;
}
/** An organization's plan and mode, or null when it is not known here. */
export const organizationProfile = defineAction<{ organizationId: string }, OrganizationProfile | null>(SERVICE, 'organizationProfile', {
  params: { organizationId: { type: 'string', min: 1, max: 255 } },
});

/**
 * Who hears about an organization's operational problems (a webhook paused after its retries): the
 * owner e-mails of its live API keys of that mode that may manage webhooks (scope `receive` or `*`;
 * for a company's webhook, that company's keys and the organization-wide ones; for an
 * organization-level webhook, the organization-wide ones only), else the support e-mail of its
 * platform settings. `source` says which rule gave the list (`none`: nobody to tell).
 */
export interface NotificationContacts {
  organizationName: string | null;
  emails: string[];
  source: 'api_keys' | 'support_email' | 'none';
}
export const notificationContacts = defineAction<{ organizationId: string; livemode: boolean; companyId?: string | null }, NotificationContacts>(SERVICE, 'notificationContacts', {
  params: { organizationId: { type: 'string', min: 1, max: 255 }, livemode: 'boolean', companyId: { type: 'string', min: 1, max: 255, optional: true, nullable: true } },
});

/** What other services need of a company: who it is, its identifiers, and the metadata it carries into events. */
export interface CompanyRef {
  id: string;
  organizationId: string;
  name: string;
  country: string;
  vatNumber: string | null;
  registrationNumber: string | null;
  peppolId: string | null;
  status: CompanyStatus;
  metadata: Record<string, unknown> | null;
}
/** The company of that organization, or null (an unknown id and another organization's look the same). */
export const companyOf = defineAction<{ organizationId: string; companyId: string }, CompanyRef | null>(SERVICE, 'companyOf', {
  params: { organizationId: { type: 'string', min: 1, max: 255 }, companyId: { type: 'string', min: 1, max: 255 } },
});

/**
 * The active company a participant names, among the organizations of that mode (sandbox ones for
 * test keys): by company id, French addressing identifier (SIRET or SIREN), or Peppol id.
 */
export const findParticipant = defineAction<{ participant: Participant; livemode: boolean }, CompanyRef | null>(SERVICE, 'findParticipant', {
  params: { participant: 'object', livemode: 'boolean' },
});

/**
 * The participants this platform has registered on the network (companies with an active
 * registration) in organizations of that mode, by name or Peppol id, oldest first.
 */
export const searchParticipants = defineAction<{ query?: string; country?: string; livemode: boolean; limit: number; after?: string }, CompanyRef[]>(SERVICE, 'searchParticipants', {
  params: { query: { type: 'string', optional: true, max: 200 }, country: { type: 'string', optional: true, length: 2 }, livemode: 'boolean', limit: { type: 'number', integer: true, min: 1, max: 101 }, after: { type: 'string', optional: true, max: 255 } },
});

/** A French company registered on the network, as the French directory (AFNOR XP Z12-013 Directory Service) shows it. */
export interface FrenchCompany {
  id: string;
  name: string;
  legalName: string | null;
  siret: string | null;
  registrationNumber: string | null;
  peppolId: string | null;
  vatNumber: string | null;
  isPublic: boolean;
  address: { street?: string; streetLine2?: string; city?: string; postalCode?: string; country?: string } | null;
  metadata: Record<string, unknown> | null;
}
export type TextMatch = { op: 'strict' | 'contains' | 'startWith'; value: string };
export interface FrenchCompaniesParams {
  livemode: boolean;
  /** The SIREN (first nine digits of the SIRET, the registration number, or a 0009/0002 Peppol id). */
  siren?: string;
  siret?: string;
  name?: TextMatch;
  postalCode?: TextMatch;
  locality?: TextMatch;
  limit: number;
  offset: number;
}
const textMatch = { type: 'object', optional: true, strict: 'remove', props: { op: { type: 'enum', values: ['strict', 'contains', 'startWith'] }, value: { type: 'string', max: 600 } } } as const;
/**
 * The French companies (a SIRET, or a French SIREN) registered on the network in organizations of
 * that mode, active, oldest first, with how many match in all; what the French directory lines of
 * this platform are made of.
 */
export const frenchCompanies = defineAction<FrenchCompaniesParams, { total: number; rows: FrenchCompany[] }>(SERVICE, 'frenchCompanies', {
  params: {
    livemode: 'boolean', siren: { type: 'string', optional: true, pattern: /^\d{1,9}$/ }, siret: { type: 'string', optional: true, pattern: /^\d{1,14}$/ },
    name: textMatch, postalCode: textMatch, locality: textMatch,
    limit: { type: 'number', integer: true, min: 1, max: 1000 }, offset: { type: 'number', integer: true, min: 0, max: 1_000_000 },
  },
});

/** The company registered on the network under this participant id (any case), in organizations of that mode, or null. */
export const registeredParticipant = defineAction<{ peppolId: string; livemode: boolean }, CompanyRef | null>(SERVICE, 'registeredParticipant', {
  params: { peppolId: { type: 'string', min: 3, max: 160 }, livemode: 'boolean' },
});

/** What the company registry of a VAT number's country says of it (a `registry` connector of that mode), for other services. */
export interface RegistryLookup {
  /** The connector that answered; null when no registry serves the country in that mode. */
  source: string | null;
  status: 'active' | 'inactive' | 'not_found' | 'unavailable' | 'no_registry';
  name: string | null;
  registrationNumber: string | null;
}
export const lookupRegistry = defineAction<{ vatNumber: string; livemode: boolean }, RegistryLookup>(SERVICE, 'lookupRegistry', {
  params: { vatNumber: { type: 'string', min: 3, max: 32 }, livemode: 'boolean' },
});

/** Several companies at once, by id (unknown ids are left out). */
export const companiesByIds = defineAction<{ ids: string[] }, CompanyRef[]>(SERVICE, 'companiesByIds', {
  params: { ids: { type: 'array', max: 1000, items: { type: 'string', min: 1, max: 255 } } },
});

/** Who allowed an agent's key: the user's credential at the time of consent or handoff (services/identity/agent-access.ts). */
export interface KeyGrantor {
  organizationId: string;
  /** The company the agent's key acts for. */
  companyId: string;
  /** The API key that consented, or null for a JWT user or machine token (checked when it consented). */
  apiKeyId: string | null;
  livemode: boolean;
  email: string | null;
}
/**
 * Internal (broker, no HTTP route): mints an agent's personal key for the grantor's company. The
 * grantor's key must still be live and hold every scope (a credential never mints more than it
 * holds); a sandbox key's expiry carries over. The live-keys cap applies as for any key.
 */
export const mintDelegatedKey = defineAction<{ grantor: KeyGrantor; scopes: Scope[]; name: string }, ApiKeyView & { key: string }>(SERVICE, 'mintDelegatedKey', {
  params: {
    grantor: {
      type: 'object', strict: true,
      props: {
        organizationId: { type: 'string', min: 1, max: 255 }, companyId: { type: 'string', min: 1, max: 255 }, apiKeyId: { type: 'string', min: 1, max: 255, nullable: true },
        livemode: 'boolean', email: { type: 'string', max: 320, nullable: true },
      },
    },
    scopes: { type: 'array', min: 1, unique: true, items: { type: 'enum', values: [...SCOPES] } },
    name: { type: 'string', min: 1, max: 100 },
  },
});

/**
 * Internal (broker, no HTTP route): revokes an agent's key when the grant it came from is replayed
 * (an authorization code used twice: RFC 6749 §4.1.2 says the tokens it gave should be revoked).
 */
export const revokeDelegatedKey = defineAction<{ organizationId: string; id: string }, { id: string; revoked: boolean }>(SERVICE, 'revokeDelegatedKey', {
  params: { organizationId: { type: 'string', min: 1, max: 255 }, id: { type: 'string', min: 1, max: 255 } },
});

// ---------- platform operation: managed companies (tenants), their keys, white-label settings ----------

/** Colours are `#rrggbb`; logos are HTTPS URLs; countries ISO 3166 alpha-2. */
export const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;
export const HTTPS_URL = /^https:\/\/[^\s/?#]+[^\s]*$/;
/** A DNS host name of at least two labels, lowercase letters, digits and hyphens (no IP address, no wildcard). */
export const HOST_NAME = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** The structured formats a platform may prefer for its tenants' sends (a send that omits `format` takes it). */
export const PREFERRED_FORMATS = ['json', 'ubl-xml', 'cii-xml'] as const;
export type PreferredFormat = (typeof PREFERRED_FORMATS)[number];

export interface Branding {
  displayName: string | null;
  logoUrl: string | null;
  primaryColor: string | null;
  supportEmail: string | null;
}
export interface PlatformDefaults {
  preferredFormat: PreferredFormat | null;
  /** Country → false stops the automatic reporting of that country's lifecycle statuses to its tax platform. */
  autoCompliance: Record<string, boolean>;
}
/** As stored on the organization. */
export interface OrganizationSettings {
  branding?: Partial<Branding>;
  /** `verifiedAt` set once its TXT challenge was found: only then is the host served (organizations.custom_domain). */
  customDomain?: { domain: string; verificationToken: string; requestedAt: string; verifiedAt?: string | null } | null;
  defaults?: Partial<PlatformDefaults>;
}
export interface DnsRecord { type: 'CNAME' | 'TXT'; name: string; value: string; purpose: string }
export interface CustomDomainView {
  domain: string;
  /** `verified`: the TXT challenge was found and the gateway serves the host for the organization. */
  status: 'pending_verification' | 'verified';
  verifiedAt: string | null;
  /** The records to create at the domain's DNS host. */
  dnsRecords: DnsRecord[];
  /** `external`: TLS is terminated in front of the gateway (no ACME client is configured here). */
  tls: { status: 'external'; detail: string };
  requestedAt: string;
}
export interface PlatformSettingsView {
  organizationId: string;
  plan: Plan;
  branding: Branding;
  customDomain: CustomDomainView | null;
  defaults: PlatformDefaults;
  /** What the plan allows (spec: Limits); null: unlimited. */
  quotas: { requestsPerMinute: number; documentsPerMonth: number | null };
}

const brandingSchema = {
  type: 'object', required: ['displayName', 'logoUrl', 'primaryColor', 'supportEmail'],
  properties: {
    displayName: nullableString, logoUrl: { type: ['string', 'null'], format: 'uri' },
    primaryColor: { type: ['string', 'null'], pattern: HEX_COLOR.source, examples: ['#0a66c2'] }, supportEmail: { type: ['string', 'null'], format: 'email' },
  },
};
const settingsResponse = {
  type: 'object', required: ['organizationId', 'plan', 'branding', 'customDomain', 'defaults', 'quotas'],
  properties: {
    organizationId: { type: 'string' },
    plan: { type: 'string', enum: [...PLANS] },
    branding: brandingSchema,
    customDomain: {
      type: ['object', 'null'], required: ['domain', 'status', 'verifiedAt', 'dnsRecords', 'tls', 'requestedAt'],
      properties: {
        domain: { type: 'string', examples: ['einvoicing.example.com'] },
        status: { type: 'string', enum: ['pending_verification', 'verified'], description: '`verified`: the TXT challenge was found; the gateway serves the host for this organization' },
        verifiedAt: { type: ['string', 'null'], format: 'date-time' },
        dnsRecords: {
          type: 'array',
          items: {
            type: 'object', required: ['type', 'name', 'value', 'purpose'],
            properties: { type: { type: 'string', enum: ['CNAME', 'TXT'] }, name: { type: 'string' }, value: { type: 'string' }, purpose: { type: 'string' } },
          },
        },
        tls: { type: 'object', required: ['status', 'detail'], properties: { status: { type: 'string', enum: ['external'] }, detail: { type: 'string' } } },
        requestedAt: { type: 'string', format: 'date-time' },
      },
    },
    defaults: {
      type: 'object', required: ['preferredFormat', 'autoCompliance'],
      properties: {
        preferredFormat: { type: ['string', 'null'], enum: [...PREFERRED_FORMATS, null] },
        autoCompliance: { type: 'object', additionalProperties: { type: 'boolean' }, description: 'Country (ISO 3166 alpha-2) → whether its statuses are reported automatically (absent: true)', examples: [{ FR: false }] },
      },
    },
    quotas: {
      type: 'object', required: ['requestsPerMinute', 'documentsPerMonth'],
      properties: { requestsPerMinute: { type: 'integer' }, documentsPerMonth: { type: ['integer', 'null'], description: 'null: unlimited (white-label plan, sandbox)' } },
    },
  },
};

export const getPlatformSettings = defineAction<Record<string, never>, PlatformSettingsView>(SERVICE, 'getPlatformSettings', {
  params: { ...STRICT_REMOVE },
  http: {
    method: 'GET', path: '/v1/platform/settings', access: 'platform', tag: 'Platform',
    summary: 'The organization\'s white-label settings (branding, custom domain with the DNS records to create, defaults for its tenants) and its plan\'s quotas',
    response: settingsResponse,
  },
});

export interface UpdatePlatformSettingsParams {
  branding?: { displayName?: string | null; logoUrl?: string | null; primaryColor?: string | null; supportEmail?: string | null };
  customDomain?: string | null;
  defaults?: { preferredFormat?: PreferredFormat | null; autoCompliance?: Record<string, boolean> };
}
export const updatePlatformSettings = defineAction<UpdatePlatformSettingsParams, PlatformSettingsView>(SERVICE, 'updatePlatformSettings', {
  params: {
    ...STRICT_REMOVE,
    branding: {
      type: 'object', optional: true, strict: 'remove',
      props: {
        displayName: { type: 'string', optional: true, nullable: true, min: 1, max: 100, trim: true },
        logoUrl: { type: 'string', optional: true, nullable: true, max: 2048, pattern: HTTPS_URL, messages: { stringPattern: 'The \'{field}\' field must be an https:// URL.' }, openapi: { type: ['string', 'null'], format: 'uri', pattern: HTTPS_URL.source } },
        primaryColor: { type: 'string', optional: true, nullable: true, pattern: HEX_COLOR, messages: { stringPattern: 'The \'{field}\' field must be a colour #rrggbb.' } },
        supportEmail: { type: 'email', optional: true, nullable: true, max: 254 },
      },
    },
    customDomain: { type: 'string', optional: true, nullable: true, max: 253, trim: true, lowercase: true, pattern: HOST_NAME, messages: { stringPattern: 'The \'{field}\' field must be a DNS host name such as einvoicing.example.com.' } },
    defaults: {
      type: 'object', optional: true, strict: 'remove',
      props: {
        preferredFormat: { type: 'enum', values: [...PREFERRED_FORMATS], optional: true, nullable: true },
        autoCompliance: { type: 'record', optional: true, key: { type: 'string', pattern: /^[A-Z]{2}$/ }, value: { type: 'boolean' }, openapi: { type: 'object', propertyNames: { pattern: '^[A-Z]{2}$' }, additionalProperties: { type: 'boolean' }, maxProperties: 60 } },
      },
    },
  },
  http: {
    method: 'PATCH', path: '/v1/platform/settings', access: 'platform', tag: 'Platform',
    summary: 'Change the white-label settings; members left out stay as they are, null clears one. `branding` and `customDomain` are white-label features (403 WHITE_LABEL_ONLY on another plan); `defaults` are open to every organization-wide credential. `branding`: `displayName`, `logoUrl` (https), `primaryColor` (#rrggbb), `supportEmail`. `customDomain`: the host your service is served on; the answer lists the DNS records to create (a CNAME to this platform and a TXT challenge) and the domain is `pending_verification`; once the records exist, `POST /v1/platform/settings/custom-domain/verify` checks the TXT record, and from then on the gateway serves requests arriving on that host for this organization only (credentials of other organizations are refused there) and `GET /v1/branding` on it answers your branding. TLS for the domain is terminated in front of the gateway (`tls.status: external`). `defaults` apply to every tenant of the organization: `preferredFormat` (a send that omits `format` takes it) and `autoCompliance` (country → false stops the automatic reporting of that country\'s lifecycle statuses to its tax platform). Needs an organization-wide credential. 400 INVALID_REQUEST naming the field; 409 DOMAIN_IN_USE when another organization serves that domain.',
    errors: { 403: 'WHITE_LABEL_ONLY: branding or customDomain from an organization not on the white-label plan', 409: 'DOMAIN_IN_USE: another organization already serves this domain' },
    response: settingsResponse,
  },
});

export const verifyCustomDomain = defineAction<Record<string, never>, PlatformSettingsView>(SERVICE, 'verifyCustomDomain', {
  params: { ...STRICT_REMOVE },
  http: {
    method: 'POST', path: '/v1/platform/settings/custom-domain/verify', access: 'platform', tag: 'Platform',
    summary: 'Check the custom domain\'s TXT challenge (`_svc-challenge.<domain>`, the value the settings list) in the DNS; when it is there the domain is `verified` and the gateway serves it for this organization. Verifying again is harmless. 409 INVALID_TRANSITION when no custom domain is set; 422 DOMAIN_NOT_VERIFIED while the record is missing or different; 409 DOMAIN_IN_USE when another organization verified it first',
    errors: { 403: 'WHITE_LABEL_ONLY', 409: 'INVALID_TRANSITION (no custom domain set) or DOMAIN_IN_USE (another organization serves it)', 422: 'DOMAIN_NOT_VERIFIED: the TXT record is not published (yet)' },
    response: settingsResponse,
  },
});

export interface PublicBranding { organizationId: string; domain: string; branding: Branding }
export const hostBranding = defineAction<Record<string, never>, PublicBranding>(SERVICE, 'hostBranding', {
  params: { ...STRICT_REMOVE },
  http: {
    method: 'GET', path: '/v1/branding', access: 'public', tag: 'Platform',
    summary: 'The branding of the white-label service this request\'s host is the custom domain of (public: a sign-in page shows it before any credential). 404 RESOURCE_NOT_FOUND on a host that is no organization\'s custom domain',
    errors: { 404: 'RESOURCE_NOT_FOUND: this host is not a custom domain' },
    response: { type: 'object', required: ['organizationId', 'domain', 'branding'], properties: { organizationId: { type: 'string' }, domain: { type: 'string' }, branding: brandingSchema } },
  },
});

/** Internal (gateway): the organization a host name is the custom domain of, or null. */
export const organizationByDomain = defineAction<{ host: string }, { organizationId: string } | null>(SERVICE, 'organizationByDomain', {
  params: { host: { type: 'string', min: 1, max: 253 } },
});

/** Internal: the defaults an organization's platform set for its tenants (documents reads autoCompliance). */
export const tenantDefaults = defineAction<{ organizationId: string }, PlatformDefaults>(SERVICE, 'tenantDefaults', {
  params: { organizationId: { type: 'string', min: 1, max: 255 } },
});

/** Broadcast when a white-label custom domain changes: gateways forget what they kept of the host. */
export const CUSTOM_DOMAIN_CHANGED_EVENT = 'tenancy.customDomain.changed';
/** Broadcast when a tenant is suspended: gateways drop the principals acting for it at once. */
export const COMPANY_SUSPENDED_EVENT = 'tenancy.company.suspended';
export interface CompanySuspended { companyId: string; organizationId: string }

export interface ManagedCompanyView extends CompanyView {
  suspended: boolean;
  suspendedAt: string | null;
  /** Live keys bound to this company (tenant keys). */
  tenantKeys: number;
}
const managedCompanyResponse = {
  ...companyResponse,
  required: [...companyResponse.required, 'suspended', 'suspendedAt', 'tenantKeys'],
  properties: { ...companyResponse.properties, suspended: { type: 'boolean' }, suspendedAt: { type: ['string', 'null'], format: 'date-time' }, tenantKeys: { type: 'integer', minimum: 0 } },
};

export const listManagedCompanies = defineAction<{ limit?: number; cursor?: string; status?: 'active' | 'suspended' }, Page<ManagedCompanyView>>(SERVICE, 'listManagedCompanies', {
  params: { ...STRICT_REMOVE, ...PAGE_PARAMS, status: { type: 'enum', values: ['active', 'suspended'], optional: true } },
  http: {
    method: 'GET', path: '/v1/platform/companies', access: 'platform', tag: 'Platform',
    summary: 'The managed companies (tenants) of the platform, newest first, with whether each is suspended and how many live tenant keys it has; `status` filters `active` or `suspended`. Needs an organization-wide credential',
    response: pageSchema(managedCompanyResponse),
  },
});

export const listTenantKeys = defineAction<{ limit?: number; cursor?: string; companyId?: string }, Page<ApiKeyView>>(SERVICE, 'listTenantKeys', {
  params: { ...STRICT_REMOVE, ...PAGE_PARAMS, companyId: { type: 'string', optional: true, min: 1, max: 64 } },
  http: {
    method: 'GET', path: '/v1/platform/api-keys', access: 'platform', tag: 'Platform',
    summary: 'The live tenant keys (keys bound to one managed company), newest first, prefix only; `companyId` narrows to one tenant. Needs an organization-wide credential',
    response: pageSchema(apiKeyResponse),
  },
});

export const revokeTenantKey = defineAction<{ id: string }, { id: string; revoked: true; revokedAt: string }>(SERVICE, 'revokeTenantKey', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 } },
  http: {
    method: 'DELETE', path: '/v1/platform/api-keys/:id', access: 'platform', tag: 'Platform',
    summary: 'Revoke a tenant key (a key bound to one managed company); later calls with it get 401 REVOKED_KEY. The platform\'s own organization-wide keys are revoked with DELETE /v1/api-keys/{id}: here they are 404 RESOURCE_NOT_FOUND',
    errors: { 404: 'RESOURCE_NOT_FOUND: no tenant key with this id in the organization' },
    response: { type: 'object', required: ['id', 'revoked', 'revokedAt'], properties: { id: { type: 'string' }, revoked: { const: true }, revokedAt: { type: 'string', format: 'date-time' } } },
  },
});

export const suspendTenant = defineAction<{ id: string }, ManagedCompanyView>(SERVICE, 'suspendTenant', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 128 } },
  http: {
    method: 'POST', path: '/v1/platform/companies/:id/suspend', access: 'platform', tag: 'Platform',
    summary: 'Suspend a tenant: its tenant keys, and platform keys naming it in X-Service-Company, get 403 COMPANY_SUSPENDED until it is resumed. Nothing is deleted; documents sent to it are still received. Suspending again is harmless. 404 COMPANY_NOT_FOUND',
    errors: { 404: 'COMPANY_NOT_FOUND' },
    response: managedCompanyResponse,
  },
});

export const resumeTenant = defineAction<{ id: string }, ManagedCompanyView>(SERVICE, 'resumeTenant', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 128 } },
  http: {
    method: 'POST', path: '/v1/platform/companies/:id/resume', access: 'platform', tag: 'Platform',
    summary: 'Lift a tenant\'s suspension: its keys work again. 404 COMPANY_NOT_FOUND',
    errors: { 404: 'COMPANY_NOT_FOUND' },
    response: managedCompanyResponse,
  },
});

export interface OnboardParams {
  vatNumber: string;
  name?: string;
  address?: Address;
  metadata?: Record<string, unknown>;
  apiKey?: { name?: string; scopes?: Scope[] };
}
export interface Onboarded { company: CompanyView; apiKey: ApiKeyView & { key: string } }
/**
 * Internal (platform onboarding): creates the caller's company from its VAT number and mints its
 * tenant key in one step; a failure leaves neither. Publication comes after, with `publishTenant`.
 */
export const onboardTenant = defineAction<OnboardParams, Onboarded>(SERVICE, 'onboardTenant', {
  params: {
    vatNumber: { type: 'string', min: 1, max: 32 }, name: { type: 'string', optional: true }, address: { type: 'object', optional: true },
    metadata: { type: 'object', optional: true }, apiKey: { type: 'object', optional: true },
  },
});
/** Internal: removes a tenant whose onboarding could not finish (its keys with it). */
export const abandonTenant = defineAction<{ companyId: string }, { removed: boolean }>(SERVICE, 'abandonTenant', {
  params: { companyId: { type: 'string', min: 1, max: 128 } },
});
/** Internal: registers an onboarded tenant on the network (publication to the SMP follows, asynchronously). */
export const publishTenant = defineAction<{ companyId: string }, CompanyView>(SERVICE, 'publishTenant', {
  params: { companyId: { type: 'string', min: 1, max: 128 } },
});

/**
 * Scheduler job kind (handled by the sandbox service): a sandbox organization's expiry, written
 * with the organization by `provision` (ref = organization id, due at its `expiresAt`).
 */
export const SANDBOX_EXPIRY_JOB = 'sandbox.expire';
/**
 * Internal (sandbox expiry): removes a sandbox organization past its `expiresAt`, with its
 * companies, keys and their scheduled work; `removed: false` when it is not one (live, or not expired).
 */
export const removeSandboxOrganization = defineAction<{ organizationId: string }, { removed: boolean; companyIds: string[] }>(SERVICE, 'removeSandboxOrganization', {
  params: { organizationId: { type: 'string', min: 1, max: 255 } },
});
