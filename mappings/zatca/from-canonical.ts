/**
 * Canonical EN 16931 → the UBL 2.1 invoice ZATCA (Fatoora, phase 2) takes: a UBL `Invoice` for
 * tax invoices, credit and debit notes alike, with the KSA extensions of the ZATCA XML
 * implementation standard:
 * - `ProfileID` `reporting:1.0`; `UUID`; `IssueTime`; `InvoiceTypeCode` 388 / 381 / 383 with the
 *   `name` attribute `0100000` (standard, B2B: cleared) or `0200000` (simplified, B2C: reported);
 * - the document references `ICV` (the EGS unit's invoice counter) and `PIH` (the previous invoice's
 *   hash, base64), then `QR` once stamped;
 * - `cac:Signature` naming the enveloped XAdES signature, whose `ext:UBLExtensions` block is put
 *   first by the stamp (the connector signs; this module stays pure);
 * - the seller's VAT number as ZATCA writes it (15 digits, 3…3, no `SA` prefix), its commercial
 *   registration as `PartyIdentification schemeID="CRN"`;
 * - two `TaxTotal`: the first with the VAT breakdown in the document currency (categories S, Z, E, O
 *   with their `VATEX-SA-…` exemption codes and reasons), the second the VAT in SAR, the tax
 *   currency; each line's VAT and amount with VAT (`RoundingAmount`).
 * Names are written as given: Arabic (or both scripts) travels as UTF-8. Element order is the UBL
 * 2.1 schema's (the output is XSD-valid; test/unit/mappings/zatca.spec.ts).
 */
import type { AllowanceCharge, CanonicalInvoice, Line, Party } from '../canonical/model.ts';
import { dec, money } from '../canonical/decimal.ts';
import { MappingError } from '../errors.ts';
import { XmlWriter } from '../xml/writer.ts';
import { CAC_NS, CBC_NS, UBL_INVOICE_NS } from '../ubl-2.1/namespaces.ts';
import { writeLegalMonetaryTotal, writePostalAddress } from '../ubl-2.1/from-canonical.ts';

export const EXT_NS = 'urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2';
/** What `cac:Signature` and the signature extension name (ZATCA's fixed values). */
export const SIGNATURE_ID = 'urn:oasis:names:specification:ubl:signature:Invoice';
export const SIGNATURE_METHOD = 'urn:oasis:names:specification:ubl:dsig:enveloped:xades';
export const PROFILE_ID = 'reporting:1.0';

/** Standard (B2B, B2G: cleared before it is issued) or simplified (B2C: reported within 24 hours). */
export type ZatcaInvoiceKind = 'standard' | 'simplified';

/** ZATCA's InvoiceTypeCode: a tax invoice is 388 (whatever EN 16931 code it had), a credit note 381, a debit note 383. */
function typeCodeOf(c: CanonicalInvoice): string {
  if (c.kind === 'credit-note') return '381';
  return c.typeCode === '383' ? '383' : '388';
}

/** The facts an EGS unit adds to the canonical invoice when it issues it. */
export interface ZatcaFacts {
  kind: ZatcaInvoiceKind;
  /** The invoice's UUID (KSA-1), also its id at ZATCA. */
  uuid: string;
  /** HH:MM:SS, the issue time (KSA-25), from the platform's clock. */
  issueTime: string;
  /** The EGS unit's invoice counter (ICV, KSA-16): 1 for its first invoice. */
  icv: number;
  /** The previous invoice's hash (PIH, KSA-13), base64; {@link FIRST_PIH} for the first. */
  pih: string;
}

/** The PIH of an EGS unit's first invoice: base64 of the hex SHA-256 of "0", as ZATCA defines it. */
export const FIRST_PIH = 'NWZlY2ViNjZmZmM4NmYzOGQ5NTI3ODZjNmQ2OTZjNzljMmRiYzIzOWRkNGU5MWI0NjcyOWQ3M2EyN2ZiNTdlOQ==';

/** What the stamp adds: the signature extension (serialised `ext:UBLExtensions`) and the QR's TLV, base64. */
export interface ZatcaStamp {
  ublExtensions: string;
  qr: string;
}

/** The seller VAT number as ZATCA writes it: 15 digits starting and ending with 3 (BR-KSA-39/40). */
export function zatcaVatNumber(vatId: string | undefined): string | undefined {
  return vatId?.replace(/^SA/i, '');
}
export const isZatcaVatNumber = (v: string | undefined): boolean => v !== undefined && /^3\d{13}3$/.test(v);

class ZatcaRenderer {
  private readonly w = new XmlWriter();
  private readonly taxCurrency = 'SAR';

  private readonly c: CanonicalInvoice;
  private readonly facts: ZatcaFacts;
  private readonly stamp: ZatcaStamp | undefined;

  constructor(c: CanonicalInvoice, facts: ZatcaFacts, stamp?: ZatcaStamp) {
    this.c = c;
    this.facts = facts;
    this.stamp = stamp;
  }

  private amount(name: string, value: string | undefined, currency = this.c.currency): void {
    this.w.leaf(name, value, { currencyID: currency });
  }

  render(): string {
    const { w, c, facts } = this;
    w.open('Invoice', { xmlns: UBL_INVOICE_NS, 'xmlns:cac': CAC_NS, 'xmlns:cbc': CBC_NS, 'xmlns:ext': EXT_NS });
    if (this.stamp) w.raw(this.stamp.ublExtensions);
    w.leaf('cbc:ProfileID', PROFILE_ID);
    w.leaf('cbc:ID', c.number);
    w.leaf('cbc:UUID', facts.uuid);
    w.leaf('cbc:IssueDate', c.issueDate);
    w.leaf('cbc:IssueTime', facts.issueTime);
    w.leaf('cbc:DueDate', c.dueDate);
    w.leaf('cbc:InvoiceTypeCode', typeCodeOf(c), { name: facts.kind === 'standard' ? '0100000' : '0200000' });
    for (const n of c.notes ?? []) w.leaf('cbc:Note', n.text);
    w.leaf('cbc:DocumentCurrencyCode', c.currency);
    w.leaf('cbc:TaxCurrencyCode', this.taxCurrency);
    w.leaf('cbc:BuyerReference', c.buyerReference);
    if (c.orderReference !== undefined) w.el('cac:OrderReference', () => w.leaf('cbc:ID', c.orderReference));
    for (const p of c.precedingInvoices ?? []) {
      w.el('cac:BillingReference', () => w.el('cac:InvoiceDocumentReference', () => {
        w.leaf('cbc:ID', p.number);
        w.leaf('cbc:IssueDate', p.issueDate);
      }));
    }
    if (c.contractReference !== undefined) w.el('cac:ContractDocumentReference', () => w.leaf('cbc:ID', c.contractReference));
    w.el('cac:AdditionalDocumentReference', () => {
      w.leaf('cbc:ID', 'ICV');
      w.leaf('cbc:UUID', String(facts.icv));
    });
    w.el('cac:AdditionalDocumentReference', () => {
      w.leaf('cbc:ID', 'PIH');
      w.el('cac:Attachment', () => w.leaf('cbc:EmbeddedDocumentBinaryObject', facts.pih, { mimeCode: 'text/plain' }));
    });
    if (this.stamp) {
      w.el('cac:AdditionalDocumentReference', () => {
        w.leaf('cbc:ID', 'QR');
        w.el('cac:Attachment', () => w.leaf('cbc:EmbeddedDocumentBinaryObject', this.stamp!.qr, { mimeCode: 'text/plain' }));
      });
    }
    w.el('cac:Signature', () => {
      w.leaf('cbc:ID', SIGNATURE_ID);
      w.leaf('cbc:SignatureMethod', SIGNATURE_METHOD);
    });
    w.el('cac:AccountingSupplierParty', () => this.party(c.seller, true));
    w.el('cac:AccountingCustomerParty', () => this.party(c.buyer, false));
    // The supply date (KSA-5): ZATCA requires it on a standard invoice.
    const supplyDate = c.delivery?.actualDeliveryDate ?? (facts.kind === 'standard' ? c.issueDate : undefined);
    if (supplyDate !== undefined || c.delivery?.address) {
      w.el('cac:Delivery', () => {
        w.leaf('cbc:ActualDeliveryDate', supplyDate);
        if (c.delivery?.address) w.el('cac:DeliveryLocation', () => writePostalAddress(this.w, 'cac:Address', c.delivery!.address!));
      });
    }
    const pi = c.paymentInstructions;
    // The reason of a credit or debit note (KSA-10) travels as the payment means' instruction note.
    const reason = typeCodeOf(c) !== '388' ? c.notes?.[0]?.text : undefined;
    if (pi || reason !== undefined) {
      w.el('cac:PaymentMeans', () => {
        w.leaf('cbc:PaymentMeansCode', pi?.meansCode ?? '1');
        w.leaf('cbc:InstructionNote', reason);
        const ct = pi?.creditTransfers?.[0];
        if (ct) w.el('cac:PayeeFinancialAccount', () => w.leaf('cbc:ID', ct.accountId));
      });
    }
    for (const ac of c.allowanceCharges ?? []) this.allowanceCharge(ac);
    const vatTotal = c.totals.vatTotal ?? '0.00';
    w.el('cac:TaxTotal', () => {
      this.amount('cbc:TaxAmount', vatTotal);
      for (const b of c.vatBreakdown) {
        w.el('cac:TaxSubtotal', () => {
          this.amount('cbc:TaxableAmount', b.taxableAmount);
          this.amount('cbc:TaxAmount', b.taxAmount);
          w.el('cac:TaxCategory', () => {
            w.leaf('cbc:ID', b.category, { schemeID: 'UN/ECE 5305', schemeAgencyID: '6' });
            w.leaf('cbc:Percent', b.rate);
            w.leaf('cbc:TaxExemptionReasonCode', b.exemptionCode);
            w.leaf('cbc:TaxExemptionReason', b.exemptionReason);
            w.el('cac:TaxScheme', () => w.leaf('cbc:ID', 'VAT', { schemeID: 'UN/ECE 5153', schemeAgencyID: '6' }));
          });
        });
      }
    });
    // The VAT in the tax currency (BT-111): the document's own figure when it is in SAR.
    const sarVat = c.currency === this.taxCurrency ? vatTotal : c.totals.vatTotalAccountingCurrency;
    if (sarVat === undefined) {
      throw new MappingError('INVALID_REQUEST', `A ZATCA invoice in ${c.currency} needs its VAT total in SAR (BT-111)`, [
        { field: 'document.totals.vatTotalAccountingCurrency', rule: 'BR-KSA-EN16931-10', message: 'state the VAT total in SAR' },
      ]);
    }
    w.el('cac:TaxTotal', () => this.amount('cbc:TaxAmount', sarVat, this.taxCurrency));
    writeLegalMonetaryTotal(w, c.totals, (name, value) => this.amount(name, value));
    c.lines.forEach((line, i) => this.line(line, i));
    w.close('Invoice');
    return w.toString();
  }


  private party(p: Party, isSeller: boolean): void {
    const { w } = this;
    w.el('cac:Party', () => {
      // The seller's other identifier (BR-KSA-08): its commercial registration when the invoice has one.
      if (isSeller && p.legalRegistration) w.el('cac:PartyIdentification', () => w.leaf('cbc:ID', p.legalRegistration!.value, { schemeID: 'CRN' }));
      for (const id of p.identifiers ?? []) w.el('cac:PartyIdentification', () => w.leaf('cbc:ID', id.value, id.scheme !== undefined ? { schemeID: id.scheme } : undefined));
      if (p.address) writePostalAddress(this.w, 'cac:PostalAddress', p.address);
      const vat = isSeller ? zatcaVatNumber(p.vatId) : p.vatId?.replace(/^SA(?=3\d{13}3$)/, '');
      if (vat !== undefined) {
        w.el('cac:PartyTaxScheme', () => {
          w.leaf('cbc:CompanyID', vat);
          w.el('cac:TaxScheme', () => w.leaf('cbc:ID', 'VAT'));
        });
      }
      w.el('cac:PartyLegalEntity', () => w.leaf('cbc:RegistrationName', p.name));
    });
  }

  private allowanceCharge(ac: AllowanceCharge): void {
    const { w } = this;
    w.el('cac:AllowanceCharge', () => {
      w.leaf('cbc:ChargeIndicator', ac.isCharge ? 'true' : 'false');
      w.leaf('cbc:AllowanceChargeReasonCode', ac.reasonCode);
      w.leaf('cbc:AllowanceChargeReason', ac.reason);
      w.leaf('cbc:MultiplierFactorNumeric', ac.percentage);
      this.amount('cbc:Amount', ac.amount);
      this.amount('cbc:BaseAmount', ac.baseAmount);
      if (ac.vatCategory !== undefined) {
        w.el('cac:TaxCategory', () => {
          w.leaf('cbc:ID', ac.vatCategory, { schemeID: 'UN/ECE 5305', schemeAgencyID: '6' });
          w.leaf('cbc:Percent', ac.vatRate);
          w.el('cac:TaxScheme', () => w.leaf('cbc:ID', 'VAT', { schemeID: 'UN/ECE 5153', schemeAgencyID: '6' }));
        });
      }
    });
  }

  private line(l: Line, index: number): void {
    const { w } = this;
    // KSA-11 / KSA-12: the line's VAT and its amount with VAT, from the line net amount and rate.
    const lineVat = dec(l.netAmount).times(dec(l.vat.rate ?? '0')).dividedBy(100);
    w.el('cac:InvoiceLine', () => {
      w.leaf('cbc:ID', l.id ?? String(index + 1));
      w.leaf('cbc:Note', l.note);
      w.leaf('cbc:InvoicedQuantity', l.quantity, { unitCode: l.unit });
      this.amount('cbc:LineExtensionAmount', l.netAmount);
      w.el('cac:TaxTotal', () => {
        this.amount('cbc:TaxAmount', money(lineVat));
        this.amount('cbc:RoundingAmount', money(dec(l.netAmount).plus(dec(money(lineVat)))));
      });
      w.el('cac:Item', () => {
        w.leaf('cbc:Description', l.item.description);
        w.leaf('cbc:Name', l.item.name);
        if (l.item.sellerId !== undefined) w.el('cac:SellersItemIdentification', () => w.leaf('cbc:ID', l.item.sellerId));
        w.el('cac:ClassifiedTaxCategory', () => {
          w.leaf('cbc:ID', l.vat.category);
          w.leaf('cbc:Percent', l.vat.rate);
          w.el('cac:TaxScheme', () => w.leaf('cbc:ID', 'VAT'));
        });
      });
      w.el('cac:Price', () => {
        this.amount('cbc:PriceAmount', l.price.netPrice);
        w.leaf('cbc:BaseQuantity', l.price.baseQuantity, l.price.baseUnit !== undefined ? { unitCode: l.price.baseUnit } : undefined);
      });
    });
  }
}

/**
 * Renders the invoice an EGS unit issues: without `stamp` the unsigned invoice (what the hash is
 * computed over), with it the stamped one (signature extension first, QR after PIH). Both hash alike.
 */
export function canonicalToZatca(c: CanonicalInvoice, facts: ZatcaFacts, stamp?: ZatcaStamp): string {
  const issues: Array<{ field: string; rule: string; message: string }> = [];
  if (c.lines.length === 0) issues.push({ field: 'document.lines', rule: 'BR-16', message: 'the invoice has no line' });
  if (!isZatcaVatNumber(zatcaVatNumber(c.seller.vatId))) {
    issues.push({ field: 'document.seller.vatNumber', rule: 'BR-KSA-39', message: `the seller's VAT number must be 15 digits starting and ending with 3 (SA3…3), not ${c.seller.vatId ?? 'missing'}` });
  }
  if (!Number.isSafeInteger(facts.icv) || facts.icv < 1) issues.push({ field: 'icv', rule: 'BR-KSA-33', message: 'the invoice counter is a positive integer' });
  if (!/^\d{2}:\d{2}:\d{2}$/.test(facts.issueTime)) issues.push({ field: 'issueTime', rule: 'BR-KSA-70', message: 'the issue time is HH:MM:SS' });
  if (issues.length) throw new MappingError('INVALID_REQUEST', `This document cannot be issued as a ZATCA invoice: ${issues.map((i) => i.message).join('; ')}`, issues);
  return new ZatcaRenderer(c, facts, stamp).render();
}
