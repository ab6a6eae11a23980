/**
 * payments: payments recorded against documents (invoices and purchase orders), the balance due,
 * each company's payment profile (bank account, terms) and the ISO 20022 pain.001.001.09
 * credit-transfer export.
 */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';
import { PAGE_PARAMS, pageSchema, type Page } from '../shared/pagination.ts';
import { PAYMENT_METHODS, type PaymentMethod } from './payment.entity.ts';
import type { PaymentTerms } from './payment-profile.entity.ts';

const SERVICE = 'payments';

export interface PaymentView {
  id: string;
  objectId: string;
  objectType: string;
  organizationId: string;
  amount: number;
  currency: string;
  paidAt: string;
  method: PaymentMethod | null;
  reference: string | null;
  note: string | null;
  status: 'recorded';
  /** Where the payment moved the document's lifecycle; null when it could not legally move. */
  lifecycleStatus: string | null;
  createdAt: string;
}

const nullableString = { type: ['string', 'null'] };
export const paymentSchema = {
  type: 'object',
  required: ['id', 'objectId', 'objectType', 'organizationId', 'amount', 'currency', 'paidAt', 'method', 'reference', 'note', 'status', 'lifecycleStatus', 'createdAt'],
  properties: {
    id: { type: 'string', examples: ['pay_01JD7Z3V9Q1M2N3P4R5S6T7V8W'] },
    objectId: { type: 'string', description: 'The document paid' },
    objectType: { type: 'string', enum: ['invoice', 'purchase-order'] },
    organizationId: { type: 'string' },
    amount: { type: 'number', exclusiveMinimum: 0 },
    currency: { type: 'string', examples: ['EUR'] },
    paidAt: { type: 'string', format: 'date-time' },
    method: { type: ['string', 'null'], enum: [...PAYMENT_METHODS, null] },
    reference: nullableString,
    note: nullableString,
    status: { type: 'string', const: 'recorded' },
    lifecycleStatus: { type: ['string', 'null'], enum: ['partially_paid', 'paid', null], description: 'The lifecycle status the payment moved the document to (best effort); null when the document could not legally move (draft, received, under_review must be approved first; a purchase order has no lifecycle; the buyer\'s side has no partial-payment status)' },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

export interface PaymentInfo {
  objectId: string;
  objectType: string;
  organizationId: string;
  payments: PaymentView[];
  balanceDue: number | null;
  totalPaid: number;
  currency: string;
}

const paymentInfoSchema = {
  type: 'object',
  required: ['objectId', 'objectType', 'organizationId', 'payments', 'balanceDue', 'totalPaid', 'currency'],
  properties: {
    objectId: { type: 'string' }, objectType: { type: 'string' }, organizationId: { type: 'string' },
    payments: { type: 'array', items: paymentSchema, description: 'Oldest first; an empty array when nothing was paid' },
    balanceDue: { type: ['number', 'null'], description: 'Document total minus what was paid (negative when overpaid); null when the document has no total' },
    totalPaid: { type: 'number' },
    currency: { type: 'string' },
  },
};

const documentId = { type: 'string', min: 1, max: 64 } as const;

export const getPaymentInfo = defineAction<{ id: string }, PaymentInfo>(SERVICE, 'getPaymentInfo', {
  params: { ...STRICT_REMOVE, id: documentId },
  http: {
    method: 'GET', path: '/v1/payments/documents/:id', access: 'payments', tag: 'Payments',
    summary: 'What was paid on a document: its payments (always an array), the total paid and the balance due (document total minus paid; null without a total)',
    response: paymentInfoSchema,
  },
});

export interface RecordPaymentParams {
  id: string;
  amount: number;
  date?: string;
  paidAt?: string;
  currency?: string;
  method?: PaymentMethod;
  reference?: string;
  note?: string;
}

export const recordPayment = defineAction<RecordPaymentParams, PaymentView>(SERVICE, 'recordPayment', {
  params: {
    ...STRICT_REMOVE,
    id: documentId,
    amount: { type: 'number', positive: true, max: 999_999_999_999.99 },
    date: { type: 'string', optional: true, max: 64, openapi: { type: 'string', description: 'When it was paid: a date (YYYY-MM-DD) or an ISO 8601 timestamp; now when absent', examples: ['2026-04-01'] } },
    paidAt: { type: 'string', optional: true, max: 64, openapi: { type: 'string', description: 'Alias of `date`' } },
    currency: { type: 'string', optional: true, max: 8, openapi: { type: 'string', description: 'ISO 4217; EUR when absent; must be the document\'s currency', default: 'EUR' } },
    method: { type: 'enum', optional: true, values: [...PAYMENT_METHODS] },
    reference: { type: 'string', optional: true, min: 1, max: 140 },
    note: { type: 'string', optional: true, min: 1, max: 1024 },
  },
  http: {
    method: 'POST', path: '/v1/payments/documents/:id/pay', access: 'payments', tag: 'Payments', status: 201, location: (r: PaymentView) => `/v1/payments/documents/${r.objectId}`,
    summary: 'Record a payment against an invoice or a purchase order. The payment is always recorded; the document\'s lifecycle then moves best-effort: from approved, partially_paid or disputed to partially_paid (payments below the total) or paid (payments cover it), `lifecycleStatus` null when it cannot legally move. 400 INVALID_CURRENCY (not ISO 4217, or not the document\'s currency), INVALID_DATE, INVALID_REQUEST (more than 2 decimals, a document type that is not paid)',
    response: paymentSchema,
  },
});

export interface ProfileView {
  id: string;
  organizationId: string;
  companyId: string | null;
  peppolId: string;
  name: string;
  bankAccount: { iban: string; bic: string | null } | null;
  terms: PaymentTerms | null;
  createdAt: string;
  updatedAt: string;
}

const termsSchema = {
  type: ['object', 'null'], required: ['netDays', 'discountPercent', 'discountDays', 'note'],
  properties: { netDays: { type: 'integer', minimum: 0 }, discountPercent: { type: ['number', 'null'] }, discountDays: { type: ['integer', 'null'] }, note: nullableString },
};
const profileSchema = {
  type: 'object',
  required: ['id', 'organizationId', 'companyId', 'peppolId', 'name', 'bankAccount', 'terms', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string', examples: ['ppf_01JD7Z3V9Q1M2N3P4R5S6T7V8W'] }, organizationId: { type: 'string' },
    companyId: { ...nullableString, description: 'Set when the profile is one of the organization\'s own companies' },
    peppolId: { type: 'string', description: 'The company the profile is of: `<scheme>:<identifier>`, as documents name their parties' },
    name: { type: 'string', description: 'Account holder name used in credit transfers' },
    bankAccount: { type: ['object', 'null'], required: ['iban', 'bic'], properties: { iban: { type: 'string' }, bic: nullableString } },
    terms: termsSchema,
    createdAt: { type: 'string', format: 'date-time' }, updatedAt: { type: 'string', format: 'date-time' },
  },
};

export interface PutProfileParams {
  companyId?: string;
  peppolId?: string;
  vatNumber?: string;
  name?: string;
  bankAccount?: { iban: string; bic?: string };
  terms?: { netDays: number; discountPercent?: number; discountDays?: number; note?: string };
}

export const putProfile = defineAction<PutProfileParams, ProfileView>(SERVICE, 'putProfile', {
  params: {
    ...STRICT_REMOVE,
    companyId: { type: 'string', optional: true, min: 1, max: 64 },
    peppolId: { type: 'string', optional: true, min: 3, max: 140 },
    vatNumber: { type: 'string', optional: true, min: 3, max: 32 },
    name: { type: 'string', optional: true, min: 1, max: 140, trim: true },
    bankAccount: { type: 'object', optional: true, strict: 'remove', props: { iban: { type: 'string', min: 5, max: 64 }, bic: { type: 'string', optional: true, max: 16 } } },
    terms: {
      type: 'object', optional: true, strict: 'remove',
      props: { netDays: { type: 'number', integer: true, min: 0, max: 365 }, discountPercent: { type: 'number', optional: true, min: 0, max: 100 }, discountDays: { type: 'number', optional: true, integer: true, min: 0, max: 365 }, note: { type: 'string', optional: true, max: 1024 } },
    },
  },
  http: {
    method: 'PUT', path: '/v1/payments/profiles', access: 'payments', tag: 'Payments',
    summary: 'Register (or replace) how a company is paid: its bank account (IBAN checked with mod-97, BIC) and its payment terms. The company is one of yours (`companyId`) or a counterparty (`peppolId`, or `vatNumber` from which its Peppol id follows); one profile per company. A credit-transfer export needs the profile of each creditor (the seller) and of the paying company. 400 INVALID_IBAN, INVALID_VAT_FORMAT, MISSING_FIELD',
    response: profileSchema,
    errors: { 404: 'COMPANY_NOT_FOUND: companyId is not a company of the organization' },
  },
});

export const listProfiles = defineAction<{ limit?: number; cursor?: string }, Page<ProfileView>>(SERVICE, 'listProfiles', {
  params: { ...STRICT_REMOVE, ...PAGE_PARAMS },
  http: { method: 'GET', path: '/v1/payments/profiles', access: 'payments', tag: 'Payments', summary: 'The payment profiles of the organization, newest first', response: pageSchema(profileSchema) },
});

export const getProfile = defineAction<{ id: string }, ProfileView>(SERVICE, 'getProfile', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 } },
  http: { method: 'GET', path: '/v1/payments/profiles/:id', access: 'payments', tag: 'Payments', summary: 'One payment profile', response: profileSchema },
});

export const deleteProfile = defineAction<{ id: string }, { id: string; deleted: true }>(SERVICE, 'deleteProfile', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 } },
  http: {
    method: 'DELETE', path: '/v1/payments/profiles/:id', access: 'payments', tag: 'Payments', summary: 'Remove a payment profile',
    response: { type: 'object', required: ['id', 'deleted'], properties: { id: { type: 'string' }, deleted: { const: true } } },
  },
});

export interface ExportParams {
  documentIds: string[];
  currency?: string;
  executionDate?: string;
}

export interface ExportView {
  messageId: string;
  organizationId: string;
  format: 'pain.001.001.09';
  filename: string;
  content: string;
  contentType: string;
  transactionCount: number;
  totalAmount: number;
  currency: string;
  executionDate: string;
  generatedAt: string;
}

export const exportIso20022 = defineAction<ExportParams, ExportView>(SERVICE, 'exportIso20022', {
  params: {
    ...STRICT_REMOVE,
    documentIds: { type: 'array', min: 1, max: 500, unique: true, items: { type: 'string', min: 1, max: 64 } },
    currency: { type: 'string', optional: true, max: 8, openapi: { type: 'string', default: 'EUR', description: 'SEPA credit transfers are in EUR (EPC rule); another ISO 4217 code is 400 INVALID_CURRENCY' } },
    executionDate: { type: 'string', optional: true, max: 10, openapi: { type: 'string', format: 'date', description: 'Requested execution date (YYYY-MM-DD), not in the past; the next TARGET business day when absent (weekends and TARGET closing days skipped)' } },
  },
  http: {
    method: 'POST', path: '/v1/payments/export/iso20022', access: 'payments', tag: 'Payments',
    summary: 'A SEPA credit-transfer file (ISO 20022 pain.001.001.09, EPC usage rules: Latin character set, field lengths, service level SEPA, charges SLEV, EUR) paying the balance due of received invoices, one payment block per paying company. Each document needs a registered creditor bank account (the seller\'s payment profile), a paying company with a bank account, and a non-zero balance; otherwise 400 INVALID_REQUEST with one entry per failing document in `details` (field `documentIds[i]`) and in `documents`. Sandbox keys get a placeholder file with transactionCount 0',
    response: {
      type: 'object',
      required: ['messageId', 'organizationId', 'format', 'filename', 'content', 'contentType', 'transactionCount', 'totalAmount', 'currency', 'executionDate', 'generatedAt'],
      properties: {
        messageId: { type: 'string' }, organizationId: { type: 'string' }, format: { type: 'string', const: 'pain.001.001.09' },
        filename: { type: 'string' }, content: { type: 'string', contentEncoding: 'base64', description: 'The XML file, base64' },
        contentType: { type: 'string', examples: ['application/xml'] }, transactionCount: { type: 'integer', minimum: 0 },
        totalAmount: { type: 'number' }, currency: { type: 'string' }, executionDate: { type: 'string', format: 'date' }, generatedAt: { type: 'string', format: 'date-time' },
      },
    },
  },
});

/** Internal (sandbox reset and expiry): removes an organization's sandbox payments; its bank accounts and terms stay (configuration). */
export const resetSandbox = defineAction<{ organizationId: string }, { payments: number }>(SERVICE, 'resetSandbox', {
  params: { organizationId: { type: 'string', min: 1, max: 255 } },
});
