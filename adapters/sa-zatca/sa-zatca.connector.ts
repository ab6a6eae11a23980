/**
 * sa-zatca: Saudi Arabia's e-invoicing phase 2 (ZATCA Fatoora). The connector is one EGS unit (an
 * onboarded device with its production CSID): for each invoice it takes the next counter and the
 * previous invoice's hash from the unit's chain (chain.ts), renders the KSA UBL invoice
 * (mappings/zatca), stamps it (stamp.ts: hash, ECDSA secp256k1 signature, XAdES signed properties,
 * QR) and submits it to the Fatoora API with HTTP Basic (the CSID token and secret):
 * - a **standard** invoice (the buyer has a VAT number: B2B, B2G) to `POST /invoices/clearance/single`
 *   (`Clearance-Status: 1`): ZATCA clears it and returns the cleared invoice — stamped by ZATCA, the
 *   legal original — whose QR the invoice shows (`clearance.status: 'cleared'`, `legalOriginal`);
 * - a **simplified** invoice (B2C) to `POST /invoices/reporting/single` (`Clearance-Status: 0`):
 *   ZATCA takes the report (`clearance.status: 'reported'`); the invoice is already issued, so when
 *   ZATCA cannot be reached the report is retried through `status` until the 24 hours the law gives
 *   have passed (then `ZATCA:REPORTING_DEADLINE_MISSED`).
 * ZATCA's refusal (HTTP 400, `validationResults.errorMessages`) is `rejected` with its first code
 * (`ZATCA:BR-KSA-67` …): the platform frees the number for the corrected invoice. HTTP 429, 5xx, a
 * timeout, a refused connection are transient (a clearance is re-sent by the platform with the same
 * bytes: same UUID, ICV and PIH); 401 (the CSID refused) is transient, never the document's fault.
 * Onboarding (CSR → compliance CSID → compliance checks → production CSID) is onboarding.ts, run by
 * the operator (onboard-cli.ts). Written against adapters/sdk, the clearance kit and mappings only.
 */
import { randomUUID } from 'node:crypto';
import { CONNECTOR_API_VERSION, ConnectorError, type Clearance, type Connector, type ConnectorHost, type OutboundMessage, type SendResult, type StatusResult } from '../sdk/index.ts';
import { pemSigner, type Signer } from '../clearance-kit/xades.ts';
import type { CanonicalInvoice } from '../../mappings/canonical/model.ts';
import { decodeZatcaQr, type ZatcaInvoiceKind } from '../../mappings/zatca/index.ts';
import { parseXmlHardened } from '../../mappings/xml/parse.ts';
import { InvoiceChain, type IssuedInvoice } from './chain.ts';
import { stampInvoice } from './stamp.ts';
import { basicAuth, certificateOfToken } from './onboarding.ts';

const CAC = 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2';
const CBC = 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2';
/** ZATCA's answer is a few kilobytes plus the cleared invoice; more is not an answer. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
const DAY_MS = 24 * 3_600_000;

interface ValidationMessage { type?: string; code?: string; category?: string; message?: string; status?: string }
interface FatooraAnswer {
  validationResults?: { status?: string; infoMessages?: ValidationMessage[]; warningMessages?: ValidationMessage[]; errorMessages?: ValidationMessage[] };
  clearanceStatus?: string;
  reportingStatus?: string;
  clearedInvoice?: string | null;
}

interface HostState { signer: Signer; chain: InvoiceChain; auth: string }
const states = new WeakMap<ConnectorHost, HostState>();

/** The unit's chain in the host's durable state (SDK 2.5); a host without it cannot issue. */
function chainOf(host: ConnectorHost): InvoiceChain {
  if (!host.state) throw ConnectorError.transient('ZATCA_EGS_UNAVAILABLE', 'this platform gives connectors no durable state (SDK 2.5 host.state): the EGS unit\'s invoice chain has nowhere to live');
  const legacyStateDir = host.config.stateDir === undefined ? undefined : String(host.config.stateDir);
  return new InvoiceChain(host.state, String(host.config.egsUnit ?? 'egs-1'), legacyStateDir ? { legacyStateDir } : {});
}

function stateOf(host: ConnectorHost): HostState {
  let s = states.get(host);
  if (!s) {
    const token = String(host.config.binarySecurityToken ?? '');
    let certificatePem: string;
    try {
      certificatePem = certificateOfToken(token).toString();
    } catch {
      throw ConnectorError.transient('ZATCA_NOT_ONBOARDED', 'binarySecurityToken is not a CSID token (base64 of the certificate); run the onboarding (adapters/sa-zatca/README.md)');
    }
    s = {
      signer: pemSigner(host.secrets.get('privateKey'), certificatePem),
      chain: chainOf(host),
      auth: basicAuth({ binarySecurityToken: token, secret: host.secrets.get('apiSecret').reveal() }),
    };
    states.set(host, s);
  }
  return s;
}

const transient = (errorMessage: string, errorCode: string): SendResult => ({ outcome: 'transient', errorMessage, errorCode });

/** Standard (cleared) when the buyer is a VAT-registered business, simplified (reported) for a consumer. */
export function invoiceKindOf(c: CanonicalInvoice): ZatcaInvoiceKind {
  return c.buyer?.vatId || c.buyer?.legalRegistration ? 'standard' : 'simplified';
}

/** HH:MM:SS in Saudi time (UTC+3, no daylight saving): the invoice's issue time. */
function riyadhTime(at: Date): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Riyadh', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(at);
}

/** The QR a (cleared) invoice carries. */
function qrOf(xml: string): string | undefined {
  const doc = parseXmlHardened(xml, 'cleared invoice');
  const node = doc.get("/*/cac:AdditionalDocumentReference[cbc:ID='QR']/cac:Attachment/cbc:EmbeddedDocumentBinaryObject", { cac: CAC, cbc: CBC });
  return (node as { text?(): string } | null)?.text?.().trim() || undefined;
}

function canonicalOf(msg: OutboundMessage): CanonicalInvoice {
  const c = msg.payload.normalized as unknown as CanonicalInvoice | undefined;
  if (!c || typeof c !== 'object' || !c.seller || !Array.isArray(c.lines) || !c.totals) {
    throw ConnectorError.permanent('ZATCA_UNSUPPORTED_DOCUMENT', `ZATCA takes invoices, credit notes and debit notes with their structured content; this ${msg.type} has none`);
  }
  return c;
}

/** One submission of an issued invoice; what ZATCA said, as the SDK's outcome. */
async function submit(host: ConnectorHost, state: HostState, inv: IssuedInvoice): Promise<SendResult> {
  const clearance = inv.kind === 'standard';
  const url = `${String(host.config.baseUrl).replace(/\/+$/, '')}/invoices/${clearance ? 'clearance' : 'reporting'}/single`;
  let res;
  try {
    res = await host.http.request(url, {
      method: 'POST',
      headers: {
        authorization: state.auth, 'content-type': 'application/json', accept: 'application/json',
        'accept-language': 'en', 'accept-version': 'V2', 'clearance-status': clearance ? '1' : '0',
      },
      body: JSON.stringify({ invoiceHash: inv.hash, uuid: inv.uuid, invoice: inv.xml }),
      timeoutMs: Number(host.config.timeoutMs ?? 30_000),
    });
  } catch (err) {
    return transient(`ZATCA could not be reached: ${(err as Error).message}`, err instanceof ConnectorError ? err.code : 'ZATCA_UNREACHABLE');
  }
  if (res.status === 429 || res.status >= 500) {
    const retry = res.headers['retry-after'];
    return transient(`ZATCA answered HTTP ${res.status}${retry ? ` (retry after ${retry} s)` : ''}`, `ZATCA_HTTP_${res.status}`);
  }
  if (res.status === 401 || res.status === 403) return transient(`ZATCA refused the CSID (HTTP ${res.status}): check binarySecurityToken and apiSecret`, 'ZATCA_UNAUTHORIZED');
  if (res.body.length > MAX_ANSWER_BYTES) return transient(`ZATCA's answer is ${res.body.length} bytes`, 'ZATCA_BAD_ANSWER');
  let answer: FatooraAnswer;
  try { answer = JSON.parse(res.text()) as FatooraAnswer; } catch { return transient(`ZATCA answered HTTP ${res.status} with a body that is not JSON`, 'ZATCA_BAD_ANSWER'); }
  const results = answer.validationResults ?? {};
  const errors = (results.errorMessages ?? []).filter((e) => e.code);
  if (res.status === 400 || errors.length) {
    const first = errors[0];
    if (!first) return transient(`ZATCA answered HTTP ${res.status} without an error code`, 'ZATCA_BAD_ANSWER');
    const more = errors.slice(1).map((e) => e.code);
    return { outcome: 'rejected', errorCode: `ZATCA:${first.code}`, errorMessage: `${first.message ?? first.code}${more.length ? ` (and ${more.join(', ')})` : ''}` };
  }
  if (res.status !== 200 && res.status !== 202) return transient(`ZATCA answered HTTP ${res.status}`, `ZATCA_HTTP_${res.status}`);
  const at = host.clock.now().toISOString();
  const warnings = (results.warningMessages ?? []).map((w) => w.code).filter(Boolean).join(', ');
  const details: Record<string, string> = { invoiceHash: inv.hash, icv: String(inv.icv), invoiceKind: inv.kind, ...(warnings ? { warnings } : {}) };
  const receipt = { content: Buffer.from(res.text()).toString('base64'), contentType: 'application/json', filename: `zatca-${inv.uuid}.json` };
  let result: Clearance;
  if (clearance) {
    if (answer.clearanceStatus !== 'CLEARED' || !answer.clearedInvoice) return transient(`ZATCA answered HTTP ${res.status} without a cleared invoice`, 'ZATCA_BAD_ANSWER');
    const cleared = Buffer.from(answer.clearedInvoice, 'base64').toString('utf8');
    let qr: string | undefined;
    try {
      qr = qrOf(cleared);
      if (qr) decodeZatcaQr(qr);
    } catch (err) {
      return transient(`ZATCA's cleared invoice does not read: ${(err as Error).message}`, 'ZATCA_BAD_ANSWER');
    }
    result = {
      status: 'cleared', authorityId: inv.uuid, at, receipt, details: { ...details, clearanceStatus: 'CLEARED' },
      qr: qr ?? inv.qr,
      legalOriginal: { content: answer.clearedInvoice, contentType: 'application/xml', filename: `${inv.uuid}.xml` },
    };
  } else {
    if (answer.reportingStatus !== 'REPORTED') return transient(`ZATCA answered HTTP ${res.status} without reporting the invoice`, 'ZATCA_BAD_ANSWER');
    result = { status: 'reported', authorityId: inv.uuid, at, receipt, qr: inv.qr, details: { ...details, reportingStatus: 'REPORTED' } };
  }
  return { outcome: 'delivered', messageId: inv.uuid, clearance: result };
}

/** A simplified invoice ZATCA could not take yet: reported again later, within its 24 hours. */
function reportLater(host: ConnectorHost, inv: IssuedInvoice, failure: { errorMessage: string }): SendResult | StatusResult {
  const deadline = Date.parse(inv.issuedAt) + DAY_MS;
  if (host.clock.now().getTime() >= deadline) {
    return { outcome: 'rejected', errorCode: 'ZATCA:REPORTING_DEADLINE_MISSED', errorMessage: `the simplified invoice ${inv.uuid} could not be reported within 24 hours of its issue: ${failure.errorMessage}` };
  }
  return { outcome: 'pending', checkAfterMs: Number(host.config.reportRetryMs ?? 300_000) };
}

async function settleIfFinal(state: HostState, inv: IssuedInvoice, r: SendResult): Promise<void> {
  if (r.outcome === 'delivered' || r.outcome === 'rejected') await state.chain.settle(inv.uuid);
}

const saZatca = {
  manifest: {
    id: 'sa-zatca',
    version: '1.0.0',
    apiVersion: CONNECTOR_API_VERSION,
    name: 'Saudi Arabia ZATCA (Fatoora phase 2)',
    description: 'Clears standard (B2B) invoices and reports simplified (B2C) invoices with ZATCA: KSA UBL 2.1, ECDSA cryptographic stamp, invoice hash chain, TLV QR',
    modes: ['live', 'test'],
    countries: ['SA'],
    documentTypes: ['invoice', 'credit-note', 'debit-note'],
    capabilities: { send: true, status: true, clearance: true, pushReceive: false, pollReceive: false, report: false, discover: false },
    authority: 'ZATCA',
    options: {
      baseUrl: { type: 'string', description: 'Fatoora API base URL (…/e-invoicing/core in production, …/simulation, …/developer-portal)', required: true },
      binarySecurityToken: { type: 'string', description: 'The production CSID token (base64 of the EGS certificate), from the onboarding', required: true },
      apiSecret: { type: 'string', description: 'The production CSID secret, from the onboarding', required: true, secret: true },
      privateKey: { type: 'string', description: 'The EGS unit\'s secp256k1 private key (PEM), whose CSR the CSID certifies', required: true, secret: true },
      egsUnit: { type: 'string', description: 'The EGS unit\'s name: its invoice chain (counter, previous hash, unanswered invoices) is kept under it in the platform\'s connector state, shared by every replica', default: 'egs-1' },
      stateDir: { type: 'string', description: 'Only when upgrading from a version that kept the chain in a file: the directory of zatca-chain-<egsUnit>.json, imported once into the connector state at start' },
      timeoutMs: { type: 'number', description: 'Time allowed for one ZATCA answer', default: 30000 },
      reportRetryMs: { type: 'number', description: 'Pause before reporting a simplified invoice again when ZATCA could not take it (within its 24 hours)', default: 300000 },
    },
  },

  async health(host: ConnectorHost) {
    try {
      const { signer } = stateOf(host);
      if (signer.method !== 'ecdsa-sha256') return { status: 'failed' as const, message: 'the EGS key is not an EC (secp256k1) key' };
      const head = await stateOf(host).chain.head();
      return { status: 'ok' as const, message: `EGS unit ready: next invoice ${head.icv + 1}, ${head.pending} unanswered` };
    } catch (err) {
      return { status: 'failed' as const, message: (err as Error).message };
    }
  },

  /**
   * Issues (or re-sends) the document's invoice and submits it. A re-send of a document submits the
   * invoice it was first issued as, so the chain never gets two invoices for one document.
   */
  async send(msg: OutboundMessage, host: ConnectorHost): Promise<SendResult> {
    let state: HostState;
    let invoice: IssuedInvoice;
    try {
      const c = canonicalOf(msg);
      state = stateOf(host);
      const kind = invoiceKindOf(c);
      const now = host.clock.now();
      ({ invoice } = await state.chain.issue(msg.documentId, async ({ icv, pih }) => {
        const uuid = randomUUID();
        const stamped = await stampInvoice(c, { kind, uuid, issueTime: riyadhTime(now), icv, pih }, state.signer);
        return { uuid, kind, hash: stamped.invoiceHash, xml: Buffer.from(stamped.xml).toString('base64'), qr: stamped.qr, issuedAt: now.toISOString() };
      }));
    } catch (err) {
      // What ZATCA would refuse anyway (no structured invoice, a seller VAT number it cannot take) is the
      // document's fault; a key that will not load or a chain state that cannot be written is the deployment's (transient).
      if (err instanceof ConnectorError) return err.kind === 'permanent' ? { outcome: 'rejected', errorCode: err.code, errorMessage: err.message } : transient(err.message, err.code);
      if ((err as { name?: string }).name === 'MappingError') return { outcome: 'rejected', errorCode: 'ZATCA_INVALID_INVOICE', errorMessage: (err as Error).message };
      return transient(`the EGS unit could not issue the invoice: ${(err as Error).message}`, 'ZATCA_EGS_UNAVAILABLE');
    }
    const result = await submit(host, state, invoice);
    await settleIfFinal(state, invoice, result);
    host.log.info('sa-zatca: invoice submitted', { documentId: msg.documentId, uuid: invoice.uuid, icv: invoice.icv, kind: invoice.kind, outcome: result.outcome });
    if (result.outcome === 'transient' && invoice.kind === 'simplified') {
      const later = reportLater(host, invoice, result);
      if (later.outcome === 'pending') return { outcome: 'accepted', messageId: invoice.uuid, checkAfterMs: later.checkAfterMs };
      await state.chain.settle(invoice.uuid);
      return later as SendResult;
    }
    return result;
  },

  /** A simplified invoice waiting to be reported: reported again (its 24 hours bound the waiting). */
  async status(req: { messageId: string; livemode: boolean }, host: ConnectorHost): Promise<StatusResult> {
    const state = stateOf(host);
    const invoice = await state.chain.pending(req.messageId);
    if (!invoice) return { outcome: 'rejected', errorCode: 'ZATCA_UNKNOWN_INVOICE', errorMessage: `no unanswered invoice ${req.messageId} in the EGS unit's chain` };
    const result = await submit(host, state, invoice);
    await settleIfFinal(state, invoice, result);
    if (result.outcome === 'delivered') return { outcome: 'delivered', ...(result.clearance ? { clearance: result.clearance } : {}) };
    if (result.outcome === 'rejected') return result;
    const later = reportLater(host, invoice, result as { errorMessage: string }) as StatusResult;
    // Given up after its 24 hours: the invoice leaves the unanswered list (it stays in the chain).
    if (later.outcome === 'rejected') await state.chain.settle(invoice.uuid);
    return later;
  },
} satisfies Connector;

export default saZatca;
