import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * An agent's consent request (PKCE, RFC 7636): asked without credentials, consented by a user of an
 * organization, exchanged once for a key. It holds the S256 challenge (public by nature) and, once
 * consented, the SHA-256 of the authorization code, never the code. The grantor columns are the
 * consenting credential as it was (its key is checked again when the key is minted).
 */
export const AgentAuthorization = defineEntity({
  name: 'AgentAuthorization',
  tableName: 'agent_authorizations',
  properties: {
    id: p.string().primary(),
    clientName: p.string(),
    scopes: p.array(),
    codeChallenge: p.string(),
    /** Until when a user may consent; once consented, until when the code may be exchanged. */
    expiresAt: p.datetime().index(),
    codeHash: p.string().unique().nullable(),
    organizationId: p.string().nullable(),
    companyId: p.string().nullable(),
    grantorApiKeyId: p.string().nullable(),
    grantorUserId: p.string().nullable(),
    grantorEmail: p.string().nullable(),
    livemode: p.boolean().nullable(),
    consentedAt: p.datetime().nullable(),
    /** Set once, by the one exchange that wins (single use, even under concurrency). */
    exchangedAt: p.datetime().nullable(),
    apiKeyId: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type AgentAuthorization = InferEntity<typeof AgentAuthorization>;

/** A single-use handoff token a user minted for an agent: only its SHA-256 is stored. */
export const HandoffToken = defineEntity({
  name: 'HandoffToken',
  tableName: 'handoff_tokens',
  properties: {
    id: p.string().primary(),
    tokenHash: p.string().unique(),
    name: p.string(),
    scopes: p.array(),
    organizationId: p.string().index(),
    companyId: p.string(),
    grantorApiKeyId: p.string().nullable(),
    grantorUserId: p.string().nullable(),
    grantorEmail: p.string().nullable(),
    livemode: p.boolean(),
    expiresAt: p.datetime().index(),
    redeemedAt: p.datetime().nullable(),
    apiKeyId: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type HandoffToken = InferEntity<typeof HandoffToken>;
