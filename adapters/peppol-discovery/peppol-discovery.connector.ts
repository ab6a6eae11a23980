/**
 * peppol-discovery: who can receive what on the Peppol network, by the network's own directory
 * (SML DNS → SMP), for `POST /v1/directory/verify` and for the Peppol access point connector's
 * recipient checks. Capability `discover` only: it sends nothing. Written against adapters/sdk and
 * the pure identifiers of mappings/.
 */
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { CONNECTOR_API_VERSION, ConnectorError, type CheckRequest, type CheckResult, type Connector, type ConnectorHost } from '../sdk/index.ts';
import { AS4_TRANSPORT_PROFILE, BILLING_DOCUMENT_TYPES, SML_ZONES, apiTypeOfDocumentId } from '../../mappings/identifiers/peppol-network.ts';
import { DiscoveryClient, DiscoveryError } from '../peppol-kit/discovery.ts';

/** Every certificate of a PEM bundle (the network's SMP CAs, or pinned SMP certificates). */
export function readTrustStore(path: string): X509Certificate[] {
  const pem = readFileSync(path, 'utf8');
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (!blocks.length) throw new Error(`peppol-discovery: ${path} holds no PEM certificate`);
  return blocks.map((b) => new X509Certificate(b));
}

const clients = new WeakMap<ConnectorHost, DiscoveryClient>();

function settingsOf(host: ConnectorHost) {
  const c = host.config;
  return {
    smlZone: String(c.smlZone),
    dnsServers: String(c.dnsServers ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    legacyCname: c.legacyCname === true,
    requireHttps: c.requireHttps !== false,
    timeoutMs: Number(c.timeoutMs),
  };
}

function clientOf(host: ConnectorHost): DiscoveryClient {
  let client = clients.get(host);
  if (!client) {
    const s = settingsOf(host);
    const trust = readTrustStore(String(host.config.trustFile ?? ''));
    client = new DiscoveryClient({
      ...s, trust, now: () => host.clock.now(),
      cacheTtlMs: Number(host.config.cacheTtlMs), negativeCacheTtlMs: Number(host.config.negativeCacheTtlMs),
      async get(url) {
        // Since 2026-02 an SMP answers over HTTPS only; plain HTTP is for a network on 127.0.0.1.
        if (s.requireHttps && !url.startsWith('https://')) throw new DiscoveryError(`the SMP URL ${url} is not HTTPS`, false);
        const res = await host.http.request(url, { timeoutMs: s.timeoutMs });
        return { status: res.status, body: res.text() };
      },
    });
    clients.set(host, client);
  }
  return client;
}

const peppolDiscovery = {
  manifest: {
    id: 'peppol-discovery',
    version: '1.0.0',
    apiVersion: CONNECTOR_API_VERSION,
    name: 'Peppol discovery (SML + SMP)',
    description: 'Finds Peppol participants through the SML\'s DNS zone and their SMP, with the SMP signature verified',
    modes: ['live'],
    countries: ['*'],
    documentTypes: Object.keys(BILLING_DOCUMENT_TYPES),
    capabilities: { send: false, pushReceive: false, pollReceive: false, status: false, report: false, discover: true, registry: false },
    options: {
      smlZone: { type: 'string', description: 'DNS zone of the SML', default: SML_ZONES.production },
      dnsServers: { type: 'string', description: 'DNS servers to ask (host or host:port, comma-separated); the system resolver when empty', default: '' },
      trustFile: { type: 'string', description: 'PEM file of the SMP certificates or CAs an SMP signature must chain to (the network\'s SMP CA)', required: true },
      legacyCname: { type: 'boolean', description: 'Also try the CNAME form the SML published before 2026-02', default: false },
      requireHttps: { type: 'boolean', description: 'Refuse an SMP URL that is not HTTPS (every SMP since 2026-02)', default: true },
      timeoutMs: { type: 'number', description: 'Time allowed for one SMP answer', default: 10000 },
      cacheTtlMs: { type: 'number', description: 'How long an answer is kept', default: 600000 },
      negativeCacheTtlMs: { type: 'number', description: 'How long "not registered" is kept', default: 60000 },
    },
  },

  async check(req: CheckRequest, host: ConnectorHost): Promise<CheckResult> {
    const participantId = req.recipient.peppolId;
    const documentTypeId = BILLING_DOCUMENT_TYPES[req.documentType as keyof typeof BILLING_DOCUMENT_TYPES];
    if (!participantId || !documentTypeId) return { known: false, canReceive: false, documentTypes: [] };
    try {
      const found = await clientOf(host).discover(participantId, documentTypeId);
      if (!found.smpUrl) return { known: false, canReceive: false, documentTypes: [], peppolId: participantId };
      const as4 = found.endpoints.filter((e) => e.transportProfile === AS4_TRANSPORT_PROFILE);
      const documentTypes = [...new Set(found.documentTypeIds.map((id) => apiTypeOfDocumentId(id.split('::').slice(1).join('::'))).filter((t) => t !== undefined))];
      const e = as4[0];
      return {
        known: true, canReceive: as4.length > 0, documentTypes, peppolId: participantId,
        ...(e ? { endpoint: { url: e.url, transportProfile: e.transportProfile, certificateSubject: e.certificateSubject, certificateNotAfter: e.certificateNotAfter } } : {}),
      };
    } catch (err) {
      if (err instanceof DiscoveryError) throw err.transient ? ConnectorError.transient('DISCOVERY_UNAVAILABLE', err.message) : ConnectorError.permanent('DISCOVERY_REFUSED', err.message);
      throw err;
    }
  },
} satisfies Connector;

export default peppolDiscovery;
