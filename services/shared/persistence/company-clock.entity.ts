import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A sandbox company's virtual clock: business time = wall time + `offsetSeconds`. No row (or a
 * reset) means wall time. Live companies never get a row.
 */
export const CompanyClock = defineEntity({
  name: 'CompanyClock',
  tableName: 'company_clocks',
  properties: {
    companyId: p.string().primary(),
    offsetSeconds: p.bigint('number').default(0),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
export type CompanyClock = InferEntity<typeof CompanyClock>;
