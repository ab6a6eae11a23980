import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Organization } from './organization.entity.ts';
import { Company } from './company.entity.ts';

import { KEY_TYPES } from '../shared/auth.ts';

/**
 * An API key. Only the SHA-256 of the secret is stored: keys are long random strings, so a fast
 * hash is enough to make a stolen table useless, and it lets authentication be one index lookup.
 */
export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.string().primary(),
    organization: p.manyToOne(Organization).ref().deleteRule('cascade').index(),
    /** Personal keys act for one company; platform and white-label keys pick one per request. */
    company: p.manyToOne(Company).ref().nullable().deleteRule('set null'),
    name: p.string(),
    keyPrefix: p.string(),
    keyHash: p.string().unique(),
    keyType: p.enum(KEY_TYPES),
    scopes: p.array(),
    livemode: p.boolean(),
    email: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});
export type ApiKey = InferEntity<typeof ApiKey>;
