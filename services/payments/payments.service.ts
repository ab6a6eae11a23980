/**
 * payments: payments recorded against documents, the balance due, companies' payment profiles
 * (bank account, terms) and the ISO 20022 pain.001.001.09 credit-transfer export. Documents and
 * their lifecycle belong to the documents service: this one reads them and asks it to move them
 * (best effort) through its actions, and keeps only its own tables.
 */
import type { Context, ServiceSchema } from 'moleculer';
import { Decimal } from 'decimal.js';
import { OrmMixin, emOf } from '../../mixins/orm.mixin.ts';
import { implement } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import { principalOf, type Principal } from '../shared/auth.ts';
import { DomainError, isClientFault, rethrowAsDomainError, type FieldIssue } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { companyClock } from '../shared/clock.ts';
import { readPageRequest, toPage } from '../shared/pagination.ts';
import { get as getDocument, postLifecycle, type DocumentView } from '../documents/documents.contract.ts';
import { getCompany } from '../tenancy/tenancy.contract.ts';
import { CURRENCY_CODES } from '../../mappings/canonical/codes.ts';
import { isValidIban, normaliseIban } from '../../mappings/identifiers/iban.ts';
import { parsePeppolId, participantAliases, peppolIdFromVat } from '../../mappings/identifiers/peppol-id.ts';
import { Payment, PAYABLE_TYPES } from './payment.entity.ts';
import { PaymentProfile } from './payment-profile.entity.ts';
import { paymentMove } from './payment-lifecycle.ts';
import { isoDate, nextBusinessDay, parseIsoDate } from './business-days.ts';
import { buildPain001, controlSum, PAIN_001_FORMAT, PAIN_001_NS, type CreditTransferBatch } from './pain001.ts';
import { sepaId } from './sepa-text.ts';
import * as contract from './payments.contract.ts';

const scopeOf = (auth: Principal) => ({ organizationId: auth.organizationId, livemode: auth.livemode });
const issue = (field: string, rule: string, message: string): FieldIssue => ({ field, rule, message });

/** The largest amount a SEPA credit transfer carries (EPC: 999 999 999.99). */
const SEPA_MAX_AMOUNT = new Decimal('999999999.99');

function paymentView(p: Payment): contract.PaymentView {
  return {
    id: p.id, objectId: p.objectId, objectType: p.objectType, organizationId: p.organizationId, amount: Number(p.amount), currency: p.currency,
    paidAt: p.paidAt.toISOString(), method: p.method ?? null, reference: p.reference ?? null, note: p.note ?? null, status: 'recorded',
    lifecycleStatus: p.lifecycleStatus ?? null, createdAt: p.createdAt.toISOString(),
  };
}

function profileView(p: PaymentProfile): contract.ProfileView {
  return {
    id: p.id, organizationId: p.organizationId, companyId: p.companyId ?? null, peppolId: p.peppolId, name: p.name,
    bankAccount: p.iban ? { iban: p.iban, bic: p.bic ?? null } : null, terms: p.terms ?? null,
    createdAt: p.createdAt.toISOString(), updatedAt: p.updatedAt.toISOString(),
  };
}

/** An ISO 4217 code, or 400 INVALID_CURRENCY naming the field. */
function currencyOf(value: string | undefined, field = 'currency'): string {
  const currency = value ?? 'EUR';
  if (!CURRENCY_CODES.has(currency)) throw new DomainError('INVALID_CURRENCY', `${field} must be an ISO 4217 code, got ${JSON.stringify(currency)}`, { details: [issue(field, 'iso4217', 'not an ISO 4217 code')] });
  return currency;
}

/** `date` / `paidAt`: a calendar date (midnight UTC) or an ISO 8601 timestamp with its offset; 400 INVALID_DATE otherwise. */
function paidAtOf(value: string, field: string): Date {
  const day = parseIsoDate(value);
  if (day) return day;
  const m = /^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.exec(value);
  const at = m && parseIsoDate(m[1]!) ? new Date(value) : undefined;
  if (!at || Number.isNaN(at.getTime())) throw new DomainError('INVALID_DATE', `${field} must be a date (YYYY-MM-DD) or an ISO 8601 timestamp with offset, got ${JSON.stringify(value)}`, { details: [issue(field, 'iso8601', 'not ISO 8601')] });
  return at;
}

async function paymentsOf(ctx: Context, auth: Principal, objectId: string): Promise<Payment[]> {
  return emOf(ctx).find(Payment, { ...scopeOf(auth), objectId }, { orderBy: { paidAt: 'asc', id: 'asc' } });
}

const sumOf = (payments: readonly Payment[]): Decimal => payments.reduce((s, p) => s.plus(p.amount), new Decimal(0));

async function recordPayment(ctx: Context<contract.RecordPaymentParams>): Promise<contract.PaymentView> {
  const auth = principalOf(ctx);
  const p = ctx.params;
  const doc = await call(ctx, getDocument, { id: p.id });
  if (!(PAYABLE_TYPES as readonly string[]).includes(doc.type)) {
    throw new DomainError('INVALID_REQUEST', `Payments are recorded against invoices and purchase orders; ${doc.id} is a ${doc.type}`, { details: [issue('id', 'payableType', `a ${doc.type} is not paid`)] });
  }
  if (new Decimal(p.amount).decimalPlaces() > 2) throw new DomainError('INVALID_REQUEST', 'amount has at most 2 decimals', { details: [issue('amount', 'decimals', 'at most 2 decimals')] });
  const currency = currencyOf(p.currency);
  if (doc.currency && doc.currency !== currency) {
    throw new DomainError('INVALID_CURRENCY', `The document is in ${doc.currency}; a payment of it in ${currency} cannot be set against its total`, { details: [issue('currency', 'documentCurrency', `must be ${doc.currency}`)] });
  }
  const when = p.date ?? p.paidAt;
  const em = emOf(ctx);
  const paidAt = when !== undefined ? paidAtOf(when, p.date !== undefined ? 'date' : 'paidAt') : (await companyClock(em, doc.companyId)).now();

  // Recorded first, in its own transaction (the payment is kept whatever the lifecycle does); the
  // lock per document serialises concurrent payments so each sees the sum before it.
  const { payment, totalPaid } = await em.transactional(async (tx) => {
    await tx.getConnection().execute('select pg_advisory_xact_lock(hashtext(?))', [`payments:${doc.id}`]);
    const earlier = await tx.find(Payment, { ...scopeOf(auth), objectId: doc.id });
    const created = tx.create(Payment, {
      id: newId('payment'), ...scopeOf(auth), objectId: doc.id, objectType: doc.type, amount: new Decimal(p.amount).toFixed(2), currency, paidAt,
      method: p.method ?? null, reference: p.reference ?? null, note: p.note ?? null, lifecycleStatus: null,
    });
    await tx.flush();
    return { payment: created, totalPaid: sumOf(earlier).plus(created.amount).toFixed(2) };
  });

  const move = paymentMove(
    { id: doc.id, type: doc.type, direction: doc.direction, status: doc.status, totalAmount: doc.totalAmount },
    { id: payment.id, amount: payment.amount, currency, date: isoDate(paidAt), reference: payment.reference ?? null },
    totalPaid,
  );
  if (move) {
    try {
      const lifecycle = await call(ctx, postLifecycle, move);
      payment.lifecycleStatus = lifecycle.status;
      await em.flush();
    } catch (err) {
      // Best effort: a move the lifecycle refuses leaves the payment recorded with no status.
      if (!isClientFault(err)) ctx.service?.logger.warn(`payment ${payment.id}: lifecycle of ${doc.id} not moved: ${(err as Error).message}`);
    }
  }
  return paymentView(payment);
}

async function paymentInfo(ctx: Context<{ id: string }>): Promise<contract.PaymentInfo> {
  const auth = principalOf(ctx);
  const doc = await call(ctx, getDocument, { id: ctx.params.id });
  const payments = await paymentsOf(ctx, auth, doc.id);
  const paid = sumOf(payments);
  return {
    objectId: doc.id, objectType: doc.type, organizationId: auth.organizationId, payments: payments.map(paymentView),
    balanceDue: doc.totalAmount === null ? null : new Decimal(doc.totalAmount).minus(paid).toNumber(),
    totalPaid: paid.toNumber(), currency: doc.currency ?? payments[0]?.currency ?? 'EUR',
  };
}

/** The Peppol id a profile is registered under, from exactly one of companyId, peppolId, vatNumber. */
async function profileOwner(ctx: Context<contract.PutProfileParams>): Promise<{ peppolId: string; companyId: string | null; name: string | null }> {
  const p = ctx.params;
  const given = (['companyId', 'peppolId', 'vatNumber'] as const).filter((k) => p[k] !== undefined);
  if (given.length === 0) throw new DomainError('MISSING_FIELD', 'Name the company: companyId (one of yours), peppolId or vatNumber', { details: [issue('companyId', 'required', 'companyId, peppolId or vatNumber is required')] });
  if (given.length > 1) throw new DomainError('INVALID_REQUEST', `Name the company once: ${given.join(' and ')} were both given`, { details: given.map((f) => issue(f, 'oneOf', 'only one of companyId, peppolId, vatNumber')) });
  if (p.companyId !== undefined) {
    const company = await call(ctx, getCompany, { id: p.companyId });
    if (!company.peppolId) throw new DomainError('INVALID_REQUEST', `Company ${company.id} has no Peppol id`, { details: [issue('companyId', 'peppolId', 'no Peppol id')] });
    return { peppolId: company.peppolId.toLowerCase(), companyId: company.id, name: company.legalName ?? company.name };
  }
  if (p.vatNumber !== undefined) {
    try {
      return { peppolId: peppolIdFromVat(p.vatNumber).toLowerCase(), companyId: null, name: null };
    } catch (err) {
      return rethrowAsDomainError(err);
    }
  }
  const parsed = parsePeppolId(p.peppolId!);
  if (!parsed) throw new DomainError('INVALID_REQUEST', 'peppolId must be `<scheme>:<identifier>` (e.g. 0208:0403170701)', { details: [issue('peppolId', 'peppolId', 'not <scheme>:<identifier>')] });
  return { peppolId: `${parsed.scheme}:${parsed.identifier}`.toLowerCase(), companyId: null, name: null };
}

const BIC_PATTERN = /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/;

async function putProfile(ctx: Context<contract.PutProfileParams>): Promise<contract.ProfileView> {
  const auth = principalOf(ctx);
  const p = ctx.params;
  let iban: string | undefined;
  let bic: string | null | undefined;
  if (p.bankAccount) {
    iban = normaliseIban(p.bankAccount.iban);
    if (!isValidIban(iban)) throw new DomainError('INVALID_IBAN', `IBAN ${p.bankAccount.iban} fails its check (ISO 13616 mod-97)`, { details: [issue('bankAccount.iban', 'mod97', 'IBAN checksum (mod-97) failed')] });
    bic = p.bankAccount.bic ? p.bankAccount.bic.replace(/\s+/g, '').toUpperCase() : null;
    if (bic && !BIC_PATTERN.test(bic)) throw new DomainError('INVALID_REQUEST', `BIC ${p.bankAccount.bic} is not a BIC (ISO 9362: 8 or 11 characters)`, { details: [issue('bankAccount.bic', 'bic', 'not an ISO 9362 BIC')] });
  }
  const owner = await profileOwner(ctx);
  const em = emOf(ctx);
  const existing = await em.findOne(PaymentProfile, { ...scopeOf(auth), peppolId: owner.peppolId });
  const name = p.name ?? existing?.name ?? owner.name;
  if (!name) throw new DomainError('MISSING_FIELD', 'name (the account holder) is required for a company that is not one of yours', { details: [issue('name', 'required', 'name is required')] });
  const terms = p.terms ? { netDays: p.terms.netDays, discountPercent: p.terms.discountPercent ?? null, discountDays: p.terms.discountDays ?? null, note: p.terms.note ?? null } : undefined;
  const profile = existing ?? em.create(PaymentProfile, { id: newId('paymentProfile'), ...scopeOf(auth), peppolId: owner.peppolId, companyId: owner.companyId, name, iban: null, bic: null, terms: null });
  profile.name = name;
  if (owner.companyId) profile.companyId = owner.companyId;
  if (iban !== undefined) { profile.iban = iban; profile.bic = bic ?? null; }
  if (terms) profile.terms = terms;
  await em.flush();
  return profileView(profile);
}

async function findProfile(ctx: Context<{ id: string }>): Promise<PaymentProfile> {
  const profile = await emOf(ctx).findOne(PaymentProfile, { id: ctx.params.id, ...scopeOf(principalOf(ctx)) });
  if (!profile) throw new DomainError('RESOURCE_NOT_FOUND', `Payment profile '${ctx.params.id}' was not found`);
  return profile;
}

interface ExportProblem { index: number; documentId: string; code: string; message: string }

const SANDBOX_PLACEHOLDER = `<?xml version="1.0" encoding="UTF-8"?>\n<!-- Sandbox placeholder: test keys never produce a credit-transfer file a bank would execute. -->\n<Document xmlns="${PAIN_001_NS}"/>\n`;

/**
 * The export: every document checked first (each failing one named with its reason), then one
 * payment block per paying company's account. Sandbox keys get the placeholder after the checks.
 */
async function exportIso20022(ctx: Context<contract.ExportParams>): Promise<contract.ExportView> {
  const auth = principalOf(ctx);
  const p = ctx.params;
  const currency = currencyOf(p.currency);
  if (currency !== 'EUR') throw new DomainError('INVALID_CURRENCY', `SEPA credit transfers are in EUR (EPC SCT rulebook); ${currency} cannot be exported as pain.001 here`, { details: [issue('currency', 'sepaCurrency', 'must be EUR')] });
  const em = emOf(ctx);
  const now = (await companyClock(em, auth.companyId)).now();
  let executionDate: string;
  if (p.executionDate !== undefined) {
    const day = parseIsoDate(p.executionDate);
    if (!day) throw new DomainError('INVALID_DATE', `executionDate must be a date (YYYY-MM-DD), got ${JSON.stringify(p.executionDate)}`, { details: [issue('executionDate', 'iso8601', 'not YYYY-MM-DD')] });
    if (p.executionDate < isoDate(now)) throw new DomainError('INVALID_DATE', `executionDate ${p.executionDate} is in the past`, { details: [issue('executionDate', 'notPast', 'today or later')] });
    executionDate = p.executionDate;
  } else executionDate = nextBusinessDay(now);

  const problems: ExportProblem[] = [];
  const payable: Array<{ index: number; doc: DocumentView; balance: Decimal }> = [];
  for (const [index, id] of p.documentIds.entries()) {
    const fail = (code: string, message: string) => problems.push({ index, documentId: id, code, message });
    let doc: DocumentView;
    try {
      doc = await call(ctx, getDocument, { id });
    } catch (err) {
      if ((err as { type?: string }).type === 'DOCUMENT_NOT_FOUND') { fail('DOCUMENT_NOT_FOUND', `Document '${id}' was not found`); continue; }
      throw err;
    }
    if (doc.type !== 'invoice' || doc.direction !== 'incoming') { fail('NOT_PAYABLE', `${id} is ${doc.direction === 'outgoing' ? 'an outgoing' : 'a'} ${doc.type}: a credit transfer pays a received invoice`); continue; }
    if ((doc.currency ?? 'EUR') !== currency) { fail('CURRENCY_MISMATCH', `${id} is in ${doc.currency}, the export in ${currency}`); continue; }
    if (doc.totalAmount === null) { fail('NO_BALANCE', `${id} has no total, so no balance to pay`); continue; }
    const balance = new Decimal(doc.totalAmount).minus(sumOf(await paymentsOf(ctx, auth, id)));
    if (balance.lte(0)) { fail('NO_BALANCE', `${id} has no balance due (total ${doc.totalAmount}, ${balance.isZero() ? 'fully paid' : 'overpaid'})`); continue; }
    if (balance.gt(SEPA_MAX_AMOUNT)) { fail('AMOUNT_TOO_LARGE', `${id}: a SEPA credit transfer carries at most 999999999.99`); continue; }
    payable.push({ index, doc, balance });
  }

  // Creditors (sellers) by any alias of their Peppol id; debtors by our company or its Peppol id.
  const sellerIds = payable.flatMap(({ doc }) => (doc.from.peppolId ? participantAliases(doc.from.peppolId).map((a) => a.toLowerCase()) : []));
  const buyerIds = payable.flatMap(({ doc }) => (doc.to.peppolId ? participantAliases(doc.to.peppolId).map((a) => a.toLowerCase()) : []));
  const profiles = payable.length
    ? await em.find(PaymentProfile, { ...scopeOf(auth), $or: [{ peppolId: { $in: [...new Set([...sellerIds, ...buyerIds])] } }, { companyId: { $in: [...new Set(payable.map(({ doc }) => doc.companyId))] } }] })
    : [];
  const byPeppolId = new Map(profiles.map((pr) => [pr.peppolId, pr]));
  const lookup = (peppolId: string | null | undefined) => (peppolId ? participantAliases(peppolId).map((a) => byPeppolId.get(a.toLowerCase())).find((pr) => pr?.iban) : undefined);
  const batches = new Map<string, CreditTransferBatch>();
  for (const { index, doc, balance } of payable) {
    const creditor = lookup(doc.from.peppolId);
    const debtor = profiles.find((pr) => pr.companyId === doc.companyId && pr.iban) ?? lookup(doc.to.peppolId);
    if (!creditor) { problems.push({ index, documentId: doc.id, code: 'NO_CREDITOR_ACCOUNT', message: `${doc.id}: no bank account is registered for its seller ${doc.from.name ?? ''} (${doc.from.peppolId ?? 'no Peppol id'}); PUT /v1/payments/profiles` }); continue; }
    if (!debtor) { problems.push({ index, documentId: doc.id, code: 'NO_DEBTOR_ACCOUNT', message: `${doc.id}: no bank account is registered for the paying company ${doc.companyId}; PUT /v1/payments/profiles with its companyId` }); continue; }
    const batch = batches.get(debtor.id) ?? { debtor: { name: debtor.name, iban: debtor.iban!, bic: debtor.bic ?? null }, transfers: [] };
    batches.set(debtor.id, batch);
    batch.transfers.push({
      instructionId: doc.id.replace(/^doc_/, ''), endToEndId: doc.number ?? doc.id.replace(/^doc_/, ''), amount: balance.toFixed(2),
      creditor: { name: creditor.name, iban: creditor.iban!, bic: creditor.bic ?? null },
      remittance: `Invoice ${doc.number ?? doc.id}${doc.issueDate ? ` of ${doc.issueDate}` : ''}`,
    });
  }
  if (problems.length) {
    problems.sort((a, b) => a.index - b.index);
    throw new DomainError('INVALID_REQUEST', `${problems.length} of ${p.documentIds.length} documents cannot be paid by this credit transfer: ${problems.map((x) => x.message).join('; ')}`, {
      details: problems.map((x) => issue(`documentIds[${x.index}]`, x.code, x.message)),
      extra: { documents: problems.map(({ documentId, code, message }) => ({ documentId, code, message })) },
    });
  }

  const messageId = sepaId(newId('paymentExport'));
  const base = { messageId, organizationId: auth.organizationId, format: PAIN_001_FORMAT, contentType: 'application/xml', currency, executionDate, generatedAt: now.toISOString() } as const;
  if (!auth.livemode) {
    return { ...base, filename: `sandbox-placeholder-${messageId}.xml`, content: Buffer.from(SANDBOX_PLACEHOLDER, 'utf8').toString('base64'), transactionCount: 0, totalAmount: 0 };
  }
  const list = [...batches.values()];
  const xml = buildPain001({ messageId, createdAt: now, initiatingParty: list[0]!.debtor.name, executionDate, currency: 'EUR', batches: list });
  const amounts = list.flatMap((b) => b.transfers.map((t) => t.amount));
  return { ...base, filename: `${PAIN_001_FORMAT}-${messageId}.xml`, content: Buffer.from(xml, 'utf8').toString('base64'), transactionCount: amounts.length, totalAmount: Number(controlSum(amounts)) };
}

const PaymentsService: ServiceSchema = {
  name: 'payments',
  mixins: [OrmMixin],

  actions: {
    resetSandbox: implement(contract.resetSandbox, async (ctx) => ({ payments: await emOf(ctx).nativeDelete(Payment, { organizationId: ctx.params.organizationId, livemode: false }) })),
    getPaymentInfo: implement(contract.getPaymentInfo, paymentInfo),
    recordPayment: implement(contract.recordPayment, recordPayment),
    putProfile: implement(contract.putProfile, putProfile),
    listProfiles: implement(contract.listProfiles, async (ctx) => {
      const page = readPageRequest(ctx.params);
      const rows = await emOf(ctx).find(PaymentProfile, { ...scopeOf(principalOf(ctx)), ...(page.after ? { id: { $lt: page.after } } : {}) }, { orderBy: { id: 'desc' }, limit: page.limit + 1 });
      return toPage(rows, page, (r) => r.id, profileView);
    }),
    getProfile: implement(contract.getProfile, async (ctx) => profileView(await findProfile(ctx))),
    deleteProfile: implement(contract.deleteProfile, async (ctx) => {
      const profile = await findProfile(ctx);
      await emOf(ctx).nativeDelete(PaymentProfile, { id: profile.id });
      return { id: profile.id, deleted: true as const };
    }),
    exportIso20022: implement(contract.exportIso20022, exportIso20022),
  },
};

export default PaymentsService;
