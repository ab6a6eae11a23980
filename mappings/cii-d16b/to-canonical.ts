/**
 * UN/CEFACT CII D16B CrossIndustryInvoice → canonical EN 16931 (the EN 16931-3-3 binding, also
 * used by Factur-X / ZUGFeRD / XRechnung CII). The caller's bytes stay untouched beside the view.
 */
import type {
  Address, AllowanceCharge, Attachment, CanonicalInvoice, Contact, CreditTransfer, Line, Party, PaymentInstructions,
  SchemedId, VatBreakdown,
} from '../canonical/model.ts';
import { CREDIT_NOTE_TYPE_CODES } from '../canonical/codes.ts';
import { MappingError } from '../errors.ts';
import { defined, nonEmpty } from '../canonical/object.ts';
import type { ParsedDocument } from '../ubl-2.1/to-canonical.ts';
import { attr, at, kid, kids, readTree, txt } from '../xml/tree.ts';
import type { XEl } from '../xml/tree.ts';
import { CII_RSM_NS, UNCL2005_OF_CII_DUE_DATE_TYPE_CODE } from './namespaces.ts';
import { address, contact, identifiers, schemed } from './trade-parties.ts';


/** udt:DateTimeString format 102 (YYYYMMDD) → YYYY-MM-DD; other formats are kept as written. */
export function ciiDate(el: XEl | undefined): string | undefined {
  const s = el ? txt(el, 'DateTimeString') ?? txt(el, 'DateString') ?? el.text.trim() : undefined;
  if (!s) return undefined;
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(s);
  return m ? `${m[1]}-${m[2]}-${m[3]}` : s;
}

function party(p: XEl | undefined, isSeller: boolean): Party {
  let vatId: string | undefined;
  let taxRegistrationId: string | undefined;
  for (const reg of kids(p, 'SpecifiedTaxRegistration')) {
    const id = kid(reg, 'ID');
    const scheme = attr(id, 'schemeID');
    if (scheme === 'VA') vatId ??= txt(reg, 'ID');
    else if (scheme === 'FC' && isSeller) taxRegistrationId ??= txt(reg, 'ID');
  }
  const legal = kid(p, 'SpecifiedLegalOrganization');
  return defined<Party>({
    name: txt(p, 'Name') ?? '',
    tradingName: txt(legal, 'TradingBusinessName'),
    identifiers: identifiers(p),
    legalRegistration: schemed(kid(legal, 'ID')),
    vatId,
    taxRegistrationId,
    additionalLegalInfo: isSeller ? txt(p, 'Description') : undefined,
    electronicAddress: schemed(at(p, 'URIUniversalCommunication', 'URIID')),
    address: address(kid(p, 'PostalTradeAddress')),
    contact: contact(kid(p, 'DefinedTradeContact')),
  });
}

function allowanceCharge(el: XEl, documentLevel: boolean): AllowanceCharge {
  const tax = kid(el, 'CategoryTradeTax');
  return defined<AllowanceCharge>({
    isCharge: txt(el, 'ChargeIndicator', 'Indicator') === 'true',
    amount: txt(el, 'ActualAmount') ?? '0',
    baseAmount: txt(el, 'BasisAmount'),
    percentage: txt(el, 'CalculationPercent'),
    vatCategory: documentLevel ? txt(tax, 'CategoryCode') : undefined,
    vatRate: documentLevel ? txt(tax, 'RateApplicablePercent') : undefined,
    reason: txt(el, 'Reason'),
    reasonCode: txt(el, 'ReasonCode'),
  });
}

function line(el: XEl, breakdown: VatBreakdown[]): Line {
  const docLine = kid(el, 'AssociatedDocumentLineDocument');
  const product = kid(el, 'SpecifiedTradeProduct');
  const agreement = kid(el, 'SpecifiedLineTradeAgreement');
  const delivery = kid(el, 'SpecifiedLineTradeDelivery');
  const settlement = kid(el, 'SpecifiedLineTradeSettlement');
  const tax = kid(settlement, 'ApplicableTradeTax');
  const gross = kid(agreement, 'GrossPriceProductTradePrice');
  const net = kid(agreement, 'NetPriceProductTradePrice');
  const qty = kid(delivery, 'BilledQuantity');
  const baseQty = kid(net, 'BasisQuantity') ?? kid(gross, 'BasisQuantity');
  const category = txt(tax, 'CategoryCode') ?? '';
  const rate = txt(tax, 'RateApplicablePercent');
  const bucket = breakdown.find((b) => b.category === category && (b.rate === undefined || rate === undefined ? b.rate === rate : Number(b.rate) === Number(rate)));
  const objectRef = kids(settlement, 'AdditionalReferencedDocument').find((d) => txt(d, 'TypeCode') === '130');
  const despatch = kid(delivery, 'DespatchAdviceReferencedDocument');
  const period = kid(settlement, 'BillingSpecifiedPeriod');
  return defined<Line>({
    id: txt(docLine, 'LineID'),
    note: kids(docLine, 'IncludedNote').map((n) => txt(n, 'Content')).filter(Boolean).join('\n') || undefined,
    objectIdentifier: objectRef && txt(objectRef, 'IssuerAssignedID') ? defined({ value: txt(objectRef, 'IssuerAssignedID')!, scheme: txt(objectRef, 'ReferenceTypeCode') }) : undefined,
    quantity: qty?.text.trim() ?? '0',
    unit: attr(qty, 'unitCode') ?? '',
    netAmount: txt(settlement, 'SpecifiedTradeSettlementLineMonetarySummation', 'LineTotalAmount') ?? '0',
    orderLineReference: txt(agreement, 'BuyerOrderReferencedDocument', 'LineID'),
    accountingCost: txt(settlement, 'ReceivableSpecifiedTradeAccountingAccount', 'ID'),
    period: period ? nonEmpty({ start: ciiDate(kid(period, 'StartDateTime')), end: ciiDate(kid(period, 'EndDateTime')) }) : undefined,
    allowanceCharges: kids(settlement, 'SpecifiedTradeAllowanceCharge').map((ac) => allowanceCharge(ac, false)),
    price: defined({
      netPrice: txt(net, 'ChargeAmount') ?? '0',
      discount: txt(gross, 'AppliedTradeAllowanceCharge', 'ActualAmount'),
      grossPrice: txt(gross, 'ChargeAmount'),
      baseQuantity: baseQty?.text.trim() || undefined,
      baseUnit: attr(baseQty, 'unitCode'),
    }),
    vat: defined({ category, rate, exemptionReason: bucket?.exemptionReason, exemptionCode: bucket?.exemptionCode }),
    item: defined({
      name: txt(product, 'Name') ?? '',
      description: txt(product, 'Description'),
      sellerId: txt(product, 'SellerAssignedID'),
      buyerId: txt(product, 'BuyerAssignedID'),
      standardId: schemed(kid(product, 'GlobalID')),
      classifications: kids(product, 'DesignatedProductClassification').map((c) => kid(c, 'ClassCode')).filter((x): x is XEl => x !== undefined)
        .map((c) => defined({ value: c.text.trim(), scheme: attr(c, 'listID') ?? '', version: attr(c, 'listVersionID') })),
      originCountry: txt(product, 'OriginTradeCountry', 'ID'),
      attributes: kids(product, 'ApplicableProductCharacteristic').map((p) => ({ name: txt(p, 'Description') ?? '', value: txt(p, 'Value') ?? '' })),
    }),
    despatchAdviceReference: txt(despatch, 'IssuerAssignedID'),
    despatchAdviceLineReference: txt(despatch, 'LineID'),
  });
}

function paymentInstructions(settlement: XEl | undefined, mandate: string | undefined): PaymentInstructions | undefined {
  const means = kids(settlement, 'SpecifiedTradeSettlementPaymentMeans');
  const first = means[0];
  if (!first) return undefined;
  const creditTransfers: CreditTransfer[] = [];
  for (const pm of means) {
    const acct = kid(pm, 'PayeePartyCreditorFinancialAccount');
    const id = txt(acct, 'IBANID') ?? txt(acct, 'ProprietaryID');
    if (id) creditTransfers.push(defined({ accountId: id, accountName: txt(acct, 'AccountName'), serviceProviderId: txt(pm, 'PayeeSpecifiedCreditorFinancialInstitution', 'BICID') }));
  }
  const card = kid(first, 'ApplicableTradeSettlementFinancialCard');
  const debited = txt(first, 'PayerPartyDebtorFinancialAccount', 'IBANID');
  return defined<PaymentInstructions>({
    meansCode: txt(first, 'TypeCode') ?? '',
    meansText: txt(first, 'Information'),
    remittanceInformation: txt(settlement, 'PaymentReference'),
    creditTransfers,
    card: card ? defined({ accountNumber: txt(card, 'ID') ?? '', holderName: txt(card, 'CardholderName') }) : undefined,
    directDebit: mandate || debited ? defined({ mandateReference: mandate, debitedAccountId: debited }) : undefined,
  });
}

/** Reads an already-parsed CII tree (also used for the XML extracted from hybrid PDFs). */
export function ciiTreeToCanonical(root: XEl): CanonicalInvoice {
  if (root.name !== 'CrossIndustryInvoice' || root.ns !== CII_RSM_NS) {
    throw new MappingError('INVALID_REQUEST', `Not a CII D16B CrossIndustryInvoice (root {${root.ns}}${root.name})`, [
      { field: 'xml', rule: 'cii-root', message: `root must be CrossIndustryInvoice in ${CII_RSM_NS}` },
    ]);
  }
  const context = kid(root, 'ExchangedDocumentContext');
  const exchanged = kid(root, 'ExchangedDocument');
  const trx = kid(root, 'SupplyChainTradeTransaction');
  const agreement = kid(trx, 'ApplicableHeaderTradeAgreement');
  const delivery = kid(trx, 'ApplicableHeaderTradeDelivery');
  const settlement = kid(trx, 'ApplicableHeaderTradeSettlement');
  const sums = kid(settlement, 'SpecifiedTradeSettlementHeaderMonetarySummation');
  const currency = txt(settlement, 'InvoiceCurrencyCode') ?? '';
  const taxCurrency = txt(settlement, 'TaxCurrencyCode');
  const taxTotals = kids(sums, 'TaxTotalAmount');
  const mainTax = taxTotals.find((t) => attr(t, 'currencyID') === currency) ?? taxTotals.find((t) => attr(t, 'currencyID') === undefined) ?? (taxCurrency && taxCurrency !== currency ? undefined : taxTotals[0]);
  const accountingTax = taxCurrency && taxCurrency !== currency ? taxTotals.find((t) => attr(t, 'currencyID') === taxCurrency) : undefined;
  const headerTaxes = kids(settlement, 'ApplicableTradeTax');
  const vatBreakdown: VatBreakdown[] = headerTaxes.map((t) => defined<VatBreakdown>({
    taxableAmount: txt(t, 'BasisAmount') ?? '0',
    taxAmount: txt(t, 'CalculatedAmount') ?? '0',
    category: txt(t, 'CategoryCode') ?? '',
    rate: txt(t, 'RateApplicablePercent'),
    exemptionReason: txt(t, 'ExemptionReason'),
    exemptionCode: txt(t, 'ExemptionReasonCode'),
  }));
  const docRefs = kids(agreement, 'AdditionalReferencedDocument');
  const objectRef = docRefs.find((d) => txt(d, 'TypeCode') === '130');
  const tenderRef = docRefs.find((d) => txt(d, 'TypeCode') === '50');
  const attachments: Attachment[] = docRefs.filter((d) => d !== objectRef && d !== tenderRef).map((d) => {
    const bin = kid(d, 'AttachmentBinaryObject');
    return defined<Attachment>({
      id: txt(d, 'IssuerAssignedID') ?? '',
      description: txt(d, 'Name'),
      uri: txt(d, 'URIID'),
      content: bin ? { base64: bin.text.trim(), mimeCode: attr(bin, 'mimeCode') ?? '', filename: attr(bin, 'filename') ?? '' } : undefined,
    });
  });
  const terms = kids(settlement, 'SpecifiedTradePaymentTerms');
  const paymentTermsText = terms.map((t) => txt(t, 'Description')).filter(Boolean).join('\n');
  const dueDate = terms.map((t) => ciiDate(kid(t, 'DueDateDateTime'))).find(Boolean);
  const mandate = terms.map((t) => txt(t, 'DirectDebitMandateID')).find(Boolean);
  const shipTo = kid(delivery, 'ShipToTradeParty');
  const payee = kid(settlement, 'PayeeTradeParty');
  const taxRep = kid(agreement, 'SellerTaxRepresentativeTradeParty');
  const billingPeriod = kid(settlement, 'BillingSpecifiedPeriod');
  const ciiDueDateTypeCode = headerTaxes.map((t) => txt(t, 'DueDateTypeCode')).find(Boolean);
  // BT-8 in the model's UNCL2005 (namespaces.ts).
  const dueDateTypeCode = ciiDueDateTypeCode !== undefined ? UNCL2005_OF_CII_DUE_DATE_TYPE_CODE[ciiDueDateTypeCode] ?? ciiDueDateTypeCode : undefined;
  const taxPointDate = headerTaxes.map((t) => ciiDate(kid(t, 'TaxPointDate'))).find(Boolean);
  const invoiceRefs = kids(settlement, 'InvoiceReferencedDocument');
  const typeCode = txt(exchanged, 'TypeCode');
  const seller = party(kid(agreement, 'SellerTradeParty'), true);
  // BT-90 (bank assigned creditor identifier) is a seller identifier with scheme SEPA in UBL.
  const creditorId = txt(settlement, 'CreditorReferenceID');
  if (creditorId) seller.identifiers = [...(seller.identifiers ?? []), { value: creditorId, scheme: 'SEPA' }];

  const c: CanonicalInvoice = defined<CanonicalInvoice>({
    kind: typeCode !== undefined && CREDIT_NOTE_TYPE_CODES.has(typeCode) ? 'credit-note' : 'invoice',
    customizationId: txt(context, 'GuidelineSpecifiedDocumentContextParameter', 'ID') ?? '',
    profileId: txt(context, 'BusinessProcessSpecifiedDocumentContextParameter', 'ID'),
    number: txt(exchanged, 'ID') ?? '',
    issueDate: ciiDate(kid(exchanged, 'IssueDateTime')) ?? '',
    typeCode,
    currency,
    vatAccountingCurrency: taxCurrency,
    taxPointDate,
    dueDate,
    buyerReference: txt(agreement, 'BuyerReference'),
    projectReference: txt(agreement, 'SpecifiedProcuringProject', 'ID'),
    contractReference: txt(agreement, 'ContractReferencedDocument', 'IssuerAssignedID'),
    orderReference: txt(agreement, 'BuyerOrderReferencedDocument', 'IssuerAssignedID'),
    salesOrderReference: txt(agreement, 'SellerOrderReferencedDocument', 'IssuerAssignedID'),
    receivingAdviceReference: txt(delivery, 'ReceivingAdviceReferencedDocument', 'IssuerAssignedID'),
    despatchAdviceReference: txt(delivery, 'DespatchAdviceReferencedDocument', 'IssuerAssignedID'),
    tenderReference: txt(tenderRef, 'IssuerAssignedID'),
    invoicedObjectIdentifier: objectRef && txt(objectRef, 'IssuerAssignedID') ? defined({ value: txt(objectRef, 'IssuerAssignedID')!, scheme: txt(objectRef, 'ReferenceTypeCode') }) : undefined,
    buyerAccountingReference: txt(settlement, 'ReceivableSpecifiedTradeAccountingAccount', 'ID'),
    paymentTerms: paymentTermsText || undefined,
    notes: kids(exchanged, 'IncludedNote').filter((n) => txt(n, 'Content')).map((n) => defined({ subjectCode: txt(n, 'SubjectCode'), text: txt(n, 'Content')! })),
    precedingInvoices: invoiceRefs.filter((r) => txt(r, 'IssuerAssignedID')).map((r) => defined({ number: txt(r, 'IssuerAssignedID')!, issueDate: ciiDate(kid(r, 'FormattedIssueDateTime')) })),
    seller,
    buyer: party(kid(agreement, 'BuyerTradeParty'), false),
    payee: payee ? defined({
      name: txt(payee, 'Name') ?? '',
      identifier: identifiers(payee)[0],
      legalRegistration: schemed(at(payee, 'SpecifiedLegalOrganization', 'ID')),
    }) : undefined,
    taxRepresentative: taxRep ? {
      name: txt(taxRep, 'Name') ?? '',
      vatId: kids(taxRep, 'SpecifiedTaxRegistration').map((r) => txt(r, 'ID')).find(Boolean) ?? '',
      address: address(kid(taxRep, 'PostalTradeAddress')) ?? {},
    } : undefined,
    delivery: nonEmpty({
      partyName: txt(shipTo, 'Name'),
      locationId: schemed(kid(shipTo, 'GlobalID')) ?? schemed(kid(shipTo, 'ID')),
      actualDeliveryDate: ciiDate(at(delivery, 'ActualDeliverySupplyChainEvent', 'OccurrenceDateTime')),
      address: address(kid(shipTo, 'PostalTradeAddress')),
    }),
    invoicingPeriod: nonEmpty({ start: ciiDate(kid(billingPeriod, 'StartDateTime')), end: ciiDate(kid(billingPeriod, 'EndDateTime')), descriptionCode: dueDateTypeCode }),
    paymentInstructions: paymentInstructions(settlement, mandate),
    allowanceCharges: kids(settlement, 'SpecifiedTradeAllowanceCharge').map((ac) => allowanceCharge(ac, true)),
    totals: defined({
      lineNetTotal: txt(sums, 'LineTotalAmount'),
      allowanceTotal: txt(sums, 'AllowanceTotalAmount'),
      chargeTotal: txt(sums, 'ChargeTotalAmount'),
      taxExclusive: txt(sums, 'TaxBasisTotalAmount'),
      vatTotal: mainTax?.text.trim() || undefined,
      vatTotalAccountingCurrency: accountingTax?.text.trim() || undefined,
      taxInclusive: txt(sums, 'GrandTotalAmount'),
      prepaid: txt(sums, 'TotalPrepaidAmount'),
      rounding: txt(sums, 'RoundingAmount'),
      payable: txt(sums, 'DuePayableAmount'),
    }),
    vatBreakdown,
    attachments,
    lines: kids(trx, 'IncludedSupplyChainTradeLineItem').map((l) => line(l, vatBreakdown)),
  });
  c.lines ??= [];
  c.vatBreakdown ??= [];
  return c;
}

/** Parses a CII D16B CrossIndustryInvoice; the original bytes travel unchanged beside the canonical view. */
export function ciiToCanonical(xml: string | Buffer): ParsedDocument {
  const root = readTree(xml, 'CII document');
  return { canonical: ciiTreeToCanonical(root), original: xml, syntax: 'cii-d16b' };
}
