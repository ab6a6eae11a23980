/**
 * Finding a Peppol recipient from a connector: the discovery options both Peppol connectors read,
 * the DiscoveryClient built once per host from them (the host's HTTP client, its clock), and the
 * answer to the platform's `check` — registered? reachable over AS4 for this document type? where?
 */
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { ConnectorError, type CheckRequest, type CheckResult, type ConnectorHost, type ConnectorOption } from '../sdk/index.ts';
import { AS4_TRANSPORT_PROFILE, SML_ZONES, apiTypeOfDocumentId, peppolDocumentTypeOf } from '../../mappings/identifiers/peppol-network.ts';
import { DiscoveryClient, DiscoveryError, type Endpoint } from './discovery.ts';

/** The options of discovery, as a connector manifest declares them. */
export const DISCOVERY_OPTIONS = {
  smlZone: { type: 'string', description: 'DNS zone of the SML', default: SML_ZONES.production },
  dnsServers: { type: 'string', description: 'DNS servers to ask (host or host:port, comma-separated); the system resolver when empty', default: '' },
  trustFile: { type: 'string', description: 'PEM file of the SMP certificates or CAs an SMP signature must chain to (the network\'s SMP CA)', required: true },
  legacyCname: { type: 'boolean', description: 'Also try the CNAME form the SML published before 2026-02', default: false },
  requireHttps: { type: 'boolean', description: 'Refuse an SMP or access point URL that is not HTTPS (the network since 2026-02)', default: true },
  timeoutMs: { type: 'number', description: 'Time allowed for one SMP answer', default: 10000 },
  cacheTtlMs: { type: 'number', description: 'How long an answer is kept', default: 600000 },
  negativeCacheTtlMs: { type: 'number', description: 'How long "not registered" is kept', default: 60000 },
} as const satisfies Record<string, ConnectorOption>;

/** Every certificate of a PEM bundle (the network's SMP CAs, or pinned SMP certificates). */
export function readTrustStore(path: string): X509Certificate[] {
  const pem = readFileSync(path, 'utf8');
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (!blocks.length) throw new Error(`${path} holds no PEM certificate`);
  return blocks.map((b) => new X509Certificate(b));
}

const clients = new WeakMap<ConnectorHost, DiscoveryClient>();

/** The host's discovery client, made on first use from its DISCOVERY_OPTIONS. */
export function discoveryClientOf(host: ConnectorHost): DiscoveryClient {
  let client = clients.get(host);
  if (!client) {
    const c = host.config;
    const requireHttps = c.requireHttps !== false;
    const timeoutMs = Number(c.timeoutMs ?? 10000);
    client = new DiscoveryClient({
      smlZone: String(c.smlZone),
      dnsServers: String(c.dnsServers ?? '').split(',').map((s) => s.trim()).filter(Boolean),
      legacyCname: c.legacyCname === true,
      trust: readTrustStore(String(c.trustFile ?? '')),
      now: () => host.clock.now(),
      cacheTtlMs: Number(c.cacheTtlMs ?? 600000), negativeCacheTtlMs: Number(c.negativeCacheTtlMs ?? 60000),
      async get(url) {
        // Since 2026-02 an SMP answers over HTTPS only; plain HTTP is for a network on 127.0.0.1.
        if (requireHttps && !url.startsWith('https://')) throw new DiscoveryError(`the SMP URL ${url} is not HTTPS`, false);
        const res = await host.http.request(url, { timeoutMs });
        return { status: res.status, body: res.text() };
      },
    });
    clients.set(host, client);
  }
  return client;
}

/** A discovery failure as the platform wants it: retry later, or a refusal with the network's reason. */
export function connectorErrorOf(err: unknown): unknown {
  if (err instanceof DiscoveryError) return err.transient ? ConnectorError.transient('DISCOVERY_UNAVAILABLE', err.message) : ConnectorError.permanent('DISCOVERY_REFUSED', err.message);
  return err;
}

/** The recipient's AS4 endpoint for a document type, or why there is none. */
export async function as4EndpointOf(host: ConnectorHost, participantId: string, documentTypeId: string): Promise<{ smpUrl: string | null; endpoint: Endpoint | undefined; documentTypeIds: string[] }> {
  try {
    const found = await discoveryClientOf(host).discover(participantId, documentTypeId);
    return { smpUrl: found.smpUrl, endpoint: found.endpoints.find((e) => e.transportProfile === AS4_TRANSPORT_PROFILE), documentTypeIds: found.documentTypeIds };
  } catch (err) {
    throw connectorErrorOf(err);
  }
}

/** The platform's `check`: is the participant on the network, and can it receive this document over AS4? */
export async function checkRecipient(req: CheckRequest, host: ConnectorHost): Promise<CheckResult> {
  const participantId = req.recipient.peppolId;
  const documentTypeId = peppolDocumentTypeOf(req.documentType)?.documentTypeId;
  if (!participantId || !documentTypeId) return { known: false, canReceive: false, documentTypes: [] };
  const found = await as4EndpointOf(host, participantId, documentTypeId);
  if (!found.smpUrl) return { known: false, canReceive: false, documentTypes: [], peppolId: participantId };
  const documentTypes = [...new Set(found.documentTypeIds.map((id) => apiTypeOfDocumentId(id.split('::').slice(1).join('::'))).filter((t) => t !== undefined))];
  const e = found.endpoint;
  return {
    known: true, canReceive: e !== undefined, documentTypes, peppolId: participantId,
    ...(e ? { endpoint: { url: e.url, transportProfile: e.transportProfile, certificateSubject: e.certificateSubject, certificateNotAfter: e.certificateNotAfter } } : {}),
  };
}
