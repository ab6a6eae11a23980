/**
 * The ZATCA invoice (mappings/zatca): the KSA UBL rendered from the canonical model is valid against
 * the vendored UBL 2.1 XSD, unsigned and stamped (the signature extension is validated too: the
 * schema knows the UBL signature, XMLDSig and XAdES modules); it carries the KSA fields; its hash is
 * SHA-256 of libxml2's C14N 1.1 of the invoice without UBLExtensions, Signature and QR (an
 * independent canonicaliser), unchanged by stamping; the QR TLV decodes back to its fields; bad
 * inputs get a MappingError naming the field.
 */
import { createHash } from 'node:crypto';
import { XmlDocument } from 'libxml2-wasm';
import { canonicalToZatca, zatcaInvoiceHash, encodeZatcaQr, decodeZatcaQr, FIRST_PIH, QrError, type ZatcaFacts } from '../../../../mappings/zatca/index.ts';
import { MappingError } from '../../../../mappings/errors.ts';
import { xsdErrors } from '../support/xsd.ts';
import { saudiInvoice, saudiB2cInvoice } from '../../../support/saudi-invoice.ts';

const facts: ZatcaFacts = { kind: 'standard', uuid: '3cf5ee18-ee25-44ea-a444-2c37ba7f28be', issueTime: '14:40:40', icv: 10, pih: FIRST_PIH };

/** libxml2's C14N 1.1 of the invoice with the stamp's parts removed (XPath on libxml2's own tree). */
function libxmlHash(xml: string): string {
  const doc = XmlDocument.fromString(xml);
  try {
    const ns = { ext: 'urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2', cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2', cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2' };
    for (const n of doc.find("//ext:UBLExtensions | //cac:Signature | //cac:AdditionalDocumentReference[cbc:ID='QR']", ns)) n.remove();
    return createHash('sha256').update(doc.canonicalizeToString({ mode: 2 })).digest('base64');
  } finally { doc.dispose(); }
}

describe('canonical → ZATCA UBL', () => {
  it('a standard (B2B) invoice: XSD-valid, with the KSA fields', () => {
    const xml = canonicalToZatca(saudiInvoice(), facts);
    expect(xsdErrors(xml)).toEqual([]);
    expect(xml).toContain('<cbc:ProfileID>reporting:1.0</cbc:ProfileID><cbc:ID>SME00010</cbc:ID><cbc:UUID>3cf5ee18-ee25-44ea-a444-2c37ba7f28be</cbc:UUID><cbc:IssueDate>2026-11-25</cbc:IssueDate><cbc:IssueTime>14:40:40</cbc:IssueTime>');
    expect(xml).toContain('<cbc:InvoiceTypeCode name="0100000">388</cbc:InvoiceTypeCode>');
    expect(xml).toContain('<cac:AdditionalDocumentReference><cbc:ID>ICV</cbc:ID><cbc:UUID>10</cbc:UUID></cac:AdditionalDocumentReference>');
    expect(xml).toContain(`<cbc:ID>PIH</cbc:ID><cac:Attachment><cbc:EmbeddedDocumentBinaryObject mimeCode="text/plain">${FIRST_PIH}</cbc:EmbeddedDocumentBinaryObject>`);
    expect(xml).toContain('<cac:Signature><cbc:ID>urn:oasis:names:specification:ubl:signature:Invoice</cbc:ID><cbc:SignatureMethod>urn:oasis:names:specification:ubl:dsig:enveloped:xades</cbc:SignatureMethod></cac:Signature>');
    expect(xml).toContain('<cac:PartyIdentification><cbc:ID schemeID="CRN">1010010000</cbc:ID></cac:PartyIdentification>');
    expect(xml).toContain('<cbc:CompanyID>300075588700003</cbc:CompanyID>');
    expect(xml).toContain('<cbc:RegistrationName>شركة توريد التكنولوجيا بأقصى سرعة المحدودة | Maximum Speed Tech Supply LTD</cbc:RegistrationName>');
    expect(xml).toContain('<cbc:TaxExemptionReasonCode>VATEX-SA-32</cbc:TaxExemptionReasonCode><cbc:TaxExemptionReason>Export of goods</cbc:TaxExemptionReason>');
    // Two TaxTotals: the breakdown in the document currency, then the VAT in SAR alone.
    expect(xml).toContain('<cac:TaxTotal><cbc:TaxAmount currencyID="SAR">150.00</cbc:TaxAmount><cac:TaxSubtotal>');
    expect(xml).toContain('</cac:TaxSubtotal></cac:TaxTotal><cac:TaxTotal><cbc:TaxAmount currencyID="SAR">150.00</cbc:TaxAmount></cac:TaxTotal><cac:LegalMonetaryTotal>');
    expect(xml).toContain('<cac:TaxTotal><cbc:TaxAmount currencyID="SAR">150.00</cbc:TaxAmount><cbc:RoundingAmount currencyID="SAR">1150.00</cbc:RoundingAmount></cac:TaxTotal>');
    expect(xml).toContain('<cac:Delivery><cbc:ActualDeliveryDate>2026-11-25</cbc:ActualDeliveryDate></cac:Delivery>');
  });

  it('a simplified (B2C) invoice, a credit note: XSD-valid, typed 0200000 / 381', () => {
    const b2c = canonicalToZatca(saudiB2cInvoice(), { ...facts, kind: 'simplified' });
    expect(xsdErrors(b2c)).toEqual([]);
    expect(b2c).toContain('<cbc:InvoiceTypeCode name="0200000">388</cbc:InvoiceTypeCode>');
    expect(b2c).not.toContain('<cac:Delivery>');
    const credit = canonicalToZatca(saudiInvoice({ kind: 'credit-note', notes: [{ text: 'Returned goods' }], precedingInvoices: [{ number: 'SME00009', issueDate: '2026-11-20' }] }), facts);
    expect(xsdErrors(credit)).toEqual([]);
    expect(credit).toContain('<cbc:InvoiceTypeCode name="0100000">381</cbc:InvoiceTypeCode>');
    expect(credit).toContain('<cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>SME00009</cbc:ID>');
    expect(credit).toContain('<cbc:InstructionNote>Returned goods</cbc:InstructionNote>');
  });

  it('the hash is SHA-256 of C14N 1.1 without UBLExtensions, Signature and QR (libxml2 agrees), and stamping does not change it', () => {
    const unsigned = canonicalToZatca(saudiInvoice(), facts);
    const hash = zatcaInvoiceHash(unsigned);
    expect(hash).toBe(libxmlHash(unsigned));
    const stamped = canonicalToZatca(saudiInvoice(), facts, { ublExtensions: '<ext:UBLExtensions><ext:UBLExtension><ext:ExtensionContent><x:Any xmlns:x="urn:x">1</x:Any></ext:ExtensionContent></ext:UBLExtension></ext:UBLExtensions>', qr: 'AQID' });
    expect(stamped).toContain('<cbc:ID>QR</cbc:ID>');
    expect(zatcaInvoiceHash(stamped)).toBe(hash);
    expect(libxmlHash(stamped)).toBe(hash);
    // Any invoice content is in it.
    expect(zatcaInvoiceHash(canonicalToZatca(saudiInvoice(), { ...facts, icv: 11 }))).not.toBe(hash);
    expect(zatcaInvoiceHash(unsigned.replace('1350.00', '1351.00'))).not.toBe(hash);
  });

  it('refuses what ZATCA cannot take, naming the field', () => {
    const fail = (f: () => unknown) => { try { f(); } catch (err) { return err as MappingError; } throw new Error('no error'); };
    const e = fail(() => canonicalToZatca(saudiInvoice({ seller: { ...saudiInvoice().seller, vatId: 'SA123' } }), facts));
    expect(e).toBeInstanceOf(MappingError);
    expect(e.details).toEqual([expect.objectContaining({ field: 'document.seller.vatNumber', rule: 'BR-KSA-39' })]);
    expect(fail(() => canonicalToZatca(saudiInvoice({ lines: [] }), { ...facts, icv: 0 })).details.map((d) => d.rule)).toEqual(['BR-16', 'BR-KSA-33']);
    expect(fail(() => canonicalToZatca(saudiInvoice({ currency: 'USD' }), facts)).details[0]!.rule).toBe('BR-KSA-EN16931-10');
    expect(() => zatcaInvoiceHash('<Invoice><!DOCTYPE x></Invoice>')).toThrow();
  });
});

describe('the QR (TLV, base64)', () => {
  const fields = { sellerName: 'شركة | Co', vatNumber: '300075588700003', timestamp: '2026-11-25T14:40:40', total: '1350.00', vatTotal: '150.00', invoiceHash: 'aGFzaA==', signature: 'c2ln', publicKey: Buffer.from([0x30, 0x56, 1, 2]) };
  it('decodes back to its tags 1–8 (9 when given), UTF-8 text and bytes', () => {
    const tags = decodeZatcaQr(encodeZatcaQr(fields));
    expect([...tags.keys()]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(tags.get(1)!.toString('utf8')).toBe('شركة | Co');
    expect(tags.get(3)!.toString()).toBe('2026-11-25T14:40:40');
    expect(tags.get(8)).toEqual(Buffer.from([0x30, 0x56, 1, 2]));
    expect(Buffer.from(encodeZatcaQr(fields), 'base64').subarray(0, 2)).toEqual(Buffer.from([1, Buffer.byteLength('شركة | Co')]));
    expect([...decodeZatcaQr(encodeZatcaQr({ ...fields, certificateSignature: Buffer.from([9]) })).keys()]).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
  it('a value over 255 bytes is refused, a truncated QR does not decode', () => {
    expect(() => encodeZatcaQr({ ...fields, sellerName: 'ش'.repeat(200) })).toThrow(QrError);
    const qr = Buffer.from(encodeZatcaQr(fields), 'base64');
    expect(() => decodeZatcaQr(qr.subarray(0, qr.length - 1).toString('base64'))).toThrow('past the end');
    expect(() => decodeZatcaQr('')).toThrow(QrError);
  });
});
