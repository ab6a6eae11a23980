/**
 * For services that read business time (services/shared/clock.ts): when a company's sandbox clock
 * moves on any replica, this process forgets the offset it cached for that company.
 */
import type { Context, ServiceSchema } from 'moleculer';
import { CLOCK_CHANGED_EVENT, forgetClockOffset } from '../services/shared/clock.ts';

export const BusinessClockMixin: Partial<ServiceSchema> = {
  events: {
    [CLOCK_CHANGED_EVENT](ctx: Context<{ companyId?: string }>) {
      forgetClockOffset(ctx.params.companyId);
    },
  },
};
