/**
 * The state of a portability request, folded from its evidence rows (never stored). The
 * transitions, each driven by one kind of row:
 *
 * | From | Row | Condition | Next |
 * |---|---|---|---|
 * | (none) | `request.created` | — | received (REQ) |
 * | received | `message.recorded` ACK, or state acknowledged | — | acknowledged (ACK) |
 * | received, acknowledged | `message.recorded` DECISION accepted | — | accepted (ACC) |
 * | received, acknowledged | `message.recorded` DECISION rejected | admissible: a ground (reason code or text) and dated within the objection window | rejected (REJ) |
 * | received, acknowledged | `tacit.accepted` | written by the first read after the objection window closed with no decision and no admissible objection | auto_accepted (TAC) |
 * | accepted, auto_accepted | `execution.started` | written by the first read on or after the effective date (Paris calendar, platform clock) | executing (MIG) |
 * | executing | `routing.switched` | written by the first read that finds the request executing, once the gaining routing switch for its SIREN exists (created by that read, or already there) | executing (the directory switch is in progress) |
 * | executing | `routing.confirmed` | written by the first read after the switch where the annuaire routes the SIREN to this platform | completed (CMP) |
 * | any but completed | `message.recorded` with state failed, or `routing.failed` (the annuaire could not be read) | — | failed (ERR) |
 *
 * An inadmissible objection (no ground, or late) is listed but moves nothing: silence stays
 * agreement. Rows that do not apply to the current state are kept as evidence and change nothing.
 * `pendingTransition` names the row a read should write next, from the time it reads at.
 */
import type { Clocks, RequestState, SignatureMethod } from './portability.contract.ts';
import type { EvidenceRowData, JsonValue } from './evidence-chain.ts';
import { parisDate } from './legal-clocks.ts';

export const STATE_OF_CODE: Record<string, RequestState> = {
  REQ: 'received', ACK: 'acknowledged', ACC: 'accepted', REJ: 'rejected', TAC: 'auto_accepted', MIG: 'executing', CMP: 'completed', ERR: 'failed',
};

export interface RecordedSignature {
  method: SignatureMethod;
  signedAt: string;
  signedBy: string | null;
  agreementSha256: string | null;
}
export interface OpenCheck {
  checkId: string;
  contextKey: string;
  mandateSha256: string;
  agreementSha256: string;
  objectId: string;
}

export interface FoldedRequest {
  state: RequestState;
  tacitApproval: boolean;
  objections: Array<{ ground: string | null; admissible: boolean; messageId: string; at: string }>;
  signature: RecordedSignature | null;
  openCheck: OpenCheck | null;
  messageIds: Set<string>;
  /** The routing switch the execution made (`routing.switched`), once it is in the chain. */
  routingSwitch: { routingId: string } | null;
}

const OPEN: ReadonlySet<RequestState> = new Set(['received', 'acknowledged']);
const DECIDED_FOR: ReadonlySet<RequestState> = new Set(['accepted', 'auto_accepted']);

const text = (v: JsonValue | undefined): string | null => (typeof v === 'string' && v.trim() ? v : null);

function messageState(payload: Record<string, JsonValue>): RequestState | undefined {
  const state = text(payload.state);
  if (state && state in STATUS_BY_STATE) return state as RequestState;
  const code = text(payload.statusCode);
  return code ? STATE_OF_CODE[code] : undefined;
}
const STATUS_BY_STATE: Record<string, true> = Object.fromEntries(Object.values(STATE_OF_CODE).map((s) => [s, true]));

export function foldRequest(rows: readonly EvidenceRowData[], clocks: Clocks): FoldedRequest {
  const out: FoldedRequest = { state: 'received', tacitApproval: false, objections: [], signature: null, openCheck: null, messageIds: new Set(), routingSwitch: null };
  for (const row of rows) {
    const p = row.payload;
    switch (row.kind) {
      case 'message.recorded': {
        const messageId = text(p.messageId) ?? `seq-${row.seq}`;
        out.messageIds.add(messageId);
        const state = messageState(p);
        // When the platform learned of it (its clock, the one the window runs on), not the sender's stamp.
        const at = row.recordedAt;
        if (state === 'failed') {
          if (out.state !== 'completed') out.state = 'failed';
        } else if (p.messageType === 'DECISION' && state === 'rejected') {
          const ground = text(p.reasonCode) ?? text(p.reasonText);
          const admissible = ground !== null && Date.parse(at) <= Date.parse(clocks.objectionWindowEnds);
          out.objections.push({ ground, admissible, messageId, at: new Date(Date.parse(at)).toISOString() });
          if (admissible && OPEN.has(out.state)) out.state = 'rejected';
        } else if (p.messageType === 'DECISION' && (state === 'accepted' || state === 'auto_accepted')) {
          if (OPEN.has(out.state)) out.state = 'accepted';
        } else if (p.messageType === 'ACK' || state === 'acknowledged') {
          if (out.state === 'received') out.state = 'acknowledged';
        }
        break;
      }
      case 'tacit.accepted':
        if (OPEN.has(out.state)) { out.state = 'auto_accepted'; out.tacitApproval = true; }
        break;
      case 'execution.started':
        if (DECIDED_FOR.has(out.state)) out.state = 'executing';
        break;
      case 'routing.switched':
        if (out.state === 'executing') out.routingSwitch = { routingId: String(p.routingId) };
        break;
      case 'routing.confirmed':
        if (out.state === 'executing') out.state = 'completed';
        break;
      case 'routing.failed':
        if (out.state !== 'completed') out.state = 'failed';
        break;
      case 'signature.requested':
        out.openCheck = { checkId: String(p.checkId), contextKey: String(p.contextKey), mandateSha256: String(p.mandateSha256), agreementSha256: String(p.agreementSha256), objectId: String(p.objectId) };
        break;
      case 'signature.recorded':
        out.signature = { method: p.method as SignatureMethod, signedAt: String(p.signedAt), signedBy: text(p.signedBy), agreementSha256: text(p.agreementSha256) };
        break;
      default:
        break;
    }
  }
  return out;
}

export type PendingTransition = 'tacit.accepted' | 'execution.started' | 'routing.switch' | 'routing.check' | null;

/**
 * The row a read at `now` should write next: an executing request first gets its routing switch
 * (`routing.switch`), then the annuaire decides completion (`routing.check`).
 */
export function pendingTransition(folded: FoldedRequest, clocks: Clocks, effectiveDate: string, now: Date): PendingTransition {
  if (OPEN.has(folded.state) && now.getTime() > Date.parse(clocks.objectionWindowEnds)) return 'tacit.accepted';
  if (DECIDED_FOR.has(folded.state) && parisDate(now) >= effectiveDate) return 'execution.started';
  if (folded.state === 'executing') return folded.routingSwitch ? 'routing.check' : 'routing.switch';
  return null;
}
