import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { correctContentType, detectFormat, detectCii, detectPdf, detectUbl, ingestAuto, rawDeposit, translatorFor, MappingError } from '../../../../mappings/index.ts';
import { CORPUS } from '../support/corpus.ts';

const ubl = readFileSync(join(CORPUS, 'peppol-bis-invoice-3/rules/examples/base-example.xml'));
const ublCn = readFileSync(join(CORPUS, 'peppol-bis-invoice-3/rules/examples/base-creditnote-correction.xml'));
const cii = readFileSync(join(CORPUS, 'eInvoicing-EN16931/cii/examples/CII_example1.xml'));
const pdf = readFileSync(join(CORPUS, 'mustangproject/validator/src/test/resources/validV2PDF.pdf'));
const zip = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0]);
const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);

describe('detectFormat (format=auto)', () => {
  it.each([
    ['UBL Invoice', ubl, 'ubl', 'ubl-xml'],
    ['UBL CreditNote', ublCn, 'ubl', 'ubl-xml'],
    ['CII', cii, 'cii', 'cii-xml'],
    ['PDF', pdf, 'pdf', 'pdf'],
    ['gzip', gzipSync(ubl), 'gzip', 'raw'],
    ['zip', zip, 'zip', 'raw'],
    ['png', png, 'binary', 'raw'],
    ['other XML', Buffer.from('<?xml version="1.0"?><Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2"/>'), 'xml', 'raw'],
    ['Invoice in a foreign namespace', Buffer.from('<Invoice xmlns="urn:example"/>'), 'xml', 'raw'],
    ['text', Buffer.from('hello'), 'unknown', 'raw'],
    ['empty', Buffer.alloc(0), 'unknown', 'raw'],
  ])('%s → %s', (_n, bytes, format, apiFormat) => {
    const d = detectFormat(bytes);
    expect(d.format).toBe(format);
    expect(d.apiFormat).toBe(apiFormat);
  });

  it('reads the root past a BOM, comments, processing instructions and a prefix', () => {
    const xml = '\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<!-- a > comment -->\n<?pi x?>\n<rsm:CrossIndustryInvoice xmlns:ram="x" xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>';
    expect(detectFormat(Buffer.from(xml))).toMatchObject({ format: 'cii', root: { prefix: 'rsm', localName: 'CrossIndustryInvoice' } });
    expect(detectFormat('<ubl:Invoice xmlns:ubl="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>')).toMatchObject({ format: 'ubl', ublDocument: 'Invoice' });
  });

  it('a PDF header after junk is a PDF, but not inside an XML document', () => {
    expect(detectFormat(Buffer.concat([Buffer.from('\r\n\r\n'), pdf])).format).toBe('pdf');
    const xml = '<?xml version="1.0"?><!-- see %PDF-1.7 copy --><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>';
    expect(detectFormat(xml).format).toBe('ubl');
  });

  it('reads UTF-16 documents with a BOM', () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"/>', 'utf16le')]);
    expect(detectFormat(le)).toMatchObject({ format: 'ubl', ublDocument: 'CreditNote' });
    const be = Buffer.from(le.subarray(2)).swap16();
    expect(detectFormat(Buffer.concat([Buffer.from([0xfe, 0xff]), be])).format).toBe('ubl');
  });
});

describe('translator detect / toCanonical / fromCanonical', () => {
  it('each translator recognises its own syntax only and round-trips through canonical', () => {
    expect(detectUbl(ubl)).toBe('Invoice');
    expect(detectUbl(ublCn)).toBe('CreditNote');
    expect(detectUbl(cii)).toBeUndefined();
    expect(detectCii(cii)).toBe(true);
    expect(detectCii(ubl)).toBe(false);
    expect(detectPdf(pdf)).toBe(true);
    expect(detectPdf(ubl)).toBe(false);
    for (const bytes of [ubl, ublCn, cii]) {
      const t = translatorFor(bytes)!;
      const c = t.toCanonical(bytes).canonical;
      expect(t.detect(t.fromCanonical(c))).toBe(true);
      expect(t.toCanonical(t.fromCanonical(c)).canonical).toEqual(c);
    }
    expect(translatorFor(pdf)).toBeUndefined();
  });
});

describe('ingestAuto and rawDeposit', () => {
  it('auto: UBL and CII parse to canonical with the caller bytes kept', async () => {
    const u = await ingestAuto(ubl);
    expect(u.format).toBe('ubl-xml');
    expect(u.parsed.original).toBe(ubl);
    const c = await ingestAuto(cii);
    expect(c.format).toBe('cii-xml');
    expect(c.parsed.canonical.number).not.toBe('');
  });

  it('auto: anything else is a clear MappingError', async () => {
    await expect(ingestAuto(Buffer.from('hello'))).rejects.toBeInstanceOf(MappingError);
    await expect(ingestAuto(gzipSync(ubl))).rejects.toMatchObject({ code: 'INVALID_REQUEST', details: [{ rule: 'auto-detect' }] });
  });

  it('raw: stored as is; gzip stays gzip', () => {
    const gz = gzipSync(ubl);
    const r = rawDeposit(gz, 'application/xml');
    expect(r.bytes).toBe(gz);
    expect(r.storedFormat).toBe('gzip');
    expect(r.contentType).toBe('application/gzip');
    expect(rawDeposit(pdf).storedFormat).toBe('pdf');
    expect(rawDeposit(Buffer.from('a;b\n1;2'), 'text/csv')).toMatchObject({ storedFormat: 'raw', contentType: 'text/csv' });
    expect(rawDeposit(ubl).storedFormat).toBe('xml');
  });
});

describe('correctContentType', () => {
  it.each([
    // Bytes are an unambiguous binary container: a wrong declaration is corrected.
    ['application/xml', pdf, 'application/pdf'],
    ['text/plain', zip, 'application/zip'],
    ['application/json', gzipSync(ubl), 'application/gzip'],
    ['image/jpeg', png, 'image/png'],
    ['application/epub+zip', pdf, 'application/pdf'],
    // Same type or a legacy alias survives, parameters included.
    ['application/pdf', pdf, 'application/pdf'],
    ['application/x-pdf', pdf, 'application/x-pdf'],
    ['Application/PDF; name="a.pdf"', pdf, 'Application/PDF; name="a.pdf"'],
    ['application/x-zip-compressed', zip, 'application/x-zip-compressed'],
    // More specific than the bytes: vendor tree, matching +zip suffix, known refinements.
    ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', zip, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    ['application/vnd.etsi.asic-e+zip', zip, 'application/vnd.etsi.asic-e+zip'],
    ['application/epub+zip', zip, 'application/epub+zip'],
    ['application/java-archive', zip, 'application/java-archive'],
    // Text bytes are not a container: the declaration stands.
    ['text/csv', Buffer.from('a;b'), 'text/csv'],
    ['application/json', Buffer.from('{"a":1}'), 'application/json'],
    ['text/xml', ubl, 'text/xml'],
    // A declaration naming no type falls back to the bytes.
    [undefined, pdf, 'application/pdf'],
    ['', ubl, 'application/xml'],
    ['application/octet-stream', zip, 'application/zip'],
    ['*/*', Buffer.from('plain words'), 'text/plain'],
    ['garbage', Buffer.from([0, 1, 2, 3]), 'application/octet-stream'],
  ])('declared %p → %s', (declared, bytes, expected) => {
    expect(correctContentType(declared, bytes)).toBe(expected);
  });
});
