import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A non-human principal: what a client-credentials token's `sub` names. It acts in an organization
 * only through a Membership. Sandbox and production accounts are distinct (`livemode`).
 * Accounts of the built-in issuer are named by their id (`sub` = id); accounts of an external
 * identity provider by that provider's `iss` and `sub` (e.g. an Auth0 `…@clients` subject).
 */
export const TechnicalAccount = defineEntity({
  name: 'TechnicalAccount',
  tableName: 'technical_accounts',
  uniques: [{ properties: ['externalIssuer', 'externalSubject'] }],
  properties: {
    id: p.string().primary(),
    name: p.string(),
    externalIssuer: p.string().nullable(),
    externalSubject: p.string().nullable(),
    livemode: p.boolean(),
    createdAt: p.datetime().onCreate(() => new Date()),
    disabledAt: p.datetime().nullable(),
  },
});
export type TechnicalAccount = InferEntity<typeof TechnicalAccount>;
