/**
 * Message Level Status back to the sending access point (Peppol MLS 1.0): once a business document
 * is stored, an RE when the platform found it invalid (each fatal finding a BV line), an AP when the
 * sender asked for every status (SBDH MLS_TYPE ALWAYS_SEND), nothing otherwise (FAILURE_ONLY, the
 * default). It goes to the SBDH's MLS_TO when one is given, else to the sending access point's SPID,
 * as a Peppol message of its own, after the receipt has gone back; a failed attempt is tried again.
 */
import { randomUUID } from 'node:crypto';
import type { AcceptResult, ConnectorHost } from '../sdk/index.ts';
import type { SbdhHeader } from '../../mappings/peppol/sbdh.ts';
import { buildMls, MLS_DOCUMENT_TYPE, MLS_DOCUMENT_TYPE_ID, MLS_PROCESS, spidOfSeat, type MlsLine } from '../../mappings/peppol/mls.ts';
import { countryOfAccessPoint, type AccessPoint } from './access-point.ts';
import { destinationOf, sendOwnMessage } from './outbound.ts';

const ATTEMPTS = 3;
const RETRY_MS = 30_000;

export interface MlsToSend { to: string; responseCode: 'AP' | 'RE'; lines: MlsLine[]; instanceIdentifier: string }

/** Which MLS, if any, a stored document calls for. */
export function mlsFor(accepted: AcceptResult, sbdh: SbdhHeader, senderSeat: string): MlsToSend | null {
  if (accepted.duplicate || !accepted.validation) return null;
  const to = sbdh.mlsTo?.value ?? spidOfSeat(senderSeat);
  if (!accepted.validation.valid) {
    const lines = accepted.validation.findings.filter((f) => f.severity === 'fatal')
      .map((f) => ({ reasonCode: 'BV', description: `${f.rule}: ${f.message}`.slice(0, 1000), ...(f.location ? { location: f.location } : {}) }));
    return { to, responseCode: 'RE', lines: lines.length ? lines : [{ reasonCode: 'BV', description: 'The document does not pass the business rules' }], instanceIdentifier: sbdh.instanceIdentifier };
  }
  return sbdh.mlsType === 'ALWAYS_SEND' ? { to, responseCode: 'AP', lines: [], instanceIdentifier: sbdh.instanceIdentifier } : null;
}

/** Sends it off the request that received the document; tries again after a while when the network fails. */
export function scheduleMls(host: ConnectorHost, ap: AccessPoint, mls: MlsToSend, attempt = 1): void {
  host.scheduler.after(attempt === 1 ? 0 : RETRY_MS * (attempt - 1), async () => {
    try {
      const outcome = await sendMls(host, ap, mls);
      if (outcome === 'sent') return host.log.info(`peppol-as4: MLS ${mls.responseCode} for ${mls.instanceIdentifier} sent to ${mls.to}`);
      if (outcome !== 'retry') return host.log.warn(`peppol-as4: MLS for ${mls.instanceIdentifier} to ${mls.to} refused: ${outcome}`);
    } catch (err) {
      host.log.warn(`peppol-as4: MLS for ${mls.instanceIdentifier} to ${mls.to} failed (attempt ${attempt}): ${(err as Error).message}`);
      if ((err as { kind?: string }).kind === 'permanent') return;
    }
    if (attempt < ATTEMPTS) scheduleMls(host, ap, mls, attempt + 1);
  });
}

async function sendMls(host: ConnectorHost, ap: AccessPoint, mls: MlsToSend): Promise<'sent' | 'retry' | string> {
  const identity = ap.identity!;
  const ours = spidOfSeat(identity.seatId);
  const id = randomUUID();
  const xml = buildMls({ responseCode: mls.responseCode, id, now: host.clock.now(), senderSpid: ours, receiverSpid: mls.to, referencedMessage: { instanceIdentifier: mls.instanceIdentifier }, lines: mls.lines });
  const dest = await destinationOf(host, ap, mls.to, MLS_DOCUMENT_TYPE_ID, 'MLS');
  // C1 of an MLS is this access point: the one reading of its own country.
  const outcome = await sendOwnMessage(host, ap, dest, {
    id, xml, from: ours, to: mls.to, documentType: MLS_DOCUMENT_TYPE, process: MLS_PROCESS,
    conversationId: mls.instanceIdentifier, countryC1: countryOfAccessPoint(ap),
  });
  if (outcome.outcome === 'delivered') return 'sent';
  if (outcome.outcome === 'transient') return 'retry';
  return outcome.outcome === 'rejected' ? `${outcome.errorCode}: ${outcome.errorMessage}` : 'retry';
}
