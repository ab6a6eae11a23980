/**
 * it-sdi: Italy's Sistema di Interscambio through its SDICoop web services. `send` builds the
 * FatturaPA 1.2.2 (FPR12, or FPA12 to a public administration's 6-character office code) from the
 * document's canonical form and hands it to SdIRiceviFile over mutual TLS; the SDI's
 * IdentificativoSdI is the message id. The push route `/connectors/it-sdi/trasmissione-fatture` is
 * the TrasmissioneFatture endpoint where the SDI posts its notifications (RC, NS, MC, NE, DT, AT),
 * each passed to the platform as a NetworkStatus (delivery, compliance verdict, the buyer's
 * answer). Enabled by configuration; runs as the service `adapter.it-sdi`.
 */
import { CONNECTOR_API_VERSION, type CheckRequest, type CheckResult, type Connector, type ConnectorHealth, type ConnectorHost } from '../sdk/index.ts';
import { sendToSdi, statusAtSdi, tlsOf } from './outbound.ts';
import { receiveNotification } from './inbound.ts';

const DOCUMENT_TYPES = ['invoice', 'credit-note'];
/**
 * Participant schemes that address an Italian recipient through the SDI: 0201 IPA office code,
 * 0205 SDI recipient code, 0202 PEC, 0210 codice fiscale, 0211 partita IVA.
 */
const ITALIAN_SCHEMES = new Set(['0201', '0202', '0205', '0210', '0211']);

async function check(req: CheckRequest): Promise<CheckResult> {
  const scheme = req.recipient.peppolId?.split(':', 1)[0];
  const italian = (scheme !== undefined && ITALIAN_SCHEMES.has(scheme)) || req.recipient.country === 'IT';
  if (!italian) return { known: false, canReceive: false, documentTypes: [] };
  return { known: true, canReceive: DOCUMENT_TYPES.includes(req.documentType), documentTypes: [...DOCUMENT_TYPES], country: 'IT', ...(req.recipient.peppolId ? { peppolId: req.recipient.peppolId } : {}) };
}

async function health(host: ConnectorHost): Promise<ConnectorHealth> {
  try {
    const tls = tlsOf(host);
    return { status: 'ok', message: `SDI endpoint ${String(host.config.endpoint)}${tls?.cert ? ' with a client certificate' : ' without a client certificate'}` };
  } catch (err) {
    return { status: 'failed', message: `the SDI client certificate or CA cannot be read: ${(err as Error).message}` };
  }
}

const itSdi = {
  manifest: {
    id: 'it-sdi',
    version: '1.0.0',
    apiVersion: CONNECTOR_API_VERSION,
    name: 'Italy SDI (SDICoop)',
    description: 'Transmits FatturaPA invoices to the Italian Sistema di Interscambio (SdIRiceviFile) and follows its notifications (RC, NS, MC, NE, DT, AT)',
    modes: ['test', 'live'],
    // Italy's national clearance connector (IT), and the SDI carries every invoice an Italian seller
    // issues, whatever the buyer's country (XXXXXXX abroad: *); `check` says which recipients it
    // reaches: those named by an Italian identifier.
    countries: ['IT', '*'],
    documentTypes: DOCUMENT_TYPES,
    capabilities: { send: true, pushReceive: true, pollReceive: false, status: true, report: false, discover: true },
    options: {
      endpoint: { type: 'string', description: 'SdIRiceviFile endpoint (the SDI\'s test or production host)', required: true },
      transmitterId: { type: 'string', description: 'IdTrasmittente as country and code (IT01234567890) when an intermediary transmits; default: the seller\'s VAT number' },
      regimeFiscale: { type: 'string', description: 'RegimeFiscale of the sellers when their invoices do not state one (RF01 … RF19); default RF01' },
      certificateFile: { type: 'string', description: 'PEM client certificate the SDI issued for this channel (mutual TLS)' },
      privateKey: { type: 'string', description: 'PEM private key of the client certificate', secret: true },
      keyPassword: { type: 'string', description: 'Password of an encrypted private key', secret: true },
      caFile: { type: 'string', description: 'PEM bundle of the CAs that sign the SDI\'s server certificate' },
      sdiCertificateSubject: { type: 'string', description: 'Text the SDI\'s client certificate subject must contain on the notification route (checked on top of the platform\'s mutual TLS)' },
      statusCheckMs: { type: 'number', description: 'When the platform asks again for a verdict the SDI has not sent yet', default: 3_600_000 },
      sendTimeoutMs: { type: 'number', description: 'Time allowed for one RiceviFile exchange', default: 60_000 },
      maxMessageBytes: { type: 'number', description: 'Largest SOAP message or notification read from the SDI (the SDI\'s own file limit is 5 MB)', default: 5 * 1024 * 1024 },
    },
  },
  health,
  check,
  send: sendToSdi,
  status: statusAtSdi,
  routes: [{ method: 'POST', path: '/trasmissione-fatture', auth: 'mtls', handle: receiveNotification }],
} satisfies Connector;

export default itSdi;
