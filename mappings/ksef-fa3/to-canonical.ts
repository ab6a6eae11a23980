/**
 * FA(3) → canonical EN 16931: what an invoice fetched from KSeF (where our company is the buyer) says,
 * read into the model so the platform shows its number, dates, parties, lines and totals. It reads
 * what canonicalToFa3 writes and what a Polish invoice ordinarily carries (README.md lists the
 * fields); the fetched XML itself stays the legal original beside it.
 *
 * Refused (MappingError, every problem at once): a root that is not FA(3)'s `Faktura`, and a document
 * without its number (P_2), issue date (P_1), currency, seller NIP or total (P_15). A P_12 code
 * EN 16931 has no category for (OSS rates, margin scheme) is read as category O with the code in
 * the line note rather than refused: the document is the seller's and is received as it is.
 */
import type { Address, CanonicalInvoice, Line, Party, VatBreakdown } from '../canonical/model.ts';
import { Dec, money } from '../canonical/decimal.ts';
import { IssueCollector } from '../errors.ts';
import { at, kid, kids, readTree, txt, type XEl } from '../xml/tree.ts';
import { FA3_BUCKETS, FA3_NS, canonicalRateOf } from './codes.ts';

export interface Fa3Parsed {
  canonical: CanonicalInvoice;
  /** Exactly what the caller passed. */
  original: string | Buffer;
  syntax: 'ksef-fa3';
}

/** The EN 16931 category and rate of each FA(3) totals field (the buckets canonicalToFa3 fills). */
const BUCKET_CATEGORY: Record<string, { category: string; rate?: string }> = {
  P_13_1: { category: 'S', rate: '23.00' }, P_13_2: { category: 'S', rate: '8.00' }, P_13_3: { category: 'S', rate: '5.00' },
  P_13_4: { category: 'S', rate: '4.00' }, P_13_5: { category: 'O' }, P_13_6_1: { category: 'Z', rate: '0.00' },
  P_13_6_2: { category: 'K', rate: '0.00' }, P_13_6_3: { category: 'G', rate: '0.00' }, P_13_7: { category: 'E', rate: '0.00' },
  P_13_8: { category: 'O' }, P_13_9: { category: 'AE', rate: '0.00' }, P_13_10: { category: 'AE', rate: '0.00' }, P_13_11: { category: 'O' },
};

function addressOf(el: XEl | undefined): Address | undefined {
  if (!el) return undefined;
  const line1 = txt(el, 'AdresL1');
  const line2 = txt(el, 'AdresL2');
  // "00-916 Warszawa": a Polish post code and town, as canonicalToFa3 writes the second line.
  const town = line2?.match(/^(\d{2}-\d{3})\s+(.+)$/);
  return {
    ...(line1 ? { line1 } : {}),
    ...(town ? { postalCode: town[1]!, city: town[2]! } : line2 ? { line2 } : {}),
    ...(txt(el, 'KodKraju') ? { country: txt(el, 'KodKraju')! } : {}),
  };
}

function contactOf(party: XEl | undefined): Party['contact'] {
  const c = kid(party, 'DaneKontaktowe');
  if (!c) return undefined;
  const email = txt(c, 'Email');
  const phone = txt(c, 'Telefon');
  return email || phone ? { ...(email ? { email } : {}), ...(phone ? { phone } : {}) } : undefined;
}

function buyerOf(p2: XEl | undefined): Party {
  const id = kid(p2, 'DaneIdentyfikacyjne');
  const nip = txt(id, 'NIP');
  const eu = txt(id, 'KodUE');
  const other = txt(id, 'NrID');
  const vatId = nip ? `PL${nip}` : eu ? `${eu}${txt(id, 'NrVatUE') ?? ''}` : other;
  const address = addressOf(kid(p2, 'Adres'));
  const contact = contactOf(p2);
  return { name: txt(id, 'Nazwa') ?? '', ...(vatId ? { vatId } : {}), ...(address ? { address } : {}), ...(contact ? { contact } : {}) };
}

/** A credit note's amounts are positive in EN 16931 and signed differences in a FA(3) correction. */
function unsigned(value: string | undefined, correction: boolean): string | undefined {
  if (value === undefined) return undefined;
  return correction ? new Dec(value).abs().toFixed() : value;
}

export function fa3TreeToCanonical(root: XEl): CanonicalInvoice {
  const issues = new IssueCollector();
  if (root.name !== 'Faktura' || root.ns !== FA3_NS) {
    issues.add('INVALID_REQUEST', 'Faktura', 'ksef-root', `not an FA(3) invoice: root ${root.name} in ${root.ns || 'no namespace'}`);
    issues.throwIfAny();
  }
  const fa = kid(root, 'Fa');
  const p1 = kid(root, 'Podmiot1');
  const number = txt(fa, 'P_2');
  const issueDate = txt(fa, 'P_1');
  const currency = txt(fa, 'KodWaluty');
  const sellerNip = txt(p1, 'DaneIdentyfikacyjne', 'NIP');
  const total = txt(fa, 'P_15');
  if (!number) issues.add('MISSING_FIELD', 'Faktura/Fa/P_2', 'required', 'the invoice number (P_2) is missing');
  if (!issueDate) issues.add('MISSING_FIELD', 'Faktura/Fa/P_1', 'required', 'the issue date (P_1) is missing');
  if (!currency) issues.add('MISSING_FIELD', 'Faktura/Fa/KodWaluty', 'required', 'the currency (KodWaluty) is missing');
  if (!sellerNip) issues.add('MISSING_FIELD', 'Faktura/Podmiot1/DaneIdentyfikacyjne/NIP', 'required', 'the seller\'s NIP is missing');
  if (!total) issues.add('MISSING_FIELD', 'Faktura/Fa/P_15', 'required', 'the total (P_15) is missing');
  issues.throwIfAny();

  const kind = txt(fa, 'RodzajFaktury') ?? 'VAT';
  const correction = kind.startsWith('KOR');
  const num = (v: string | undefined) => unsigned(v, correction);

  const vatBreakdown: VatBreakdown[] = [];
  for (const b of FA3_BUCKETS) {
    const net = txt(fa, b.net);
    if (net === undefined) continue;
    const vat = b.vat ? txt(fa, b.vat) : undefined;
    const cat = BUCKET_CATEGORY[b.net]!;
    vatBreakdown.push({ taxableAmount: money(num(net)!), taxAmount: money(num(vat ?? '0')!), category: cat.category, ...(cat.rate ? { rate: cat.rate } : {}) });
  }

  const lines: Line[] = kids(fa, 'FaWiersz').map((w, i) => {
    const code = txt(w, 'P_12');
    const rate = code ? canonicalRateOf(code) : undefined;
    const net = num(txt(w, 'P_11') ?? txt(w, 'P_11A') ?? '0')!;
    const quantity = num(txt(w, 'P_8B') ?? '1')!;
    const price = txt(w, 'P_9A') ?? txt(w, 'P_9B');
    const gtin = txt(w, 'GTIN');
    return {
      id: txt(w, 'NrWierszaFa') ?? String(i + 1),
      quantity,
      unit: txt(w, 'P_8A') ?? 'C62',
      netAmount: money(net),
      price: { netPrice: price ?? (new Dec(quantity).isZero() ? net : new Dec(net).div(quantity).toFixed()) },
      vat: rate ? { category: rate.category, rate: rate.rate } : { category: 'O' },
      item: { name: txt(w, 'P_7') ?? '', ...(txt(w, 'Indeks') ? { sellerId: txt(w, 'Indeks')! } : {}), ...(gtin ? { standardId: { value: gtin, scheme: '0160' } } : {}) },
      ...(code && !rate ? { note: `P_12 ${code}` } : {}),
    };
  });

  const taxExclusive = vatBreakdown.reduce((s, b) => s.plus(b.taxableAmount), new Dec(0));
  const vatTotal = vatBreakdown.reduce((s, b) => s.plus(b.taxAmount), new Dec(0));
  const lineNetTotal = lines.reduce((s, l) => s.plus(l.netAmount), new Dec(0));
  const payable = txt(fa, 'Rozliczenie', 'DoZaplaty');
  const prepaid = txt(fa, 'Rozliczenie', 'SumaOdliczen');

  const platnosc = kid(fa, 'Platnosc');
  const dueDate = txt(platnosc, 'TerminPlatnosci', 'Termin');
  const accounts = kids(platnosc, 'RachunekBankowy').map((r) => ({ accountId: txt(r, 'NrRB') ?? '', ...(txt(r, 'SWIFT') ? { serviceProviderId: txt(r, 'SWIFT')! } : {}) })).filter((a) => a.accountId);
  const form = txt(platnosc, 'FormaPlatnosci');
  const meansCode = form === '1' ? '10' : form === '2' ? '48' : form === '4' ? '20' : form === '6' || accounts.length ? '30' : undefined;

  const sellerAddress = addressOf(kid(p1, 'Adres'));
  const sellerContact = contactOf(p1);
  const footer = txt(root, 'Stopka', 'Informacje', 'StopkaFaktury');
  const reason = txt(fa, 'PrzyczynaKorekty');
  const preceding = kids(fa, 'DaneFaKorygowanej').map((d) => ({
    number: txt(d, 'NrKSeFFaKorygowanej') ?? txt(d, 'NrFaKorygowanej') ?? '',
    ...(txt(d, 'DataWystFaKorygowanej') ? { issueDate: txt(d, 'DataWystFaKorygowanej')! } : {}),
  })).filter((p) => p.number);
  const period = at(fa, 'OkresFa');
  const deliveryDate = txt(fa, 'P_6');
  const notes = [reason, footer].filter((s): s is string => Boolean(s)).map((text) => ({ text }));

  return {
    kind: correction ? 'credit-note' : 'invoice',
    customizationId: 'urn:cen.eu:en16931:2017',
    number: number!,
    issueDate: issueDate!,
    typeCode: correction ? '381' : '380',
    currency: currency!,
    ...(dueDate ? { dueDate } : {}),
    ...(notes.length ? { notes } : {}),
    ...(preceding.length ? { precedingInvoices: preceding } : {}),
    ...(txt(kid(root, 'Podmiot2'), 'NrKlienta') ? { buyerReference: txt(kid(root, 'Podmiot2'), 'NrKlienta')! } : {}),
    ...(txt(fa, 'Adnotacje', 'P_17') === '1' ? { extensions: { selfBilled: true } } : {}),
    seller: {
      name: txt(p1, 'DaneIdentyfikacyjne', 'Nazwa') ?? '',
      vatId: `PL${sellerNip}`,
      ...(sellerAddress ? { address: sellerAddress } : {}),
      ...(sellerContact ? { contact: sellerContact } : {}),
    },
    buyer: buyerOf(kid(root, 'Podmiot2')),
    ...(deliveryDate ? { delivery: { actualDeliveryDate: deliveryDate } } : {}),
    ...(period ? { invoicingPeriod: { ...(txt(period, 'P_6_Od') ? { start: txt(period, 'P_6_Od')! } : {}), ...(txt(period, 'P_6_Do') ? { end: txt(period, 'P_6_Do')! } : {}) } } : {}),
    ...(meansCode ? { paymentInstructions: { meansCode, ...(accounts.length ? { creditTransfers: accounts } : {}) } } : {}),
    totals: {
      lineNetTotal: money(lineNetTotal),
      taxExclusive: money(taxExclusive),
      vatTotal: money(vatTotal),
      taxInclusive: money(num(total)!),
      ...(prepaid ? { prepaid: money(prepaid) } : {}),
      payable: money(payable ?? num(total)!),
    },
    vatBreakdown,
    lines,
  };
}

/** An FA(3) document (string or bytes) → canonical, the caller's bytes kept as the original. */
export function fa3ToCanonical(xml: string | Buffer): Fa3Parsed {
  return { canonical: fa3TreeToCanonical(readTree(xml, 'FA(3) invoice')), original: xml, syntax: 'ksef-fa3' };
}
