import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { Principal } from '../shared/auth.ts';

export const PUNCHOUT_SESSION_STATUSES = ['open', 'ordered'] as const;
export type PunchOutSessionStatus = (typeof PUNCHOUT_SESSION_STATUSES)[number];

/**
 * A PunchOut shopping session a buyer's company opened at a supplier's catalog. The catalog hands
 * the cart back to `/v1/punchout/sessions/<id>/cart` with the session's buyer cookie, which only the
 * catalog and we know: we keep its SHA-256, never the cookie. A session takes one cart, before it
 * expires; the cart becomes a purchase order sent as the principal that opened the session.
 */
export const PunchOutSession = defineEntity({
  name: 'PunchOutSession',
  tableName: 'punchout_sessions',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    companyId: p.string(),
    livemode: p.boolean(),
    /** The caller that opened it (its organization, company, key): the purchase order is sent as it. */
    principal: p.json<Principal>(),
    /** SHA-256 (hex) of the buyer cookie. */
    buyerCookieSha256: p.string().length(64),
    catalogUrl: p.text(),
    startPageUrl: p.text(),
    /** Where the order goes: `{name, peppolId}`. */
    supplier: p.json<{ name: string; peppolId: string }>(),
    /** The purchase order's number. */
    orderNumber: p.string(),
    status: p.enum(PUNCHOUT_SESSION_STATUSES),
    /** The purchase order the cart became. */
    documentId: p.string().nullable(),
    expiresAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  indexes: [{ name: 'punchout_sessions_company_index', properties: ['organizationId', 'companyId', 'createdAt'] }],
});
export type PunchOutSession = InferEntity<typeof PunchOutSession>;
