import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

import { PLANS } from './tenancy.contract.ts';

/** A tenant. Every API key, company and document belongs to exactly one organization. */
export const Organization = defineEntity({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: p.string().primary(),
    name: p.string(),
    plan: p.enum(PLANS).default('free'),
    /** Sandbox organizations hold only test keys and never reach a real network. */
    sandbox: p.boolean().default(false),
    country: p.string().length(2).nullable(),
    vatNumber: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Organization = InferEntity<typeof Organization>;
