/**
 * `POST /v1/companies/{id}/reachability-test`: the company's own registration reached through the
 * network by a connector that runs the SDK's `probe` (peppol-as4: SML, SMP, certificate, an AS4
 * exchange, the receipt, our own inbound route). No transaction is open while it runs; a broken
 * hop is the answer (`reachable: false`), not an error.
 */
import type { Context } from 'moleculer';
import { DomainError } from '../shared/errors.ts';
import { systemClock } from '../shared/clock.ts';
import { principalOf } from '../shared/auth.ts';
import { call } from '../shared/call.ts';
import { adapterContracts, probingConnectors, registeredManifests } from '../connectors/adapters.contract.ts';
import type { Company } from './company.entity.ts';
import type { ReachabilityView } from './tenancy.contract.ts';

/** An AS4 exchange back to ourselves, plus discovery: well within a minute. */
const PROBE_TIMEOUT_MS = 60_000;

export async function testReachability(ctx: Context, company: Company, documentType: 'invoice' | 'credit-note'): Promise<ReachabilityView> {
  if (!company.peppolId) throw new DomainError('INVALID_TRANSITION', `Company '${company.id}' has no Peppol id: there is nothing to reach`, { extra: { allowedTransitions: [] } });
  if (company.registrationStatus !== 'active') {
    throw new DomainError('INVALID_TRANSITION', `Company '${company.id}' is not registered on the network: register it first (POST /v1/companies/${company.id}/register)`, { extra: { allowedTransitions: [] } });
  }
  const { livemode } = principalOf(ctx);
  const candidates = probingConnectors(registeredManifests(ctx.broker), { livemode, documentType });
  for (const manifest of candidates) {
    let report;
    try {
      report = await call(ctx, adapterContracts(manifest.id).probe, { participantId: company.peppolId, documentType, livemode, ...(company.country ? { country: company.country } : {}) }, { timeout: PROBE_TIMEOUT_MS, retries: 0 });
    } catch (err) {
      ctx.broker.logger.warn(`reachability test of ${company.id} through ${manifest.id} failed`, err);
      throw new DomainError('UPSTREAM_UNAVAILABLE', `The reachability test could not run through ${manifest.id}: ${(err as Error).message}`, { retryAfter: 60 });
    }
    if (!report.hops.length) continue;
    return {
      companyId: company.id, peppolId: company.peppolId, documentType, network: manifest.id,
      reachable: report.hops.every((h) => h.ok), hops: report.hops, testedAt: systemClock.now().toISOString(),
    };
  }
  throw new DomainError('UPSTREAM_UNAVAILABLE', `No connector runs the reachability test for ${livemode ? 'live' : 'test'} ${documentType} documents on this deployment`, { retryAfter: 60 });
}
