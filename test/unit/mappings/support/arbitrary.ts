/**
 * fast-check generator of valid canonical invoices: values in the shapes the UBL binding carries
 * (trimmed non-empty texts, decimal strings, consistent VAT buckets with the line view repeating
 * its bucket's exemption reason).
 */
import fc from 'fast-check';
import type {
  Address, AllowanceCharge, CanonicalInvoice, Contact, Line, Party, PaymentInstructions, SchemedId, VatBreakdown,
} from '../../../../mappings/index.ts';

const opt = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined, freq: 2 });

/** Text with XML-special and non-ASCII characters; trimmed and never empty. */
const text = fc
  .array(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 &<>"\'éèçßøÅ€-/.,:'.split('')), { minLength: 1, maxLength: 24 })
  .map((cs) => cs.join('').trim())
  .filter((s) => s.length > 0 && !/^#/.test(s));
const code = fc.stringMatching(/^[A-Z0-9]{2,8}$/);
const ref = fc.stringMatching(/^[A-Z]{1,3}-[0-9]{1,6}$/);
const date = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
const country = fc.constantFrom('BE', 'FR', 'DE', 'NL', 'IT', 'SE', 'NO', 'GR', 'ES');
const currency = fc.constantFrom('EUR', 'USD', 'SEK', 'GBP', 'NOK');

function cents(n: bigint): string {
  const neg = n < 0n;
  const a = neg ? -n : n;
  const s = `${a / 100n}.${String(a % 100n).padStart(2, '0')}`;
  return neg ? `-${s}` : s;
}
const amount = fc.bigInt({ min: -10_000_000n, max: 100_000_000n }).map(cents);
const positiveAmount = fc.bigInt({ min: 0n, max: 100_000_000n }).map(cents);
const quantity = fc.tuple(fc.integer({ min: -50, max: 100_000 }), fc.integer({ min: 0, max: 999 })).map(([i, f]) => (f ? `${i}.${String(f).padStart(3, '0')}` : String(i)));
const schemedId = fc.record({ value: ref, scheme: opt(fc.constantFrom('0088', '0208', '0002', '0009', '0192')) }, { requiredKeys: ['value'] }).map(strip);

function strip<T extends object>(o: T): T {
  for (const k of Object.keys(o) as Array<keyof T>) if (o[k] === undefined) delete o[k];
  return o;
}

const address: fc.Arbitrary<Address> = fc.record({
  line1: opt(text), line2: opt(text), line3: opt(text), city: opt(text), postalCode: opt(code), subdivision: opt(text), country,
}).map(strip);
const contact: fc.Arbitrary<Contact> = fc.record({ name: opt(text), phone: opt(code), email: opt(fc.constantFrom('a@b.example', 'billing@acme.example')) })
  .map(strip).filter((c) => Object.keys(c).length > 0);

function party(isSeller: boolean): fc.Arbitrary<Party> {
  return fc.record({
    name: text,
    tradingName: opt(text),
    identifiers: opt(fc.array(schemedId, { minLength: 1, maxLength: 2 })),
    legalRegistration: opt(schemedId),
    vatId: opt(fc.constantFrom('BE0123456789', 'FR40303265045', 'DE123456789')),
    taxRegistrationId: isSeller ? opt(code) : fc.constant(undefined),
    additionalLegalInfo: isSeller ? opt(text) : fc.constant(undefined),
    electronicAddress: opt(fc.record({ value: ref, scheme: fc.constantFrom('0088', '0208', '9930') })),
    address: opt(address),
    contact: opt(contact),
  }).map(strip);
}

// O (not subject to VAT) carries no rate (BR-O-05/09).
const VAT_CATS: Array<[string, string | undefined]> = [['S', '21'], ['S', '6'], ['S', '5.5'], ['Z', '0'], ['E', '0'], ['AE', '0'], ['K', '0'], ['O', undefined]];

const lineArb = fc.record({
  cat: fc.constantFrom(...VAT_CATS),
  id: ref,
  note: opt(text),
  objectIdentifier: opt(schemedId),
  quantity,
  unit: fc.constantFrom('C62', 'HUR', 'KGM', 'MON', 'EA'),
  netAmount: amount,
  orderLineReference: opt(ref),
  accountingCost: opt(text),
  period: opt(fc.record({ start: opt(date), end: opt(date) }).map(strip).filter((p) => Object.keys(p).length > 0)),
  allowanceCharges: opt(fc.array(fc.record({ isCharge: fc.boolean(), amount: positiveAmount, baseAmount: opt(positiveAmount), percentage: opt(fc.constantFrom('5', '10', '2.5')), reason: opt(text), reasonCode: opt(fc.constantFrom('95', '100', 'FC')) }).map(strip), { minLength: 1, maxLength: 2 })),
  price: fc.record({ netPrice: positiveAmount, discountGross: opt(fc.tuple(positiveAmount, positiveAmount)), base: opt(fc.tuple(fc.constantFrom('1', '10', '100'), opt(fc.constantFrom('C62', 'KGM')))) }),
  item: fc.record({
    name: text, description: opt(text), sellerId: opt(ref), buyerId: opt(ref), standardId: opt(fc.record({ value: fc.stringMatching(/^[0-9]{13}$/), scheme: fc.constant('0160') })),
    classifications: opt(fc.array(fc.record({ value: code, scheme: fc.constantFrom('STI', 'CG'), version: opt(fc.constantFrom('1', '2.0')) }).map(strip), { minLength: 1, maxLength: 2 })),
    originCountry: opt(country),
    attributes: opt(fc.array(fc.record({ name: text, value: text }), { minLength: 1, maxLength: 2 })),
  }).map(strip),
  despatch: opt(fc.tuple(ref, opt(ref))),
});

const reasons = fc.record({ reason: opt(text), code: opt(fc.constantFrom('VATEX-EU-132', 'VATEX-EU-AE', 'VATEX-EU-IC', 'VATEX-EU-O')) });

export const canonicalInvoiceArb: fc.Arbitrary<CanonicalInvoice> = fc.record({
  kind: fc.constantFrom('invoice' as const, 'credit-note' as const),
  customizationId: fc.constant('urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0'),
  profileId: opt(fc.constant('urn:fdc:peppol.eu:2017:poacc:billing:01:1.0')),
  number: ref,
  issueDate: date,
  currency,
  taxCurrency: opt(fc.constantFrom('EUR', 'DKK')),
  taxPointDate: opt(date),
  dueDate: opt(date),
  buyerReference: opt(text),
  projectReference: opt(ref),
  contractReference: opt(ref),
  orderReference: opt(ref),
  salesOrderReference: opt(ref),
  receivingAdviceReference: opt(ref),
  despatchAdviceReference: opt(ref),
  tenderReference: opt(ref),
  invoicedObjectIdentifier: opt(schemedId),
  buyerAccountingReference: opt(text),
  paymentTerms: opt(text),
  notes: opt(fc.array(fc.record({ subjectCode: opt(fc.constantFrom('AAI', 'ADU', 'PMT')), text }).map(strip), { minLength: 1, maxLength: 3 })),
  precedingInvoices: opt(fc.array(fc.record({ number: ref, issueDate: opt(date) }).map(strip), { minLength: 1, maxLength: 2 })),
  seller: party(true),
  buyer: party(false),
  payee: opt(fc.record({ name: text, identifier: opt(schemedId), legalRegistration: opt(schemedId) }).map(strip)),
  taxRepresentative: opt(fc.record({ name: text, vatId: fc.constantFrom('BE0123456789', 'NL123456789B01'), address })),
  delivery: opt(fc.record({ partyName: opt(text), locationId: opt(schemedId), actualDeliveryDate: opt(date), address: opt(address) }).map(strip).filter((d) => Object.keys(d).length > 0)),
  invoicingPeriod: opt(fc.record({ start: opt(date), end: opt(date), descriptionCode: opt(fc.constantFrom('3', '35', '432')) }).map(strip).filter((p) => Object.keys(p).length > 0)),
  payment: opt(fc.record({
    meansCode: fc.constantFrom('30', '31', '49', '58', '59', '48', 'ZZZ'),
    meansText: opt(text),
    remittanceInformation: opt(ref),
    creditTransfers: opt(fc.array(fc.record({ accountId: fc.constantFrom('BE68539007547034', 'NO9386011117947', '12345678'), accountName: opt(text), serviceProviderId: opt(fc.constantFrom('GEBABEBB', 'DNBANOKK')) }).map(strip), { minLength: 1, maxLength: 2 })),
    card: opt(fc.record({ accountNumber: fc.constant('1234'), network: fc.constantFrom('VISA', 'MC'), holderName: opt(text) }).map(strip)),
    directDebit: opt(fc.record({ mandateReference: ref, debitedAccountId: opt(fc.constant('DE75512108001245126199')) }).map(strip)),
  }).map(strip)),
  allowanceCharges: opt(fc.array(fc.record({ isCharge: fc.boolean(), amount: positiveAmount, baseAmount: opt(positiveAmount), percentage: opt(fc.constantFrom('5', '10')), cat: fc.constantFrom(...VAT_CATS), reason: opt(text), reasonCode: opt(fc.constantFrom('95', 'FC')) }), { minLength: 1, maxLength: 2 })),
  totals: fc.record({ lineNetTotal: amount, allowanceTotal: opt(positiveAmount), chargeTotal: opt(positiveAmount), taxExclusive: amount, vatTotal: amount, accounting: amount, taxInclusive: amount, prepaid: opt(positiveAmount), rounding: opt(fc.constantFrom('0.01', '-0.01')), payable: amount }),
  attachments: opt(fc.array(fc.record({ id: ref, description: opt(text), uri: opt(fc.constant('https://example.com/doc.pdf')), content: opt(fc.record({ base64: fc.constant('UEsDBBQ='), mimeCode: fc.constantFrom('application/pdf', 'text/csv'), filename: fc.constant('a.pdf') })) }).map(strip), { minLength: 1, maxLength: 2 })),
  lines: fc.array(lineArb, { minLength: 1, maxLength: 6 }),
  bucketReasons: fc.array(reasons, { minLength: VAT_CATS.length, maxLength: VAT_CATS.length }),
}).map((g) => {
  const isCredit = g.kind === 'credit-note';
  // Buckets keyed by (category, rate); the line view repeats its bucket's BT-120/121.
  const bucketMeta = new Map<string, { reason?: string; code?: string }>();
  VAT_CATS.forEach(([cat, rate], i) => {
    const r = g.bucketReasons[i]!;
    bucketMeta.set(`${cat}|${rate}`, cat === 'S' || cat === 'Z' ? {} : strip({ reason: r.reason, code: r.code ?? 'VATEX-EU-O' }));
  });
  const used = new Map<string, VatBreakdown>();
  const lines: Line[] = g.lines.map((l) => {
    const [cat, rate] = l.cat;
    const meta = bucketMeta.get(`${cat}|${rate}`)!;
    if (!used.has(`${cat}|${rate}`)) {
      used.set(`${cat}|${rate}`, strip({ taxableAmount: l.netAmount, taxAmount: '0.00', category: cat, rate, exemptionReason: meta.reason, exemptionCode: meta.code }));
    }
    return strip<Line>({
      id: l.id, note: l.note, objectIdentifier: l.objectIdentifier, quantity: l.quantity, unit: l.unit, netAmount: l.netAmount,
      orderLineReference: l.orderLineReference, accountingCost: l.accountingCost, period: l.period, allowanceCharges: l.allowanceCharges as AllowanceCharge[] | undefined,
      price: strip({ netPrice: l.price.netPrice, discount: l.price.discountGross?.[0], grossPrice: l.price.discountGross?.[1], baseQuantity: l.price.base?.[0], baseUnit: l.price.base?.[1] }),
      vat: strip({ category: cat, rate, exemptionReason: meta.reason, exemptionCode: meta.code }),
      item: l.item,
      despatchAdviceReference: l.despatch?.[0],
      despatchAdviceLineReference: l.despatch?.[1],
    });
  });
  const payment: PaymentInstructions | undefined = g.payment as PaymentInstructions | undefined;
  const taxCurrency = g.taxCurrency !== undefined && g.taxCurrency !== g.currency ? g.taxCurrency : undefined;
  const c: CanonicalInvoice = strip<CanonicalInvoice>({
    kind: g.kind,
    customizationId: g.customizationId,
    profileId: g.profileId,
    number: g.number,
    issueDate: g.issueDate,
    typeCode: isCredit ? '381' : '380',
    currency: g.currency,
    vatAccountingCurrency: taxCurrency,
    taxPointDate: g.taxPointDate,
    // A UBL CreditNote carries BT-9 inside PaymentMeans: only with payment instructions.
    dueDate: isCredit && !payment ? undefined : g.dueDate,
    buyerReference: g.buyerReference,
    projectReference: g.projectReference,
    contractReference: g.contractReference,
    orderReference: g.orderReference,
    salesOrderReference: g.salesOrderReference,
    receivingAdviceReference: g.receivingAdviceReference,
    despatchAdviceReference: g.despatchAdviceReference,
    tenderReference: g.tenderReference,
    invoicedObjectIdentifier: g.invoicedObjectIdentifier,
    buyerAccountingReference: g.buyerAccountingReference,
    paymentTerms: g.paymentTerms,
    notes: g.notes,
    precedingInvoices: g.precedingInvoices,
    seller: g.seller,
    buyer: g.buyer,
    payee: g.payee,
    taxRepresentative: g.taxRepresentative,
    delivery: g.delivery,
    invoicingPeriod: g.invoicingPeriod,
    paymentInstructions: payment,
    allowanceCharges: g.allowanceCharges?.map((a) => strip<AllowanceCharge>({ isCharge: a.isCharge, amount: a.amount, baseAmount: a.baseAmount, percentage: a.percentage, vatCategory: a.cat[0], vatRate: a.cat[1], reason: a.reason, reasonCode: a.reasonCode })),
    totals: strip({
      lineNetTotal: g.totals.lineNetTotal, allowanceTotal: g.totals.allowanceTotal, chargeTotal: g.totals.chargeTotal, taxExclusive: g.totals.taxExclusive,
      vatTotal: g.totals.vatTotal, vatTotalAccountingCurrency: taxCurrency ? g.totals.accounting : undefined, taxInclusive: g.totals.taxInclusive,
      prepaid: g.totals.prepaid, rounding: g.totals.rounding, payable: g.totals.payable,
    }),
    vatBreakdown: [...used.values()],
    attachments: g.attachments,
    lines,
  });
  return c;
});

export type { SchemedId };
