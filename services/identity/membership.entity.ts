import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { TechnicalAccount } from './technical-account.entity.ts';

/** Roles of a technical account in an organization: `admin` holds every scope, `member` all but `platform`. */
export const MEMBERSHIP_ROLES = ['admin', 'member'] as const;
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number];

/** A technical account's membership of an organization, with its role. */
export const Membership = defineEntity({
  name: 'Membership',
  tableName: 'memberships',
  uniques: [{ properties: ['technicalAccount', 'organizationId'] }],
  properties: {
    id: p.string().primary(),
    technicalAccount: p.manyToOne(TechnicalAccount).ref().deleteRule('cascade'),
    /** The tenancy organization (a foreign key in the database; read through tenancy's actions). */
    organizationId: p.string().index(),
    role: p.enum(MEMBERSHIP_ROLES),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Membership = InferEntity<typeof Membership>;
