/**
 * ZUGFeRD 1.0 `rsm:CrossIndustryDocument` (FeRD 2014: BASIC, COMFORT, EXTENDED) → canonical EN 16931.
 *
 * ZUGFeRD 1.0 predates EN 16931: it is a CII profile of 2013 with its own root namespace, RABIE 12 /
 * UDT 15 libraries and some other element names (`HeaderExchangedDocument`, `ApplicableSupplyChain*`,
 * `ApplicablePercent`, `ram:ID` on referenced documents …). The mapping, business term by business
 * term, and what ZUGFeRD 1.0 has no place for are in README.md beside this file. The caller's bytes
 * stay untouched beside the canonical view; the canonical keeps BT-24 as the document states it
 * (the ZUGFeRD 1.0 guideline), and delivery.ts derives the EN 16931 CII or UBL actually delivered.
 *
 * A document the canonical model cannot hold is refused with every problem at once (MappingError,
 * a 400 at the API): no or a foreign guideline, an unknown profile, no invoice number, issue date
 * or currency, no seller or buyer name. Everything else EN 16931 asks for is left to its rules,
 * run on the derived form.
 */
import type {
  Address, AllowanceCharge, Attachment, CanonicalInvoice, Contact, CreditTransfer, Line, Note, Party, PaymentInstructions,
  SchemedId, VatBreakdown,
} from '../canonical/model.ts';
import { CREDIT_NOTE_TYPE_CODES, CURRENCY_CODES } from '../canonical/codes.ts';
import { dec } from '../canonical/decimal.ts';
import { IssueCollector, MappingError } from '../errors.ts';
import { defined, nonEmpty } from '../canonical/object.ts';
import type { ParsedDocument } from '../ubl-2.1/to-canonical.ts';
import { attr, at, kid, kids, readTree, txt } from '../xml/tree.ts';
import type { XEl } from '../xml/tree.ts';
import { address, contact, identifiers, schemed } from '../cii-d16b/trade-parties.ts';
import { ZF1_GUIDELINE_PREFIX, ZF1_PROFILES, ZF1_RSM_NS, type Zugferd1Profile } from './namespaces.ts';

/** Where each refused fact sits in the caller's document (the error's `field`). */
const PATH = {
  guideline: 'rsm:SpecifiedExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID',
  number: 'rsm:HeaderExchangedDocument/ram:ID',
  issueDate: 'rsm:HeaderExchangedDocument/ram:IssueDateTime/udt:DateTimeString',
  currency: 'rsm:SpecifiedSupplyChainTradeTransaction/ram:ApplicableSupplyChainTradeSettlement/ram:InvoiceCurrencyCode',
  seller: 'rsm:SpecifiedSupplyChainTradeTransaction/ram:ApplicableSupplyChainTradeAgreement/ram:SellerTradeParty/ram:Name',
  buyer: 'rsm:SpecifiedSupplyChainTradeTransaction/ram:ApplicableSupplyChainTradeAgreement/ram:BuyerTradeParty/ram:Name',
} as const;

/** The profile a ZUGFeRD 1.0 guideline id names, or why it names none. */
export function zugferd1ProfileOf(guideline: string | undefined): { profile: Zugferd1Profile } | { problem: 'missing' | 'foreign' | 'unknown-profile' } {
  const g = guideline?.trim();
  if (!g) return { problem: 'missing' };
  if (!g.startsWith(ZF1_GUIDELINE_PREFIX)) return { problem: 'foreign' };
  const profile = g.slice(ZF1_GUIDELINE_PREFIX.length);
  return (ZF1_PROFILES as readonly string[]).includes(profile) ? { profile: profile as Zugferd1Profile } : { problem: 'unknown-profile' };
}

/** udt:DateTimeString format 102 (the only format ZUGFeRD 1.0 allows) → YYYY-MM-DD, else undefined. */
function zf1Date(el: XEl | undefined): string | undefined {
  const s = el ? txt(el, 'DateTimeString') ?? el.text.trim() : undefined;
  const m = s ? /^(\d{4})(\d{2})(\d{2})$/.exec(s) : null;
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1 || d > new Date(Date.UTC(y, mo, 0)).getUTCDate()) return undefined;
  return `${m[1]}-${m[2]}-${m[3]}`;
}

/** A referenced document's plain xs:dateTime (`2013-08-01T00:00:00`) → its date. */
function plainDate(el: XEl | undefined): string | undefined {
  return /^(\d{4}-\d{2}-\d{2})/.exec(el?.text.trim() ?? '')?.[1];
}

function party(p: XEl | undefined, isSeller: boolean): Party {
  let vatId: string | undefined;
  let taxRegistrationId: string | undefined;
  for (const reg of kids(p, 'SpecifiedTaxRegistration')) {
    const scheme = attr(kid(reg, 'ID'), 'schemeID');
    if (scheme === 'VA') vatId ??= txt(reg, 'ID');
    else if (scheme === 'FC' && isSeller) taxRegistrationId ??= txt(reg, 'ID');
  }
  return defined<Party>({
    name: txt(p, 'Name') ?? '',
    identifiers: identifiers(p),
    vatId,
    taxRegistrationId,
    address: address(kid(p, 'PostalTradeAddress')),
    contact: contact(kid(p, 'DefinedTradeContact')),
  });
}

/** The VAT TradeTax of an allowance, charge or line (ZUGFeRD 1.0 names the rate ApplicablePercent). */
function vatOf(taxes: XEl[]): XEl | undefined {
  return taxes.find((t) => (txt(t, 'TypeCode') ?? 'VAT') === 'VAT');
}

function allowanceCharge(el: XEl, documentLevel: boolean): AllowanceCharge {
  const tax = vatOf(kids(el, 'CategoryTradeTax'));
  return defined<AllowanceCharge>({
    isCharge: txt(el, 'ChargeIndicator', 'Indicator') === 'true',
    amount: txt(el, 'ActualAmount') ?? '0',
    baseAmount: txt(el, 'BasisAmount'),
    percentage: txt(el, 'CalculationPercent'),
    vatCategory: documentLevel ? txt(tax, 'CategoryCode') : undefined,
    vatRate: documentLevel ? txt(tax, 'ApplicablePercent') : undefined,
    reason: txt(el, 'Reason'),
    reasonCode: txt(el, 'ReasonCode'),
  });
}

/** A SpecifiedLogisticsServiceCharge (freight, packing …) is a document level charge (BG-21). */
function logisticsCharge(el: XEl): AllowanceCharge {
  const tax = vatOf(kids(el, 'AppliedTradeTax'));
  return defined<AllowanceCharge>({
    isCharge: true,
    amount: txt(el, 'AppliedAmount') ?? '0',
    vatCategory: txt(tax, 'CategoryCode'),
    vatRate: txt(tax, 'ApplicablePercent'),
    reason: kids(el, 'Description').map((d) => d.text.trim()).filter(Boolean).join(' ') || undefined,
  });
}

function noteText(n: XEl): string | undefined {
  return kids(n, 'Content').map((c) => c.text.trim()).filter(Boolean).join('\n') || undefined;
}

/** A line that bills something: a product, a quantity or a line amount (free-text lines have none). */
function isBillingLine(el: XEl): boolean {
  return kid(el, 'SpecifiedTradeProduct') !== undefined
    || at(el, 'SpecifiedSupplyChainTradeDelivery', 'BilledQuantity') !== undefined
    || at(el, 'SpecifiedSupplyChainTradeSettlement', 'SpecifiedTradeSettlementMonetarySummation', 'LineTotalAmount') !== undefined;
}

/** BT-147: what the gross price loses to reach the net price (ZUGFeRD 1.0 may list several price allowances). */
function priceDiscount(gross: string | undefined, net: string | undefined): string | undefined {
  if (gross === undefined || net === undefined) return undefined;
  try {
    const d = dec(gross).minus(net);
    return d.isZero() ? undefined : d.toFixed();
  } catch {
    return undefined;
  }
}

function line(el: XEl, position: number, breakdown: VatBreakdown[]): Line {
  const docLine = kid(el, 'AssociatedDocumentLineDocument');
  const product = kid(el, 'SpecifiedTradeProduct');
  const agreement = kid(el, 'SpecifiedSupplyChainTradeAgreement');
  const delivery = kid(el, 'SpecifiedSupplyChainTradeDelivery');
  const settlement = kid(el, 'SpecifiedSupplyChainTradeSettlement');
  const tax = vatOf(kids(settlement, 'ApplicableTradeTax'));
  const gross = kid(agreement, 'GrossPriceProductTradePrice');
  const net = kid(agreement, 'NetPriceProductTradePrice');
  const qty = kid(delivery, 'BilledQuantity');
  const baseQty = kid(net, 'BasisQuantity') ?? kid(gross, 'BasisQuantity');
  const category = txt(tax, 'CategoryCode') ?? '';
  const rate = txt(tax, 'ApplicablePercent');
  const bucket = breakdown.find((b) => b.category === category && (b.rate === undefined || rate === undefined ? b.rate === rate : Number(b.rate) === Number(rate)));
  const period = kid(settlement, 'BillingSpecifiedPeriod');
  const netPrice = txt(net, 'ChargeAmount');
  const grossPrice = txt(gross, 'ChargeAmount');
  return defined<Line>({
    id: txt(docLine, 'LineID') ?? String(position),
    note: kids(docLine, 'IncludedNote').map(noteText).filter(Boolean).join('\n') || undefined,
    quantity: qty?.text.trim() ?? '0',
    unit: attr(qty, 'unitCode') ?? '',
    netAmount: txt(settlement, 'SpecifiedTradeSettlementMonetarySummation', 'LineTotalAmount') ?? '0',
    orderLineReference: txt(agreement, 'BuyerOrderReferencedDocument', 'LineID'),
    accountingCost: txt(settlement, 'ReceivableSpecifiedTradeAccountingAccount', 'ID'),
    period: period ? nonEmpty({ start: zf1Date(kid(period, 'StartDateTime')), end: zf1Date(kid(period, 'EndDateTime')) }) : undefined,
    allowanceCharges: kids(settlement, 'SpecifiedTradeAllowanceCharge').map((ac) => allowanceCharge(ac, false)),
    price: defined({
      netPrice: netPrice ?? grossPrice ?? '0',
      discount: netPrice !== undefined ? priceDiscount(grossPrice, netPrice) : undefined,
      grossPrice: netPrice !== undefined ? grossPrice : undefined,
      baseQuantity: baseQty?.text.trim() || undefined,
      baseUnit: attr(baseQty, 'unitCode'),
    }),
    vat: defined({ category, rate, exemptionReason: bucket?.exemptionReason }),
    item: defined({
      name: kids(product, 'Name').map((n) => n.text.trim()).find(Boolean) ?? '',
      description: kids(product, 'Description').map((n) => n.text.trim()).filter(Boolean).join('\n') || undefined,
      sellerId: txt(product, 'SellerAssignedID'),
      buyerId: txt(product, 'BuyerAssignedID'),
      standardId: schemed(kid(product, 'GlobalID')),
      classifications: kids(product, 'DesignatedProductClassification').map((c) => kid(c, 'ClassCode')).filter((x): x is XEl => x !== undefined && x.text.trim() !== '')
        .map((c) => defined({ value: c.text.trim(), scheme: attr(c, 'listID') ?? '', version: attr(c, 'listVersionID') })),
      originCountry: txt(product, 'OriginTradeCountry', 'ID'),
      attributes: kids(product, 'ApplicableProductCharacteristic').filter((p) => txt(p, 'Value') !== undefined)
        .map((p) => ({ name: txt(p, 'Description') ?? txt(p, 'TypeCode') ?? '', value: txt(p, 'Value')! })),
    }),
  });
}

function paymentInstructions(settlement: XEl | undefined): PaymentInstructions | undefined {
  const means = kids(settlement, 'SpecifiedTradeSettlementPaymentMeans');
  const first = means[0];
  if (!first) return undefined;
  const creditTransfers: CreditTransfer[] = [];
  for (const pm of means) {
    const acct = kid(pm, 'PayeePartyCreditorFinancialAccount');
    // An IBAN is an identifier: the print grouping ("DE88 2008 …") is not part of it.
    const id = txt(acct, 'IBANID')?.replace(/\s+/g, '') ?? txt(acct, 'ProprietaryID');
    if (id) creditTransfers.push(defined({ accountId: id, accountName: txt(acct, 'AccountName'), serviceProviderId: txt(pm, 'PayeeSpecifiedCreditorFinancialInstitution', 'BICID') }));
  }
  const debited = txt(first, 'PayerPartyDebtorFinancialAccount', 'IBANID')?.replace(/\s+/g, '');
  return defined<PaymentInstructions>({
    meansCode: txt(first, 'TypeCode') ?? '',
    meansText: kids(first, 'Information').map((i) => i.text.trim()).filter(Boolean).join(' ') || undefined,
    remittanceInformation: txt(settlement, 'PaymentReference'),
    creditTransfers,
    directDebit: debited ? { debitedAccountId: debited } : undefined,
  });
}

/** Refuses what the canonical model cannot hold, every problem at once. */
function checkMandatory(root: XEl): void {
  const issues = new IssueCollector();
  const guideline = txt(root, 'SpecifiedExchangedDocumentContext', 'GuidelineSpecifiedDocumentContextParameter', 'ID');
  const verdict = zugferd1ProfileOf(guideline);
  if ('problem' in verdict) {
    if (verdict.problem === 'missing') issues.add('MISSING_FIELD', PATH.guideline, 'zugferd-1-guideline', 'The ZUGFeRD 1.0 guideline (GuidelineSpecifiedDocumentContextParameter/ID) is missing; it names the profile: urn:ferd:CrossIndustryDocument:invoice:1p0:basic, :comfort or :extended');
    else if (verdict.problem === 'foreign') issues.add('INVALID_REQUEST', PATH.guideline, 'zugferd-1-guideline', `The guideline "${guideline}" is not a ZUGFeRD 1.0 one (urn:ferd:CrossIndustryDocument:invoice:1p0:basic, :comfort or :extended) although the document is a ZUGFeRD 1.0 CrossIndustryDocument`);
    else issues.add('INVALID_ENUM', PATH.guideline, 'zugferd-1-profile', `Unknown ZUGFeRD 1.0 profile "${guideline!.slice(ZF1_GUIDELINE_PREFIX.length)}": expected basic, comfort or extended`);
  }
  const header = kid(root, 'HeaderExchangedDocument');
  if (!txt(header, 'ID')) issues.add('MISSING_FIELD', PATH.number, 'BT-1', 'The invoice number (BT-1, HeaderExchangedDocument/ID) is missing');
  const issue = at(header, 'IssueDateTime', 'DateTimeString');
  if (!issue?.text.trim()) issues.add('MISSING_FIELD', PATH.issueDate, 'BT-2', 'The issue date (BT-2, HeaderExchangedDocument/IssueDateTime) is missing');
  else if ((attr(issue, 'format') ?? '102') !== '102' || !zf1Date(kid(header, 'IssueDateTime'))) {
    issues.add('INVALID_DATE', PATH.issueDate, 'BT-2', `The issue date "${issue.text.trim()}" is not a calendar date in format 102 (YYYYMMDD)`);
  }
  const trx = kid(root, 'SpecifiedSupplyChainTradeTransaction');
  const currency = txt(trx, 'ApplicableSupplyChainTradeSettlement', 'InvoiceCurrencyCode');
  if (!currency) issues.add('MISSING_FIELD', PATH.currency, 'BT-5', 'The invoice currency (BT-5, InvoiceCurrencyCode) is missing');
  else if (!CURRENCY_CODES.has(currency)) issues.add('INVALID_CURRENCY', PATH.currency, 'BT-5', `The invoice currency "${currency}" is not an ISO 4217 code`);
  const agreement = kid(trx, 'ApplicableSupplyChainTradeAgreement');
  if (!txt(agreement, 'SellerTradeParty', 'Name')) issues.add('MISSING_FIELD', PATH.seller, 'BT-27', 'The seller name (BT-27, SellerTradeParty/Name) is missing');
  if (!txt(agreement, 'BuyerTradeParty', 'Name')) issues.add('MISSING_FIELD', PATH.buyer, 'BT-44', 'The buyer name (BT-44, BuyerTradeParty/Name) is missing');
  issues.throwIfAny();
}

/** Reads an already-parsed ZUGFeRD 1.0 tree (also used for the XML extracted from hybrid PDFs). */
export function zugferd1TreeToCanonical(root: XEl): CanonicalInvoice {
  if (root.name !== 'CrossIndustryDocument' || root.ns !== ZF1_RSM_NS) {
    throw new MappingError('INVALID_REQUEST', `Not a ZUGFeRD 1.0 CrossIndustryDocument (root {${root.ns}}${root.name})`, [
      { field: 'xml', rule: 'zugferd-1-root', message: `root must be CrossIndustryDocument in ${ZF1_RSM_NS}` },
    ]);
  }
  checkMandatory(root);
  const context = kid(root, 'SpecifiedExchangedDocumentContext');
  const header = kid(root, 'HeaderExchangedDocument');
  const trx = kid(root, 'SpecifiedSupplyChainTradeTransaction');
  // The schema lets ApplicableSupplyChainTradeAgreement repeat; the first one is the document's.
  const agreement = kid(trx, 'ApplicableSupplyChainTradeAgreement');
  const delivery = kid(trx, 'ApplicableSupplyChainTradeDelivery');
  const settlement = kid(trx, 'ApplicableSupplyChainTradeSettlement');
  const sums = kid(settlement, 'SpecifiedTradeSettlementMonetarySummation');
  const currency = txt(settlement, 'InvoiceCurrencyCode')!;
  const firstOf = (name: string) => {
    const all = kids(sums, name);
    return (all.find((t) => attr(t, 'currencyID') === currency) ?? all.find((t) => attr(t, 'currencyID') === undefined) ?? all[0])?.text.trim() || undefined;
  };
  const vatBreakdown: VatBreakdown[] = kids(settlement, 'ApplicableTradeTax').filter((t) => (txt(t, 'TypeCode') ?? 'VAT') === 'VAT').map((t) => defined<VatBreakdown>({
    taxableAmount: txt(t, 'BasisAmount') ?? '0',
    taxAmount: txt(t, 'CalculatedAmount') ?? '0',
    category: txt(t, 'CategoryCode') ?? '',
    rate: txt(t, 'ApplicablePercent'),
    exemptionReason: txt(t, 'ExemptionReason'),
  }));

  const notes: Note[] = kids(header, 'IncludedNote').map((n) => ({ n, text: noteText(n) })).filter((x) => x.text)
    .map(({ n, text }) => defined({ subjectCode: txt(n, 'SubjectCode'), text: text! }));
  const lineItems = kids(trx, 'IncludedSupplyChainTradeLineItem');
  const billing = lineItems.filter(isBillingLine);
  // A free-text line bills nothing and EN 16931 has no line for it: its text becomes an invoice note.
  for (const free of lineItems) {
    if (billing.includes(free)) continue;
    for (const n of kids(kid(free, 'AssociatedDocumentLineDocument'), 'IncludedNote')) {
      const text = noteText(n);
      if (text) notes.push(defined({ subjectCode: txt(n, 'SubjectCode'), text }));
    }
  }

  const refs = kids(agreement, 'AdditionalReferencedDocument');
  // UNCL 1153 qualifiers: VN is the seller's order number (BT-14); others are supporting documents.
  const salesOrder = refs.find((r) => txt(r, 'TypeCode') === 'VN' && txt(r, 'ID'));
  const attachments: Attachment[] = refs.filter((r) => r !== salesOrder && txt(r, 'ID')).map((r) => defined<Attachment>({
    id: txt(r, 'ID')!,
    description: [txt(r, 'TypeCode') && `reference type ${txt(r, 'TypeCode')}`, plainDate(kid(r, 'IssueDateTime')) && `dated ${plainDate(kid(r, 'IssueDateTime'))}`].filter(Boolean).join(', ') || undefined,
  }));
  const terms = kids(settlement, 'SpecifiedTradePaymentTerms');
  const paymentTerms = terms.flatMap((t) => kids(t, 'Description').map((d) => d.text.trim())).filter(Boolean).join('\n');
  const shipTo = kid(delivery, 'ShipToTradeParty');
  const payee = kid(settlement, 'PayeeTradeParty');
  const billingPeriod = kid(settlement, 'BillingSpecifiedPeriod');
  const typeCode = txt(header, 'TypeCode');

  const c: CanonicalInvoice = defined<CanonicalInvoice>({
    kind: typeCode !== undefined && CREDIT_NOTE_TYPE_CODES.has(typeCode) ? 'credit-note' : 'invoice',
    customizationId: txt(context, 'GuidelineSpecifiedDocumentContextParameter', 'ID')!,
    profileId: txt(context, 'BusinessProcessSpecifiedDocumentContextParameter', 'ID'),
    number: txt(header, 'ID')!,
    issueDate: zf1Date(kid(header, 'IssueDateTime'))!,
    typeCode,
    currency,
    dueDate: terms.map((t) => zf1Date(kid(t, 'DueDateDateTime'))).find(Boolean),
    buyerReference: txt(agreement, 'BuyerReference'),
    contractReference: txt(agreement, 'ContractReferencedDocument', 'ID'),
    orderReference: txt(agreement, 'BuyerOrderReferencedDocument', 'ID'),
    salesOrderReference: txt(salesOrder, 'ID'),
    receivingAdviceReference: txt(delivery, 'ReceivingAdviceReferencedDocument', 'ID'),
    // A German Lieferschein (delivery note) is the despatch advice EN 16931 references.
    despatchAdviceReference: txt(delivery, 'DespatchAdviceReferencedDocument', 'ID') ?? txt(delivery, 'DeliveryNoteReferencedDocument', 'ID'),
    buyerAccountingReference: txt(settlement, 'ReceivableSpecifiedTradeAccountingAccount', 'ID'),
    paymentTerms: paymentTerms || undefined,
    notes,
    seller: party(kid(agreement, 'SellerTradeParty'), true),
    buyer: party(kid(agreement, 'BuyerTradeParty'), false),
    payee: payee && txt(payee, 'Name') ? defined({ name: txt(payee, 'Name')!, identifier: identifiers(payee)[0] }) : undefined,
    delivery: nonEmpty({
      partyName: txt(shipTo, 'Name'),
      locationId: schemed(kid(shipTo, 'GlobalID')) ?? schemed(kid(shipTo, 'ID')),
      actualDeliveryDate: zf1Date(at(delivery, 'ActualDeliverySupplyChainEvent', 'OccurrenceDateTime')),
      address: address(kid(shipTo, 'PostalTradeAddress')),
    }),
    invoicingPeriod: nonEmpty({ start: zf1Date(kid(billingPeriod, 'StartDateTime')), end: zf1Date(kid(billingPeriod, 'EndDateTime')) }),
    paymentInstructions: paymentInstructions(settlement),
    allowanceCharges: [
      ...kids(settlement, 'SpecifiedTradeAllowanceCharge').map((ac) => allowanceCharge(ac, true)),
      ...kids(settlement, 'SpecifiedLogisticsServiceCharge').map(logisticsCharge),
    ],
    totals: defined({
      lineNetTotal: firstOf('LineTotalAmount'),
      allowanceTotal: firstOf('AllowanceTotalAmount'),
      chargeTotal: firstOf('ChargeTotalAmount'),
      taxExclusive: firstOf('TaxBasisTotalAmount'),
      vatTotal: firstOf('TaxTotalAmount'),
      taxInclusive: firstOf('GrandTotalAmount'),
      prepaid: firstOf('TotalPrepaidAmount'),
      payable: firstOf('DuePayableAmount'),
    }),
    vatBreakdown,
    attachments,
    lines: billing.map((l, i) => line(l, i + 1, vatBreakdown)),
  });
  c.lines ??= [];
  c.vatBreakdown ??= [];
  return c;
}

/** Parses a ZUGFeRD 1.0 CrossIndustryDocument; the original bytes travel unchanged beside the canonical view. */
export function zugferd1ToCanonical(xml: string | Buffer): ParsedDocument {
  const root = readTree(xml, 'ZUGFeRD 1.0 document');
  return { canonical: zugferd1TreeToCanonical(root), original: xml, syntax: 'zugferd-1' };
}
