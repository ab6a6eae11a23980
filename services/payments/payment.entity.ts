import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const PAYMENT_METHODS = ['SEPA', 'card', 'cheque', 'cash', 'wire', 'other'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** Document types a payment is recorded against (spec: "works for an invoice or a purchase order"). */
export const PAYABLE_TYPES = ['invoice', 'purchase-order'] as const;

/**
 * A payment recorded against a document (an invoice or a purchase order) of the documents service,
 * which this table only names by id. Always kept, whatever the document's lifecycle did with it:
 * `lifecycleStatus` says where the payment moved the document, null when it could not legally move.
 */
export const Payment = defineEntity({
  name: 'Payment',
  tableName: 'payments',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    livemode: p.boolean(),
    /** The document paid (documents service id). */
    objectId: p.string(),
    objectType: p.string(),
    /** Two decimals, positive (numeric(18,2)). */
    amount: p.decimal('string').precision(18).scale(2),
    currency: p.string().length(3),
    paidAt: p.datetime(),
    method: p.enum(PAYMENT_METHODS).nullable(),
    reference: p.string().nullable(),
    note: p.text().nullable(),
    lifecycleStatus: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ name: 'payments_object_index', properties: ['organizationId', 'livemode', 'objectId'] }],
});
export type Payment = InferEntity<typeof Payment>;
