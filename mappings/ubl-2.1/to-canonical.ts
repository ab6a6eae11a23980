/**
 * UBL 2.1 Invoice / CreditNote → canonical EN 16931 (Peppol BIS 3.0 binding). The caller's bytes
 * are kept untouched beside the canonical view: the legal record is the XML that was sent.
 */
import type {
  Address, AllowanceCharge, Attachment, CanonicalInvoice, Contact, CreditTransfer, Line, Party, PaymentInstructions,
  Period, SchemedId, VatBreakdown,
} from '../canonical/model.ts';
import { MappingError } from '../errors.ts';
import { defined, nonEmpty } from '../canonical/object.ts';
import { attr, at, kid, kids, readTree, txt } from '../xml/tree.ts';
import type { XEl } from '../xml/tree.ts';
import { UBL_CREDIT_NOTE_NS, UBL_INVOICE_NS } from './namespaces.ts';

/** A document read from the caller's syntax: the canonical view plus the original, untouched. */
export interface ParsedDocument {
  canonical: CanonicalInvoice;
  /** Exactly what the caller passed (same string or same Buffer). */
  original: string | Buffer;
  /** The syntax read; `zugferd-1` documents are delivered in a derived EN 16931 form (zugferd-1/delivery.ts). */
  syntax: 'ubl-2.1' | 'cii-d16b' | 'zugferd-1';
}


function schemed(el: XEl | undefined, schemeAttr = 'schemeID'): SchemedId | undefined {
  const value = el?.text.trim();
  if (!el || !value) return undefined;
  return defined({ value, scheme: attr(el, schemeAttr) });
}

function period(el: XEl | undefined, withCode: boolean): Period | undefined {
  if (!el) return undefined;
  return nonEmpty<Period>({ start: txt(el, 'StartDate'), end: txt(el, 'EndDate'), descriptionCode: withCode ? txt(el, 'DescriptionCode') : undefined });
}

export function readUblAddress(el: XEl | undefined): Address | undefined {
  if (!el) return undefined;
  return nonEmpty<Address>({
    line1: txt(el, 'StreetName'),
    line2: txt(el, 'AdditionalStreetName'),
    line3: txt(el, 'AddressLine', 'Line'),
    city: txt(el, 'CityName'),
    postalCode: txt(el, 'PostalZone'),
    subdivision: txt(el, 'CountrySubentity'),
    country: txt(el, 'Country', 'IdentificationCode'),
  });
}

function contact(el: XEl | undefined): Contact | undefined {
  if (!el) return undefined;
  return nonEmpty<Contact>({ name: txt(el, 'Name'), phone: txt(el, 'Telephone'), email: txt(el, 'ElectronicMail') });
}

function party(wrapper: XEl | undefined, isSeller: boolean): Party {
  const p = kid(wrapper, 'Party');
  let vatId: string | undefined;
  let taxRegistrationId: string | undefined;
  for (const ts of kids(p, 'PartyTaxScheme')) {
    const id = txt(ts, 'CompanyID');
    if (txt(ts, 'TaxScheme', 'ID') === 'VAT') vatId ??= id;
    else if (isSeller) taxRegistrationId ??= id; // BT-32 exists for the seller only
  }
  const legal = kid(p, 'PartyLegalEntity');
  const identifiers = kids(p, 'PartyIdentification').map((pi) => schemed(kid(pi, 'ID'))).filter((x): x is SchemedId => x !== undefined);
  return defined<Party>({
    name: txt(legal, 'RegistrationName') ?? txt(p, 'PartyName', 'Name') ?? '',
    tradingName: txt(p, 'PartyName', 'Name'),
    identifiers,
    legalRegistration: schemed(kid(legal, 'CompanyID')),
    vatId,
    taxRegistrationId,
    additionalLegalInfo: isSeller ? txt(legal, 'CompanyLegalForm') : undefined,
    electronicAddress: schemed(kid(p, 'EndpointID')),
    address: readUblAddress(kid(p, 'PostalAddress')),
    contact: contact(kid(p, 'Contact')),
  });
}

function allowanceCharge(el: XEl, documentLevel: boolean): AllowanceCharge {
  const cat = kid(el, 'TaxCategory');
  return defined<AllowanceCharge>({
    isCharge: txt(el, 'ChargeIndicator') === 'true',
    amount: txt(el, 'Amount') ?? '0',
    baseAmount: txt(el, 'BaseAmount'),
    percentage: txt(el, 'MultiplierFactorNumeric'),
    vatCategory: documentLevel ? txt(cat, 'ID') : undefined,
    vatRate: documentLevel ? txt(cat, 'Percent') : undefined,
    reason: txt(el, 'AllowanceChargeReason'),
    reasonCode: txt(el, 'AllowanceChargeReasonCode'),
  });
}

function paymentInstructions(root: XEl): PaymentInstructions | undefined {
  const means = kids(root, 'PaymentMeans');
  const first = means[0];
  if (!first) return undefined;
  const code = kid(first, 'PaymentMeansCode');
  const creditTransfers: CreditTransfer[] = [];
  for (const pm of means) {
    const acct = kid(pm, 'PayeeFinancialAccount');
    const id = txt(acct, 'ID');
    if (acct && id) creditTransfers.push(defined({ accountId: id, accountName: txt(acct, 'Name'), serviceProviderId: txt(acct, 'FinancialInstitutionBranch', 'ID') }));
  }
  const card = kid(first, 'CardAccount');
  const mandate = kid(first, 'PaymentMandate');
  return defined<PaymentInstructions>({
    meansCode: code?.text.trim() ?? '',
    meansText: attr(code, 'name'),
    remittanceInformation: txt(first, 'PaymentID'),
    creditTransfers,
    card: card ? defined({ accountNumber: txt(card, 'PrimaryAccountNumberID') ?? '', network: txt(card, 'NetworkID'), holderName: txt(card, 'HolderName') }) : undefined,
    directDebit: mandate ? nonEmpty({ mandateReference: txt(mandate, 'ID'), debitedAccountId: txt(mandate, 'PayerFinancialAccount', 'ID') }) : undefined,
  });
}

function note(text: string): { subjectCode?: string; text: string } {
  // Peppol convention: a leading #CODE# carries the UNCL4451 subject code (BT-21).
  const m = /^#([A-Z0-9]{3})#([\s\S]*)$/.exec(text);
  return m?.[1] !== undefined && m[2] !== undefined ? { subjectCode: m[1], text: m[2] } : { text };
}

function line(el: XEl, isCredit: boolean, breakdown: VatBreakdown[]): Line {
  const qty = kid(el, isCredit ? 'CreditedQuantity' : 'InvoicedQuantity') ?? kid(el, 'InvoicedQuantity') ?? kid(el, 'CreditedQuantity');
  const item = kid(el, 'Item');
  const taxCat = kid(item, 'ClassifiedTaxCategory');
  const price = kid(el, 'Price');
  const priceAc = kid(price, 'AllowanceCharge');
  const baseQty = kid(price, 'BaseQuantity');
  const category = txt(taxCat, 'ID') ?? '';
  const rate = txt(taxCat, 'Percent');
  // BT-120/121 live on the breakdown; the line repeats its bucket's values.
  const bucket = breakdown.find((b) => b.category === category && sameRate(b.rate, rate));
  const despatch = kid(el, 'DespatchLineReference');
  const objectRef = kids(el, 'DocumentReference').find((d) => txt(d, 'DocumentTypeCode') === '130') ?? kid(el, 'DocumentReference');
  const despatchLine = txt(despatch, 'LineID');
  return defined<Line>({
    id: txt(el, 'ID'),
    note: txt(el, 'Note'),
    objectIdentifier: schemed(kid(objectRef, 'ID')),
    quantity: qty?.text.trim() ?? '0',
    unit: attr(qty, 'unitCode') ?? '',
    netAmount: txt(el, 'LineExtensionAmount') ?? '0',
    orderLineReference: txt(el, 'OrderLineReference', 'LineID'),
    accountingCost: txt(el, 'AccountingCost'),
    period: period(kid(el, 'InvoicePeriod'), false),
    allowanceCharges: kids(el, 'AllowanceCharge').map((ac) => allowanceCharge(ac, false)),
    price: defined({
      netPrice: txt(price, 'PriceAmount') ?? '0',
      discount: priceAc ? txt(priceAc, 'Amount') : undefined,
      grossPrice: priceAc ? txt(priceAc, 'BaseAmount') : undefined,
      baseQuantity: baseQty?.text.trim() || undefined,
      baseUnit: attr(baseQty, 'unitCode'),
    }),
    vat: defined({ category, rate, exemptionReason: bucket?.exemptionReason, exemptionCode: bucket?.exemptionCode }),
    item: defined({
      name: txt(item, 'Name') ?? '',
      description: txt(item, 'Description'),
      sellerId: txt(item, 'SellersItemIdentification', 'ID'),
      buyerId: txt(item, 'BuyersItemIdentification', 'ID'),
      standardId: schemed(at(item, 'StandardItemIdentification', 'ID')),
      classifications: kids(item, 'CommodityClassification').map((cc) => kid(cc, 'ItemClassificationCode')).filter((x): x is XEl => x !== undefined)
        .map((c) => defined({ value: c.text.trim(), scheme: attr(c, 'listID') ?? '', version: attr(c, 'listVersionID') })),
      originCountry: txt(item, 'OriginCountry', 'IdentificationCode'),
      attributes: kids(item, 'AdditionalItemProperty').map((p) => ({ name: txt(p, 'Name') ?? '', value: txt(p, 'Value') ?? '' })),
    }),
    despatchAdviceReference: txt(despatch, 'DocumentReference', 'ID'),
    despatchAdviceLineReference: despatchLine === 'NA' ? undefined : despatchLine,
  });
}

function sameRate(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return Number(a) === Number(b);
}

/** Reads an already-parsed UBL tree (also used for UBL found inside hybrid PDFs). */
export function ublTreeToCanonical(root: XEl): CanonicalInvoice {
  const isCredit = root.name === 'CreditNote';
  if ((root.name !== 'Invoice' && !isCredit) || (root.ns !== UBL_INVOICE_NS && root.ns !== UBL_CREDIT_NOTE_NS)) {
    throw new MappingError('INVALID_REQUEST', `Not a UBL 2.1 Invoice or CreditNote (root {${root.ns}}${root.name})`, [
      { field: 'xml', rule: 'ubl-root', message: 'root must be Invoice or CreditNote in the UBL 2.1 namespace' },
    ]);
  }
  const currency = txt(root, 'DocumentCurrencyCode') ?? '';
  const taxCurrency = txt(root, 'TaxCurrencyCode');
  const taxTotals = kids(root, 'TaxTotal');
  const mainTax = taxTotals.find((t) => attr(kid(t, 'TaxAmount'), 'currencyID') === currency) ?? taxTotals.find((t) => kid(t, 'TaxSubtotal')) ?? taxTotals[0];
  const accountingTax = taxCurrency && taxCurrency !== currency ? taxTotals.find((t) => t !== mainTax && attr(kid(t, 'TaxAmount'), 'currencyID') === taxCurrency) : undefined;
  const vatBreakdown: VatBreakdown[] = kids(mainTax, 'TaxSubtotal').map((st) => {
    const cat = kid(st, 'TaxCategory');
    return defined<VatBreakdown>({
      taxableAmount: txt(st, 'TaxableAmount') ?? '0',
      taxAmount: txt(st, 'TaxAmount') ?? '0',
      category: txt(cat, 'ID') ?? '',
      rate: txt(cat, 'Percent'),
      exemptionReason: txt(cat, 'TaxExemptionReason'),
      exemptionCode: txt(cat, 'TaxExemptionReasonCode'),
    });
  });
  const lmt = kid(root, 'LegalMonetaryTotal');
  const order = kid(root, 'OrderReference');
  const orderId = txt(order, 'ID');
  const salesOrder = txt(order, 'SalesOrderID');
  const docRefs = kids(root, 'AdditionalDocumentReference');
  const objectRef = docRefs.find((d) => txt(d, 'DocumentTypeCode') === '130');
  const projectRef = isCredit ? docRefs.find((d) => txt(d, 'DocumentTypeCode') === '50') : undefined;
  const attachments: Attachment[] = docRefs.filter((d) => d !== objectRef && d !== projectRef).map((d) => {
    const bin = at(d, 'Attachment', 'EmbeddedDocumentBinaryObject');
    return defined<Attachment>({
      id: txt(d, 'ID') ?? '',
      description: txt(d, 'DocumentDescription'),
      uri: txt(d, 'Attachment', 'ExternalReference', 'URI'),
      content: bin ? { base64: bin.text.trim(), mimeCode: attr(bin, 'mimeCode') ?? '', filename: attr(bin, 'filename') ?? '' } : undefined,
    });
  });
  const payee = kid(root, 'PayeeParty');
  const taxRep = kid(root, 'TaxRepresentativeParty');
  const delivery = kid(root, 'Delivery');
  const dueDate = isCredit ? kids(root, 'PaymentMeans').map((pm) => txt(pm, 'PaymentDueDate')).find(Boolean) : txt(root, 'DueDate');
  const paymentTerms = kids(root, 'PaymentTerms').map((pt) => txt(pt, 'Note')).filter(Boolean).join('\n');

  const c: CanonicalInvoice = defined<CanonicalInvoice>({
    kind: isCredit ? 'credit-note' : 'invoice',
    customizationId: txt(root, 'CustomizationID') ?? '',
    profileId: txt(root, 'ProfileID'),
    number: txt(root, 'ID') ?? '',
    issueDate: txt(root, 'IssueDate') ?? '',
    typeCode: txt(root, isCredit ? 'CreditNoteTypeCode' : 'InvoiceTypeCode'),
    currency,
    vatAccountingCurrency: taxCurrency,
    taxPointDate: txt(root, 'TaxPointDate'),
    dueDate,
    buyerReference: txt(root, 'BuyerReference'),
    projectReference: isCredit ? txt(projectRef, 'ID') : txt(root, 'ProjectReference', 'ID'),
    contractReference: txt(root, 'ContractDocumentReference', 'ID'),
    orderReference: orderId === 'NA' && salesOrder !== undefined ? undefined : orderId,
    salesOrderReference: salesOrder,
    receivingAdviceReference: txt(root, 'ReceiptDocumentReference', 'ID'),
    despatchAdviceReference: txt(root, 'DespatchDocumentReference', 'ID'),
    tenderReference: txt(root, 'OriginatorDocumentReference', 'ID'),
    invoicedObjectIdentifier: schemed(kid(objectRef, 'ID')),
    buyerAccountingReference: txt(root, 'AccountingCost'),
    paymentTerms: paymentTerms || undefined,
    notes: kids(root, 'Note').map((n) => n.text.trim()).filter(Boolean).map(note),
    precedingInvoices: kids(root, 'BillingReference').map((b) => kid(b, 'InvoiceDocumentReference')).filter((x): x is XEl => x !== undefined)
      .map((r) => defined({ number: txt(r, 'ID') ?? '', issueDate: txt(r, 'IssueDate') })),
    seller: party(kid(root, 'AccountingSupplierParty'), true),
    buyer: party(kid(root, 'AccountingCustomerParty'), false),
    payee: payee ? defined({
      name: txt(payee, 'PartyName', 'Name') ?? '',
      identifier: schemed(at(payee, 'PartyIdentification', 'ID')),
      legalRegistration: schemed(at(payee, 'PartyLegalEntity', 'CompanyID')),
    }) : undefined,
    taxRepresentative: taxRep ? {
      name: txt(taxRep, 'PartyName', 'Name') ?? '',
      vatId: txt(taxRep, 'PartyTaxScheme', 'CompanyID') ?? '',
      address: readUblAddress(kid(taxRep, 'PostalAddress')) ?? {},
    } : undefined,
    delivery: delivery ? nonEmpty({
      partyName: txt(delivery, 'DeliveryParty', 'PartyName', 'Name'),
      locationId: schemed(at(delivery, 'DeliveryLocation', 'ID')),
      actualDeliveryDate: txt(delivery, 'ActualDeliveryDate'),
      address: readUblAddress(at(delivery, 'DeliveryLocation', 'Address')),
    }) : undefined,
    invoicingPeriod: period(kid(root, 'InvoicePeriod'), true),
    paymentInstructions: paymentInstructions(root),
    allowanceCharges: kids(root, 'AllowanceCharge').map((ac) => allowanceCharge(ac, true)),
    totals: defined({
      lineNetTotal: txt(lmt, 'LineExtensionAmount'),
      allowanceTotal: txt(lmt, 'AllowanceTotalAmount'),
      chargeTotal: txt(lmt, 'ChargeTotalAmount'),
      taxExclusive: txt(lmt, 'TaxExclusiveAmount'),
      vatTotal: txt(mainTax, 'TaxAmount'),
      vatTotalAccountingCurrency: txt(accountingTax, 'TaxAmount'),
      taxInclusive: txt(lmt, 'TaxInclusiveAmount'),
      prepaid: txt(lmt, 'PrepaidAmount'),
      rounding: txt(lmt, 'PayableRoundingAmount'),
      payable: txt(lmt, 'PayableAmount'),
    }),
    vatBreakdown,
    attachments,
    lines: kids(root, isCredit ? 'CreditNoteLine' : 'InvoiceLine').map((l) => line(l, isCredit, vatBreakdown)),
  });
  c.lines ??= [];
  c.vatBreakdown ??= [];
  return c;
}

/** Parses a UBL 2.1 Invoice or CreditNote; the original bytes travel unchanged beside the canonical view. */
export function ublToCanonical(xml: string | Buffer): ParsedDocument {
  const root = readTree(xml, 'UBL document');
  return { canonical: ublTreeToCanonical(root), original: xml, syntax: 'ubl-2.1' };
}
