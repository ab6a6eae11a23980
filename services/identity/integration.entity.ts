import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { TechnicalAccount } from './technical-account.entity.ts';

/**
 * An application connected by an organization: the OAuth client (id + secret) of the built-in
 * issuer, backed by a technical account. Only the SHA-256 of the secret is stored. Created by a
 * one-company credential (a personal key), it is bound to that company (`companyId`): its tokens
 * act for that company only.
 */
export const Integration = defineEntity({
  name: 'Integration',
  tableName: 'integrations',
  properties: {
    id: p.string().primary(),
    /** The tenancy organization (a foreign key in the database; read through tenancy's actions). */
    organizationId: p.string().index(),
    technicalAccount: p.manyToOne(TechnicalAccount).ref().deleteRule('cascade'),
    name: p.string(),
    clientId: p.string().unique(),
    clientSecretHash: p.string(),
    livemode: p.boolean(),
    companyId: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    revokedAt: p.datetime().nullable(),
  },
});
export type Integration = InferEntity<typeof Integration>;
