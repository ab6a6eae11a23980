/**
 * A small business service for tests and benches: changes a company (its metadata) and records
 * events through the outbox helper in the same real transaction, or rolls both back.
 */
import type { ServiceSchema } from 'moleculer';
import { OrmMixin, emOf } from '../../mixins/orm.mixin.ts';
import { OutboxMixin, type OutboxEventInput } from '../../mixins/outbox.mixin.ts';
import { defineAction, implement } from '../../services/shared/contract.ts';
import { Company } from '../../services/tenancy/company.entity.ts';
import type { EventEnvelope, EventType } from '../../services/events/events.contract.ts';

export interface TouchParams {
  companyId: string;
  type: EventType;
  data?: Record<string, unknown>;
  /** Events recorded in the one transaction. */
  count?: number;
  /** Throw after recording: the transaction (state change and events) rolls back. */
  fail?: boolean;
}

export const touchCompany = defineAction<TouchParams, EventEnvelope[]>('test-emitter', 'touch', {
  params: { companyId: 'string', type: 'string', data: 'object|optional', count: 'number|optional|integer|min:1', fail: 'boolean|optional' },
});

export const EmitterService: ServiceSchema = {
  name: 'test-emitter',
  mixins: [OrmMixin, OutboxMixin],
  actions: {
    touch: implement(touchCompany, async function (this: { recordEvent(ctx: unknown, em: unknown, input: OutboxEventInput): Promise<EventEnvelope> }, ctx) {
      const p = ctx.params;
      return emOf(ctx).transactional(async (tx) => {
        const company = await tx.findOneOrFail(Company, p.companyId, { populate: ['organization'] });
        const touched = Number((company.metadata as { touched?: number } | null)?.touched ?? 0) + 1;
        company.metadata = { ...(company.metadata ?? {}), touched };
        const out: EventEnvelope[] = [];
        for (let i = 0; i < (p.count ?? 1); i++) {
          out.push(await this.recordEvent(ctx, tx, {
            organizationId: company.organization.id, companyId: company.id, type: p.type,
            livemode: !company.organization.getEntity().sandbox, data: { ...(p.data ?? {}), seq: i },
          }));
        }
        if (p.fail) throw new Error('business rule failed: rolled back');
        return out;
      });
    }),
  },
};
