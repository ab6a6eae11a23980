/**
 * Canonical EN 16931 → FatturaPA 1.2.2 (`FPR12` between businesses, `FPA12` to a public
 * administration), valid against the official schema. Element order is the schema's sequence order.
 * Field by field, with the sources of the Italian fields EN 16931 lacks, in README.md.
 *
 * What cannot be made valid is refused before anything is written: every problem of the invoice at
 * once, as a MappingError whose details name the canonical path (`seller.address.postalCode`,
 * `lines[2].vat.category`) and the rule.
 */
import type { Address, AllowanceCharge, CanonicalInvoice, Line, Party, VatBreakdown } from '../canonical/model.ts';
import { Dec, dec, money } from '../canonical/decimal.ts';
import { IssueCollector } from '../errors.ts';
import type { MappingErrorCode } from '../errors.ts';
import { XmlWriter } from '../xml/writer.ts';
import {
  FATTURAPA_NS, NO_SDI_CODE, REGIME_FISCALE_CODES, modalitaPagamentoOf, naturaOf, tipoDocumentoOf,
} from './codes.ts';
import {
  codiceFiscale, progressivoInvio, recipientCode, recipientPec, regimeFiscale, splitVat, type FatturaPaOptions, type Sourced,
} from './italian-fields.ts';

export type { FatturaPaOptions } from './italian-fields.ts';

/**
 * The VAT categories FatturaPA can carry: S with its rate; B (split payment, the Italian CIUS's
 * category) with its rate and EsigibilitaIVA S; the others as AliquotaIVA 0.00 with a Natura.
 */
const CARRIED_CATEGORIES: ReadonlySet<string> = new Set(['S', 'B', 'E', 'AE', 'K', 'G', 'O', 'Z']);
const RATED_CATEGORIES: ReadonlySet<string> = new Set(['S', 'B']);
/** IdCodice of a buyer abroad who has no VAT number nor other identifier (the Agenzia's convention). */
const FOREIGN_NO_VAT_CODE = '99999999999';
const LATIN1 = /^[\u0000-\u00FF]*$/;
const BASIC_LATIN = /^[\u0000-\u007F]*$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const IBAN = /^[a-zA-Z]{2}[0-9]{2}[a-zA-Z0-9]{11,30}$/;
const BIC = /^[A-Z]{6}[A-Z2-9][A-NP-Z0-9]([A-Z0-9]{3})?$/;
/** The largest NumeroLinea (NumeroLineaType 1–9999). */
const MAX_LINES = 9999;
/** The widest number the schema's amount types take: 11 integer digits. */
const MAX_AMOUNT = new Dec('99999999999.99999999');

/** A resolved line of DatiBeniServizi (an invoice line, or a document-level allowance or charge as its own line). */
interface OutLine {
  tipo?: 'SC' | 'AC';
  codes: Array<{ type: string; value: string }>;
  description: string;
  quantity?: string;
  unit?: string;
  start?: string;
  end?: string;
  unitPrice: string;
  discounts: Array<{ tipo: 'SC' | 'MG'; importo: string }>;
  total: string;
  rate: string;
  natura?: string;
  splitPayment?: boolean;
}

class FatturaPaBuilder {
  private readonly issues = new IssueCollector();
  private readonly c: CanonicalInvoice;
  private readonly o: FatturaPaOptions;

  constructor(c: CanonicalInvoice, o: FatturaPaOptions) {
    this.c = c;
    this.o = o;
  }

  private fail(code: MappingErrorCode, field: string, rule: string, message: string): void {
    this.issues.add(code, field, rule, message);
  }

  /** Text for a `String…LatinType` (Latin-1) or a `String…Type` (ASCII) element, refused when it does not fit. */
  private text(value: string | undefined, max: number, path: string, ascii = false): string | undefined {
    if (value === undefined) return undefined;
    const v = value.replace(/\s+/g, ' ').trim();
    if (v === '') return undefined;
    if (!(ascii ? BASIC_LATIN : LATIN1).test(v)) {
      this.fail('INVALID_REQUEST', path, 'fatturapa-charset', `${path}: FatturaPA takes ${ascii ? 'only ASCII characters' : 'only Latin-1 characters'} here ("${v.slice(0, 40)}")`);
      return undefined;
    }
    if (v.length > max) {
      this.fail('INVALID_REQUEST', path, 'fatturapa-length', `${path}: FatturaPA takes at most ${max} characters here (${v.length} given)`);
      return undefined;
    }
    return v;
  }

  private required<T>(value: T | undefined, path: string, what: string): T | undefined {
    // A value refused for its form (too long, wrong characters) is already reported at the same path.
    if (value === undefined && !this.issues.issues.some((i) => i.field === path)) this.fail('MISSING_FIELD', path, 'fatturapa-required', `${path}: FatturaPA requires ${what}`);
    return value;
  }

  /** Amount2DecimalType. */
  private amount2(value: string | Dec, path: string): string {
    const d = dec(value);
    if (d.abs().gt(MAX_AMOUNT)) this.fail('INVALID_REQUEST', path, 'fatturapa-amount', `${path}: ${d.toFixed()} is wider than FatturaPA's 11 integer digits`);
    return money(d);
  }

  /** Amount8DecimalType / QuantitaType: 2 to 8 decimals, rounded half up beyond 8. */
  private amount8(value: string | Dec, path: string): string {
    const d = dec(value).toDecimalPlaces(8, Dec.ROUND_HALF_UP);
    if (d.abs().gt(MAX_AMOUNT)) this.fail('INVALID_REQUEST', path, 'fatturapa-amount', `${path}: ${d.toFixed()} is wider than FatturaPA's 11 integer digits`);
    return d.toFixed(Math.max(2, d.decimalPlaces()));
  }

  private rate(value: string | undefined): string {
    return dec(value ?? '0').toFixed(2);
  }

  /** AliquotaIVA and Natura of a category and rate; refuses what FatturaPA cannot carry. */
  private vat(category: string | undefined, rateValue: string | undefined, exemptionCode: string | undefined, path: string): { rate: string; natura?: string; splitPayment?: boolean } {
    if (category === undefined || !CARRIED_CATEGORIES.has(category)) {
      this.fail('INVALID_ENUM', `${path}.category`, 'fatturapa-vat-category', `${path}.category: VAT category ${category ?? '(none)'} has no FatturaPA form (S, B, E, AE, K, G, O and Z have)`);
      return { rate: '0.00' };
    }
    if (RATED_CATEGORIES.has(category)) {
      if (rateValue === undefined || dec(rateValue).lte(0)) {
        this.fail('INVALID_REQUEST', `${path}.rate`, 'fatturapa-standard-rate', `${path}.rate: a taxed (${category}) amount needs a rate above 0 in FatturaPA; an amount at 0 needs its own category (Z, E, AE, K, G, O) for its Natura, and the API merges exempt lines into S when any line is S, so send them on their own document`);
      } else if (dec(rateValue).gt(100)) {
        this.fail('INVALID_REQUEST', `${path}.rate`, 'fatturapa-rate', `${path}.rate: ${rateValue} is above 100`);
      }
      return { rate: this.rate(rateValue), ...(category === 'B' ? { splitPayment: true } : {}) };
    }
    return { rate: '0.00', natura: naturaOf(category, exemptionCode) };
  }

  private party(p: Party, role: 'seller' | 'buyer'): {
    vat?: { country: string; code: string }; cf?: string; name?: string; address?: Record<string, string | undefined>;
  } {
    let vat = p.vatId !== undefined ? splitVat(p.vatId) : undefined;
    if (p.vatId !== undefined && (!vat || vat.code.length > 28)) this.fail('INVALID_VAT_FORMAT', `${role}.vatId`, 'fatturapa-vat', `${role}.vatId: ${p.vatId} is not a country prefix and a code of at most 28 characters`);
    const cfSource = codiceFiscale(this.c, role);
    let cf: string | undefined;
    if (cfSource) {
      if (/^[A-Z0-9]{11,16}$/.test(cfSource.value)) cf = cfSource.value;
      else this.fail('INVALID_REQUEST', cfSource.path, 'fatturapa-codice-fiscale', `${cfSource.path}: a codice fiscale is 11 to 16 letters or digits ("${cfSource.value}")`);
    }
    const country = p.address?.country;
    if (role === 'buyer' && !vat && !cfSource && country !== undefined && country !== 'IT') {
      // A buyer abroad without a VAT number: its country and its own identifier, or the Agenzia's 99999999999.
      const own = p.legalRegistration?.value.replace(/\s+/g, '');
      vat = { country, code: own !== undefined && /^[A-Za-z0-9]{1,28}$/.test(own) ? own : FOREIGN_NO_VAT_CODE };
    }
    if (role === 'seller') this.required(vat, 'seller.vatId', "the seller's VAT number (IdFiscaleIVA, BT-31)");
    else if (!vat && !cf && !cfSource) {
      this.fail('MISSING_FIELD', 'buyer.vatId', 'fatturapa-buyer-id', "buyer.vatId: FatturaPA requires the buyer's VAT number (BT-48) or codice fiscale (legal registration or identifier with scheme 0210, or the custom field codiceFiscale)");
    }
    const name = this.required(this.text(p.name, 80, `${role}.name`), `${role}.name`, `the ${role}'s name (Denominazione)`);
    return { vat, cf, name, address: this.address(p.address, role) };
  }

  private address(a: Address | undefined, role: string): Record<string, string | undefined> | undefined {
    const path = `${role}.address`;
    if (!this.required(a, path, `the ${role}'s address (Sede)`)) return undefined;
    const country = this.required(a!.country, `${path}.country`, 'the country (Nazione)');
    const street = [a!.line1, a!.line2].filter(Boolean).join(', ') || undefined;
    let cap = a!.postalCode?.trim();
    if (cap === undefined || !/^\d{5}$/.test(cap)) {
      // An address abroad has no Italian CAP: the SDI's specification says 00000.
      if (country !== undefined && country !== 'IT') cap = '00000';
      else if (cap === undefined) { this.required(undefined, `${path}.postalCode`, 'the postal code (CAP)'); cap = undefined; }
      else { this.fail('INVALID_REQUEST', `${path}.postalCode`, 'fatturapa-cap', `${path}.postalCode: an Italian CAP is 5 digits ("${cap}")`); cap = undefined; }
    }
    const provincia = a!.subdivision?.trim().toUpperCase();
    return {
      Indirizzo: this.required(this.text(street, 60, `${path}.line1`), `${path}.line1`, 'the street (Indirizzo)'),
      CAP: cap,
      Comune: this.required(this.text(a!.city, 60, `${path}.city`), `${path}.city`, 'the city (Comune)'),
      // Provincia is the two-letter Italian province; a subdivision of another form is left out.
      Provincia: country === 'IT' && provincia !== undefined && /^[A-Z]{2}$/.test(provincia) ? provincia : undefined,
      Nazione: country,
    };
  }

  private bucketOf(category: string, rate: string | undefined): VatBreakdown | undefined {
    return this.c.vatBreakdown.find((b) => b.category === category && dec(b.rate ?? '0').eq(rate ?? '0'));
  }

  private line(l: Line, i: number): OutLine {
    const path = `lines[${i}]`;
    const qty = dec(l.quantity);
    const base = l.price.baseQuantity !== undefined && !dec(l.price.baseQuantity).isZero() ? dec(l.price.baseQuantity) : dec(1);
    let unitPrice = dec(l.price.netPrice).div(base);
    // FatturaPA quantities are never negative: the sign moves onto the unit price.
    if (qty.isNegative()) unitPrice = unitPrice.neg();
    const absQty = qty.abs();
    const codes: OutLine['codes'] = [];
    if (l.item.sellerId !== undefined) codes.push({ type: 'SELLER', value: l.item.sellerId });
    if (l.item.buyerId !== undefined) codes.push({ type: 'BUYER', value: l.item.buyerId });
    if (l.item.standardId !== undefined) codes.push({ type: l.item.standardId.scheme ?? 'STANDARD', value: l.item.standardId.value });
    const discounts = (l.allowanceCharges ?? []).filter(() => !absQty.isZero()).map((ac, j) => ({
      tipo: ac.isCharge ? 'MG' as const : 'SC' as const,
      // ScontoMaggiorazione/Importo applies to the unit price.
      importo: this.amount8(dec(ac.amount).abs().div(absQty), `${path}.allowanceCharges[${j}].amount`),
    }));
    const exemptionCode = l.vat.exemptionCode ?? this.bucketOf(l.vat.category, l.vat.rate)?.exemptionCode;
    const vat = this.vat(l.vat.category, l.vat.rate, exemptionCode, `${path}.vat`);
    return {
      codes: codes.map((cd, j) => ({ type: this.text(cd.type, 35, `${path}.item.codes[${j}]`, true) ?? 'CODE', value: this.text(cd.value, 35, `${path}.item.codes[${j}]`) ?? '' })).filter((cd) => cd.value !== ''),
      description: this.required(this.text(l.item.name, 1000, `${path}.item.name`), `${path}.item.name`, 'the item name (Descrizione)') ?? '',
      quantity: this.amount8(absQty, `${path}.quantity`),
      unit: this.text(l.unit, 10, `${path}.unit`, true),
      start: l.period?.start,
      end: l.period?.end,
      unitPrice: this.amount8(unitPrice, `${path}.price.netPrice`),
      discounts,
      total: this.amount8(l.netAmount, `${path}.netAmount`),
      ...vat,
    };
  }

  /** A document-level allowance (SC) or charge (AC) as its own line: FatturaPA's summary must add up from the lines. */
  private allowanceLine(ac: AllowanceCharge, i: number): OutLine {
    const path = `allowanceCharges[${i}]`;
    const amount = ac.isCharge ? dec(ac.amount) : dec(ac.amount).neg();
    const bucket = ac.vatCategory !== undefined ? this.bucketOf(ac.vatCategory, ac.vatRate) : undefined;
    const vat = ac.vatCategory === undefined
      ? (this.required(undefined, `${path}.vatCategory`, 'the VAT category of a document-level allowance or charge'), { rate: '0.00' })
      : this.vat(ac.vatCategory, ac.vatRate, bucket?.exemptionCode, path);
    return {
      tipo: ac.isCharge ? 'AC' : 'SC',
      codes: [],
      description: this.text(ac.reason, 1000, `${path}.reason`) ?? (ac.isCharge ? 'Maggiorazione' : 'Sconto'),
      unitPrice: this.amount8(amount, `${path}.amount`),
      discounts: [],
      total: this.amount8(amount, `${path}.amount`),
      ...vat,
    };
  }

  private reference(value: string | undefined, path: string): string | undefined {
    return this.text(value, 20, path, true);
  }

  build(): string {
    const { c, o } = this;
    // DatiTrasmissione
    const code = recipientCode(c, o);
    if (!/^[A-Z0-9]{6,7}$/.test(code.value)) this.fail('INVALID_REQUEST', code.path, 'fatturapa-codice-destinatario', `${code.path}: a CodiceDestinatario is the 6-character IPA code of a public office or a 7-character SDI code ("${code.value}")`);
    const formato = code.value.length === 6 ? 'FPA12' : 'FPR12';
    const pec: Sourced | undefined = code.value === NO_SDI_CODE ? recipientPec(c, o) : undefined;
    if (pec && (!EMAIL.test(pec.value) || pec.value.length > 256)) this.fail('INVALID_REQUEST', pec.path, 'fatturapa-pec', `${pec.path}: "${pec.value}" is not an e-mail address`);
    const seller = this.party(c.seller, 'seller');
    const buyer = this.party(c.buyer, 'buyer');
    const transmitter = o.transmitter ?? seller.vat;
    if (o.transmitter && (!/^[A-Z]{2}$/.test(o.transmitter.country) || !o.transmitter.code || o.transmitter.code.length > 28)) {
      this.fail('INVALID_REQUEST', 'options.transmitter', 'fatturapa-transmitter', 'options.transmitter: IdTrasmittente is a country code and a code of 1 to 28 characters');
    }
    const progressivo = progressivoInvio(c, o);
    if (!/^[A-Za-z0-9]{1,10}$/.test(progressivo.value)) this.fail('INVALID_REQUEST', progressivo.path, 'fatturapa-progressivo', `${progressivo.path}: ProgressivoInvio is 1 to 10 letters or digits ("${progressivo.value}")`);
    const regime = regimeFiscale(c, o);
    if (!REGIME_FISCALE_CODES.has(regime.value)) this.fail('INVALID_ENUM', regime.path, 'fatturapa-regime-fiscale', `${regime.path}: RegimeFiscale must be one of RF01, RF02, RF04 … RF19 ("${regime.value}")`);
    // DatiGenerali
    const numero = this.required(this.text(c.number, 20, 'number', true), 'number', 'the invoice number (Numero, at most 20 ASCII characters)');
    if (!/^[A-Z]{3}$/.test(c.currency)) this.fail('INVALID_CURRENCY', 'currency', 'fatturapa-divisa', `currency: ${c.currency} is not an ISO 4217 code`);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(c.issueDate) || c.issueDate < '1970-01-01') this.fail('INVALID_DATE', 'issueDate', 'fatturapa-data', `issueDate: ${c.issueDate} is not a date from 1970 on`);
    const causali = (c.notes ?? []).flatMap((n, i) => {
      const t = n.text.replace(/\s+/g, ' ').trim();
      if (!LATIN1.test(t)) { this.fail('INVALID_REQUEST', `notes[${i}].text`, 'fatturapa-charset', `notes[${i}].text: FatturaPA takes only Latin-1 characters here`); return []; }
      const chunks: string[] = [];
      for (let k = 0; k < t.length; k += 200) chunks.push(t.slice(k, k + 200));
      return chunks;
    });
    const orderRef = this.reference(c.orderReference, 'orderReference');
    const contractRef = this.reference(c.contractReference, 'contractReference');
    const receivingRef = this.reference(c.receivingAdviceReference, 'receivingAdviceReference');
    const preceding = (c.precedingInvoices ?? []).map((p, i) => ({ id: this.reference(p.number, `precedingInvoices[${i}].number`), date: p.issueDate }));
    // DatiBeniServizi
    if (c.lines.length === 0) this.fail('MISSING_FIELD', 'lines', 'fatturapa-required', 'lines: FatturaPA requires at least one line (DettaglioLinee)');
    const lines = [...c.lines.map((l, i) => this.line(l, i)), ...(c.allowanceCharges ?? []).map((ac, i) => this.allowanceLine(ac, i))];
    if (lines.length > MAX_LINES) this.fail('INVALID_REQUEST', 'lines', 'fatturapa-line-count', `lines: FatturaPA numbers at most ${MAX_LINES} lines (allowances and charges included); this invoice has ${lines.length}`);
    if (c.vatBreakdown.length === 0) this.fail('MISSING_FIELD', 'vatBreakdown', 'fatturapa-required', 'vatBreakdown: FatturaPA requires a VAT summary (DatiRiepilogo)');
    const summary = c.vatBreakdown.map((b, i) => ({
      ...this.vat(b.category, b.rate, b.exemptionCode, `vatBreakdown[${i}]`),
      taxable: this.amount2(b.taxableAmount, `vatBreakdown[${i}].taxableAmount`),
      tax: this.amount2(b.taxAmount, `vatBreakdown[${i}].taxAmount`),
      // RiferimentoNormativo is the law the exemption rests on: the exemption text, shortened to the schema's 100.
      reference: b.exemptionReason !== undefined && b.category !== 'S' && LATIN1.test(b.exemptionReason) ? b.exemptionReason.replace(/\s+/g, ' ').trim().slice(0, 100) || undefined : undefined,
    }));
    const total = c.totals.taxInclusive !== undefined ? this.amount2(c.totals.taxInclusive, 'totals.taxInclusive') : undefined;
    // DatiPagamento
    const pi = c.paymentInstructions;
    const transfer = pi?.creditTransfers?.[0];
    const iban = transfer?.accountId.replace(/\s+/g, '');
    if (iban !== undefined && !IBAN.test(iban)) this.fail('INVALID_IBAN', 'paymentInstructions.creditTransfers[0].accountId', 'fatturapa-iban', `paymentInstructions.creditTransfers[0].accountId: "${transfer!.accountId}" is not an IBAN`);
    const bic = transfer?.serviceProviderId;
    if (bic !== undefined && !BIC.test(bic)) this.fail('INVALID_REQUEST', 'paymentInstructions.creditTransfers[0].serviceProviderId', 'fatturapa-bic', `paymentInstructions.creditTransfers[0].serviceProviderId: "${bic}" is not a BIC`);
    const payment = pi || c.dueDate ? {
      beneficiary: this.text(transfer?.accountName, 200, 'paymentInstructions.creditTransfers[0].accountName'),
      modalita: modalitaPagamentoOf(pi?.meansCode),
      due: c.dueDate,
      amount: this.amount2(c.totals.payable ?? c.totals.taxInclusive ?? '0', 'totals.payable'),
      iban, bic,
      code: this.text(pi?.remittanceInformation, 60, 'paymentInstructions.remittanceInformation', true),
    } : undefined;
    const attachments = (c.attachments ?? []).flatMap((a, i) => a.content ? [{
      name: this.text(a.content.filename, 60, `attachments[${i}].content.filename`) ?? `allegato-${i + 1}`,
      format: /\.([A-Za-z0-9]{1,10})$/.exec(a.content.filename)?.[1]?.toUpperCase(),
      description: this.text(a.description, 100, `attachments[${i}].description`),
      base64: a.content.base64.replace(/\s+/g, ''),
    }] : []);

    this.issues.throwIfAny();

    const w = new XmlWriter();
    w.open('p:FatturaElettronica', { 'xmlns:p': FATTURAPA_NS, versione: formato });
    w.el('FatturaElettronicaHeader', () => {
      w.el('DatiTrasmissione', () => {
        w.el('IdTrasmittente', () => { w.leaf('IdPaese', transmitter!.country); w.leaf('IdCodice', transmitter!.code); });
        w.leaf('ProgressivoInvio', progressivo.value);
        w.leaf('FormatoTrasmissione', formato);
        w.leaf('CodiceDestinatario', code.value);
        w.leaf('PECDestinatario', pec?.value);
      });
      w.el('CedentePrestatore', () => {
        w.el('DatiAnagrafici', () => {
          w.el('IdFiscaleIVA', () => { w.leaf('IdPaese', seller.vat!.country); w.leaf('IdCodice', seller.vat!.code); });
          w.leaf('CodiceFiscale', seller.cf);
          w.el('Anagrafica', () => w.leaf('Denominazione', seller.name));
          w.leaf('RegimeFiscale', regime.value);
        });
        this.sede(w, seller.address!);
        const contact = c.seller.contact;
        const phone = contact?.phone?.replace(/\s+/g, '');
        const email = contact?.email?.trim();
        const phoneOk = phone !== undefined && /^[\u0020-\u007E]{5,12}$/.test(phone);
        const emailOk = email !== undefined && email.length >= 7 && email.length <= 256 && EMAIL.test(email);
        w.el('Contatti', () => { if (phoneOk) w.leaf('Telefono', phone); if (emailOk) w.leaf('Email', email); }, undefined, phoneOk || emailOk);
      });
      w.el('CessionarioCommittente', () => {
        w.el('DatiAnagrafici', () => {
          if (buyer.vat) w.el('IdFiscaleIVA', () => { w.leaf('IdPaese', buyer.vat!.country); w.leaf('IdCodice', buyer.vat!.code); });
          w.leaf('CodiceFiscale', buyer.cf);
          w.el('Anagrafica', () => w.leaf('Denominazione', buyer.name));
        });
        this.sede(w, buyer.address!);
      });
    });
    w.el('FatturaElettronicaBody', () => {
      w.el('DatiGenerali', () => {
        w.el('DatiGeneraliDocumento', () => {
          w.leaf('TipoDocumento', tipoDocumentoOf(c.kind, c.typeCode));
          w.leaf('Divisa', c.currency);
          w.leaf('Data', c.issueDate);
          w.leaf('Numero', numero);
          w.leaf('ImportoTotaleDocumento', total);
          for (const t of causali) w.leaf('Causale', t);
        });
        if (orderRef) w.el('DatiOrdineAcquisto', () => w.leaf('IdDocumento', orderRef));
        if (contractRef) w.el('DatiContratto', () => w.leaf('IdDocumento', contractRef));
        if (receivingRef) w.el('DatiRicezione', () => w.leaf('IdDocumento', receivingRef));
        for (const p of preceding) if (p.id) w.el('DatiFattureCollegate', () => { w.leaf('IdDocumento', p.id); w.leaf('Data', p.date); });
      });
      w.el('DatiBeniServizi', () => {
        lines.forEach((l, i) => w.el('DettaglioLinee', () => {
          w.leaf('NumeroLinea', String(i + 1));
          w.leaf('TipoCessionePrestazione', l.tipo);
          for (const cd of l.codes) w.el('CodiceArticolo', () => { w.leaf('CodiceTipo', cd.type); w.leaf('CodiceValore', cd.value); });
          w.leaf('Descrizione', l.description);
          w.leaf('Quantita', l.quantity);
          w.leaf('UnitaMisura', l.unit);
          w.leaf('DataInizioPeriodo', l.start);
          w.leaf('DataFinePeriodo', l.end);
          w.leaf('PrezzoUnitario', l.unitPrice);
          for (const d of l.discounts) w.el('ScontoMaggiorazione', () => { w.leaf('Tipo', d.tipo); w.leaf('Importo', d.importo); });
          w.leaf('PrezzoTotale', l.total);
          w.leaf('AliquotaIVA', l.rate);
          w.leaf('Natura', l.natura);
        }));
        for (const s of summary) w.el('DatiRiepilogo', () => {
          w.leaf('AliquotaIVA', s.rate);
          w.leaf('Natura', s.natura);
          w.leaf('ImponibileImporto', s.taxable);
          w.leaf('Imposta', s.tax);
          // Immediate VAT (I), split payment (S) for category B; none where nothing is due (a Natura).
          w.leaf('EsigibilitaIVA', s.natura !== undefined ? undefined : s.splitPayment ? 'S' : 'I');
          w.leaf('RiferimentoNormativo', s.reference);
        });
      });
      if (payment) w.el('DatiPagamento', () => {
        w.leaf('CondizioniPagamento', 'TP02'); // payment in full
        w.el('DettaglioPagamento', () => {
          w.leaf('Beneficiario', payment.beneficiary);
          w.leaf('ModalitaPagamento', payment.modalita);
          w.leaf('DataScadenzaPagamento', payment.due);
          w.leaf('ImportoPagamento', payment.amount);
          w.leaf('IBAN', payment.iban);
          w.leaf('BIC', payment.bic);
          w.leaf('CodicePagamento', payment.code);
        });
      });
      for (const a of attachments) w.el('Allegati', () => {
        w.leaf('NomeAttachment', a.name);
        w.leaf('FormatoAttachment', a.format);
        w.leaf('DescrizioneAttachment', a.description);
        w.leaf('Attachment', a.base64);
      });
    });
    w.close('p:FatturaElettronica');
    return w.toString();
  }

  private sede(w: XmlWriter, a: Record<string, string | undefined>): void {
    w.el('Sede', () => {
      for (const k of ['Indirizzo', 'CAP', 'Comune', 'Provincia', 'Nazione']) w.leaf(k, a[k]);
    });
  }
}

/**
 * A canonical invoice or credit note as one FatturaPA 1.2.2 document (`FatturaElettronica`, one body).
 * Throws MappingError naming every field that keeps it from being valid.
 */
export function canonicalToFatturaPa(c: CanonicalInvoice, options: FatturaPaOptions = {}): string {
  return new FatturaPaBuilder(c, options).build();
}

/** The SDI's file name for it: `<IdPaese><IdCodice>_<progressivo>.xml` of the transmitter. */
export function fatturaPaFileName(transmitter: { country: string; code: string }, progressivo: string): string {
  return `${transmitter.country}${transmitter.code}_${progressivo}.xml`;
}
