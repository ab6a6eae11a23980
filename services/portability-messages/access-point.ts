/**
 * The platform that routes a Peppol participant, asked live of the network: the discovery
 * connectors (peppol-discovery, peppol-as4) resolve participant → SML (DNS) → SMP → signed endpoint
 * and its certificate; the operator is named from that certificate's subject (O), its Peppol seat
 * from CN. Asked of the network of the caller's mode (live keys: production; test keys: the Peppol
 * test network), like every other lookup: a test key never reaches a live network.
 */
import type { Context } from 'moleculer';
import { DomainError } from '../shared/errors.ts';
import { principalOf } from '../shared/auth.ts';
import { systemClock } from '../shared/clock.ts';
import { discoverRecipient, registeredManifests } from '../connectors/adapters.contract.ts';
import { parsePeppolId } from '../../mappings/identifiers/peppol-id.ts';
import type { AccessPointView } from './portability-messages.contract.ts';

/** `C=NO, O=Acme AS, OU=PEPPOL TEST AP, CN=POP000002` → its attributes (a value may hold ", "). */
export function subjectAttributes(subject: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of subject.split(/,\s*(?=[A-Za-z][A-Za-z0-9.]*=)/)) {
    const i = part.indexOf('=');
    if (i > 0 && !(part.slice(0, i).trim() in out)) out[part.slice(0, i).trim()] = part.slice(i + 1).trim();
  }
  return out;
}

export async function resolveAccessPoint(ctx: Context, participantId: string): Promise<AccessPointView> {
  const parsed = parsePeppolId(participantId);
  if (!parsed) {
    const message = 'participantId must be `<scheme>:<identifier>`, the scheme four digits (ISO 6523 ICD), e.g. 0208:0403170701';
    throw new DomainError('INVALID_REQUEST', message, { details: [{ field: 'participantId', rule: 'peppolId', message }] });
  }
  const peppolId = `${parsed.scheme}:${parsed.identifier}`;
  const livemode = principalOf(ctx).livemode;
  const mode = livemode ? 'live' : 'test';
  // The Peppol network's own discovery: a discovery-only connector (the SML/SMP client), or a Peppol access point's.
  const candidates = registeredManifests(ctx.broker)
    .filter((m) => m.capabilities.discover && (m.network === 'peppol' || !m.capabilities.send) && m.modes.includes(mode) && m.countries.includes('*') && m.documentTypes.includes('invoice'))
    // A network directory answers for the whole network, before any one sender.
    .sort((a, b) => Number(a.capabilities.send) - Number(b.capabilities.send) || a.id.localeCompare(b.id));
  if (!candidates.length) throw new DomainError('UPSTREAM_UNAVAILABLE', `No Peppol discovery connector serves ${mode} keys on this deployment (enable peppol-discovery or peppol-as4)`, { retryAfter: 60 });
  const { manifest, check } = await discoverRecipient(ctx, candidates, { recipient: { peppolId }, documentType: 'invoice', livemode });
  if (!check.known) throw new DomainError('RESOURCE_NOT_FOUND', `${peppolId} is not registered on the Peppol network (the SML has no record of it)`);
  const endpoint = check.endpoint ?? null;
  const attributes = endpoint?.certificateSubject ? subjectAttributes(endpoint.certificateSubject) : undefined;
  return {
    participantId: peppolId, registered: true, canReceive: check.canReceive, endpoint,
    platform: attributes ? { name: attributes.O ?? null, seatId: attributes.CN ?? null, country: attributes.C ?? null } : null,
    network: manifest.id, checkedAt: systemClock.now().toISOString(),
  };
}
