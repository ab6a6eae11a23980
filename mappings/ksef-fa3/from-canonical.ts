/**
 * Canonical EN 16931 → FA(3), the structured invoice of KSeF 2.0 (schemat_FA(3)_v1-0E.xsd, namespace
 * http://crd.gov.pl/wzor/2025/06/25/13775/). The mapping BT by BT, and what FA(3) has no place for,
 * is in README.md. Everything the schema cannot take is refused before a line is written, all
 * problems at once (MappingError with dotted paths into the canonical invoice): a seller without a
 * Polish NIP, a VAT rate Polish law does not have, a credit note that does not say which invoice it
 * corrects… so what comes out is valid against the official schema.
 */
import { Dec, money } from '../canonical/decimal.ts';
import type { Address, CanonicalInvoice, Line, Party } from '../canonical/model.ts';
import { IssueCollector, type MappingErrorCode } from '../errors.ts';
import { XmlWriter } from '../xml/writer.ts';
import { EU_VAT_PREFIXES, FA3_BUCKETS, FA3_FORM_CODE, FA3_NS, PAYMENT_FORM_BY_UNCL4461, fa3RateOf, isValidNip, nipOf, type Fa3Rate } from './codes.ts';

export interface Fa3Options {
  /** `Naglowek/DataWytworzeniaFa`: when the file was produced (ISO 8601 date-time; the schema wants 2025-09-01 or later). */
  createdAt: string;
  /** `Naglowek/SystemInfo`: the producing system's name. */
  systemInfo?: string;
  /**
   * KSeF numbers of corrected invoices by their seller number (BT-25), as KSeF knows them: a correction
   * names a corrected invoice cleared in KSeF by its KSeF number (`NrKSeFFaKorygowanej`), one issued
   * outside KSeF with `NrKSeFN`.
   */
  correctedKsefNumbers?: Readonly<Record<string, string>>;
}

/** A KSeF number (TNumerKSeF, for a NIP seller): `{NIP}-{YYYYMMDD}-{6 hex}[-]{6 hex}-{2 hex}`. */
const KSEF_NUMBER = /^[1-9]((\d[1-9])|([1-9]\d))\d{7}-(20[2-9]\d|2[1-9]\d{2}|[3-9]\d{3})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])-[0-9A-F]{6}-?[0-9A-F]{6}-[0-9A-F]{2}$/;

/** Largest line count FA(3) takes (FaWiersz maxOccurs). */
const MAX_LINES = 10_000;
/** TZnakowy (256) and TZnakowy512 bounds: longer texts are refused rather than cut. */
const TEXT_256 = 256;
const TEXT_512 = 512;
/** TTekstowy: the footer text (notes go there). */
const TEXT_3500 = 3500;

type Issues = IssueCollector;

/** TKwotowy: at most two decimals, no `+`, no `-0`. */
function amount(value: string | Dec): string {
  const d = new Dec(money(value));
  return d.isZero() ? '0.00' : d.toFixed(2);
}

/** A decimal at most `places` decimals long (TKwotowy2: 8, TIlosci: 6), trailing zeros dropped. */
function decimal(value: string, places: number): string {
  const d = new Dec(value).toDecimalPlaces(places, Dec.ROUND_HALF_UP);
  return d.isZero() ? '0' : d.toFixed();
}

function isDecimal(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try { new Dec(value); return true; } catch { return false; }
}

/** A text within the schema's length, or an issue. */
function text(issues: Issues, field: string, value: string | undefined, max: number): string | undefined {
  if (value === undefined) return undefined;
  const t = value.replace(/\s+/g, ' ').trim();
  if (t === '') return undefined;
  if (t.length > max) {
    issues.add('INVALID_REQUEST', field, 'ksef-length', `${field} is ${t.length} characters; FA(3) takes at most ${max}`);
    return undefined;
  }
  return t;
}

/** The two address lines of TAdres: street lines first, then post code and city. */
function addressLines(a: Address): [string, string | undefined] | undefined {
  const street = [a.line1, a.line2, a.line3].filter((s) => s && s.trim()).join(', ');
  const town = [a.postalCode, a.city].filter((s) => s && s.trim()).join(' ');
  if (street && town) return [street, town];
  if (street || town) return [street || town, undefined];
  return undefined;
}

function writeAddress(w: XmlWriter, issues: Issues, field: string, a: Address, element = 'Adres'): void {
  const lines = addressLines(a)!;
  w.el(element, () => {
    w.leaf('KodKraju', a.country!.toUpperCase());
    w.leaf('AdresL1', text(issues, `${field}.line1`, lines[0], TEXT_512));
    w.leaf('AdresL2', text(issues, `${field}.city`, lines[1], TEXT_512));
  });
}

function writeContact(w: XmlWriter, p: Party): void {
  const email = p.contact?.email?.trim();
  const phone = p.contact?.phone?.trim();
  const validEmail = email && email.length <= 255 && /.+@.+/.test(email) ? email : undefined;
  const validPhone = phone && phone.length <= 16 ? phone : undefined;
  w.el('DaneKontaktowe', () => {
    w.leaf('Email', validEmail);
    w.leaf('Telefon', validPhone);
  }, undefined, Boolean(validEmail || validPhone));
}

/** How the buyer is identified in `Podmiot2/DaneIdentyfikacyjne`. */
type BuyerId =
  | { kind: 'nip'; nip: string }
  | { kind: 'eu'; country: string; number: string }
  | { kind: 'other'; country?: string; number: string }
  | { kind: 'none' };

function buyerIdOf(b: Party): BuyerId {
  const nip = nipOf(b);
  if (nip) return { kind: 'nip', nip };
  const vat = b.vatId?.replace(/[\s-]/g, '').toUpperCase();
  if (vat) {
    const prefix = vat.slice(0, 2);
    if (EU_VAT_PREFIXES.has(prefix) && /^(\d|[A-Z]|\+|\*){1,12}$/.test(vat.slice(2))) return { kind: 'eu', country: prefix, number: vat.slice(2) };
    return { kind: 'other', ...(b.address?.country ? { country: b.address.country.toUpperCase() } : {}), number: vat };
  }
  return { kind: 'none' };
}

function isCorrection(c: CanonicalInvoice): boolean {
  return c.kind === 'credit-note' || c.typeCode === '381' || c.typeCode === '384';
}

/** A credit note states positive amounts that reduce; a FA(3) correction states the signed difference. */
function signed(c: CanonicalInvoice, value: string): string {
  return c.kind === 'credit-note' ? new Dec(value).negated().toFixed() : value;
}

interface Checked { rates: Map<number, Fa3Rate>; buckets: Map<string, { net: Dec; vat: Dec }>; sellerNip: string }

/** Every check that decides whether the invoice can be valid FA(3), before anything is written. */
function check(c: CanonicalInvoice): Checked {
  const issues = new IssueCollector();
  const add = (code: MappingErrorCode, field: string, rule: string, message: string) => issues.add(code, field, rule, message);

  const sellerNip = nipOf(c.seller);
  if (!sellerNip) {
    add('MISSING_FIELD', 'seller.vatId', 'ksef-seller-nip', 'KSeF takes invoices of Polish taxpayers only: the seller needs a Polish NIP (VAT identifier PL + 10 digits, or a 10-digit tax registration)');
  } else if (!isValidNip(sellerNip)) {
    add('INVALID_VAT_FORMAT', 'seller.vatId', 'ksef-nip-checksum', `the seller's NIP ${sellerNip} fails its check digit`);
  }
  if (!c.seller.address?.country || !addressLines(c.seller.address)) {
    add('MISSING_FIELD', 'seller.address', 'ksef-seller-address', 'FA(3) requires the seller\'s address (Podmiot1/Adres): a country and a street or city');
  }
  const buyerNip = nipOf(c.buyer);
  if (buyerNip && !isValidNip(buyerNip)) add('INVALID_VAT_FORMAT', 'buyer.vatId', 'ksef-nip-checksum', `the buyer's NIP ${buyerNip} fails its check digit`);
  if (c.buyer.address && !c.buyer.address.country && addressLines(c.buyer.address)) {
    add('MISSING_FIELD', 'buyer.address.country', 'ksef-address-country', 'FA(3) needs the country of an address it states');
  }
  if (!/^\d{4}-\d{2}-\d{2}$/.test(c.issueDate) || c.issueDate < '2006-01-01' || c.issueDate > '2050-01-01') {
    add('INVALID_DATE', 'issueDate', 'ksef-date', `FA(3) takes issue dates from 2006-01-01 to 2050-01-01, not ${c.issueDate}`);
  }
  if (!c.number || c.number.trim().length > TEXT_256) add('INVALID_REQUEST', 'number', 'ksef-number', 'the invoice number (P_2) must be 1 to 256 characters');
  if (!/^[A-Z]{3}$/.test(c.currency ?? '')) add('INVALID_CURRENCY', 'currency', 'ksef-currency', `currency ${c.currency} is not an ISO 4217 code`);
  if (c.lines.length === 0) add('MISSING_FIELD', 'lines', 'ksef-lines', 'an invoice needs at least one line (FaWiersz)');
  if (c.lines.length > MAX_LINES) add('PAYLOAD_TOO_LARGE', 'lines', 'ksef-lines', `FA(3) takes at most ${MAX_LINES} lines, not ${c.lines.length}`);
  if (!isDecimal(c.totals.taxInclusive)) add('MISSING_FIELD', 'totals.taxInclusive', 'ksef-total', 'the invoice total with VAT (BT-112, P_15) is required');

  const buyerCountry = c.buyer.address?.country?.toUpperCase() ?? (c.buyer.vatId ? c.buyer.vatId.slice(0, 2).toUpperCase() : undefined);
  const rates = new Map<number, Fa3Rate>();
  c.lines.slice(0, MAX_LINES).forEach((l: Line, i) => {
    const r = fa3RateOf(l.vat.category, l.vat.rate, buyerCountry);
    if (!r) add('INVALID_ENUM', `lines[${i}].vat`, 'ksef-vat-rate', `VAT category ${l.vat.category}${l.vat.rate !== undefined ? ` at ${l.vat.rate} %` : ''} has no FA(3) rate (P_12: 23, 22, 8, 7, 5, 4, 3, 0 KR, 0 WDT, 0 EX, zw, oo, np I, np II)`);
    else rates.set(i, r);
    if (!isDecimal(l.netAmount)) add('MISSING_FIELD', `lines[${i}].netAmount`, 'ksef-line-amount', 'the line net amount (BT-131, P_11) is required');
  });
  const buckets = new Map<string, { net: Dec; vat: Dec }>();
  c.vatBreakdown.forEach((b, i) => {
    const r = fa3RateOf(b.category, b.rate, buyerCountry);
    if (!r) {
      add('INVALID_ENUM', `vatBreakdown[${i}]`, 'ksef-vat-rate', `VAT category ${b.category}${b.rate !== undefined ? ` at ${b.rate} %` : ''} has no FA(3) totals field (P_13_x)`);
      return;
    }
    const sum = buckets.get(r.bucket) ?? { net: new Dec(0), vat: new Dec(0) };
    buckets.set(r.bucket, { net: sum.net.plus(b.taxableAmount), vat: sum.vat.plus(b.taxAmount) });
  });
  if (c.vatBreakdown.length === 0) add('MISSING_FIELD', 'vatBreakdown', 'ksef-vat-breakdown', 'the VAT breakdown (BG-23) gives FA(3)\'s totals per rate (P_13_x, P_14_x) and is required');

  if (isCorrection(c)) {
    const refs = c.precedingInvoices ?? [];
    if (refs.length === 0) add('MISSING_FIELD', 'precedingInvoices', 'ksef-corrected-invoice', 'a correction (faktura korygująca) must name the invoice it corrects (BG-3: BT-25 number and BT-26 date)');
    refs.forEach((p, i) => {
      if (!p.issueDate) add('MISSING_FIELD', `precedingInvoices[${i}].issueDate`, 'ksef-corrected-invoice', 'FA(3) needs the issue date of the corrected invoice (BT-26, DataWystFaKorygowanej)');
    });
  }
  if (c.paymentInstructions?.creditTransfers) {
    c.paymentInstructions.creditTransfers.forEach((t, i) => {
      const iban = t.accountId.replace(/\s/g, '');
      if (iban.length < 10 || iban.length > 34) add('INVALID_IBAN', `paymentInstructions.creditTransfers[${i}].accountId`, 'ksef-account', 'FA(3) takes account numbers of 10 to 34 characters (NrRB)');
    });
  }
  issues.throwIfAny();
  return { rates, buckets, sellerNip: sellerNip! };
}

/**
 * The FA(3) XML of a canonical invoice or credit note. Throws MappingError, listing every problem,
 * when the invoice cannot be a valid FA(3) document.
 */
export function canonicalToFa3(c: CanonicalInvoice, options: Fa3Options): string {
  const { rates, buckets, sellerNip } = check(c);
  const issues = new IssueCollector();
  const w = new XmlWriter();
  const correction = isCorrection(c);

  w.open('Faktura', { xmlns: FA3_NS });
  w.el('Naglowek', () => {
    w.leaf('KodFormularza', FA3_FORM_CODE.value, { kodSystemowy: FA3_FORM_CODE.systemCode, wersjaSchemy: FA3_FORM_CODE.schemaVersion });
    w.leaf('WariantFormularza', '3');
    w.leaf('DataWytworzeniaFa', options.createdAt);
    w.leaf('SystemInfo', options.systemInfo ? text(issues, 'systemInfo', options.systemInfo, TEXT_256) : undefined);
  });

  // BG-4 seller → Podmiot1 (the taxpayer whose NIP the KSeF session is opened for).
  w.el('Podmiot1', () => {
    w.leaf('PrefiksPodatnika', 'PL');
    w.el('DaneIdentyfikacyjne', () => {
      w.leaf('NIP', sellerNip);
      w.leaf('Nazwa', text(issues, 'seller.name', c.seller.name, TEXT_512));
    });
    writeAddress(w, issues, 'seller.address', c.seller.address!);
    writeContact(w, c.seller);
  });

  // BG-7 buyer → Podmiot2.
  w.el('Podmiot2', () => {
    const id = buyerIdOf(c.buyer);
    w.el('DaneIdentyfikacyjne', () => {
      if (id.kind === 'nip') w.leaf('NIP', id.nip);
      else if (id.kind === 'eu') { w.leaf('KodUE', id.country); w.leaf('NrVatUE', id.number); }
      else if (id.kind === 'other') { w.leaf('KodKraju', id.country); w.leaf('NrID', text(issues, 'buyer.vatId', id.number, 50)); }
      else w.leaf('BrakID', '1');
      w.leaf('Nazwa', text(issues, 'buyer.name', c.buyer.name, TEXT_512));
    });
    if (c.buyer.address?.country && addressLines(c.buyer.address)) writeAddress(w, issues, 'buyer.address', c.buyer.address);
    writeContact(w, c.buyer);
    w.leaf('NrKlienta', text(issues, 'buyerReference', c.buyerReference, TEXT_256));
    // JST (a local-government unit's subordinate) and GV (a VAT group member): EN 16931 says neither.
    w.leaf('JST', '2');
    w.leaf('GV', '2');
  });

  w.el('Fa', () => {
    w.leaf('KodWaluty', c.currency);
    w.leaf('P_1', c.issueDate);
    w.leaf('P_2', c.number.trim());
    // BT-72 actual delivery date, or the BG-14 invoicing period (P_6 / OkresFa).
    const period = c.invoicingPeriod;
    if (c.delivery?.actualDeliveryDate) w.leaf('P_6', c.delivery.actualDeliveryDate);
    else if (period?.start && period.end) w.el('OkresFa', () => { w.leaf('P_6_Od', period.start); w.leaf('P_6_Do', period.end); });

    for (const b of FA3_BUCKETS) {
      const sum = buckets.get(b.net);
      if (!sum) continue;
      w.leaf(b.net, amount(signed(c, sum.net.toFixed())));
      if (b.vat) w.leaf(b.vat, amount(signed(c, sum.vat.toFixed())));
    }
    w.leaf('P_15', amount(signed(c, c.totals.taxInclusive!)));

    const categories = new Set(c.lines.map((l) => l.vat.category));
    const exemption = c.vatBreakdown.find((b) => b.category === 'E');
    w.el('Adnotacje', () => {
      w.leaf('P_16', '2'); // cash accounting (metoda kasowa): not stated by EN 16931
      w.leaf('P_17', c.extensions?.selfBilled || c.typeCode === '389' ? '1' : '2'); // self-billing
      w.leaf('P_18', categories.has('AE') ? '1' : '2'); // reverse charge
      w.leaf('P_18A', '2'); // mandatory split payment: not stated by EN 16931
      w.el('Zwolnienie', () => {
        if (exemption) {
          w.leaf('P_19', '1');
          // BT-120 (or BT-121) names the legal basis; FA(3) files it as "another legal basis" (P_19C).
          w.leaf('P_19C', text(issues, 'vatBreakdown.exemptionReason', exemption.exemptionReason ?? exemption.exemptionCode ?? 'Zwolnienie od podatku', TEXT_256));
        } else {
          w.leaf('P_19N', '1');
        }
      });
      w.el('NoweSrodkiTransportu', () => w.leaf('P_22N', '1'));
      w.leaf('P_23', '2');
      w.el('PMarzy', () => w.leaf('P_PMarzyN', '1'));
    });

    w.leaf('RodzajFaktury', correction ? 'KOR' : 'VAT');
    if (correction) {
      const reason = c.notes?.find((n) => n.text.trim())?.text;
      w.leaf('PrzyczynaKorekty', reason ? text(issues, 'notes[0].text', reason, TEXT_256) : undefined);
      for (const [i, p] of (c.precedingInvoices ?? []).entries()) {
        w.el('DaneFaKorygowanej', () => {
          w.leaf('DataWystFaKorygowanej', p.issueDate);
          w.leaf('NrFaKorygowanej', text(issues, `precedingInvoices[${i}].number`, p.number, TEXT_256));
          // BT-25 carries the seller's number; its KSeF number comes from the caller (KSeF's own records),
          // or BT-25 is itself a KSeF number.
          const ksefNumber = options.correctedKsefNumbers?.[p.number] ?? (KSEF_NUMBER.test(p.number) ? p.number : undefined);
          if (ksefNumber && KSEF_NUMBER.test(ksefNumber)) {
            w.leaf('NrKSeF', '1');
            w.leaf('NrKSeFFaKorygowanej', ksefNumber);
          } else {
            w.leaf('NrKSeFN', '1');
          }
        });
      }
    }

    // Document-level allowances and charges have no FA(3) element: they are in P_13_x (from BG-23)
    // and listed here as additional descriptions so the reader sees them.
    const extras: Array<[string, string]> = [];
    for (const a of c.allowanceCharges ?? []) {
      extras.push([a.isCharge ? 'Obciążenie' : 'Rabat', `${a.reason ?? a.reasonCode ?? ''} ${a.amount} ${c.currency}`.trim()]);
    }
    if (c.buyerReference) extras.push(['BT-10 Buyer reference', c.buyerReference]);
    if (c.projectReference) extras.push(['BT-11 Project reference', c.projectReference]);
    for (const [key, value] of extras) {
      w.el('DodatkowyOpis', () => {
        w.leaf('Klucz', key);
        w.leaf('Wartosc', text(issues, 'allowanceCharges', value, TEXT_256));
      });
    }

    c.lines.forEach((l, i) => {
      const r = rates.get(i)!;
      w.el('FaWiersz', () => {
        w.leaf('NrWierszaFa', String(i + 1));
        w.leaf('P_7', text(issues, `lines[${i}].item.name`, l.item.name, TEXT_512));
        w.leaf('Indeks', l.item.sellerId ? text(issues, `lines[${i}].item.sellerId`, l.item.sellerId, 50) : undefined);
        w.leaf('GTIN', l.item.standardId?.scheme === '0160' ? text(issues, `lines[${i}].item.standardId`, l.item.standardId.value, 20) : undefined);
        w.leaf('P_8A', l.unit ? text(issues, `lines[${i}].unit`, l.unit, TEXT_256) : undefined);
        w.leaf('P_8B', isDecimal(l.quantity) ? decimal(signed(c, l.quantity), 6) : undefined);
        w.leaf('P_9A', isDecimal(l.price?.netPrice) ? decimal(l.price.netPrice, 8) : undefined);
        w.leaf('P_11', amount(signed(c, l.netAmount)));
        w.leaf('P_12', r.code);
      });
    });

    // BT-113 prepaid → Rozliczenie (deductions), with BT-115 as the amount still to pay.
    const prepaid = c.totals.prepaid && isDecimal(c.totals.prepaid) && !new Dec(c.totals.prepaid).isZero() ? c.totals.prepaid : undefined;
    if (prepaid) {
      w.el('Rozliczenie', () => {
        w.el('Odliczenia', () => { w.leaf('Kwota', amount(prepaid)); w.leaf('Powod', 'Kwota zapłacona (BT-113)'); });
        w.leaf('SumaOdliczen', amount(prepaid));
        if (isDecimal(c.totals.payable)) w.leaf('DoZaplaty', amount(c.totals.payable));
      });
    }

    const pay = c.paymentInstructions;
    const terms = c.dueDate || c.paymentTerms;
    if (pay || terms) {
      w.el('Platnosc', () => {
        if (c.dueDate) w.el('TerminPlatnosci', () => w.leaf('Termin', c.dueDate));
        if (pay) {
          const form = PAYMENT_FORM_BY_UNCL4461[pay.meansCode];
          if (form) w.leaf('FormaPlatnosci', form);
          else {
            w.leaf('PlatnoscInna', '1');
            w.leaf('OpisPlatnosci', text(issues, 'paymentInstructions.meansText', pay.meansText ?? `UNCL4461 ${pay.meansCode}`, TEXT_256));
          }
          for (const [i, t] of (pay.creditTransfers ?? []).entries()) {
            w.el('RachunekBankowy', () => {
              w.leaf('NrRB', t.accountId.replace(/\s/g, ''));
              w.leaf('SWIFT', t.serviceProviderId && /^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(t.serviceProviderId) ? t.serviceProviderId : undefined);
              w.leaf('OpisRachunku', t.accountName ? text(issues, `paymentInstructions.creditTransfers[${i}].accountName`, t.accountName, TEXT_256) : undefined);
            });
          }
        }
      });
    }

    const contracts = c.contractReference ? [c.contractReference] : [];
    const orders = c.orderReference ? [c.orderReference] : [];
    if (contracts.length || orders.length) {
      w.el('WarunkiTransakcji', () => {
        for (const n of contracts) w.el('Umowy', () => w.leaf('NrUmowy', text(issues, 'contractReference', n, TEXT_256)));
        for (const n of orders) w.el('Zamowienia', () => w.leaf('NrZamowienia', text(issues, 'orderReference', n, TEXT_256)));
      });
    }
  });

  // BG-1 notes (and BT-20 payment terms) → the footer, the free text FA(3) prints.
  const footer = [...(c.notes ?? []).map((n) => n.text.trim()), c.paymentTerms?.trim()].filter((s): s is string => Boolean(s)).join('\n');
  if (footer) {
    w.el('Stopka', () => w.el('Informacje', () => w.leaf('StopkaFaktury', footer.length <= TEXT_3500 ? footer : (issues.add('INVALID_REQUEST', 'notes', 'ksef-length', `the notes are ${footer.length} characters; FA(3)'s footer takes at most ${TEXT_3500}`), undefined))));
  }
  w.close('Faktura');
  issues.throwIfAny();
  return w.toString();
}
