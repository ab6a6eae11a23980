import type { ServiceSchema } from 'moleculer';
import { implement } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import { systemClock } from '../shared/clock.ts';
import { loadConfig } from '../shared/config.ts';
import { provision } from '../tenancy/tenancy.contract.ts';
import type { Plan } from '../tenancy/tenancy.contract.ts';
import type { KeyType } from '../shared/auth.ts';
import { bootstrap } from './sandbox.contract.ts';
import { seededBelgianCompany } from './belgian-company.ts';

const PLAN_FOR_KEY_TYPE: Record<KeyType, Plan> = { personal: 'free', platform: 'platform', white_label: 'white_label' };

const NEXT_STEPS = [
  { step: 'Check who you are with the new key', method: 'GET', path: '/v1/me' },
  { step: 'See your seeded Belgian company', method: 'GET', path: '/v1/me/company' },
  { step: 'Read the API description', method: 'GET', path: '/v1/openapi.json' },
];

const SandboxService: ServiceSchema = {
  name: 'sandbox',
  actions: {
    bootstrap: implement(bootstrap, async (ctx) => {
      const label = ctx.params.label ?? 'quickstart';
      const keyType = ctx.params.keyType ?? 'personal';
      const expiresAt = new Date(systemClock.now().getTime() + loadConfig().sandboxKeyDays * 86_400_000);
      const result = await call(ctx, provision, {
        organization: { name: `${label} (sandbox)`, sandbox: true, plan: PLAN_FOR_KEY_TYPE[keyType], country: 'BE' },
        company: seededBelgianCompany(label),
        apiKey: { name: label, keyType, ...(ctx.params.email ? { email: ctx.params.email } : {}), expiresAt: expiresAt.toISOString() },
      });
      return {
        apiKey: result.apiKey.key,
        keyPrefix: result.apiKey.keyPrefix,
        keyType,
        organizationId: result.organizationId,
        company: result.company,
        nextSteps: keyType === 'personal' ? NEXT_STEPS : NEXT_STEPS.map((s) => (s.path === '/v1/me/company' ? { ...s, step: `${s.step} (send X-Service-Company: ${result.company.id})` } : s)),
        expiresAt: expiresAt.toISOString(),
      };
    }),
  },
};

export default SandboxService;
