/**
 * Receiving over Peppol AS4 (corner 3): the route the network POSTs to. In order (peppol-transport
 * .md §1.7): size and per-sender concurrency bounds; MIME, the profile's header rules, decryption
 * (for our key only), the signature over header, body and payload; the sender's certificate (chain
 * to the Peppol AP CA, validity, revocation, seat id = eb:From); the SBDH and its agreement with
 * the AS4 header; whether we serve the recipient for this document type; then the document is
 * stored (the platform's durable hand-off, which also tells a repeated MessageId) and only then the
 * signed receipt goes back (our own reachability test, `probe-…@einv` from our own seat and key,
 * is checked the same way and acknowledged without being stored). Anything refused is answered with its ebMS error and logged with the
 * reason, the sender and the message id.
 */
import { createHash } from 'node:crypto';
import type { ConnectorHost, InboundRequest, InboundResponse, NetworkStatus } from '../sdk/index.ts';
import { apiTypeOfDocumentId } from '../../mappings/identifiers/peppol-network.ts';
import { sameParticipant } from '../../mappings/peppol/sbdh.ts';
import { MLS_DOCUMENT_TYPE_ID, readMls, spidOfSeat, type Mls } from '../../mappings/peppol/mls.ts';
import { checkApCertificate } from '../peppol-kit/pki.ts';
import { As4Error, isEbmsCode, PEPPOL } from '../peppol-kit/as4/ebms.ts';
import { unpackUserMessage, type UnpackedMessage } from '../peppol-kit/as4/exchange.ts';
import { errorXml, receiptXml } from '../peppol-kit/as4/messages.ts';
import { accessPointOf, type AccessPoint } from './access-point.ts';
import { mlsFor, scheduleMls } from './mls.ts';
import type { Outcome, ReceivedDocument } from './documents.ts';
import { isProbeMessageId } from './probe.ts';
import { receiveInvoiceResponse, receiveStatusMessage } from './responses.ts';
import { CDAR_PEPPOL_DOCUMENT_TYPE_ID } from '../../mappings/cdar/index.ts';
import { isInvoiceResponseDocumentType } from '../../mappings/peppol/invoice-response.ts';

const DOCUMENTS = new URL('./documents.ts', import.meta.url).href;

const SOAP = { 'content-type': 'application/soap+xml;charset=UTF-8' };

/** The sending access point a message claims (eb:From), read cheaply before anything is verified: only for fair queuing. */
function claimedSender(body: Buffer): string {
  const head = body.subarray(0, 64 * 1024).toString('latin1');
  return /<(?:\w+:)?From>\s*<(?:\w+:)?PartyId[^>]*>\s*(P[A-Z]{2}[0-9]{6})\s*</.exec(head)?.[1] ?? 'unknown';
}

export async function receiveOverAs4(req: InboundRequest, host: ConnectorHost): Promise<InboundResponse> {
  const ap = accessPointOf(host);
  if (!ap.identity) return { status: 503, headers: { 'content-type': 'text/plain', 'retry-after': '60' }, body: 'the access point key is not loaded' };
  const maxBytes = Number(host.config.maxMessageBytes ?? 100 * 1024 * 1024);
  if (req.body.length > maxBytes) return refuse(host, null, 'unknown', new As4Error('EBMS:0007', `the message is larger than ${maxBytes} bytes`));
  const sender = claimedSender(req.body);
  const limit = Number(host.config.senderConcurrency ?? 8);
  const running = ap.inFlight.get(sender) ?? 0;
  if (running >= limit) {
    host.log.warn('peppol-as4: inbound message deferred: too many at once from one sender', { sender, running });
    return { status: 503, headers: { 'content-type': 'text/plain', 'retry-after': '5' }, body: `too many messages at once from ${sender}; retry` };
  }
  ap.inFlight.set(sender, running + 1);
  try {
    return await receive(req, host, ap, sender);
  } finally {
    const left = (ap.inFlight.get(sender) ?? 1) - 1;
    if (left > 0) ap.inFlight.set(sender, left); else ap.inFlight.delete(sender);
  }
}

async function receive(req: InboundRequest, host: ConnectorHost, ap: AccessPoint, sender: string): Promise<InboundResponse> {
  const identity = ap.identity!;
  let message: UnpackedMessage | undefined;
  try {
    message = unpackUserMessage(req.headers['content-type'] ?? '', req.body, identity);
    const { header } = message;
    if (header.toParty !== identity.seatId) throw new As4Error('EBMS:0010', `the message is for access point ${header.toParty}, we are ${identity.seatId}`);
    const now = host.clock.now();
    const signer = await checkApCertificate(message.signer, { trust: ap.trust, now, expectedSeatId: header.fromParty, ...(ap.revocation ? { revocation: ap.revocation } : {}) });
    if (!signer.ok) throw new As4Error('EBMS:0101', `the signing certificate is refused (${signer.problem}): ${signer.message}`);

    const compressed = message.compressedSbd;
    const opened = await host.workers.run<Outcome<ReceivedDocument>>(DOCUMENTS, 'readPeppolPayload', [compressed, Number(host.config.maxPayloadBytes ?? 100 * 1024 * 1024)], compressed.length * 8);
    if (!opened.ok) throw new As4Error(isEbmsCode(opened.code) ? opened.code : 'EBMS:0004', opened.message);
    const h = opened.header;
    // P10: the business envelope and the AS4 header must name the same exchange.
    if (!sameParticipant(h.sender, header.originalSender)) throw new As4Error('EBMS:0003', `SBDH Sender ${h.sender.value} is not the originalSender ${header.originalSender.value}`);
    if (!sameParticipant(h.receiver, header.finalRecipient)) throw new As4Error('EBMS:0003', `SBDH Receiver ${h.receiver.value} is not the finalRecipient ${header.finalRecipient.value}`);
    if (h.documentType.value !== header.documentType.value || h.documentType.scheme !== header.documentType.scheme) throw new As4Error('EBMS:0003', 'the SBDH DOCUMENTID is not the eb:Action');
    if (h.process.value !== header.process.value || h.process.scheme !== header.process.scheme) throw new As4Error('EBMS:0003', 'the SBDH PROCESSID is not the eb:Service');

    if (header.documentType.value === MLS_DOCUMENT_TYPE_ID) return await receiveMls(host, ap, message, opened, identity);
    if (isInvoiceResponseDocumentType(header.documentType.value)) return await receiveInvoiceResponse(host, ap, message, opened);
    if (header.documentType.value === CDAR_PEPPOL_DOCUMENT_TYPE_ID) return await receiveStatusMessage(host, ap, message, opened);

    const type = apiTypeOfDocumentId(header.documentType.value);
    const entry = await host.directory.lookup({ peppolId: header.finalRecipient.value }, ap.livemode);
    if (!entry || !type || !entry.documentTypes.includes(type)) {
      throw new As4Error('EBMS:0004', `${header.finalRecipient.value} does not receive ${header.documentType.value} here`, PEPPOL.NOT_SERVICED);
    }
    if (isProbeMessageId(header.messageId) && header.fromParty === identity.seatId && message.signer.fingerprint256 === identity.certificate.fingerprint256) {
      // Our own reachability test (probe.ts), checked like any message up to here: acknowledged, never stored.
      const receipt = receiptXml({ refToMessageId: header.messageId, references: message.references, key: identity, now: host.clock.now() });
      host.log.info(`peppol-as4: reachability test ${header.messageId} received for ${header.finalRecipient.value}: acknowledged, not stored`);
      return { status: 200, headers: SOAP, body: receipt.xml };
    }
    const bytes = Buffer.from(opened.document);
    // The receipt is made before the hand-off so its evidence is stored with the document; it goes back only once stored.
    const receipt = receiptXml({ refToMessageId: header.messageId, references: message.references, key: identity, now: host.clock.now() });
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const accepted = await host.inbound.accept({
      messageId: header.messageId, livemode: ap.livemode, type, number: opened.number,
      sender: { peppolId: h.sender.value, name: opened.sellerName },
      recipient: { peppolId: entry.peppolId, organizationId: entry.organizationId, companyId: entry.companyId, name: entry.name },
      payload: { content: bytes.toString('base64'), contentType: 'application/xml', xml: opened.document, syntax: 'ubl-2.1', ...(opened.normalized ? { normalized: opened.normalized } : {}) },
      evidence: {
        messageId: header.messageId, instanceIdentifier: h.instanceIdentifier, exchangedAt: host.clock.now().toISOString(), payloadSha256: sha256,
        counterpartAccessPoint: header.fromParty, counterpartCertificate: message.signer.raw.toString('base64'),
        receipt: Buffer.from(receipt.xml).toString('base64'), receiptMessageId: receipt.messageId,
        details: {
          documentTypeId: header.documentType.value, processId: header.process.value, countryC1: h.countryC1,
          ...(h.mlsTo ? { mlsTo: h.mlsTo.value } : {}), ...(h.mlsType ? { mlsType: h.mlsType } : {}),
        },
      },
    });
    // Stored (or stored before, for a repeat): only now the receipt, with the digests the sender signed;
    // the MLS the document calls for follows it, off this request.
    const mls = mlsFor(accepted, h, header.fromParty);
    if (mls) scheduleMls(host, ap, mls);
    host.log.info(`peppol-as4: received ${header.messageId}${accepted.duplicate ? ' (again: receipt repeated)' : ''}`, {
      from: header.fromParty, instance: h.instanceIdentifier, receipt: receipt.messageId, sha256,
    });
    return { status: 200, headers: SOAP, body: receipt.xml };
  } catch (err) {
    if (err instanceof As4Error) return refuse(host, message?.header.messageId ?? null, message?.header.fromParty ?? sender, err);
    throw err; // the platform answers 503: the sender tries again, nothing was stored
  }
}

const MLS_STATUS: Record<Mls['responseCode'], NetworkStatus['status']> = { AP: 'accepted', AB: 'acknowledged', RE: 'rejected' };

/**
 * A Message Level Status for us: what the receiving access point says of a document we sent. It must be
 * addressed to our SPID; the referenced SBDH InstanceIdentifier is the document's id. The platform moves
 * the document (a rejection fails it); the MLS itself is answered with a receipt like any message.
 */
async function receiveMls(host: ConnectorHost, ap: AccessPoint, message: UnpackedMessage, opened: ReceivedDocument, identity: NonNullable<AccessPoint['identity']>): Promise<InboundResponse> {
  const { header } = message;
  const ours = spidOfSeat(identity.seatId);
  if (header.finalRecipient.value.toLowerCase() !== ours) {
    throw new As4Error('EBMS:0004', `MLS for ${header.finalRecipient.value}: this access point's SPID is ${ours}`, PEPPOL.NOT_SERVICED);
  }
  let mls: Mls;
  try {
    mls = readMls(opened.document);
  } catch (err) {
    throw new As4Error('EBMS:0004', `the MLS cannot be read: ${(err as Error).message}`);
  }
  const found = await host.outbound.statusReceived({
    documentId: mls.referencedInstanceIdentifier,
    status: MLS_STATUS[mls.responseCode],
    reasons: mls.lines.map((l) => ({ code: l.reasonCode, ...(l.description ? { description: l.description } : {}), ...(l.location ? { location: l.location } : {}) })),
    evidence: { mlsId: mls.id, responseCode: mls.responseCode, messageId: header.messageId, from: header.fromParty, senderSpid: mls.senderSpid },
  });
  if (!found) host.log.warn(`peppol-as4: MLS ${mls.id} from ${header.fromParty} refers to ${mls.referencedInstanceIdentifier}, which is not a document we sent through here`);
  const receipt = receiptXml({ refToMessageId: header.messageId, references: message.references, key: identity, now: host.clock.now() });
  host.log.info(`peppol-as4: MLS ${mls.responseCode} received for ${mls.referencedInstanceIdentifier}`, { from: header.fromParty, messageId: header.messageId, ap: ap.livemode ? 'production' : 'test' });
  return { status: 200, headers: SOAP, body: receipt.xml };
}

/** Answers an ebMS error and records why. */
function refuse(host: ConnectorHost, messageId: string | null, sender: string, err: As4Error): InboundResponse {
  host.log.warn('peppol-as4: inbound message refused', { code: err.code, reason: err.message, ...(err.detail ? { detail: err.detail } : {}), messageId, sender });
  return { status: 200, headers: SOAP, body: errorXml({ refToMessageId: messageId, code: err.code, description: err.message, ...(err.detail ? { detail: err.detail } : {}), now: host.clock.now() }) };
}
