/**
 * What a person reads on an invoice, taken once from the canonical model: labelled facts, the
 * parties, the lines, the VAT breakdown, the totals and the payment terms. The HTML preview and the
 * PDF both draw this view, so they cannot disagree, and neither re-reads the canonical model.
 * Pure; text only (escaping and layout are the renderers').
 */
import type { Address, CanonicalInvoice, Party, SchemedId } from '../canonical/model.ts';
import { MappingError } from '../errors.ts';
import { formatAmount, formatDate, formatNumber, formatRate } from './format.ts';

/**
 * Lines a rendering draws at most (about 125 PDF pages): past it the document is refused, never cut
 * silently. pdf-lib draws about 400 lines a second on one core, so the workers' CPU budget
 * (EINV_WORKER_TASK_BUDGET_MS, 8 s) may stop a PDF below this cap on a slow host (422 either way).
 */
export const MAX_RENDERED_LINES = 5_000;
/** Characters of one text field shown at most (a description, a note); longer ones end with "…". */
export const MAX_FIELD_CHARS = 2_000;

export type Fact = readonly [label: string, value: string];

export interface PartyView {
  role: string;
  name: string;
  /** Address lines, then identifiers and contact, one per entry. */
  details: string[];
}

export interface LineView {
  id: string;
  name: string;
  /** Description, period, note and identifiers of the line, one per entry. */
  details: string[];
  quantity: string;
  unit: string;
  price: string;
  vat: string;
  net: string;
}

export interface VatRowView {
  category: string;
  rate: string;
  taxable: string;
  tax: string;
  /** Exemption reason text and code (BT-120 / BT-121), when the category has one. */
  exemption: string;
}

export interface AllowanceChargeView {
  kind: 'Allowance' | 'Charge';
  reason: string;
  vat: string;
  amount: string;
}

export interface InvoiceView {
  /** "Invoice", "Credit note", … from BT-3. */
  title: string;
  number: string;
  currency: string;
  /** Dates and references (BT-2, BT-9, BT-7, BG-14, BT-10 …). */
  facts: Fact[];
  parties: PartyView[];
  lines: LineView[];
  allowanceCharges: AllowanceChargeView[];
  vat: VatRowView[];
  /** BG-22, the amount due last. */
  totals: Fact[];
  /** BT-20 payment terms and BG-16 payment instructions. */
  payment: Fact[];
  /** BG-1 notes and BG-3 preceding invoices. */
  notes: string[];
}

/** UNCL1001 names of the common document types; other codes show as "Invoice (code n)". */
const TITLES: Readonly<Record<string, string>> = {
  '380': 'Invoice', '381': 'Credit note', '383': 'Debit note', '384': 'Corrected invoice', '386': 'Prepayment invoice',
  '389': 'Self-billed invoice', '261': 'Self-billed credit note', '262': 'Credit note', '396': 'Factored credit note',
  '393': 'Factored invoice', '326': 'Partial invoice', '875': 'Partial construction invoice', '876': 'Partial final construction invoice', '877': 'Final construction invoice',
};

/** UNCL4461 names of the usual payment means (BT-81). */
const PAYMENT_MEANS: Readonly<Record<string, string>> = {
  '1': 'Not defined', '10': 'Cash', '20': 'Cheque', '30': 'Credit transfer', '31': 'Debit transfer', '42': 'Payment to bank account',
  '48': 'Bank card', '49': 'Direct debit', '57': 'Standing agreement', '58': 'SEPA credit transfer', '59': 'SEPA direct debit',
  '68': 'Online payment service', '97': 'Clearing between partners', 'ZZZ': 'Mutually defined',
};

/** UNCL5305 names of the EN 16931 VAT categories (BT-118). */
const VAT_CATEGORY_NAMES: Readonly<Record<string, string>> = {
  S: 'Standard rate', Z: 'Zero rated', E: 'Exempt', AE: 'Reverse charge', K: 'Intra-community supply', G: 'Export outside the EU',
  O: 'Not subject to VAT', L: 'Canary Islands IGIC', M: 'Ceuta and Melilla IPSI',
};

function clip(text: string | undefined): string {
  if (!text) return '';
  const t = text.trim();
  return t.length > MAX_FIELD_CHARS ? `${t.slice(0, MAX_FIELD_CHARS - 1)}…` : t;
}

function schemed(id: SchemedId | undefined): string {
  if (!id?.value) return '';
  return id.scheme ? `${id.value} (${id.scheme})` : id.value;
}

function addressLines(a: Address | undefined): string[] {
  if (!a) return [];
  const cityLine = [a.postalCode, a.city].filter(Boolean).join(' ');
  const region = [a.subdivision, a.country].filter(Boolean).join(', ');
  return [a.line1, a.line2, a.line3, cityLine, region].map(clip).filter(Boolean);
}

function partyView(role: string, p: Party): PartyView {
  const details = [...addressLines(p.address)];
  if (p.tradingName) details.push(`Trading name: ${clip(p.tradingName)}`);
  if (p.vatId) details.push(`VAT: ${clip(p.vatId)}`);
  if (p.legalRegistration?.value) details.push(`Registration: ${clip(schemed(p.legalRegistration))}`);
  if (p.taxRegistrationId) details.push(`Tax registration: ${clip(p.taxRegistrationId)}`);
  for (const id of p.identifiers ?? []) if (id?.value) details.push(`Id: ${clip(schemed(id))}`);
  if (p.electronicAddress?.value) details.push(`Electronic address: ${clip(schemed(p.electronicAddress))}`);
  const contact = [p.contact?.name, p.contact?.phone, p.contact?.email].filter(Boolean).map(clip).join(', ');
  if (contact) details.push(`Contact: ${contact}`);
  if (p.additionalLegalInfo) details.push(clip(p.additionalLegalInfo));
  return { role, name: clip(p.name), details };
}

function period(start: string | undefined, end: string | undefined): string {
  if (!start && !end) return '';
  return `${formatDate(start) || '…'} to ${formatDate(end) || '…'}`;
}

function vatLabel(category: string | undefined, rate: string | undefined): string {
  if (!category) return '';
  return rate !== undefined && rate !== '' ? `${category} ${formatRate(rate)}` : category;
}

/** The readable view of a canonical invoice; MappingError (PAYLOAD_TOO_LARGE) past {@link MAX_RENDERED_LINES}. */
export function invoiceView(c: CanonicalInvoice): InvoiceView {
  const lines = Array.isArray(c.lines) ? c.lines : [];
  if (lines.length > MAX_RENDERED_LINES) {
    const message = `The document has ${lines.length} lines; at most ${MAX_RENDERED_LINES} are rendered`;
    throw new MappingError('PAYLOAD_TOO_LARGE', message, [{ field: 'lines', rule: 'max-rendered-lines', message }]);
  }
  const currency = c.currency ?? '';
  const money = (v: string | undefined): string => formatAmount(v, currency);
  const typeCode = c.typeCode ?? (c.kind === 'credit-note' ? '381' : '380');
  const title = TITLES[typeCode] ?? `${c.kind === 'credit-note' ? 'Credit note' : 'Invoice'} (type ${typeCode})`;

  const facts: Fact[] = [['Issue date', formatDate(c.issueDate)]];
  const pushFact = (label: string, value: string | undefined): void => { if (value) facts.push([label, clip(value)]); };
  pushFact('Due date', formatDate(c.dueDate));
  pushFact('Tax point date', formatDate(c.taxPointDate));
  pushFact('Invoicing period', period(c.invoicingPeriod?.start, c.invoicingPeriod?.end));
  pushFact('Delivery date', formatDate(c.delivery?.actualDeliveryDate));
  pushFact('Currency', currency);
  pushFact('Buyer reference', c.buyerReference);
  pushFact('Purchase order', c.orderReference);
  pushFact('Sales order', c.salesOrderReference);
  pushFact('Contract', c.contractReference);
  pushFact('Project', c.projectReference);
  pushFact('Despatch advice', c.despatchAdviceReference);
  pushFact('Receiving advice', c.receivingAdviceReference);
  pushFact('Tender or lot', c.tenderReference);
  pushFact('Invoiced object', schemed(c.invoicedObjectIdentifier));
  pushFact('Buyer accounting reference', c.buyerAccountingReference);
  for (const p of c.precedingInvoices ?? []) pushFact('Preceding invoice', [p.number, p.issueDate && `of ${p.issueDate}`].filter(Boolean).join(' '));

  const parties: PartyView[] = [partyView('Seller', c.seller ?? { name: '' }), partyView('Buyer', c.buyer ?? { name: '' })];
  if (c.payee?.name) parties.push({ role: 'Payee', name: clip(c.payee.name), details: [schemed(c.payee.identifier), schemed(c.payee.legalRegistration)].filter(Boolean).map(clip) });
  if (c.taxRepresentative?.name) parties.push({ role: 'Tax representative', name: clip(c.taxRepresentative.name), details: [...addressLines(c.taxRepresentative.address), `VAT: ${clip(c.taxRepresentative.vatId)}`] });
  if (c.delivery && (c.delivery.partyName || c.delivery.address)) {
    parties.push({ role: 'Deliver to', name: clip(c.delivery.partyName), details: [...addressLines(c.delivery.address), schemed(c.delivery.locationId)].filter(Boolean) });
  }

  const lineViews: LineView[] = lines.map((l, i) => {
    const details: string[] = [];
    if (l.item?.description) details.push(clip(l.item.description));
    if (l.item?.sellerId) details.push(`Seller's item id: ${clip(l.item.sellerId)}`);
    if (l.item?.buyerId) details.push(`Buyer's item id: ${clip(l.item.buyerId)}`);
    if (l.item?.standardId?.value) details.push(`Item id: ${clip(schemed(l.item.standardId))}`);
    const linePeriod = period(l.period?.start, l.period?.end);
    if (linePeriod) details.push(`Period: ${linePeriod}`);
    for (const ac of l.allowanceCharges ?? []) {
      details.push(`${ac.isCharge ? 'Charge' : 'Allowance'}${ac.reason ? ` (${clip(ac.reason)})` : ''}: ${money(ac.amount)}`);
    }
    if (l.note) details.push(clip(l.note));
    const base = l.price?.baseQuantity && l.price.baseQuantity !== '1' ? ` per ${formatNumber(l.price.baseQuantity)}` : '';
    return {
      id: clip(l.id) || String(i + 1),
      name: clip(l.item?.name),
      details,
      quantity: formatNumber(l.quantity),
      unit: clip(l.unit),
      price: `${money(l.price?.netPrice)}${base}`,
      vat: vatLabel(l.vat?.category, l.vat?.rate),
      net: money(l.netAmount),
    };
  });

  const allowanceCharges: AllowanceChargeView[] = (c.allowanceCharges ?? []).map((ac) => ({
    kind: ac.isCharge ? 'Charge' : 'Allowance',
    reason: clip([ac.reason, ac.reasonCode && `(${ac.reasonCode})`].filter(Boolean).join(' ')),
    vat: vatLabel(ac.vatCategory, ac.vatRate),
    amount: money(ac.amount),
  }));

  const vat: VatRowView[] = (c.vatBreakdown ?? []).map((b) => ({
    category: `${b.category}${VAT_CATEGORY_NAMES[b.category] ? ` (${VAT_CATEGORY_NAMES[b.category]})` : ''}`,
    rate: formatRate(b.rate),
    taxable: money(b.taxableAmount),
    tax: money(b.taxAmount),
    exemption: clip([b.exemptionReason, b.exemptionCode].filter(Boolean).join(' ')),
  }));

  const t = c.totals ?? {};
  const totals: Fact[] = [];
  const pushTotal = (label: string, value: string | undefined): void => { if (value !== undefined && value !== '') totals.push([label, money(value)]); };
  pushTotal('Sum of line net amounts', t.lineNetTotal);
  pushTotal('Allowances', t.allowanceTotal);
  pushTotal('Charges', t.chargeTotal);
  pushTotal('Total without VAT', t.taxExclusive);
  pushTotal('VAT', t.vatTotal);
  if (t.vatTotalAccountingCurrency !== undefined && c.vatAccountingCurrency) totals.push([`VAT in ${c.vatAccountingCurrency}`, formatAmount(t.vatTotalAccountingCurrency, c.vatAccountingCurrency)]);
  pushTotal('Total with VAT', t.taxInclusive);
  pushTotal('Paid', t.prepaid);
  pushTotal('Rounding', t.rounding);
  pushTotal('Amount due', t.payable);

  const payment: Fact[] = [];
  const pushPayment = (label: string, value: string | undefined): void => { if (value) payment.push([label, clip(value)]); };
  pushPayment('Payment terms', c.paymentTerms);
  const pi = c.paymentInstructions;
  if (pi) {
    pushPayment('Payment means', [PAYMENT_MEANS[pi.meansCode] ?? `Code ${pi.meansCode}`, pi.meansText && pi.meansText !== PAYMENT_MEANS[pi.meansCode] ? `(${pi.meansText})` : ''].filter(Boolean).join(' '));
    pushPayment('Remittance information', pi.remittanceInformation);
    for (const ct of pi.creditTransfers ?? []) {
      pushPayment('Account', [ct.accountId, ct.serviceProviderId && `BIC ${ct.serviceProviderId}`, ct.accountName].filter(Boolean).join(', '));
    }
    if (pi.card) pushPayment('Card', [pi.card.accountNumber, pi.card.network, pi.card.holderName].filter(Boolean).join(', '));
    if (pi.directDebit) pushPayment('Direct debit', [pi.directDebit.mandateReference && `mandate ${pi.directDebit.mandateReference}`, pi.directDebit.debitedAccountId && `account ${pi.directDebit.debitedAccountId}`].filter(Boolean).join(', '));
  }

  const notes = (c.notes ?? []).map((n) => clip(n?.text)).filter(Boolean);
  return { title, number: clip(c.number), currency, facts, parties, lines: lineViews, allowanceCharges, vat, totals, payment, notes };
}
