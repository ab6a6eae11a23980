import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A signing key of the built-in issuer (JWK form). The newest unretired key signs; a key replaced
 * by a rotation gets `retireAt` (rotation time + the longest token life + clock tolerance) and
 * stays published in the JWKS until then, so every token it signed keeps verifying until it expires.
 */
export const SigningKey = defineEntity({
  name: 'SigningKey',
  tableName: 'signing_keys',
  properties: {
    kid: p.string().primary(),
    alg: p.string(),
    publicJwk: p.json<Record<string, unknown>>(),
    privateJwk: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    retireAt: p.datetime().nullable(),
  },
});
export type SigningKey = InferEntity<typeof SigningKey>;
