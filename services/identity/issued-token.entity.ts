import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A machine token the built-in issuer minted (its `jti`), until it expires. The gateway honours a
 * built-in token only when its row is here for its technical account: a token signed with a stolen
 * key but never issued by /oauth/token is refused, and revoking an integration drops its tokens.
 */
export const IssuedToken = defineEntity({
  name: 'IssuedToken',
  tableName: 'issued_tokens',
  properties: {
    jti: p.string().primary(),
    technicalAccountId: p.string().index(),
    /** The integration's company binding when the token was issued (null: organization-wide). */
    companyId: p.string().nullable(),
    expiresAt: p.datetime().index(),
  },
});
export type IssuedToken = InferEntity<typeof IssuedToken>;
