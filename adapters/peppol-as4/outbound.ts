/**
 * Sending one document over Peppol AS4 (corner 2): discovery of the recipient's endpoint, its
 * certificate checked before anything is encrypted for it, the SBD, the signed and encrypted
 * UserMessage POSTed to the endpoint, and the answer judged — a receipt that verifies is a
 * delivery; an ebMS error is permanent or not as the profile says; anything else (no answer, 5xx,
 * a receipt that does not verify) is transient, and the platform re-sends the same document, so the
 * same MessageId, later. A destination that keeps failing is left alone for a while.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { ConnectorError, type ConnectorHost, type OutboundMessage, type SendResult } from '../sdk/index.ts';
import { DOCUMENT_SCHEME, PARTICIPANT_SCHEME, peppolDocumentTypeOf } from '../../mappings/identifiers/peppol-network.ts';
import { checkApCertificate } from '../peppol-kit/pki.ts';
import { as4EndpointOf } from '../peppol-kit/recipients.ts';
import { As4Error, EBMS_ERRORS, isEbmsCode } from '../peppol-kit/as4/ebms.ts';
import { checkAnswer, packUserMessage, type PackedMessage } from '../peppol-kit/as4/exchange.ts';
import { accessPointOf, type AccessPoint } from './access-point.ts';
import type { EnvelopeInput, Outcome } from './documents.ts';

/** The AS4 MessageId of a document: the same on every re-send, so the receiver can tell a repeat. */
export const messageIdOf = (documentId: string): string => `${documentId}@einv`;

const DOCUMENTS = new URL('./documents.ts', import.meta.url).href;

/** Where one exchange goes, once discovery, the receiver's certificate and the destination's breaker allow it. */
export interface Destination {
  participantId: string;
  endpointUrl: string;
  receiverCertificate: X509Certificate;
  /** Base64 DER, as the SMP publishes it. */
  certificate: string;
  receiverSeat: string;
}

/** The participant's AS4 endpoint for a document type, its certificate checked before anything is encrypted for it. */
export async function destinationOf(host: ConnectorHost, ap: AccessPoint, participantId: string, documentTypeId: string, what: string): Promise<Destination> {
  const found = await as4EndpointOf(host, participantId, documentTypeId);
  if (!found.smpUrl) throw ConnectorError.permanent('RECIPIENT_NOT_FOUND', `${participantId} is not registered on the Peppol network`);
  const endpoint = found.endpoint;
  if (!endpoint) throw ConnectorError.permanent('RECIPIENT_CANNOT_RECEIVE', `${participantId} does not receive ${what} over Peppol AS4`);
  if (host.config.requireHttps !== false && !endpoint.url.startsWith('https://')) throw ConnectorError.permanent('AP_ENDPOINT_INVALID', `the access point URL ${endpoint.url} is not HTTPS`);
  let receiverCertificate: X509Certificate;
  try {
    receiverCertificate = new X509Certificate(Buffer.from(endpoint.certificate, 'base64'));
  } catch {
    throw ConnectorError.permanent('AP_CERTIFICATE_INVALID', `the SMP publishes no readable certificate for ${participantId}`);
  }
  const now = host.clock.now();
  // Checked before anything is encrypted for it ("verified upon fetching from the SMP").
  const receiver = await checkApCertificate(receiverCertificate, { trust: ap.trust, now, ...(ap.revocation ? { revocation: ap.revocation } : {}) });
  if (!receiver.ok) throw ConnectorError.permanent('AP_CERTIFICATE_INVALID', `the receiving access point's certificate is refused (${receiver.problem}): ${receiver.message}`);
  const blocked = ap.breakers.blockedFor(endpoint.url, now.getTime());
  if (blocked > 0) throw ConnectorError.transient('DESTINATION_UNAVAILABLE', `${endpoint.url} failed repeatedly; next try in ${Math.ceil(blocked / 1000)} s`);
  return { participantId, endpointUrl: endpoint.url, receiverCertificate, certificate: endpoint.certificate, receiverSeat: receiver.seatId! };
}

/** What one exchange carries besides the destination. */
export interface ExchangeInput {
  messageId: string; conversationId: string; instanceIdentifier: string; originalSender: string;
  documentTypeId: string; process: { scheme: string; value: string }; compressedSbd: Uint8Array; payloadSha256: string;
}

/**
 * One SBD, already gzipped, to a destination: the signed and encrypted UserMessage, POSTed. Answers
 * what came back, unjudged (the reachability test reads it hop by hop); no answer at all throws.
 */
export async function postUserMessage(host: ConnectorHost, ap: AccessPoint, dest: Destination, input: Omit<ExchangeInput, 'instanceIdentifier' | 'payloadSha256'>): Promise<{ packed: PackedMessage; status: number; answer: string }> {
  const identity = ap.identity!;
  const packed = packUserMessage({
    header: {
      messageId: input.messageId, timestamp: host.clock.now().toISOString(), conversationId: input.conversationId,
      fromParty: identity.seatId, toParty: dest.receiverSeat, process: input.process,
      documentType: { scheme: DOCUMENT_SCHEME, value: input.documentTypeId },
      originalSender: { scheme: PARTICIPANT_SCHEME, value: input.originalSender },
      finalRecipient: { scheme: PARTICIPANT_SCHEME, value: dest.participantId },
    },
    compressedSbd: Buffer.from(input.compressedSbd.buffer, input.compressedSbd.byteOffset, input.compressedSbd.byteLength), key: identity, receiverCertificate: dest.receiverCertificate,
  });
  const res = await host.http.request(dest.endpointUrl, {
    method: 'POST', headers: { 'content-type': packed.contentType, 'mime-version': '1.0' }, body: packed.body, timeoutMs: Number(host.config.sendTimeoutMs ?? 60_000),
  });
  return { packed, status: res.status, answer: res.text() };
}

/** One SBD to a destination, the answer judged, the destination's breaker told. */
export async function exchangeWith(host: ConnectorHost, ap: AccessPoint, dest: Destination, input: ExchangeInput): Promise<SendResult> {
  let posted: Awaited<ReturnType<typeof postUserMessage>>;
  try {
    posted = await postUserMessage(host, ap, dest, input);
  } catch (err) {
    ap.breakers.failed(dest.endpointUrl, Date.now());
    throw err;
  }
  const facts = { endpointUrl: dest.endpointUrl, receiverSeat: dest.receiverSeat, receiverCertificate: dest.certificate, documentTypeId: input.documentTypeId, processId: input.process.value, instanceIdentifier: input.instanceIdentifier, payloadSha256: input.payloadSha256 };
  const outcome = await judge(posted.answer, posted.status, posted.packed, facts, dest.receiverCertificate, host);
  if (outcome.outcome === 'transient') ap.breakers.failed(dest.endpointUrl, Date.now());
  else ap.breakers.succeeded(dest.endpointUrl);
  return outcome;
}

/** A message this access point originates itself (an MLS, an Invoice Response, a CDAR, a report), for one destination. */
export interface OwnMessage {
  /** Its SBDH InstanceIdentifier; the AS4 MessageId is `<id>@einv`. */
  id: string;
  xml: string;
  from: string;
  to: string;
  documentType: { scheme: string; value: string };
  process: { scheme: string; value: string };
  conversationId: string;
  /** This access point's own country (countryOfAccessPoint): C1 of a message it originates is itself. */
  countryC1: string;
}

/** Its SBD made on a document worker, then one exchange; an SBD that cannot be made is a rejection with its code. */
export async function sendOwnMessage(host: ConnectorHost, ap: AccessPoint, dest: Destination, m: OwnMessage): Promise<SendResult> {
  const wrapped = await host.workers.run<Outcome<{ compressedSbd: Uint8Array }>>(DOCUMENTS, 'envelopeForPeppol', [{
    documentXml: m.xml, sender: m.from, receiver: m.to, documentTypeId: m.documentType.value, processId: m.process.value,
    countryC1: m.countryC1, instanceIdentifier: m.id, now: host.clock.now().toISOString(),
  } satisfies EnvelopeInput], m.xml.length);
  if (!wrapped.ok) return { outcome: 'rejected', errorCode: wrapped.code, errorMessage: wrapped.message };
  return exchangeWith(host, ap, dest, {
    messageId: `${m.id}@einv`, conversationId: m.conversationId, instanceIdentifier: m.id, originalSender: m.from,
    documentTypeId: m.documentType.value, process: m.process, compressedSbd: wrapped.compressedSbd, payloadSha256: createHash('sha256').update(m.xml).digest('hex'),
  });
}

export async function sendOverAs4(message: OutboundMessage, host: ConnectorHost): Promise<SendResult> {
  const ap = accessPointOf(host);
  if (!ap.identity) throw ConnectorError.transient('AP_KEY_UNAVAILABLE', `the access point key is not loaded: ${ap.identityError}`);
  if (message.livemode !== ap.livemode) throw ConnectorError.permanent('NETWORK_MODE_MISMATCH', `this access point is on the Peppol ${ap.livemode ? 'production' : 'test'} network; the document was sent with a ${message.livemode ? 'live' : 'test'} key`);
  const recipient = message.recipient.peppolId;
  if (!recipient) throw ConnectorError.permanent('RECIPIENT_NOT_FOUND', 'the recipient has no Peppol participant id');
  const peppolType = peppolDocumentTypeOf(message.type);
  if (!peppolType) throw ConnectorError.permanent('UNSUPPORTED_DOCUMENT_TYPE', `Peppol carries invoices, credit notes (BIS Billing) and purchase orders (BIS Order) here, not ${message.type}`);
  const { documentTypeId, process } = peppolType;
  const xml = message.payload.xml;
  if (!xml || !(message.payload.syntax ?? 'ubl').startsWith('ubl')) throw ConnectorError.permanent('UNSUPPORTED_SYNTAX', `Peppol BIS is UBL 2.1: this ${message.type} has no UBL form${message.type === 'purchase-order' ? ' (create it with POST /v1/purchase-orders, or send its UBL Order as format=ubl-xml)' : ''}`);
  if (!message.sender.peppolId) throw ConnectorError.permanent('SBDH_ERROR', 'the sending company has no Peppol participant id');

  const dest = await destinationOf(host, ap, recipient, documentTypeId, message.type);
  // COUNTRY_C1 is the sender's country: the seller of an invoice, the buyer of an order — never this access point's.
  const normalized = message.payload.normalized as { seller?: { address?: { country?: string } }; buyer?: { address?: { country?: string } } } | undefined;
  const issuer = message.type === 'purchase-order' ? normalized?.buyer : normalized?.seller;
  const envelope: EnvelopeInput = {
    documentXml: xml, sender: message.sender.peppolId, receiver: recipient, documentTypeId, processId: process.value,
    ...(issuer?.address?.country ? { countryC1: issuer.address.country } : {}),
    instanceIdentifier: message.documentId, now: host.clock.now().toISOString(),
  };
  const wrapped = await host.workers.run<Outcome<{ compressedSbd: Uint8Array }>>(DOCUMENTS, 'envelopeForPeppol', [envelope], xml.length);
  if (!wrapped.ok) throw ConnectorError.permanent(wrapped.code, wrapped.message);
  return exchangeWith(host, ap, dest, {
    messageId: messageIdOf(message.documentId), conversationId: message.documentId, instanceIdentifier: message.documentId,
    originalSender: message.sender.peppolId, documentTypeId, process, compressedSbd: wrapped.compressedSbd,
    payloadSha256: createHash('sha256').update(xml).digest('hex'),
  });
}

interface ExchangeFacts { endpointUrl: string; receiverSeat: string; receiverCertificate: string; documentTypeId: string; processId: string; instanceIdentifier: string; payloadSha256: string }

/** What the receiver's answer means for the document. */
async function judge(answer: string, status: number, sent: { messageId: string; references: Parameters<typeof checkAnswer>[1]['references'] }, exchange: ExchangeFacts, receiverCertificate: X509Certificate, host: ConnectorHost): Promise<SendResult> {
  const soap = answer.trimStart().startsWith('<');
  if (!soap) {
    if (status >= 500 || status === 429) return { outcome: 'transient', errorCode: `HTTP_${status}`, errorMessage: `the access point answered HTTP ${status}` };
    return { outcome: 'rejected', errorCode: 'AP_REJECTED', errorMessage: `the access point answered HTTP ${status} without an AS4 signal: ${answer.slice(0, 200)}` };
  }
  let verdict;
  try {
    verdict = checkAnswer(answer, sent);
  } catch (err) {
    // No receipt, or one that does not verify: we cannot tell it arrived; the same message goes again.
    const code = err instanceof As4Error ? err.code : 'EBMS:0302';
    return { outcome: 'transient', errorCode: code, errorMessage: `HTTP ${status}: ${(err as Error).message}` };
  }
  if (verdict.kind === 'error') {
    const code = isEbmsCode(verdict.code) ? verdict.code : undefined;
    const text = [verdict.description, verdict.detail].filter(Boolean).join(': ') || verdict.code;
    if (code === 'EBMS:4001') {
      // phase4's "duplicate": the first copy arrived, only its receipt was lost.
      host.log.warn(`peppol-as4: ${sent.messageId} reported as a duplicate by the receiver: delivered without a receipt`);
      return { outcome: 'delivered', messageId: sent.messageId };
    }
    if (code && !EBMS_ERRORS[code].permanent) return { outcome: 'transient', errorCode: code, errorMessage: text };
    // The receiver found the business envelope inconsistent with the AS4 header, or unreadable.
    if (code === 'EBMS:0003') return { outcome: 'rejected', errorCode: 'SBDH_ERROR', errorMessage: `the receiving access point refused the SBDH (${code}): ${text}` };
    return { outcome: 'rejected', errorCode: code ?? verdict.code, errorMessage: text };
  }
  const signer = await checkApCertificate(verdict.signer, { trust: accessPointOf(host).trust, now: host.clock.now() });
  if (!signer.ok) return { outcome: 'transient', errorCode: 'EBMS:0302', errorMessage: `the receipt is signed by a certificate we do not trust (${signer.problem}): ${signer.message}` };
  if (verdict.signer.fingerprint256 !== receiverCertificate.fingerprint256) {
    host.log.warn(`peppol-as4: the receipt for ${sent.messageId} is signed by ${signer.seatId}'s certificate, not the one its SMP publishes`);
  }
  host.log.info(`peppol-as4: ${sent.messageId} delivered`, { receipt: verdict.receiptMessageId, receiver: signer.seatId });
  return {
    outcome: 'delivered', messageId: sent.messageId,
    evidence: {
      messageId: sent.messageId, instanceIdentifier: exchange.instanceIdentifier, exchangedAt: host.clock.now().toISOString(),
      payloadSha256: exchange.payloadSha256,
      counterpartAccessPoint: exchange.receiverSeat, counterpartCertificate: exchange.receiverCertificate, endpointUrl: exchange.endpointUrl,
      receipt: Buffer.from(verdict.receiptXml).toString('base64'), receiptMessageId: verdict.receiptMessageId,
      details: { documentTypeId: exchange.documentTypeId, processId: exchange.processId },
    },
  };
}
