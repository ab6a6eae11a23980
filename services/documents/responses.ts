/**
 * The buyer's lifecycle move on a document received over a network, passed back to its sender
 * through the connector it came by (capability `respond`: a Peppol Invoice Response): a follow-up
 * of the step (follow-ups.ts). A French-reform invoice's move goes as its CDAR status message,
 * built here. A connector without the verb, or a sender that takes no such answer, leaves the step
 * as it is (`unsupported` is recorded; nothing was sent).
 */
import type { Service } from 'moleculer';
import { call } from '../shared/call.ts';
import { adapterContracts, registeredManifests } from '../connectors/adapters.contract.ts';
import type { LifecycleResponse, RespondResult } from '../../adapters/sdk/index.ts';
import { followUpCallOptions, type FollowUpHandler } from './follow-ups.ts';
import { cdarReportOf } from './compliance-reports.ts';
import { isFrenchReform } from './reform.ts';
import { evidenceForConnector } from './receipts.ts';

/** The buyer's move passed back to the sender through the connector it came by (capability `respond`). */
export const respondToSender: FollowUpHandler = async function (this: Service, doc, entry, index, attempts, now) {
  const manifest = registeredManifests(this.broker).find((m) => m.id === doc.connectorId);
  if (!manifest?.capabilities.respond) return { kind: 'skip' };
  const status = entry.code === '203' ? 'received' : entry.status as LifecycleResponse['status'];
  // A French-reform invoice's moves travel as the CDAR status message, which the platform builds.
  let statusMessage: LifecycleResponse['statusMessage'];
  if (isFrenchReform(doc)) {
    const built = cdarReportOf(doc, entry, index, now);
    if (!built.ok) return { kind: 'done', outcome: { via: manifest.id, status: 'failed', at: now.toISOString(), attempts, errorCode: built.code, message: built.message } };
    statusMessage = { syntax: 'cdar-d22b', xml: built.xml };
  }
  const request: LifecycleResponse = {
    responseId: `${doc.id}:${index}`, livemode: doc.livemode, code: entry.code, status, at: entry.at,
    ...(entry.reason ? { reason: entry.reason } : {}), ...(entry.reasonCode ? { reasonCode: entry.reasonCode } : {}), ...(entry.note ? { note: entry.note } : {}),
    ...(entry.paymentDate ? { paymentDate: entry.paymentDate } : {}), ...(entry.amounts ? { amounts: entry.amounts } : {}), ...(entry.partial ? { partial: true } : {}),
    document: {
      documentId: doc.id, type: doc.type, number: doc.number ?? null, issueDate: doc.issueDate ?? null,
      sender: { peppolId: doc.senderPeppolId ?? null, name: doc.senderName ?? null },
      recipient: { peppolId: doc.receiverPeppolId ?? null, name: doc.receiverName ?? null, organizationId: doc.organizationId, companyId: doc.companyId },
      evidence: await evidenceForConnector(this.broker, doc),
    },
    ...(statusMessage ? { statusMessage } : {}),
  };
  const via = manifest.id;
  let result: RespondResult;
  try {
    result = await call(this.broker, adapterContracts(via).respond, request, followUpCallOptions());
  } catch (err) {
    result = { outcome: 'transient', errorMessage: (err as Error).message };
  }
  const at = now.toISOString();
  switch (result.outcome) {
    case 'sent': return { kind: 'done', outcome: { via, status: 'sent', at, attempts, messageId: result.messageId } };
    case 'unsupported': return { kind: 'done', outcome: { via, status: 'unsupported', at, attempts, message: result.reason } };
    case 'rejected': return { kind: 'done', outcome: { via, status: 'failed', at, attempts, errorCode: result.errorCode, message: result.errorMessage } };
    case 'transient': return { kind: 'transient', message: result.errorMessage, failed: { via, status: 'failed', at, attempts, errorCode: result.errorCode ?? 'TRANSPORT_FAILURE', message: result.errorMessage } };
  }
};
