/** The scope of an Idempotency-Key and of a rate-limit window: the calling credential. */
export function idempotencyScope(auth: { apiKeyId: string | null; userId: string | null; organizationId: string }): string {
  return auth.apiKeyId ?? (auth.userId ? `user:${auth.userId}` : `org:${auth.organizationId}`);
}
