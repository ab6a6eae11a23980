import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A non-human principal: what a client-credentials token's `sub` names. It acts in an organization
 * only through a Membership. Sandbox and production accounts are distinct (`livemode`).
 */
export const TechnicalAccount = defineEntity({
  name: 'TechnicalAccount',
  tableName: 'technical_accounts',
  properties: {
    id: p.string().primary(),
    name: p.string(),
    livemode: p.boolean(),
    createdAt: p.datetime().onCreate(() => new Date()),
    disabledAt: p.datetime().nullable(),
  },
});
export type TechnicalAccount = InferEntity<typeof TechnicalAccount>;
