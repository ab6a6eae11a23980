/**
 * White-label custom domains at the edge: a request arriving on a host that is an organization's
 * custom domain is served for that organization only, so credentials of any other organization are
 * refused there. Hosts are looked up in tenancy once and kept a minute (misses too, so a flood of
 * made-up hosts costs one lookup each per minute at most); a changed domain is forgotten at once
 * (tenancy broadcasts CUSTOM_DOMAIN_CHANGED_EVENT). The platform's own hosts and IP literals are
 * never looked up.
 */
import { isIP } from 'node:net';
import type { Context } from 'moleculer';
import { call } from '../shared/call.ts';
import { DomainError } from '../shared/errors.ts';
import type { Principal } from '../shared/auth.ts';
import { organizationByDomain } from '../tenancy/tenancy.contract.ts';

const TTL_MS = 60_000;
const MAX_HOSTS = 10_000;

export class CustomDomains {
  private readonly entries = new Map<string, { organizationId: string | null; until: number }>();
  private readonly ownHosts: Set<string>;

  constructor(ownHosts: readonly string[]) {
    this.ownHosts = new Set(['localhost', ...ownHosts.map((h) => h.toLowerCase())]);
  }

  /** The host part of a Host header, lowercase, when it could be a custom domain. */
  static candidate(hostHeader: string | undefined, ownHosts: ReadonlySet<string>): string | undefined {
    const host = hostHeader?.trim().toLowerCase().replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
    if (!host || host.length > 253 || isIP(host) || ownHosts.has(host) || !host.includes('.')) return undefined;
    return host;
  }

  /** The organization this host serves, or null when it is no custom domain. */
  async organizationOf(ctx: Context, hostHeader: string | undefined, now = Date.now()): Promise<string | null> {
    const host = CustomDomains.candidate(hostHeader, this.ownHosts);
    if (!host) return null;
    const hit = this.entries.get(host);
    if (hit && hit.until > now) return hit.organizationId;
    const found = await call(ctx, organizationByDomain, { host });
    if (this.entries.size >= MAX_HOSTS) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(host, { organizationId: found?.organizationId ?? null, until: now + TTL_MS });
    return found?.organizationId ?? null;
  }

  /** Refuses a credential of another organization on an organization's custom domain. */
  async check(ctx: Context, hostHeader: string | undefined, principal: Principal): Promise<void> {
    const served = await this.organizationOf(ctx, hostHeader);
    if (served && served !== principal.organizationId) {
      throw new DomainError('ORGANIZATION_FORBIDDEN', 'This domain serves another organization; use your own organization\'s address');
    }
  }

  forget(domains: readonly string[]): void {
    for (const d of domains) this.entries.delete(d.toLowerCase());
  }
}
