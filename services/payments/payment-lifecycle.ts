/**
 * Which lifecycle move a recorded payment asks the documents service for (spec, lifecycle table):
 * from approved, partially_paid or disputed, `partially_paid` while the payments stay below the
 * total and `paid` once they cover it. Anything else cannot legally move (draft, received and
 * under_review must be approved first) and the payment is recorded without a move.
 *
 * The move is the French lifecycle step of the caller's party, with the fields that step carries:
 * the supplier records a collection (212; partial with the remaining amount, MEN = this payment),
 * the buyer a payment sent (211, with date, reference and MPA = all it paid). The buyer's side of the lifecycle has
 * no partial-payment status, so a partial payment by the buyer moves nothing.
 */
import { Decimal } from 'decimal.js';
import type { TransitionParams } from '../documents/documents.contract.ts';

export const PAYABLE_STATUSES: ReadonlySet<string> = new Set(['approved', 'partially_paid', 'disputed']);

export interface PaidDocument {
  id: string;
  type: string;
  direction: 'incoming' | 'outgoing';
  status: string;
  totalAmount: number | null;
}

export interface RecordedPayment {
  id: string;
  amount: string;
  currency: string;
  /** YYYY-MM-DD */
  date: string;
  reference: string | null;
}

/** The lifecycle POST a payment asks for, or null when the document cannot legally move. */
export function paymentMove(doc: PaidDocument, payment: RecordedPayment, totalPaid: string): TransitionParams | null {
  if (doc.type !== 'invoice' || !PAYABLE_STATUSES.has(doc.status) || doc.totalAmount === null) return null;
  const remaining = new Decimal(doc.totalAmount).minus(totalPaid);
  const covered = remaining.lte(0);
  if (doc.direction === 'incoming') {
    if (!covered) return null;
    return { id: doc.id, status: 'paid', paymentDate: payment.date, paymentReference: payment.reference ?? payment.id, paymentAmount: Number(totalPaid), paymentCurrency: payment.currency };
  }
  const collected = { id: doc.id, paymentDate: payment.date, paymentAmount: Number(payment.amount), paymentCurrency: payment.currency, ...(payment.reference ? { paymentReference: payment.reference } : {}) };
  return covered ? { ...collected, status: 'paid' } : { ...collected, status: 'partially_paid', remainingAmount: remaining.toNumber() };
}
