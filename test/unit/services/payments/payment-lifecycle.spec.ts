/** The lifecycle move a payment asks for: the spec's table, by party, and the documents that cannot move. */
import { paymentMove, type PaidDocument } from '../../../../services/payments/payment-lifecycle.ts';

const doc = (over: Partial<PaidDocument>): PaidDocument => ({ id: 'doc_1', type: 'invoice', direction: 'outgoing', status: 'approved', totalAmount: 242, ...over });
const payment = { id: 'pay_1', amount: '100.00', currency: 'EUR', date: '2026-04-01', reference: 'SEPA-1' };

it.each(['approved', 'partially_paid', 'disputed'])('from %s the supplier records a partial collection, then a full one', (status) => {
  expect(paymentMove(doc({ status }), payment, '100.00')).toEqual({ id: 'doc_1', status: 'partially_paid', remainingAmount: 142, paymentDate: '2026-04-01', paymentAmount: 100, paymentCurrency: 'EUR', paymentReference: 'SEPA-1' });
  expect(paymentMove(doc({ status }), { ...payment, amount: '142.00' }, '242.00')).toMatchObject({ status: 'paid', paymentAmount: 142, paymentCurrency: 'EUR' });
  expect(paymentMove(doc({ status }), payment, '300.00')).toMatchObject({ status: 'paid' });
});

it('the buyer moves to paid (211, all it paid as MPA) once the payments cover the total, and not on a partial payment', () => {
  expect(paymentMove(doc({ direction: 'incoming' }), payment, '100.00')).toBeNull();
  expect(paymentMove(doc({ direction: 'incoming' }), { ...payment, reference: null }, '242.00')).toEqual({ id: 'doc_1', status: 'paid', paymentDate: '2026-04-01', paymentReference: 'pay_1', paymentAmount: 242, paymentCurrency: 'EUR' });
});

it.each(['draft', 'sent', 'received', 'under_review', 'paid', 'rejected'])('a document %s cannot legally move', (status) => {
  expect(paymentMove(doc({ status }), payment, '242.00')).toBeNull();
});

it('nor a purchase order (no lifecycle) nor a document without a total', () => {
  expect(paymentMove(doc({ type: 'purchase-order' }), payment, '242.00')).toBeNull();
  expect(paymentMove(doc({ totalAmount: null }), payment, '242.00')).toBeNull();
});
