/**
 * API-key principals kept for a moment, so a burst of calls with one key costs one lookup in
 * tenancy instead of one per call. Entries are keyed by the SHA-256 of the key and the
 * X-Service-Company header (the key itself is never kept), live at most `ttlMs` and never past the
 * key's own expiry. Tenancy broadcasts every revocation and this gateway drops that key's entries
 * at once; a broadcast that never arrives (a replica cut off from the broker) is bounded by the
 * TTL, so a revoked key is refused everywhere within `ttlMs` (1 s by default).
 */
import { createHash } from 'node:crypto';
import type { Principal } from '../shared/auth.ts';

interface Entry {
  principal: Principal;
  /** Date.now() after which the entry is not used. */
  until: number;
}

export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(ttlMs: number, maxEntries = 10_000) {
    this.ttlMs = ttlMs;
    this.maxEntries = maxEntries;
  }

  private static slot(key: string, companyHeader: string | undefined): string {
    return createHash('sha256').update(key).update('\0').update(companyHeader ?? '').digest('base64url');
  }

  get(key: string, companyHeader: string | undefined, now = Date.now()): Principal | undefined {
    if (this.ttlMs <= 0) return undefined;
    const slot = PrincipalCache.slot(key, companyHeader);
    const entry = this.entries.get(slot);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.entries.delete(slot);
      return undefined;
    }
    return entry.principal;
  }

  /** Keeps a principal tenancy has just resolved; `expiresAt`: the key's own expiry, if it has one. */
  set(key: string, companyHeader: string | undefined, principal: Principal, expiresAt: string | null | undefined, now = Date.now()): void {
    if (this.ttlMs <= 0) return;
    const until = Math.min(now + this.ttlMs, expiresAt ? Date.parse(expiresAt) : Infinity);
    if (until <= now) return;
    if (this.entries.size >= this.maxEntries) {
      // The oldest insertion goes first (Map keeps insertion order): a bounded cache, never a leak.
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(PrincipalCache.slot(key, companyHeader), { principal, until });
  }

  /** Drops every entry of one API key (all its X-Service-Company variants). */
  dropKey(apiKeyId: string): void {
    for (const [slot, entry] of this.entries) if (entry.principal.apiKeyId === apiKeyId) this.entries.delete(slot);
  }

  /** Drops every entry acting for one company (its platform suspended it). */
  dropCompany(companyId: string): void {
    for (const [slot, entry] of this.entries) if (entry.principal.companyId === companyId) this.entries.delete(slot);
  }

  get size(): number {
    return this.entries.size;
  }
}
