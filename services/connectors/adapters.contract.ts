/**
 * Contracts of the `adapter.<id>` services: every connector is reached through the same typed
 * verbs of the connector SDK, and publishes its manifest in the service's metadata
 * (`metadata.connector`), so the router finds it in the broker registry without a central list.
 */
import type { Context } from 'moleculer';
import { defineAction, type ActionContract } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import type { CheckRequest, CheckResult, ConnectorHealth, LifecycleResponse, ProbeReport, ProbeRequest, ConnectorManifest, Participant, InboundResponse, OutboundMessage, RegistryRequest, RegistryResult, ReportMessage, ReportResult, RespondResult, SendResult, StatusRequest, StatusResult } from '../../adapters/sdk/index.ts';

/** Metadata key of an `adapter.<id>` service that carries its manifest. */
export const MANIFEST_METADATA_KEY = 'connector';

/** A request to a push-receive route, as the gateway forwards it (body in base64). */
export interface RouteRequest {
  method: string;
  route: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  body: string;
  clientCertificate?: { subject: string; fingerprint256: string; pem?: string };
}

export type RouteResponse = Omit<InboundResponse, 'body'> & { body?: string; bodyEncoding?: 'base64' };

export interface AdapterContracts {
  manifest: ActionContract<Record<string, never>, ConnectorManifest>;
  check: ActionContract<CheckRequest, CheckResult>;
  send: ActionContract<OutboundMessage, SendResult>;
  status: ActionContract<StatusRequest, StatusResult>;
  report: ActionContract<ReportMessage, ReportResult>;
  lookupCompany: ActionContract<RegistryRequest, RegistryResult>;
  route: ActionContract<RouteRequest, RouteResponse>;
  /** The connector's own health (API 2.3); only connectors with a `health` verb have it. */
  health: ActionContract<Record<string, never>, ConnectorHealth>;
  /** The reachability self-test (API 2.3); only connectors with the `probe` capability have it. */
  probe: ActionContract<ProbeRequest, ProbeReport>;
  /** A buyer's lifecycle move passed back to the sender (API 2.4); only connectors with the `respond` capability have it. */
  respond: ActionContract<LifecycleResponse, RespondResult>;
}

const message = {
  documentId: 'string',
  livemode: 'boolean',
  type: 'string',
  sender: 'object',
  recipient: 'object',
  payload: 'object',
  attempt: { type: 'number', integer: true, min: 1 },
} as const;

const cache = new Map<string, AdapterContracts>();

export function adapterContracts(connectorId: string): AdapterContracts {
  let c = cache.get(connectorId);
  if (!c) {
    const service = `adapter.${connectorId}`;
    c = {
      manifest: defineAction(service, 'manifest', { params: {} }),
      check: defineAction(service, 'check', { params: { recipient: 'object', documentType: 'string', livemode: 'boolean' } }),
      send: defineAction(service, 'send', { params: { ...message } }),
      status: defineAction(service, 'status', { params: { messageId: 'string', livemode: 'boolean' } }),
      report: defineAction(service, 'report', {
        params: {
          reportId: { type: 'string', min: 1, max: 255 }, livemode: 'boolean', kind: { type: 'enum', values: ['transaction', 'payment', 'lifecycle', 'network-statistics'] },
          country: { type: 'string', min: 1, max: 2 }, recipient: { type: 'string', optional: true, max: 200 }, reporter: 'object', period: { type: 'string', optional: true, max: 64 },
          documentIds: { type: 'array', items: 'string', max: 10_000 }, payload: 'object',
        },
      }),
      lookupCompany: defineAction(service, 'lookupCompany', { params: { vatNumber: { type: 'string', min: 3, max: 32 }, livemode: 'boolean' } }),
      health: defineAction(service, 'health', { params: {} }),
      probe: defineAction(service, 'probe', { params: { participantId: { type: 'string', min: 3, max: 160 }, documentType: 'string', livemode: 'boolean', country: { type: 'string', optional: true, max: 2 } } }),
      respond: defineAction(service, 'respond', {
        params: {
          responseId: { type: 'string', min: 1, max: 255 }, livemode: 'boolean', code: { type: 'string', max: 8 },
          status: { type: 'enum', values: ['received', 'under_review', 'approved', 'disputed', 'rejected', 'paid'] }, at: 'string',
          reason: { type: 'string', optional: true, max: 4096 }, reasonCode: { type: 'string', optional: true, max: 64 }, note: { type: 'string', optional: true, max: 4096 },
          paymentDate: { type: 'string', optional: true, max: 32 }, amounts: { type: 'record', optional: true, key: { type: 'string', max: 16 }, value: { type: 'string', max: 64 } },
          partial: { type: 'boolean', optional: true }, document: 'object',
          statusMessage: { type: 'object', optional: true, props: { syntax: { type: 'enum', values: ['cdar-d22b'] }, xml: { type: 'string', max: 10 * 1024 * 1024 } } },
        },
      }),
      route: defineAction(service, 'route', {
        params: { method: 'string', route: 'string', headers: 'object', query: 'object', body: 'string', clientCertificate: { type: 'object', optional: true } },
      }),
    };
    cache.set(connectorId, c);
  }
  return c;
}

/** The manifests of the connectors the broker knows (local or on other nodes), from service metadata. */
export function registeredManifests(broker: { registry: { getServiceList(opts: { onlyAvailable?: boolean }): Array<{ name: string; metadata?: Record<string, unknown> }> } }): ConnectorManifest[] {
  const seen = new Map<string, ConnectorManifest>();
  for (const svc of broker.registry.getServiceList({ onlyAvailable: true })) {
    const manifest = svc.metadata?.[MANIFEST_METADATA_KEY] as ConnectorManifest | undefined;
    if (svc.name.startsWith('adapter.') && manifest && !seen.has(manifest.id)) seen.set(manifest.id, manifest);
  }
  return [...seen.values()].sort((a, b) => a.id.localeCompare(b.id));
}

/** The connectors that can run the reachability self-test for a participant of this mode and document type, by id. */
export function probingConnectors(manifests: readonly ConnectorManifest[], req: { livemode: boolean; documentType: string }): ConnectorManifest[] {
  const mode = req.livemode ? 'live' : 'test';
  return manifests.filter((m) => m.capabilities.probe && m.modes.includes(mode) && m.documentTypes.includes(req.documentType));
}

/**
 * Content-based routing: the connectors that may carry a document, best first, by the caller's
 * mode (test keys never reach a live network), the recipient's country and the document type. A
 * connector naming the country comes before a `*` one; among equals, by id. A clearance connector
 * of the sender's country comes first of all: where the law makes the seller clear its invoices with
 * the tax authority (KSA, Poland …), every invoice it issues goes there, whoever the buyer is. Senders
 * then ask each candidate with the `discover` capability whether it reaches the recipient (first known wins).
 */
export interface RoutingRequest {
  livemode: boolean;
  /** Recipient country when known (ISO 3166-1 alpha-2). */
  country?: string | null;
  /** The sending company's country (ISO 3166-1 alpha-2): selects its clearance connector. */
  senderCountry?: string | null;
  documentType: string;
}

export function candidateConnectors(manifests: readonly ConnectorManifest[], req: RoutingRequest): ConnectorManifest[] {
  const mode = req.livemode ? 'live' : 'test';
  const clears = (m: ConnectorManifest) => Boolean(m.capabilities.clearance && req.senderCountry && m.countries.includes(req.senderCountry));
  const rank = (m: ConnectorManifest) => (clears(m) ? 0 : req.country && m.countries.includes(req.country) ? 1 : 2);
  return manifests
    .filter((m) => m.modes.includes(mode)
      && m.capabilities.send
      && m.documentTypes.includes(req.documentType)
      && (clears(m) || m.countries.includes('*') || (req.country ? m.countries.includes(req.country) : false)))
    .sort((a, b) => rank(a) - rank(b) || a.id.localeCompare(b.id));
}

/**
 * The connectors that can say whether a participant is reachable, for `POST /v1/directory/verify`:
 * the senders, and the discovery-only connectors (the Peppol SML/SMP client), of the caller's mode
 * and the document type; any country (verify names no recipient country). Discovery-only first: a
 * network directory answers for the whole network, before any one sender.
 */
export function verifyingConnectors(manifests: readonly ConnectorManifest[], req: { livemode: boolean; documentType: string }): ConnectorManifest[] {
  const mode = req.livemode ? 'live' : 'test';
  const directoryOnly = (m: ConnectorManifest) => (m.capabilities.send ? 1 : 0);
  return manifests
    .filter((m) => m.modes.includes(mode) && m.documentTypes.includes(req.documentType)
      && (m.capabilities.discover || m.capabilities.send) && m.countries.includes('*'))
    .sort((a, b) => directoryOnly(a) - directoryOnly(b) || a.id.localeCompare(b.id));
}

export function pickConnector(manifests: readonly ConnectorManifest[], req: RoutingRequest): ConnectorManifest | undefined {
  return candidateConnectors(manifests, req)[0];
}

/** The first candidate that reaches the recipient (a connector without discovery is taken at its word); the first answer when none does. */
export async function discoverRecipient(ctx: Context, candidates: readonly ConnectorManifest[], req: { recipient: Participant; documentType: string; livemode: boolean }): Promise<{ manifest: ConnectorManifest; check: CheckResult }> {
  let first: { manifest: ConnectorManifest; check: CheckResult } | undefined;
  for (const manifest of candidates) {
    const check: CheckResult = manifest.capabilities.discover
      ? await call(ctx, adapterContracts(manifest.id).check, req)
      : { known: true, canReceive: true, documentTypes: [...manifest.documentTypes] };
    if (check.known) return { manifest, check };
    first ??= { manifest, check };
  }
  if (!first) throw new Error('discoverRecipient needs at least one candidate connector');
  return first;
}
