/**
 * The reachability self-test (SDK 2.3 `probe`): one of this platform's own participants reached the
 * way a customer's access point would reach it, hop by hop, stopping at the first that fails with
 * what was asked and what came back:
 *
 * - `sml`: the U-NAPTR name asked in the SML zone and the SMP URL it gives;
 * - `smp`: the service group and the signed metadata for the document type (HTTP statuses, the
 *   signature verdict, the endpoint for the Peppol AS4 profile and its activation window);
 * - `certificate`: the access point certificate the SMP publishes (chain to the Peppol AP CA,
 *   validity, revocation, seat id) — and that it is this deployment's: a test message is never sent
 *   to another access point (it would be a real document there);
 * - `endpoint`: a real AS4 exchange (signed, encrypted) of a minimal test invoice to the endpoint;
 * - `receipt`: the answer is a receipt for that message whose signature verifies;
 * - `inbound`: the receipt is signed by this access point's own key, so our inbound route received
 *   the message and checked all of it (signature, certificate, SBDH, the participant served here).
 *
 * The test message's MessageId is `probe-<uuid>@einv`; our inbound route recognises a probe by that
 * prefix together with our own seat and certificate as sender, and acknowledges it without storing
 * anything (a probe from anyone else is an ordinary message).
 */
import { randomUUID, X509Certificate } from 'node:crypto';
import { ConnectorError, type ConnectorHost, type ProbeHop, type ProbeReport, type ProbeRequest } from '../sdk/index.ts';
import { AS4_TRANSPORT_PROFILE, BILLING_DOCUMENT_TYPES, BILLING_PROCESS } from '../../mappings/identifiers/peppol-network.ts';
import { buildSbd, sbdhFor } from '../../mappings/peppol/sbdh.ts';
import { checkApCertificate } from '../peppol-kit/pki.ts';
import { discoveryClientOf } from '../peppol-kit/recipients.ts';
import { checkAnswer, type PackedMessage } from '../peppol-kit/as4/exchange.ts';
import { gzipPayload } from '../peppol-kit/as4/payload.ts';
import { escapeAttr, escapeText } from '../peppol-kit/as4/wss.ts';
import { accessPointOf, countryOfAccessPoint } from './access-point.ts';
import { postUserMessage } from './outbound.ts';

/** The MessageId prefix of a reachability test message. */
export const PROBE_MESSAGE_PREFIX = 'probe-';

export const isProbeMessageId = (messageId: string): boolean => messageId.startsWith(PROBE_MESSAGE_PREFIX) && messageId.endsWith('@einv');

/** A minimal business document of the document type (root, CustomizationID, ProfileID, an id, a note saying what it is). */
function testDocumentXml(documentTypeId: string, id: string): string {
  const [root = '', rest = ''] = documentTypeId.split('##');
  const namespace = root.split('::')[0] ?? '';
  const localName = root.split('::')[1] ?? '';
  const customization = rest.slice(0, rest.lastIndexOf('::'));
  const cbc = 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2';
  return `<?xml version="1.0" encoding="UTF-8"?><${localName} xmlns="${escapeAttr(namespace)}" xmlns:cbc="${cbc}">`
    + `<cbc:CustomizationID>${escapeText(customization)}</cbc:CustomizationID><cbc:ProfileID>${escapeText(BILLING_PROCESS.value)}</cbc:ProfileID>`
    + `<cbc:ID>${escapeText(id)}</cbc:ID><cbc:Note>Reachability test of this participant: not a business document</cbc:Note></${localName}>`;
}

export async function probeOverAs4(req: ProbeRequest, host: ConnectorHost): Promise<ProbeReport> {
  const ap = accessPointOf(host);
  // The other mode's network is not ours to test.
  if (req.livemode !== ap.livemode) return { hops: [] };
  const documentTypeId = BILLING_DOCUMENT_TYPES[req.documentType as keyof typeof BILLING_DOCUMENT_TYPES];
  if (!documentTypeId) throw ConnectorError.permanent('UNSUPPORTED_DOCUMENT_TYPE', `Peppol BIS Billing carries invoices and credit notes, not ${req.documentType}`);
  const participantId = req.participantId;

  const trace = await discoveryClientOf(host).trace(participantId, documentTypeId, AS4_TRANSPORT_PROFILE);
  const hops: ProbeHop[] = [...trace.steps];
  const endpoint = trace.endpoint;
  if (!endpoint) return { hops };
  let started = performance.now();
  const hop = (name: ProbeHop['hop'], ok: boolean, detail: string): ProbeReport => {
    hops.push({ hop: name, ok, detail, ms: Math.round(performance.now() - started) });
    started = performance.now();
    return { hops };
  };

  // certificate: the one the SMP publishes, checked as a sender checks it, and ours
  let published: X509Certificate;
  try {
    published = new X509Certificate(Buffer.from(endpoint.certificate, 'base64'));
  } catch {
    return hop('certificate', false, `the SMP publishes no readable access point certificate for ${participantId}`);
  }
  const now = host.clock.now();
  const checked = await checkApCertificate(published, { trust: ap.trust, now, ...(ap.revocation ? { revocation: ap.revocation } : {}) });
  const subject = published.subject.replace(/\n/g, ', ');
  if (!checked.ok) return hop('certificate', false, `the published access point certificate (${subject}) is refused (${checked.problem}): ${checked.message}`);
  const identity = ap.identity;
  if (!identity) return hop('certificate', false, `this access point's own key is not loaded (${ap.identityError}): the published certificate cannot be compared with ours`);
  if (published.fingerprint256 !== identity.certificate.fingerprint256) {
    return hop('certificate', false, `the SMP publishes access point ${checked.seatId}'s certificate (${subject}), not this access point's (${identity.seatId}): documents for ${participantId} go to another access point`);
  }
  hop('certificate', true, `${subject}: chain to the Peppol AP CA verified, valid until ${new Date(published.validTo).toISOString()}, seat ${checked.seatId} (this access point)`);

  // endpoint: a real AS4 exchange of a test message
  if (host.config.requireHttps !== false && !endpoint.url.startsWith('https://')) return hop('endpoint', false, `the access point URL ${endpoint.url} is not HTTPS`);
  const id = randomUUID();
  const messageId = `${PROBE_MESSAGE_PREFIX}${id}@einv`;
  let compressedSbd: Buffer;
  try {
    const xml = testDocumentXml(documentTypeId, `PROBE-${id}`);
    const header = sbdhFor({
      documentXml: xml, sender: participantId, receiver: participantId, documentTypeId, processId: BILLING_PROCESS.value,
      countryC1: (req.country || countryOfAccessPoint(ap)).toUpperCase(), now, instanceIdentifier: `probe-${id}`,
    });
    compressedSbd = gzipPayload(Buffer.from(buildSbd(header, xml)));
  } catch (err) {
    return hop('endpoint', false, `the test message cannot be made: ${(err as Error).message}`);
  }
  // The very path a document takes: the same packing, signature, encryption and POST.
  const destination = { participantId, endpointUrl: endpoint.url, receiverCertificate: published, certificate: endpoint.certificate, receiverSeat: checked.seatId! };
  let packed: PackedMessage;
  let status: number;
  let answer: string;
  try {
    ({ packed, status, answer } = await postUserMessage(host, ap, destination, {
      messageId, conversationId: `probe-${id}`, originalSender: participantId, documentTypeId, process: BILLING_PROCESS, compressedSbd,
    }));
  } catch (err) {
    return hop('endpoint', false, `POST ${endpoint.url}: no answer (${(err as Error).message})`);
  }
  if (!answer.trimStart().startsWith('<')) return hop('endpoint', false, `POST ${endpoint.url}: HTTP ${status} without an AS4 signal: ${answer.slice(0, 200)}`);
  hop('endpoint', true, `POST ${endpoint.url}: HTTP ${status}, an AS4 signal for ${messageId}`);

  // receipt: for our message, and its signature verifies with a trusted access point certificate
  let verdict: ReturnType<typeof checkAnswer>;
  try {
    verdict = checkAnswer(answer, packed);
  } catch (err) {
    return hop('receipt', false, `the answer is not a receipt that verifies: ${(err as Error).message}`);
  }
  if (verdict.kind === 'error') {
    return hop('receipt', false, `the access point refused the test message: ${verdict.code}${verdict.description ? ` ${verdict.description}` : ''}${verdict.detail ? ` (${verdict.detail})` : ''}`);
  }
  const signer = await checkApCertificate(verdict.signer, { trust: ap.trust, now: host.clock.now() });
  if (!signer.ok) return hop('receipt', false, `receipt ${verdict.receiptMessageId} is signed by a certificate we do not trust (${signer.problem}): ${signer.message}`);
  hop('receipt', true, `receipt ${verdict.receiptMessageId} signed by ${signer.seatId}, verified`);

  // inbound: our own access point received it
  if (verdict.signer.fingerprint256 !== identity.certificate.fingerprint256) {
    return hop('inbound', false, `the receipt is signed by ${signer.seatId}, not by this access point (${identity.seatId}): the endpoint ${endpoint.url} is not ours`);
  }
  return hop('inbound', true, `this access point (${identity.seatId}) received ${messageId}, verified it and accepts ${req.documentType} for ${participantId}; a test message is acknowledged, not stored`);
}
