import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

import { PLANS, type OrganizationSettings } from './tenancy.contract.ts';

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
    /** White-label operation: branding, custom domain (with its DNS challenge) and defaults for its tenants (PATCH /v1/platform/settings). */
    settings: p.json<OrganizationSettings>().nullable(),
    /** The host name its white-label service is served on (unique; the gateway maps a request's host to it). */
    customDomain: p.string().length(253).nullable(),
    /** Sandbox organizations: when they (and the bootstrap key) expire and the scheduler removes them. */
    expiresAt: p.datetime().nullable(),
  },
});
export type Organization = InferEntity<typeof Organization>;
