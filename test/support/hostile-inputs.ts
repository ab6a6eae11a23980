/**
 * Inputs that attack the parsers (issue 11), and a large valid invoice, shared by
 * test/security/inputs.spec.ts and bench/liveness.bench.ts. Everything is generated here.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDeflate } from 'node:zlib';
import { PDFDocument, PDFHexString, PDFName, PDFRawStream, PDFString } from 'pdf-lib';

const UBL_OPEN = '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">';

/** One element carrying `count` attributes (issue 11: 50,000 took 10.5 s on the event loop). */
export function manyAttributes(count: number): string {
  const attrs: string[] = [];
  for (let i = 0; i < count; i++) attrs.push(`a${i}="${i}"`);
  return `<?xml version="1.0" encoding="UTF-8"?>${UBL_OPEN}<cbc:Note ${attrs.join(' ')}>x</cbc:Note></Invoice>`;
}

export function deepNesting(depth: number): string {
  return `<?xml version="1.0" encoding="UTF-8"?>${UBL_OPEN}${'<cbc:Note>'.repeat(depth)}x${'</cbc:Note>'.repeat(depth)}</Invoice>`;
}

export function hugeText(length: number): Buffer {
  return Buffer.concat([Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>${UBL_OPEN}<cbc:Note>`), Buffer.alloc(length, 'A'), Buffer.from('</cbc:Note></Invoice>')]);
}

export function manyElements(count: number): Buffer {
  return Buffer.concat([Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>${UBL_OPEN}`), Buffer.alloc(count * 4, '<a/>'), Buffer.from('</Invoice>')]);
}

/** Deflate of `inflatedBytes` zeros, built a block at a time (the caller never holds the inflated size). */
async function deflatedZeros(inflatedBytes: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (c: Buffer) => out.push(c));
  const zeros = Buffer.alloc(8 * 1024 * 1024);
  for (let written = 0; written < inflatedBytes; written += zeros.length) {
    if (!deflate.write(zeros.subarray(0, Math.min(zeros.length, inflatedBytes - written)))) await once(deflate, 'drain');
  }
  deflate.end();
  await once(deflate, 'end');
  return Buffer.concat(out);
}

/**
 * A small PDF whose embedded `factur-x.xml` is a FlateDecode stream inflating to `inflatedBytes`
 * (issue 11: 1 MB inflating to 1 GB took a process from 1 to 3.75 GB of RSS).
 */
export async function pdfInflateBomb(inflatedBytes: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage();
  const ctx = doc.context;
  const file = PDFRawStream.of(ctx.obj({ Type: 'EmbeddedFile', Subtype: 'text/xml', Filter: 'FlateDecode' }), await deflatedZeros(inflatedBytes));
  const fileRef = ctx.register(file);
  const spec = ctx.register(ctx.obj({
    Type: 'Filespec', F: PDFString.of('factur-x.xml'), UF: PDFHexString.fromText('factur-x.xml'),
    EF: { F: fileRef, UF: fileRef }, AFRelationship: PDFName.of('Data'),
  }));
  doc.catalog.set(PDFName.of('Names'), ctx.obj({ EmbeddedFiles: { Names: [PDFString.of('factur-x.xml'), spec] } }));
  doc.catalog.set(PDFName.of('AF'), ctx.obj([spec]));
  return doc.save({ useObjectStreams: false });
}

/** A valid N-line Peppol BIS invoice, from the corpus's base example (totals recomputed). */
export function largeInvoice(corpus: string, lines: number): string {
  const src = readFileSync(join(corpus, 'peppol-bis-invoice-3/rules/examples/base-example.xml'), 'utf8');
  const first = /<cac:InvoiceLine>[\s\S]*?<\/cac:InvoiceLine>/.exec(src)![0];
  const start = src.indexOf('<cac:InvoiceLine>');
  const end = src.lastIndexOf('</cac:InvoiceLine>') + '</cac:InvoiceLine>'.length;
  const body: string[] = [];
  for (let i = 1; i <= lines; i++) body.push(first.replace(/<cbc:ID>1<\/cbc:ID>/, `<cbc:ID>${i}</cbc:ID>`));
  const lineSum = 2800 * lines;
  const taxable = lineSum + 25;
  const tax = Math.round(taxable * 25) / 100;
  const fix = (s: string, el: string, v: number): string => s.replace(new RegExp(`(<cbc:${el} currencyID="EUR">)[^<]*(</cbc:${el}>)`, 'g'), `$1${v.toFixed(2)}$2`);
  let head = src.slice(0, start);
  head = fix(head, 'TaxAmount', tax);
  head = fix(head, 'TaxableAmount', taxable);
  head = fix(head, 'LineExtensionAmount', lineSum);
  head = fix(head, 'TaxExclusiveAmount', taxable);
  head = fix(head, 'TaxInclusiveAmount', taxable + tax);
  head = fix(head, 'PayableAmount', taxable + tax);
  return head + body.join('\n') + src.slice(end);
}

/** A valid JSON send body (format=json) of `lines` invoice lines; `sellerVat`: the sending company's (it must be the issuer). */
export function largeJsonInvoice(number: string, lines: number, sellerVat = 'BE0403170701'): Record<string, unknown> {
  const party = (name: string, vatNumber: string, country: string) => ({ name, vatNumber, address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country } });
  return {
    number, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO-9',
    seller: party('Acme SPRL', sellerVat, 'BE'), buyer: party('Client SA', 'FR40303265045', 'FR'),
    lines: Array.from({ length: lines }, (_, i) => ({ description: `Consulting block ${i + 1}`, quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 21 })),
  };
}
