/**
 * Peppol Reporting over AS4 (`report`, kind `network-statistics`): the month's Transaction
 * Statistics Report or End User Statistics Report goes to OpenPeppol's participant
 * (9925:be0848934496 unless the platform names another) as a Peppol message of its own, from this
 * service provider's SPID (0242 and its seat digits), under the reporting process. The AS4
 * MessageId derives from the report id, so a re-send after a lost receipt is a repeat the
 * receiver recognises. Only a verified receipt counts as filed.
 */
import { createHash } from 'node:crypto';
import { ConnectorError, type ConnectorHost, type ReportMessage, type ReportResult } from '../sdk/index.ts';
import { EUSR_DOCUMENT_TYPE_ID, REPORTING_PROCESS, TSR_DOCUMENT_TYPE_ID } from '../../mappings/peppol/reporting.ts';
import { spidOfSeat } from '../../mappings/peppol/mls.ts';
import { DOCUMENT_SCHEME } from '../../mappings/identifiers/peppol-network.ts';
import { accessPointOf, countryOfAccessPoint } from './access-point.ts';
import { destinationOf, sendOwnMessage } from './outbound.ts';

/** OpenPeppol's participant for Peppol Reporting. */
export const OPENPEPPOL_REPORTING_RECEIVER = '9925:be0848934496';

/** The report's document type, by its root element (read from the start of the XML only). */
function documentTypeOf(xml: string): string | undefined {
  const root = /<(?:[\w.-]+:)?(TransactionStatisticsReport|EndUserStatisticsReport)[\s>/]/.exec(xml.slice(0, 4096))?.[1];
  return root === 'TransactionStatisticsReport' ? TSR_DOCUMENT_TYPE_ID : root === 'EndUserStatisticsReport' ? EUSR_DOCUMENT_TYPE_ID : undefined;
}

export async function reportOverAs4(msg: ReportMessage, host: ConnectorHost): Promise<ReportResult> {
  const ap = accessPointOf(host);
  if (!ap.identity) throw ConnectorError.transient('AP_KEY_UNAVAILABLE', `the access point key is not loaded: ${ap.identityError}`);
  if (msg.kind !== 'network-statistics') return { outcome: 'rejected', errorCode: 'UNSUPPORTED_REPORT', errorMessage: `a Peppol access point files Peppol Reporting statistics only, not ${msg.kind} reports` };
  if (msg.livemode !== ap.livemode) return { outcome: 'rejected', errorCode: 'NETWORK_MODE_MISMATCH', errorMessage: `this access point is on the Peppol ${ap.livemode ? 'production' : 'test'} network` };
  const xml = msg.payload.xml ?? Buffer.from(msg.payload.content, 'base64').toString('utf8');
  const documentTypeId = documentTypeOf(xml);
  if (!documentTypeId) return { outcome: 'rejected', errorCode: 'UNSUPPORTED_REPORT', errorMessage: 'the report is neither a Transaction Statistics Report nor an End User Statistics Report' };
  const sender = spidOfSeat(ap.identity.seatId);
  // C1 of a report is this access point, by the one reading of its country; none known fails before any lookup.
  const countryC1 = countryOfAccessPoint(ap);
  const receiver = msg.recipient ?? OPENPEPPOL_REPORTING_RECEIVER;
  const dest = await destinationOf(host, ap, receiver, documentTypeId, 'Peppol Reporting');
  const id = `rep-${createHash('sha256').update(msg.reportId).digest('hex').slice(0, 32)}`;
  const outcome = await sendOwnMessage(host, ap, dest, {
    id, xml, from: sender, to: receiver, documentType: { scheme: DOCUMENT_SCHEME, value: documentTypeId }, process: REPORTING_PROCESS,
    conversationId: msg.reportId, countryC1,
  });
  switch (outcome.outcome) {
    case 'delivered':
      host.log.info(`peppol-as4: Peppol Reporting ${msg.reportId} filed with ${receiver}`, { messageId: outcome.messageId });
      return { outcome: 'accepted', reportId: msg.reportId, networkReportId: outcome.messageId };
    case 'accepted': return { outcome: 'accepted', reportId: msg.reportId, networkReportId: outcome.messageId };
    case 'rejected': return outcome;
    case 'transient': return outcome;
  }
}
