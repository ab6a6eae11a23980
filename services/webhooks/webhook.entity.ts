import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const WEBHOOK_STATUSES = ['active', 'paused', 'disabled'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];
/** What its deliveries carry: our event envelope, or an AFNOR XP Z12-013 flow (a subscription made under /afnor/). */
export const WEBHOOK_FORMATS = ['native', 'afnor-flow'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/**
 * A receiver subscribed to events. `companyId` set: the webhook receives that company's events
 * (personal keys); null: a platform-level webhook receiving every company of the organization,
 * whose payloads add `data.company.id` and the tenant `metadata`.
 *
 * The signing secret must be readable to sign, so it is stored as is (like any HMAC key); during a
 * rotation the previous secret keeps signing until `previousSecretExpiresAt`.
 */
export const Webhook = defineEntity({
  name: 'Webhook',
  tableName: 'webhooks',
  properties: {
    id: p.string().primary(),
    /** The tenancy organization (a foreign key in the database). */
    organizationId: p.string().index(),
    companyId: p.string().nullable(),
    url: p.text(),
    events: p.array(),
    description: p.string().nullable(),
    status: p.enum(WEBHOOK_STATUSES).default('active'),
    /** Consecutive failed attempts (reset by a success). */
    failureCount: p.integer().default(0),
    format: p.enum(WEBHOOK_FORMATS).default('native'),
    livemode: p.boolean(),
    secret: p.string(),
    previousSecret: p.string().nullable(),
    previousSecretExpiresAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
export type Webhook = InferEntity<typeof Webhook>;
