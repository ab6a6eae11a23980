/**
 * The buyer's answers over AS4, both ways: Peppol BIS Invoice Response 3, and for French-reform
 * invoices the CDAR D22B lifecycle message the French platforms exchange over Peppol.
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
import { ConnectorError, type ConnectorHost, type LifecycleAnswerStatus, type LifecycleResponse, type NetworkStatus, type RespondResult } from '../sdk/index.ts';
import {
  buildInvoiceResponse, INVOICE_RESPONSE_DOCUMENT_TYPE_ID, INVOICE_RESPONSE_PROCESS, LIFECYCLE_STATUS_OF_RESPONSE, readInvoiceResponse, responseOfMove, type InvoiceResponse,
} from '../../mappings/peppol/invoice-response.ts';
import { As4Error, PEPPOL } from '../peppol-kit/as4/ebms.ts';
import type { UnpackedMessage } from '../peppol-kit/as4/exchange.ts';
import { receiptXml } from '../peppol-kit/as4/messages.ts';
import { accessPointOf, countryOfAccessPoint, type AccessPoint } from './access-point.ts';
import type { ReceivedDocument } from './documents.ts';
import { destinationOf, sendOwnMessage, type Destination, type OwnMessage } from './outbound.ts';
import { CDAR_PEPPOL_DOCUMENT_TYPE, CDAR_PEPPOL_DOCUMENT_TYPE_ID, FRANCE_REGULATED_PROCESS, readCdar } from '../../mappings/cdar/index.ts';
import { DOCUMENT_SCHEME } from '../../mappings/identifiers/peppol-network.ts';


/** UNCL 1001 code of the answered document. */
const TYPE_CODES: Readonly<Record<string, string>> = { invoice: '380', 'credit-note': '381' };

export async function respondOverAs4(res: LifecycleResponse, host: ConnectorHost): Promise<RespondResult> {
  const ap = accessPointOf(host);
  if (!ap.identity) throw ConnectorError.transient('AP_KEY_UNAVAILABLE', `the access point key is not loaded: ${ap.identityError}`);
  if (res.livemode !== ap.livemode) return { outcome: 'unsupported', reason: `this access point is on the Peppol ${ap.livemode ? 'production' : 'test'} network` };
  const { document } = res;
  const seller = document.sender.peppolId;
  const buyer = document.recipient.peppolId;
  if (!seller || !buyer) return { outcome: 'unsupported', reason: 'the document travelled without Peppol participant ids for both parties' };
  if (res.statusMessage) return sendStatusMessage(res, res.statusMessage.xml, seller, buyer, ap, host);
  if (res.status === 'received' && host.config.acknowledgeReceipt !== true) return { outcome: 'unsupported', reason: 'acknowledgements on receipt (AB) are not sent (option acknowledgeReceipt)' };
  const move = responseOfMove(res);
  if (!move) return { outcome: 'unsupported', reason: `lifecycle status ${res.code} has no Invoice Response form` };
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
  const sent = await exchange(host, ap, dest, { id, xml, from: buyer, to: seller, documentType: { scheme: DOCUMENT_SCHEME, value: INVOICE_RESPONSE_DOCUMENT_TYPE_ID }, process: INVOICE_RESPONSE_PROCESS, conversationId: document.evidence?.messageId ?? document.documentId });
  if (sent.outcome === 'sent') host.log.info(`peppol-as4: Invoice Response ${move.responseCode} for ${document.number} sent to ${seller}`, { messageId: sent.messageId });
  return sent;
}

/** A French-reform invoice's move as its CDAR status message, to the seller, under the French regulated process. */
async function sendStatusMessage(res: LifecycleResponse, xml: string, seller: string, buyer: string, ap: AccessPoint, host: ConnectorHost): Promise<RespondResult> {
  let dest;
  try {
    dest = await destinationOf(host, ap, seller, CDAR_PEPPOL_DOCUMENT_TYPE_ID, 'French lifecycle messages (CDAR)');
  } catch (err) {
    if (err instanceof ConnectorError && (err.code === 'RECIPIENT_CANNOT_RECEIVE' || err.code === 'RECIPIENT_NOT_FOUND')) return { outcome: 'unsupported', reason: err.message };
    throw err;
  }
  const id = `cdar-${createHash('sha256').update(res.responseId).digest('hex').slice(0, 32)}`;
  const sent = await exchange(host, ap, dest, { id, xml, from: buyer, to: seller, documentType: CDAR_PEPPOL_DOCUMENT_TYPE, process: FRANCE_REGULATED_PROCESS, conversationId: res.document.evidence?.messageId ?? res.document.documentId });
  if (sent.outcome === 'sent') host.log.info(`peppol-as4: CDAR ${res.code} for ${res.document.number} sent to ${seller}`, { messageId: sent.messageId });
  return sent;
}

/** One message of our own (a response, a status) over AS4, the outcome as the respond verb says it. */
async function exchange(host: ConnectorHost, ap: AccessPoint, dest: Destination, m: Omit<OwnMessage, 'countryC1'>): Promise<RespondResult> {
  const outcome = await sendOwnMessage(host, ap, dest, { ...m, countryC1: countryOfAccessPoint(ap) });
  switch (outcome.outcome) {
    case 'delivered': return { outcome: 'sent', messageId: outcome.messageId, ...(outcome.evidence ? { evidence: outcome.evidence } : {}) };
    case 'accepted': return { outcome: 'sent', messageId: outcome.messageId };
    case 'rejected': return outcome;
    case 'transient': return outcome;
  }
}

const SOAP = { 'content-type': 'application/soap+xml;charset=UTF-8' };

/** The participant an answer is for must be one of ours; answers the receipt once the platform has it. */
async function answerReceived(host: ConnectorHost, ap: AccessPoint, message: UnpackedMessage, what: string, status: () => Promise<NetworkStatus | null>): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { header } = message;
  const entry = await host.directory.lookup({ peppolId: header.finalRecipient.value }, ap.livemode);
  if (!entry) throw new As4Error('EBMS:0004', `${header.finalRecipient.value} does not receive ${what} here`, PEPPOL.NOT_SERVICED);
  const answer = await status();
  if (answer) {
    const found = await host.outbound.statusReceived(answer);
    if (!found) host.log.warn(`peppol-as4: ${what} ${header.messageId} from ${header.fromParty} answers ${answer.invoice?.number}, which ${header.finalRecipient.value} did not send through here`);
  }
  const receipt = receiptXml({ refToMessageId: header.messageId, references: message.references, key: ap.identity!, now: host.clock.now() });
  return { status: 200, headers: SOAP, body: receipt.xml };
}

/**
 * An Invoice Response for one of our participants: the seller's copy of the answered invoice moves.
 * An unreadable one is refused (EBMS:0004); one for an invoice we do not know is acknowledged all the
 * same (the buyer's access point did its part) and logged.
 */
export function receiveInvoiceResponse(host: ConnectorHost, ap: AccessPoint, message: UnpackedMessage, opened: ReceivedDocument): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { header } = message;
  return answerReceived(host, ap, message, 'Invoice Responses', async () => {
    let ir: InvoiceResponse;
    try {
      ir = readInvoiceResponse(opened.document);
    } catch (err) {
      throw new As4Error('EBMS:0004', `the Invoice Response cannot be read: ${(err as Error).message}`);
    }
    const reasons = (ir.clarifications ?? []).map((c) => ({ code: c.code, ...(c.text ? { description: c.text } : {}) }));
    const reason = reasons.map((r) => r.description).filter(Boolean).join('; ');
    host.log.info(`peppol-as4: Invoice Response ${ir.responseCode} received for ${ir.document.id}`, { from: header.fromParty, messageId: header.messageId });
    return {
      invoice: { number: ir.document.id, ...(ir.document.issueDate ? { issueDate: ir.document.issueDate } : {}), sellerPeppolId: header.finalRecipient.value },
      status: 'answered',
      reasons,
      lifecycle: {
        status: LIFECYCLE_STATUS_OF_RESPONSE[ir.responseCode], at: ir.issueDate,
        ...(reason ? { reason } : {}), ...(reasons[0] ? { reasonCode: reasons[0].code } : {}), ...(ir.note ? { note: ir.note } : {}),
      },
      evidence: { id: ir.id, responseCode: ir.responseCode, messageId: header.messageId, from: header.fromParty, buyer: ir.sender.endpoint },
    };
  });
}

/** The API status of each buyer move a French CDAR carries (the seller's platform records its own moves). */
const BUYER_STATUS_OF_CODE: Readonly<Record<string, LifecycleAnswerStatus>> = {
  204: 'under_review', 205: 'approved', 206: 'approved', 207: 'disputed', 208: 'disputed', 210: 'rejected', 211: 'paid',
};

/**
 * A French lifecycle message (CDAR) for one of our participants: a buyer's move on an invoice it sent
 * moves the seller's copy, under the CDAR's own code. Other statuses (a platform's or the seller's own)
 * are acknowledged and logged, not applied.
 */
export function receiveStatusMessage(host: ConnectorHost, ap: AccessPoint, message: UnpackedMessage, opened: ReceivedDocument): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { header } = message;
  return answerReceived(host, ap, message, 'French lifecycle messages (CDAR)', async () => {
    let facts: ReturnType<typeof readCdar>;
    try {
      facts = readCdar(opened.document);
    } catch (err) {
      throw new As4Error('EBMS:0004', `the CDAR cannot be read: ${(err as Error).message}`);
    }
    const status = BUYER_STATUS_OF_CODE[facts.code];
    host.log.info(`peppol-as4: CDAR ${facts.code} received for ${facts.invoice.number}${status ? '' : ' (not a buyer\'s move: kept in the log only)'}`, { from: header.fromParty, messageId: header.messageId });
    if (!status) return null;
    const reason = facts.details.map((d) => d.reason).filter(Boolean).join('; ');
    return {
      invoice: { number: facts.invoice.number, ...(facts.invoice.issueDate ? { issueDate: facts.invoice.issueDate.slice(0, 10) } : {}), sellerPeppolId: header.finalRecipient.value },
      status: 'answered',
      reasons: facts.reasonCodes.map((code) => ({ code })),
      lifecycle: { status, code: facts.code, ...(facts.statusAt ? { at: facts.statusAt } : {}), ...(reason ? { reason } : {}), ...(facts.reasonCodes[0] ? { reasonCode: facts.reasonCodes[0] } : {}) },
      evidence: { ...(facts.messageId ? { id: facts.messageId } : {}), code: facts.code, messageId: header.messageId, from: header.fromParty },
    };
  });
}
