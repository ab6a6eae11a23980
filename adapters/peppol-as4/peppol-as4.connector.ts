/**
 * peppol-as4: this deployment as its own Peppol access point (corners 2 and 3) over AS4 — the
 * Peppol AS4 profile 2.0 on the SDK: `check` and `send` find the recipient through the SML and
 * its SMP (the Peppol kit's discovery), `send` delivers a signed and encrypted UserMessage and
 * counts only a verified receipt as delivery, and the push route `/connectors/peppol-as4/as4`
 * receives, verifies, stores and answers with a signed receipt. Enabled by configuration; runs as
 * the service `adapter.peppol-as4` (scale it alone with SERVICES=adapter.peppol-as4).
 */
import { CONNECTOR_API_VERSION, type CheckRequest, type CheckResult, type Connector, type ConnectorHealth, type ConnectorHost } from '../sdk/index.ts';
import { PEPPOL_DOCUMENT_TYPES } from '../../mappings/identifiers/peppol-network.ts';
import { checkRecipient, DISCOVERY_OPTIONS } from '../peppol-kit/recipients.ts';
import { accessPointOf, missingCountryMessage } from './access-point.ts';
import { sendOverAs4 } from './outbound.ts';
import { receiveOverAs4 } from './inbound.ts';
import { probeOverAs4 } from './probe.ts';
import { respondOverAs4 } from './responses.ts';
import { reportOverAs4 } from './reports.ts';

const DAY_MS = 86_400_000;

async function health(host: ConnectorHost): Promise<ConnectorHealth> {
  const ap = accessPointOf(host);
  if (!ap.identity) return { status: 'failed', message: `the access point key cannot be loaded: ${ap.identityError}` };
  // Without its country it can send no MLS, Invoice Response or report: as unready as without its key.
  if (!ap.country) return { status: 'failed', message: missingCountryMessage(ap) };
  const notAfter = new Date(ap.identity.certificate.validTo);
  const days = Math.floor((notAfter.getTime() - host.clock.now().getTime()) / DAY_MS);
  const who = `access point ${ap.identity.seatId}: certificate valid until ${notAfter.toISOString()}`;
  if (days < 0) return { status: 'failed', message: `${who}: expired` };
  const warnDays = Number(host.config.certificateWarningDays ?? 30);
  if (days < warnDays) return { status: 'warning', message: `${who}: expires in ${days} days, renew it` };
  return { status: 'ok', message: who };
}

const peppolAs4 = {
  manifest: {
    id: 'peppol-as4',
    version: '1.0.0',
    apiVersion: CONNECTOR_API_VERSION,
    name: 'Peppol access point (AS4)',
    description: 'Sends and receives Peppol BIS Billing documents and BIS Order 3.0 purchase orders as a Peppol AS4 access point: SML/SMP discovery, WS-Security signing and encryption, signed receipts, Message Level Status and Invoice Responses',
    // Which one a deployment serves is its PKI's: production takes live keys, the test network test keys.
    modes: ['test', 'live'],
    countries: ['*'],
    documentTypes: Object.keys(PEPPOL_DOCUMENT_TYPES),
    capabilities: { send: true, pushReceive: true, pollReceive: false, status: false, report: true, discover: true, registry: false, probe: true, respond: true },
    network: 'peppol',
    options: {
      ...DISCOVERY_OPTIONS,
      keyStoreFile: { type: 'string', description: 'PKCS#12 file of the access point key and its Peppol certificate (password: the keyPassword secret)' },
      certificateFile: { type: 'string', description: 'PEM file of the access point certificate (with privateKey), instead of keyStoreFile' },
      privateKey: { type: 'string', description: 'PEM private key of the access point (with certificateFile)', secret: true },
      keyPassword: { type: 'string', description: 'Password of the PKCS#12 file, or of an encrypted PEM key', secret: true },
      pki: { type: 'string', description: 'The Peppol network: production (live keys; G3 production PKI) or test (test keys; G3 test PKI)', default: 'production' },
      apTrustFile: { type: 'string', description: 'PEM bundle of AP CA and root certificates to trust instead of the built-in G3 ones' },
      revocation: { type: 'string', description: 'Certificate revocation checks: hard (unknown status refused), soft (unknown passes) or off', default: 'soft' },
      ocspUrl: { type: 'string', description: 'OCSP responder to ask instead of the one each certificate names' },
      crlUrl: { type: 'string', description: 'CRL to read instead of the one each certificate names' },
      countryC1: { type: 'string', description: 'This access point\'s country (ISO 3166-1 alpha-2): the SBDH COUNTRY_C1 of the messages it originates itself (MLS, Invoice Responses, CDAR, Peppol Reporting). Unset: the C= of its certificate subject; a certificate without C= then needs it (health fails until it is set). Business documents carry their sender\'s country instead', default: '' },
      sendTimeoutMs: { type: 'number', description: 'Time allowed for one AS4 exchange (POST and receipt)', default: 60000 },
      maxMessageBytes: { type: 'number', description: 'Largest inbound AS4 message accepted', default: 104857600 },
      maxPayloadBytes: { type: 'number', description: 'Largest business document an inbound payload may decompress to', default: 104857600 },
      senderConcurrency: { type: 'number', description: 'Inbound messages processed at once per sending access point (more wait: 503 Retry-After)', default: 8 },
      breakerThreshold: { type: 'number', description: 'Failed exchanges in a row after which a destination is left alone', default: 5 },
      breakerCooldownMs: { type: 'number', description: 'How long a failing destination is left alone', default: 30000 },
      acknowledgeReceipt: { type: 'boolean', description: 'Send the seller an Invoice Response AB (message acknowledgement) for each invoice received, besides the buyer\'s own answers', default: false },
      certificateWarningDays: { type: 'number', description: 'Health warns this many days before the access point certificate expires', default: 30 },
    },
  },
  async start(host: ConnectorHost) {
    // Load the key now: a key that does not load, or a certificate without a country, shows in readiness at once; a bad countryC1 stops the start.
    accessPointOf(host);
  },
  health,
  async check(req: CheckRequest, host: ConnectorHost): Promise<CheckResult> {
    // The other mode's network is not ours to answer for: another connector (the sandbox) may be.
    if (req.livemode !== accessPointOf(host).livemode) return { known: false, canReceive: false, documentTypes: [] };
    return checkRecipient(req, host);
  },
  send: sendOverAs4,
  probe: probeOverAs4,
  respond: respondOverAs4,
  report: reportOverAs4,
  routes: [{ method: 'POST', path: '/as4', auth: 'message', handle: receiveOverAs4 }],
} satisfies Connector;

export default peppolAs4;
