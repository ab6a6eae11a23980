/** sandbox: self-service test organizations and, later, sandbox controls (reset, clock, forced limits). */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';
import { KEY_TYPES, type KeyType } from '../shared/auth.ts';
import { companyResponse, type CompanyView } from '../tenancy/tenancy.contract.ts';

export interface BootstrapParams {
  label?: string;
  email?: string;
  keyType?: KeyType;
}

export interface BootstrapResult {
  apiKey: string;
  keyPrefix: string;
  keyType: KeyType;
  organizationId: string;
  company: CompanyView;
  nextSteps: Array<{ step: string; method: string; path: string }>;
  expiresAt: string;
}

export const bootstrap = defineAction<BootstrapParams, BootstrapResult>('sandbox', 'bootstrap', {
  params: {
    ...STRICT_REMOVE,
    label: { type: 'string', optional: true, min: 1, max: 64, trim: true, default: 'quickstart' },
    email: { type: 'email', optional: true, max: 254 },
    keyType: { type: 'enum', values: [...KEY_TYPES], optional: true, default: 'personal' },
  },
  http: {
    method: 'POST', path: '/v1/sandbox/bootstrap', access: 'public', perIpLimit: true, status: 201, tag: 'Sandbox', secretFields: ['apiKey'],
    location: (result: BootstrapResult) => `/v1/companies/${result.company.id}`,
    summary: 'Create a sandbox organization with a seeded Belgian company and a test key, no sign-up (rate-limited per IP)',
    response: {
      type: 'object',
      required: ['apiKey', 'organizationId', 'company', 'nextSteps', 'expiresAt'],
      properties: {
        apiKey: { type: 'string', description: 'The full test key. Returned once.', examples: ['svc_test_…'] },
        keyPrefix: { type: 'string' },
        keyType: { type: 'string', enum: [...KEY_TYPES] },
        organizationId: { type: 'string' },
        company: companyResponse,
        nextSteps: { type: 'array', items: { type: 'object', properties: { step: { type: 'string' }, method: { type: 'string' }, path: { type: 'string' } } } },
        expiresAt: { type: 'string', format: 'date-time' },
      },
    },
  },
});

export const RESET_SCOPES = ['all', 'documents', 'events', 'idempotency'] as const;
export type ResetScope = (typeof RESET_SCOPES)[number];

export interface ResetResult {
  organizationId: string;
  /** A credential bound to one company resets that company only; null: the whole organization. */
  companyId: string | null;
  scope: ResetScope;
  /** What was removed, by kind (only the kinds of the scope). */
  deleted: { documents?: number; payments?: number; taggings?: number; events?: number; webhookDeliveries?: number; scheduledJobs?: number; idempotencyKeys?: number };
  resetAt: string;
}

export const reset = defineAction<{ confirm: 'yes'; scope?: ResetScope }, ResetResult>('sandbox', 'reset', {
  params: {
    ...STRICT_REMOVE,
    confirm: { type: 'enum', values: ['yes'], openapi: { type: 'string', const: 'yes', description: 'The literal `yes`: a reset cannot be undone' } },
    scope: { type: 'enum', values: [...RESET_SCOPES], optional: true, default: 'all' },
  },
  http: {
    method: 'POST', path: '/v1/sandbox/reset', access: 'authenticated', testModeOnly: true, tag: 'Sandbox',
    summary: 'Wipe the organization\'s sandbox data of a scope, with its pending scheduled work (test keys only). `confirm` must be the literal `yes`. `scope`: `documents` (documents with their pending deliveries and lifecycle follow-ups, and — organization-wide — the payments recorded and tags put on them), `events` (the event log, webhook deliveries and their pending retries; webhook subscriptions stay), `idempotency` (every stored Idempotency-Key answer of the organization), `all` (default: the three). An organization-wide credential resets the organization; one bound to one company (a personal or tenant key) resets that company\'s rows and its own stored answers. Companies, keys, webhooks and settings stay; nothing of another organization is touched',
    response: {
      type: 'object', required: ['organizationId', 'companyId', 'scope', 'deleted', 'resetAt'],
      properties: {
        organizationId: { type: 'string' },
        companyId: { type: ['string', 'null'], description: 'A credential bound to one company (a personal or tenant key) resets that company only; null: the whole organization' },
        scope: { type: 'string', enum: [...RESET_SCOPES] },
        deleted: {
          type: 'object',
          properties: {
            documents: { type: 'integer' }, events: { type: 'integer' }, webhookDeliveries: { type: 'integer' },
            payments: { type: 'integer', description: 'Payments recorded against the documents (organization-wide resets)' },
            taggings: { type: 'integer', description: 'Tags on objects, what tag suggestions learn from (organization-wide resets)' },
            scheduledJobs: { type: 'integer', description: 'Pending deliveries, follow-ups and webhook retries dropped' }, idempotencyKeys: { type: 'integer' },
          },
        },
        resetAt: { type: 'string', format: 'date-time' },
      },
    },
  },
});
