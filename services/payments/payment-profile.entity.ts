import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Payment terms a company states for what it invoices (BT-20 wording, net days, early-payment discount). */
export interface PaymentTerms {
  netDays: number;
  discountPercent: number | null;
  discountDays: number | null;
  note: string | null;
}

/**
 * How a company is paid, as the organization registered it: its bank account (the creditor
 * account a credit transfer to it needs, or the debtor account the organization's own company pays
 * from) and its payment terms. One per company and mode, keyed by the company's Peppol id, so the
 * same registry serves the organization's own companies (`companyId` set) and its suppliers.
 */
export const PaymentProfile = defineEntity({
  name: 'PaymentProfile',
  tableName: 'payment_profiles',
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    livemode: p.boolean(),
    /** `<scheme>:<identifier>`, lower-cased scheme and identifier as documents name parties. */
    peppolId: p.string(),
    /** The organization's own company, when the profile is one of its companies'. */
    companyId: p.string().nullable(),
    name: p.string(),
    iban: p.string().nullable(),
    bic: p.string().nullable(),
    terms: p.json<PaymentTerms>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  indexes: [{ name: 'payment_profiles_list_index', properties: ['organizationId', 'livemode', 'id'] }],
});
export type PaymentProfile = InferEntity<typeof PaymentProfile>;
