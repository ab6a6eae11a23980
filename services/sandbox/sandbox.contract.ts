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
