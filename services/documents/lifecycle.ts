/**
 * The French invoice lifecycle (statuses 200–213) as a pure state machine: the spec's table, the
 * mapping of the lifecycle POST to a code, and the rule for jumps over optional statuses.
 *
 * Jumps: chronology is respected but optional statuses may be skipped. A target is reachable from
 * the current code when a path of the canonical graph leads to it whose skipped (intermediate)
 * statuses are all optional checkpoints: not mandatory and not carrying a reason (a dispute, a
 * suspension or a partial approval is an act that either happened or did not, never implied).
 * So 200 → 212, 200 → 210 and 200 → 213 are legal, 204 → 211 too, but 204 → 209 is not (209
 * only lifts a suspension, 208), and a suspended invoice (208) only moves to 209.
 */
import { Decimal } from 'decimal.js';

/** Document types that carry the French lifecycle and an invoice number per seller. */
export const BILLING_TYPES: ReadonlySet<string> = new Set(['invoice', 'credit-note', 'debit-note']);

export type Party = 'buyer' | 'supplier';
export type Emitter = 'seller_platform' | 'buyer_platform' | 'buyer' | 'supplier' | 'platform';
export type Tier = 'mandatory' | 'recommended' | 'free';

export interface FrenchStatus {
  code: string;
  label: string;
  tier: Tier;
  emittedBy: Emitter;
  /** 'success' | 'failure' for terminal statuses. */
  terminal: false | 'success' | 'failure';
  reasonRequired: boolean;
  next: readonly string[];
  /** API lifecycle status name the code shows as. */
  apiStatus: string;
  /** Amount blocks the status carries. */
  amountBlocks: readonly string[];
  /** Transmitted to the tax administration. */
  reportedToTaxAuthority: boolean;
}

const S = (code: string, label: string, tier: Tier, emittedBy: Emitter, terminal: FrenchStatus['terminal'], reasonRequired: boolean, next: string[], apiStatus: string, amountBlocks: string[] = []): FrenchStatus =>
  ({ code, label, tier, emittedBy, terminal, reasonRequired, next, apiStatus, amountBlocks, reportedToTaxAuthority: ['200', '210', '212', '213'].includes(code) });

/** The spec's table, row for row. */
export const FRENCH_STATUSES: Readonly<Record<string, FrenchStatus>> = {
  200: S('200', 'Deposited', 'mandatory', 'seller_platform', false, false, ['201', '213'], 'sent'),
  201: S('201', 'Issued by platform', 'free', 'seller_platform', false, false, ['202', '213'], 'sent'),
  202: S('202', 'Received by platform', 'free', 'buyer_platform', false, false, ['203', '213'], 'received'),
  203: S('203', 'Made available', 'recommended', 'buyer_platform', false, false, ['204'], 'received'),
  204: S('204', 'Acknowledged', 'recommended', 'buyer', false, false, ['205', '206', '207', '208', '210'], 'under_review'),
  205: S('205', 'Approved', 'recommended', 'buyer', false, false, ['211'], 'approved'),
  206: S('206', 'Partially approved', 'recommended', 'buyer', false, true, ['211'], 'approved', ['MAP', 'MAPTTC', 'MNA', 'MNATTC']),
  207: S('207', 'In dispute', 'free', 'buyer', false, true, ['205', '206', '210'], 'disputed'),
  208: S('208', 'Suspended', 'free', 'buyer', false, true, ['209'], 'disputed'),
  209: S('209', 'Completed', 'free', 'supplier', false, false, ['204'], 'under_review', ['MAJ']),
  210: S('210', 'Refused', 'mandatory', 'buyer', 'failure', true, [], 'rejected'),
  211: S('211', 'Payment sent', 'recommended', 'buyer', false, false, ['212'], 'paid', ['MPA', 'RAP']),
  212: S('212', 'Collected', 'mandatory', 'supplier', 'success', false, [], 'paid', ['MEN']),
  213: S('213', 'Rejected (technical)', 'mandatory', 'platform', 'failure', true, [], 'rejected'),
};

/**
 * Codes a jump may pass over: optional progress checkpoints (not mandatory, no reason). 209 is not
 * one: it is the supplier's act that ends a suspension, so while suspended nothing else happens.
 */
function skippable(code: string): boolean {
  const s = FRENCH_STATUSES[code]!;
  return s.tier !== 'mandatory' && !s.reasonRequired && code !== '209';
}

/** Every code reachable from `from`, jumping over optional statuses only (never `from` itself, except a partial 212). */
export function reachableFrom(from: string | null, partial = false): string[] {
  if (from === null) return ['200'];
  if (from === '212' && partial) return ['212'];
  const seen = new Set<string>();
  const stack = [...(FRENCH_STATUSES[from]?.next ?? [])];
  while (stack.length) {
    const code = stack.pop()!;
    if (seen.has(code)) continue;
    seen.add(code);
    if (skippable(code)) stack.push(...FRENCH_STATUSES[code]!.next);
  }
  seen.delete(from);
  return [...seen].sort();
}

/** Who may move a document to `code` through the API. */
export function partyMayEmit(code: string, party: Party): boolean {
  return FRENCH_STATUSES[code]?.emittedBy === party;
}

/** The lifecycle POST body. */
export interface TransitionRequest {
  status: string;
  reason?: string;
  reasonCode?: string;
  remainingAmount?: number;
  note?: string;
  paymentDate?: string;
  paymentReference?: string;
  paymentAmount?: number;
  paymentCurrency?: string;
}

export const API_TRANSITION_STATUSES = ['under_review', 'approved', 'disputed', 'rejected', 'paid', 'partially_paid'] as const;

export type Resolution =
  | { ok: true; code: string; partial: boolean; amounts: Record<string, string> }
  | { ok: false; kind: 'invalid'; field: string; rule: string; message: string };

const money = (n: number) => n.toFixed(2);

/**
 * The four amount blocks of a partial approval (206). `remainingAmount` is what the buyer does not
 * approve, on the basis of the document total (with VAT): MNATTC, and MAPTTC the rest. The amounts
 * without VAT (MNA, MAP) split the net total in the same proportion, so MAP + MNA is the net total.
 */
function partialApprovalAmounts(remainingAmount: number, total: number | null, netTotal: number | null): Record<string, string> {
  const notApproved = new Decimal(remainingAmount);
  const amounts: Record<string, string> = { MNATTC: notApproved.toFixed(2) };
  if (total === null) return amounts;
  amounts.MAPTTC = Decimal.max(0, new Decimal(total).minus(notApproved)).toFixed(2);
  if (netTotal === null || total === 0) return amounts;
  const notApprovedNet = Decimal.min(netTotal, notApproved.times(netTotal).dividedBy(total)).toDecimalPlaces(2);
  amounts.MNA = notApprovedNet.toFixed(2);
  amounts.MAP = Decimal.max(0, new Decimal(netTotal).minus(notApprovedNet)).toFixed(2);
  return amounts;
}

/**
 * Chooses the French code a lifecycle POST asks for, by the caller's party, and checks its required fields.
 * `total` is the document's total with VAT (BT-112), `netTotal` its total without VAT (BT-109).
 */
export function resolveTransition(req: TransitionRequest, party: Party, total: number | null, netTotal: number | null = null): Resolution {
  const missing = (field: string, why: string): Resolution => ({ ok: false, kind: 'invalid', field, rule: 'required', message: `${field} is required ${why}` });
  switch (req.status) {
    case 'under_review':
      return { ok: true, code: '204', partial: false, amounts: {} };
    case 'approved': {
      if (req.remainingAmount === undefined) return { ok: true, code: '205', partial: false, amounts: {} };
      // remainingAmount selects 206 (partially approved) over 205; a reason is required.
      if (!req.note && !req.reason) return missing('note', 'for a partial approval (206)');
      return { ok: true, code: '206', partial: false, amounts: partialApprovalAmounts(req.remainingAmount, total, netTotal) };
    }
    case 'disputed':
      if (!req.reason) return missing('reason', req.reasonCode === 'suspended' ? 'to suspend (208)' : 'to dispute (207)');
      return { ok: true, code: req.reasonCode === 'suspended' ? '208' : '207', partial: false, amounts: {} };
    case 'rejected':
      if (!req.reasonCode) return missing('reasonCode', 'to refuse (210); use a code of the official status-motif referential');
      if (!req.reason) return missing('reason', 'to refuse (210)');
      return { ok: true, code: '210', partial: false, amounts: {} };
    case 'paid':
      if (party === 'buyer') {
        if (!req.paymentDate) return missing('paymentDate', 'for payment sent (211)');
        if (!req.paymentReference) return missing('paymentReference', 'for payment sent (211)');
        const amounts: Record<string, string> = {};
        if (req.paymentAmount !== undefined) amounts.MPA = money(req.paymentAmount);
        if (req.remainingAmount !== undefined) amounts.RAP = money(req.remainingAmount);
        return { ok: true, code: '211', partial: false, amounts };
      }
      return collected(req, false);
    case 'partially_paid':
      if (party !== 'supplier') return { ok: false, kind: 'invalid', field: 'status', rule: 'party', message: 'partially_paid records a partial collection (212), which only the supplier emits' };
      if (req.remainingAmount === undefined) return missing('remainingAmount', 'for a partial collection (212)');
      return collected(req, req.remainingAmount > 0);
    default:
      return { ok: false, kind: 'invalid', field: 'status', rule: 'enum', message: `status must be one of ${API_TRANSITION_STATUSES.join(', ')}` };
  }

  function collected(r: TransitionRequest, partial: boolean): Resolution {
    if (!r.paymentDate) return missing('paymentDate', 'for a collection (212)');
    // MDT-207 = MEN, BR-FR-CDV-14: a collection carries the collected amount.
    if (r.paymentAmount === undefined) return missing('paymentAmount', 'for a collection (212, MEN)');
    if (!r.paymentCurrency) return missing('paymentCurrency', 'for a collection (212)');
    const amounts: Record<string, string> = { MEN: money(r.paymentAmount) };
    if (r.remainingAmount !== undefined) amounts.RAP = money(r.remainingAmount);
    return { ok: true, code: '212', partial, amounts };
  }
}

export interface AllowedTransition {
  code: string;
  label: string;
  status: string;
}

/** What the caller's party may do next (`allowedTransitions`). */
export function allowedTransitions(current: string | null, partial: boolean, party: Party): AllowedTransition[] {
  return reachableFrom(current, partial)
    .filter((code) => partyMayEmit(code, party))
    .map((code) => ({ code, label: FRENCH_STATUSES[code]!.label, status: FRENCH_STATUSES[code]!.apiStatus }));
}

export function canMove(current: string | null, partial: boolean, target: string, party?: Party): boolean {
  if (!reachableFrom(current, partial).includes(target)) return false;
  return party === undefined || partyMayEmit(target, party);
}

/** API status after a code (a partial collection shows as partially_paid). */
export function apiStatusOf(code: string, partial: boolean, direction: 'outgoing' | 'incoming'): string {
  if (code === '212' && partial) return 'partially_paid';
  if (code === '200' || code === '201' || code === '202' || code === '203') return direction === 'outgoing' ? 'sent' : 'received';
  return FRENCH_STATUSES[code]!.apiStatus;
}
