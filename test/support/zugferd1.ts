/**
 * ZUGFeRD 1.0 test material: the FeRD samples of the mustangproject corpus (read in place) and a
 * hybrid PDF built as a ZUGFeRD 1.0 producer writes one (the `urn:ferd:pdfa:…` XMP extension schema
 * and one attachment), so tests can put any bytes (truncated, not XML, none) where the invoice goes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AFRelationship, PDFDocument, PDFName } from 'pdf-lib';
import { corpusDir } from './corpus.ts';

export const ZF1 = {
  validV1: 'validator/src/test/resources/validV1.xml',
  comfort: 'library/src/test/resources/migration/input/ZUGFeRD1_COMFORT_Einfach.xml',
  extended: 'library/src/test/resources/migration/input/ZUGFeRD1_EXTENDED_Warenrechnung.xml',
  pdf: 'validator/src/test/resources/validV1WithAdditionalData.pdf',
} as const;

export function readMustang(path: string): Buffer {
  return readFileSync(join(corpusDir(), 'mustangproject', path));
}

/** A ZUGFeRD 1.0 hybrid PDF embedding `attachment` (none when undefined) under its XMP. */
export async function zugferd1Pdf(attachment: { name: string; bytes: Buffer } | undefined, conformance = 'COMFORT'): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage();
  if (attachment) await doc.attach(attachment.bytes, attachment.name, { mimeType: 'text/xml', afRelationship: AFRelationship.Alternative });
  const xmp = `<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:zf="urn:ferd:pdfa:CrossIndustryDocument:invoice:1p0#"><zf:DocumentType>INVOICE</zf:DocumentType><zf:DocumentFileName>ZUGFeRD-invoice.xml</zf:DocumentFileName><zf:Version>1.0</zf:Version><zf:ConformanceLevel>${conformance}</zf:ConformanceLevel></rdf:Description>
</rdf:RDF></x:xmpmeta><?xpacket end="w"?>`;
  doc.catalog.set(PDFName.of('Metadata'), doc.context.register(doc.context.stream(xmp, { Type: 'Metadata', Subtype: 'XML' })));
  return Buffer.from(await doc.save());
}
