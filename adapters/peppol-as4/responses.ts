/**
 * Peppol BIS Invoice Response 3 over AS4, both ways.
 *
 * Out (`respond`): the buyer's lifecycle move on a document received here goes back to the seller
 * as an Invoice Response, from the buyer's participant id to the seller's, when the seller's SMP
 * says it receives them (a seller that does not is answered `unsupported`: nothing is sent). The
 * acknowledgement (AB) on receipt is sent only when the option `acknowledgeReceipt` asks for it.
 * The AS4 MessageId derives from the response id, so a re-send is recognised as the same message.
 *
 * In: an Invoice Response for one of our participants names the invoice it answers by number and
 * issue date; the platform moves the seller's copy (`host.outbound.statusReceived` with the buyer's
 * lifecycle answer) and the message is acknowledged with a receipt like any other.
 */
import { createHash } from 'node:crypto';
import { ConnectorError, type ConnectorHost, type LifecycleResponse, type RespondResult } from '../sdk/index.ts';
import {
  buildInvoiceResponse, INVOICE_RESPONSE_DOCUMENT_TYPE_ID, INVOICE_RESPONSE_PROCESS, LIFECYCLE_STATUS_OF_RESPONSE, readInvoiceResponse, responseOfMove, type InvoiceResponse,
} from '../../mappings/peppol/invoice-response.ts';
import { As4Error, PEPPOL } from '../peppol-kit/as4/ebms.ts';
import type { UnpackedMessage } from '../peppol-kit/as4/exchange.ts';
import { receiptXml } from '../peppol-kit/as4/messages.ts';
import { accessPointOf, type AccessPoint } from './access-point.ts';
import type { Outcome, ReceivedDocument } from './documents.ts';
import { destinationOf, exchangeWith } from './outbound.ts';

const DOCUMENTS = new URL('./documents.ts', import.meta.url).href;

/** UNCL 1001 code of the answered document. */
const TYPE_CODES: Readonly<Record<string, string>> = { invoice: '380', 'credit-note': '381' };

/** The access point's country (its certificate's C=), the SBDH COUNTRY_C1 of what it originates itself. */
function countryOf(ap: AccessPoint, host: ConnectorHost): string {
  return /^C=([A-Z]{2})$/m.exec(ap.identity!.certificate.subject)?.[1] ?? (String(host.config.countryC1 ?? '') || 'BE');
}

export async function respondOverAs4(res: LifecycleResponse, host: ConnectorHost): Promise<RespondResult> {
  const ap = accessPointOf(host);
  if (!ap.identity) throw ConnectorError.transient('AP_KEY_UNAVAILABLE', `the access point key is not loaded: ${ap.identityError}`);
  if (res.livemode !== ap.livemode) return { outcome: 'unsupported', reason: `this access point is on the Peppol ${ap.livemode ? 'production' : 'test'} network` };
  if (res.status === 'received' && host.config.acknowledgeReceipt !== true) return { outcome: 'unsupported', reason: 'acknowledgements on receipt (AB) are not sent (option acknowledgeReceipt)' };
  const move = responseOfMove(res);
  if (!move) return { outcome: 'unsupported', reason: `lifecycle status ${res.code} has no Invoice Response form` };
  const { document } = res;
  const seller = document.sender.peppolId;
  const buyer = document.recipient.peppolId;
  if (!seller || !buyer) return { outcome: 'unsupported', reason: 'the document travelled without Peppol participant ids for both parties' };
  if (!document.number) return { outcome: 'rejected', errorCode: 'INVOICE_RESPONSE_INVALID', errorMessage: 'the answered document has no number to refer to' };

  let dest;
  try {
    dest = await destinationOf(host, ap, seller, INVOICE_RESPONSE_DOCUMENT_TYPE_ID, 'Invoice Responses');
  } catch (err) {
    // The seller's SMP does not list Invoice Responses: the buyer's answer has nowhere to go on Peppol.
    if (err instanceof ConnectorError && (err.code === 'RECIPIENT_CANNOT_RECEIVE' || err.code === 'RECIPIENT_NOT_FOUND')) return { outcome: 'unsupported', reason: err.message };
    throw err;
  }
  const digest = createHash('sha256').update(res.responseId).digest('hex');
  const id = `ir-${digest.slice(0, 32)}`;
  let xml: string;
  try {
    xml = buildInvoiceResponse({
      id, responseCode: move.responseCode, issueDate: res.at.slice(0, 10),
      sender: { endpoint: buyer, name: document.recipient.name ?? buyer },
      receiver: { endpoint: seller, name: document.sender.name ?? seller },
      document: { id: document.number, ...(document.issueDate ? { issueDate: document.issueDate } : {}), ...(TYPE_CODES[document.type] ? { typeCode: TYPE_CODES[document.type] } : {}) },
      ...(move.effectiveDate ? { effectiveDate: move.effectiveDate } : {}),
      clarifications: move.clarifications,
    });
  } catch (err) {
    return { outcome: 'rejected', errorCode: 'INVOICE_RESPONSE_INVALID', errorMessage: (err as Error).message };
  }
  const country = countryOf(ap, host);
  const wrapped = await host.workers.run<Outcome<{ compressedSbd: Uint8Array }>>(DOCUMENTS, 'envelopeForPeppol', [{
    documentXml: xml, sender: buyer, receiver: seller, documentTypeId: INVOICE_RESPONSE_DOCUMENT_TYPE_ID, processId: INVOICE_RESPONSE_PROCESS.value,
    countryC1: country, countryC1Fallback: country, instanceIdentifier: id, now: host.clock.now().toISOString(),
  }], xml.length);
  if (!wrapped.ok) return { outcome: 'rejected', errorCode: wrapped.code, errorMessage: wrapped.message };
  const outcome = await exchangeWith(host, ap, dest, {
    messageId: `${id}@einv`, conversationId: document.evidence?.messageId ?? document.documentId, instanceIdentifier: id, originalSender: buyer,
    documentTypeId: INVOICE_RESPONSE_DOCUMENT_TYPE_ID, process: INVOICE_RESPONSE_PROCESS, compressedSbd: wrapped.compressedSbd,
    payloadSha256: createHash('sha256').update(xml).digest('hex'),
  });
  switch (outcome.outcome) {
    case 'delivered':
      host.log.info(`peppol-as4: Invoice Response ${move.responseCode} for ${document.number} sent to ${seller}`, { messageId: outcome.messageId });
      return { outcome: 'sent', messageId: outcome.messageId, ...(outcome.evidence ? { evidence: outcome.evidence } : {}) };
    case 'rejected': return outcome;
    case 'transient': return outcome;
    case 'accepted': return { outcome: 'sent', messageId: outcome.messageId };
  }
}

const SOAP = { 'content-type': 'application/soap+xml;charset=UTF-8' };

/**
 * An Invoice Response for one of our participants: the seller's copy of the answered invoice moves.
 * An unreadable one is refused (EBMS:0004); one for an invoice we do not know is acknowledged all the
 * same (the buyer's access point did its part) and logged.
 */
export async function receiveInvoiceResponse(host: ConnectorHost, ap: AccessPoint, message: UnpackedMessage, opened: ReceivedDocument): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { header } = message;
  const identity = ap.identity!;
  const entry = await host.directory.lookup({ peppolId: header.finalRecipient.value }, ap.livemode);
  if (!entry) throw new As4Error('EBMS:0004', `${header.finalRecipient.value} does not receive Invoice Responses here`, PEPPOL.NOT_SERVICED);
  let ir: InvoiceResponse;
  try {
    ir = readInvoiceResponse(opened.document);
  } catch (err) {
    throw new As4Error('EBMS:0004', `the Invoice Response cannot be read: ${(err as Error).message}`);
  }
  const reasons = (ir.clarifications ?? []).map((c) => ({ code: c.code, ...(c.text ? { description: c.text } : {}) }));
  const reason = reasons.map((r) => r.description).filter(Boolean).join('; ');
  const found = await host.outbound.statusReceived({
    invoice: { number: ir.document.id, ...(ir.document.issueDate ? { issueDate: ir.document.issueDate } : {}), sellerPeppolId: header.finalRecipient.value },
    status: 'answered',
    reasons,
    lifecycle: {
      status: LIFECYCLE_STATUS_OF_RESPONSE[ir.responseCode], at: ir.issueDate,
      ...(reason ? { reason } : {}), ...(reasons[0] ? { reasonCode: reasons[0].code } : {}), ...(ir.note ? { note: ir.note } : {}),
    },
    evidence: { id: ir.id, responseCode: ir.responseCode, messageId: header.messageId, from: header.fromParty, buyer: ir.sender.endpoint },
  });
  if (!found) host.log.warn(`peppol-as4: Invoice Response ${ir.id} from ${header.fromParty} answers ${ir.document.id}, which ${header.finalRecipient.value} did not send through here`);
  const receipt = receiptXml({ refToMessageId: header.messageId, references: message.references, key: identity, now: host.clock.now() });
  host.log.info(`peppol-as4: Invoice Response ${ir.responseCode} received for ${ir.document.id}`, { from: header.fromParty, messageId: header.messageId });
  return { status: 200, headers: SOAP, body: receipt.xml };
}
