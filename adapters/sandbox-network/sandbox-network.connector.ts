/**
 * The sandbox network: test keys deliver between sandbox companies of any organization on this
 * platform, and a few reserved participants play deterministic failure scenarios (README.md).
 * Written against the connector SDK only; stateless (scenario state travels in the message id
 * and the attempt number), so any number of replicas can run it.
 */
import {
  CONNECTOR_API_VERSION, ConnectorError, type AcceptResult, type CheckRequest, type CheckResult, type Connector, type ConnectorHost, type OutboundMessage,
  type RegistryRequest, type RegistryResult, type SendResult, type StatusRequest, type StatusResult,
} from '../sdk/index.ts';

export const SANDBOX_DOCUMENT_TYPES = [
  'invoice', 'credit-note', 'debit-note', 'purchase-order', 'purchase-request', 'sales-order', 'quote', 'goods-receipt',
] as const;

/** Reserved participants of the sandbox network (scheme 9999 is not an ICD anybody registers). */
export const SCENARIOS = {
  unknown: '9999:sandbox-unknown',
  cannotReceive: '9999:sandbox-cannot-receive',
  invoiceOnly: '9999:sandbox-invoice-only',
  apReject: '9999:sandbox-ap-reject',
  transient: '9999:sandbox-transient',
  /** `9999:sandbox-transient-<n>`: fails n attempts (1–5), then delivered. */
  transientThenDelivered: (n: number) => `9999:sandbox-transient-${n}`,
  /** `9999:sandbox-delay-<s>`: accepted, final delivery confirmed after s seconds (1–3600). */
  delayed: (seconds: number) => `9999:sandbox-delay-${seconds}`,
} as const;

type Scenario =
  | { kind: 'unknown' }
  | { kind: 'accepts'; types: readonly string[] }
  | { kind: 'ap-reject' }
  | { kind: 'transient'; failures: number }
  | { kind: 'delay'; seconds: number };

function scenarioOf(peppolId: string | undefined): Scenario | undefined {
  if (!peppolId) return undefined;
  const id = peppolId.toLowerCase();
  if (!id.startsWith('9999:sandbox-')) return undefined;
  const name = id.slice('9999:sandbox-'.length);
  if (name === 'cannot-receive') return { kind: 'accepts', types: [] };
  if (name === 'invoice-only') return { kind: 'accepts', types: ['invoice'] };
  if (name === 'ap-reject') return { kind: 'ap-reject' };
  if (name === 'transient') return { kind: 'transient', failures: Number.POSITIVE_INFINITY };
  let m = /^transient-([1-5])$/.exec(name);
  if (m) return { kind: 'transient', failures: Number(m[1]) };
  m = /^delay-(\d{1,4})$/.exec(name);
  if (m && Number(m[1]) >= 1 && Number(m[1]) <= 3600) return { kind: 'delay', seconds: Number(m[1]) };
  return { kind: 'unknown' };
}

const DELAY_PREFIX = 'sbx-delay:';

/**
 * The sandbox company registry: every well-formed VAT number is an active company, except the
 * reserved endings (README.md): `0000` is unknown, `9999` has ceased trading.
 */
function sandboxRegistry(vatNumber: string): RegistryResult {
  if (vatNumber.endsWith('0000')) return { status: 'not_found' };
  if (vatNumber.endsWith('9999')) return { status: 'inactive', name: `Ceased Sandbox Company ${vatNumber}` };
  const country = vatNumber.slice(0, 2) === 'EL' ? 'GR' : vatNumber.slice(0, 2);
  return {
    status: 'active',
    name: `Sandbox Company ${vatNumber}`,
    address: { street: '1 Sandbox Street', city: 'Sandbox City', postalCode: '1000', country },
    registrationNumber: vatNumber.slice(2),
  };
}

export const sandboxNetworkConnector = {
  manifest: {
    id: 'sandbox-network',
    version: '2.0.0',
    apiVersion: CONNECTOR_API_VERSION,
    name: 'Sandbox network',
    description: 'Delivers between sandbox companies of every organization on this platform; reserved participants 9999:sandbox-* play failure scenarios',
    countries: ['*'],
    documentTypes: SANDBOX_DOCUMENT_TYPES,
    modes: ['test'],
    capabilities: { send: true, pushReceive: false, pollReceive: false, status: true, report: false, discover: true, registry: true },
  },

  async lookupCompany(req: RegistryRequest): Promise<RegistryResult> {
    return sandboxRegistry(req.vatNumber);
  },

  async check(req: CheckRequest, host: ConnectorHost): Promise<CheckResult> {
    const scenario = scenarioOf(req.recipient.peppolId);
    if (scenario) {
      if (scenario.kind === 'unknown') return { known: false, canReceive: false, documentTypes: [] };
      const types = scenario.kind === 'accepts' ? [...scenario.types] : [...SANDBOX_DOCUMENT_TYPES];
      return { known: true, canReceive: types.includes(req.documentType), documentTypes: types, peppolId: req.recipient.peppolId!, name: `Sandbox scenario ${req.recipient.peppolId}` };
    }
    const entry = await host.directory.lookup(req.recipient, req.livemode);
    if (!entry) return { known: false, canReceive: false, documentTypes: [] };
    return {
      known: true,
      canReceive: entry.documentTypes.includes(req.documentType),
      documentTypes: entry.documentTypes,
      ...(entry.peppolId ? { peppolId: entry.peppolId } : {}),
      name: entry.name,
      country: entry.country,
    };
  },

  async send(msg: OutboundMessage, host: ConnectorHost): Promise<SendResult> {
    const scenario = scenarioOf(msg.recipient.peppolId);
    if (scenario) {
      switch (scenario.kind) {
        case 'ap-reject':
          return { outcome: 'rejected', errorCode: 'AP_REJECTED', errorMessage: `The recipient access point of ${msg.recipient.peppolId} rejected the payload (sandbox scenario)` };
        case 'transient':
          if (msg.attempt <= scenario.failures) return { outcome: 'transient', errorMessage: `Connection to the access point of ${msg.recipient.peppolId} was reset (sandbox scenario, attempt ${msg.attempt})` };
          return { outcome: 'delivered', messageId: `sbx:${msg.documentId}` };
        case 'delay': {
          const due = host.clock.now().getTime() + scenario.seconds * 1000;
          return { outcome: 'accepted', messageId: `${DELAY_PREFIX}${msg.documentId}:${due}`, checkAfterMs: scenario.seconds * 1000 };
        }
        case 'accepts':
          // A virtual participant that accepts the type: a sink, delivered at once.
          return { outcome: 'delivered', messageId: `sbx:${msg.documentId}` };
        case 'unknown':
          return { outcome: 'rejected', errorCode: 'AP_REJECTED', errorMessage: `${msg.recipient.peppolId} is not registered on the sandbox network` };
      }
    }
    const { documentId } = await loopback(msg, host);
    return { outcome: 'delivered', messageId: `sbx:${msg.documentId}`, localDocumentId: documentId };
  },

  async status({ messageId }: StatusRequest, host: ConnectorHost): Promise<StatusResult> {
    if (messageId.startsWith(DELAY_PREFIX)) {
      const due = Number(messageId.split(':').at(-1));
      const left = due - host.clock.now().getTime();
      return left <= 0 ? { outcome: 'delivered' } : { outcome: 'pending', checkAfterMs: left };
    }
    return { outcome: 'delivered' };
  },
} satisfies Connector;

/** The network is this platform: a message for a sandbox company is that company's inbound document. */
async function loopback(msg: OutboundMessage, host: ConnectorHost): Promise<AcceptResult> {
  const entry = await host.directory.lookup(msg.recipient, msg.livemode);
  if (!entry) throw ConnectorError.permanent('AP_REJECTED', `${msg.recipient.peppolId ?? msg.recipient.companyId} is not a sandbox participant`);
  return host.inbound.accept({
    messageId: msg.documentId,
    livemode: msg.livemode,
    type: msg.type,
    number: msg.number,
    sender: { peppolId: msg.sender.peppolId, name: msg.sender.name, organizationId: msg.sender.organizationId, companyId: msg.sender.companyId },
    recipient: { peppolId: entry.peppolId, organizationId: entry.organizationId, companyId: entry.companyId, name: entry.name },
    payload: msg.payload,
  });
}

export default sandboxNetworkConnector;
