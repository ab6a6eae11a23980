/**
 * Factur-X out: the readable PDF of the invoice (mappings/render/pdf.ts) made a PDF/A-3 hybrid by
 * embedding its CII as `factur-x.xml` (AFRelationship Alternative for EN 16931 and richer profiles,
 * Data for MINIMUM / BASIC WL; in the catalog's /AF array and EmbeddedFiles name tree), the XMP
 * metadata (PDF/A-3B identification, Dublin Core and PDF properties matching the Info dictionary,
 * the Factur-X extension schema with its fields and the conformance level), an sRGB output intent
 * and a trailer /ID derived from the document, so the same document always gives the same bytes.
 *
 * Fonts: the visual's DejaVu Sans subsets are embedded with their programs (render/fonts.ts), as
 * PDF/A requires of every font. No PDF/A validator (veraPDF) runs in our tests: render/README.md
 * lists what is written and tested and what is not checked.
 * Pure (bytes out).
 */
import { createHash } from 'node:crypto';
import { PDFHexString, PDFName, PDFString, type PDFDocument } from 'pdf-lib';
import type { CanonicalInvoice } from '../canonical/model.ts';
import { canonicalToCii } from '../cii-d16b/from-canonical.ts';
import { MappingError } from '../errors.ts';
import { documentDate, invoicePdfDocument } from '../render/pdf.ts';
import { profileFromGuideline, type HybridProfile } from './extract.ts';
import { pdfLimits } from './limits.ts';
import { SRGB_PROFILE_NAME, srgbIccProfile } from './srgb-icc.ts';

/** The embedded file's name the Factur-X specification fixes. */
export const FACTUR_X_FILENAME = 'factur-x.xml';
/** Namespace of the Factur-X XMP extension schema (invoices). */
export const FACTUR_X_XMP_NS = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#';
/** BT-24 of a Factur-X EN 16931 CII. */
export const FACTUR_X_EN16931_GUIDELINE = 'urn:cen.eu:en16931:2017';

export interface FacturXOptions {
  /**
   * The CII to embed as it is (the stored record of a CII document). Absent: the CII is written
   * from the canonical invoice, with BT-24 {@link FACTUR_X_EN16931_GUIDELINE} unless it already
   * names a Factur-X / EN 16931 profile.
   */
  cii?: string;
  /** Seeds the trailer /ID (our document id); the CII's hash otherwise. */
  documentId?: string;
}

export interface FacturX {
  pdf: Uint8Array;
  /** The embedded CII, as embedded. */
  xml: string;
  profile: HybridProfile;
}

/** Profiles whose XML is no full invoice: the PDF is the invoice and the XML is data about it. */
const DATA_PROFILES: ReadonlySet<HybridProfile> = new Set(['MINIMUM', 'BASIC WL']);

const XML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const x = (text: string): string => text.replace(/[&<>"']/g, (ch) => XML_ESCAPES[ch]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, ' ');

/** The CII a Factur-X carries: the caller's CII kept as it is, else the canonical invoice written as an EN 16931 CII. */
export function facturXCii(c: CanonicalInvoice, cii?: string): string {
  if (cii !== undefined) return cii;
  const profile = profileFromGuideline(c.customizationId);
  return canonicalToCii(profile ? c : { ...c, customizationId: FACTUR_X_EN16931_GUIDELINE });
}

interface XmpFields {
  title: string;
  author: string;
  date: string;
  profile: HybridProfile;
}

/** The XMP packet: PDF/A-3B id, the Info dictionary's facts, the Factur-X extension schema and its values. */
export function facturXXmp(f: XmpFields): string {
  const property = (name: string, description: string): string =>
    `<rdf:li rdf:parseType="Resource"><pdfaProperty:name>${name}</pdfaProperty:name><pdfaProperty:valueType>Text</pdfaProperty:valueType><pdfaProperty:category>external</pdfaProperty:category><pdfaProperty:description>${description}</pdfaProperty:description></rdf:li>`;
  return [
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>',
    '<x:xmpmeta xmlns:x="adobe:ns:meta/">',
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
    '<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/"><pdfaid:part>3</pdfaid:part><pdfaid:conformance>B</pdfaid:conformance></rdf:Description>',
    '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:format>application/pdf</dc:format>',
    `<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${x(f.title)}</rdf:li></rdf:Alt></dc:title>`,
    `<dc:creator><rdf:Seq><rdf:li>${x(f.author)}</rdf:li></rdf:Seq></dc:creator>`,
    `<dc:description><rdf:Alt><rdf:li xml:lang="x-default">${x(f.title)}</rdf:li></rdf:Alt></dc:description></rdf:Description>`,
    '<rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/"><pdf:Producer>einvoicing-exchange (pdf-lib)</pdf:Producer></rdf:Description>',
    `<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/"><xmp:CreatorTool>einvoicing-exchange</xmp:CreatorTool><xmp:CreateDate>${f.date}</xmp:CreateDate><xmp:ModifyDate>${f.date}</xmp:ModifyDate><xmp:MetadataDate>${f.date}</xmp:MetadataDate></rdf:Description>`,
    '<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">',
    '<pdfaExtension:schemas><rdf:Bag><rdf:li rdf:parseType="Resource">',
    `<pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema><pdfaSchema:namespaceURI>${FACTUR_X_XMP_NS}</pdfaSchema:namespaceURI><pdfaSchema:prefix>fx</pdfaSchema:prefix>`,
    '<pdfaSchema:property><rdf:Seq>',
    property('DocumentFileName', 'The name of the embedded XML document'),
    property('DocumentType', 'The type of the hybrid document in capital letters, e.g. INVOICE or ORDER'),
    property('Version', 'The actual version of the standard applying to the embedded XML document'),
    property('ConformanceLevel', 'The conformance level of the embedded XML document'),
    '</rdf:Seq></pdfaSchema:property></rdf:li></rdf:Bag></pdfaExtension:schemas></rdf:Description>',
    `<rdf:Description rdf:about="" xmlns:fx="${FACTUR_X_XMP_NS}"><fx:DocumentType>INVOICE</fx:DocumentType><fx:DocumentFileName>${FACTUR_X_FILENAME}</fx:DocumentFileName><fx:Version>1.0</fx:Version><fx:ConformanceLevel>${f.profile}</fx:ConformanceLevel></rdf:Description>`,
    '</rdf:RDF></x:xmpmeta>',
    `${' '.repeat(64)}\n<?xpacket end="w"?>`,
  ].join('\n');
}

/** Embeds the CII as an associated file (/AF and the EmbeddedFiles name tree). */
function embedCii(pdf: PDFDocument, xml: Buffer, date: Date, relationship: 'Alternative' | 'Data'): void {
  const context = pdf.context;
  const stream = context.register(context.flateStream(xml, {
    Type: 'EmbeddedFile',
    Subtype: 'text/xml',
    // CheckSum is the MD5 of the file as a byte string (PDF 32000-1 table 46).
    Params: { Size: xml.length, ModDate: PDFString.fromDate(date), CheckSum: PDFHexString.of(createHash('md5').update(xml).digest('hex')) },
  }));
  const fileSpec = context.register(context.obj({
    Type: 'Filespec',
    F: PDFString.of(FACTUR_X_FILENAME),
    UF: PDFHexString.fromText(FACTUR_X_FILENAME),
    Desc: PDFString.of('Factur-X invoice'),
    AFRelationship: relationship,
    EF: { F: stream, UF: stream },
  }));
  pdf.catalog.set(PDFName.of('AF'), context.obj([fileSpec]));
  pdf.catalog.set(PDFName.of('Names'), context.obj({ EmbeddedFiles: { Names: [PDFString.of(FACTUR_X_FILENAME), fileSpec] } }));
}

/**
 * The Factur-X PDF of a canonical invoice. MappingError PAYLOAD_TOO_LARGE when the CII is larger
 * than our own hybrid reader accepts (the output must read back) or the invoice has more lines
 * than a rendering draws.
 */
export async function canonicalToFacturX(c: CanonicalInvoice, options: FacturXOptions = {}): Promise<FacturX> {
  const xml = facturXCii(c, options.cii);
  const xmlBytes = Buffer.from(xml, 'utf8');
  const cap = pdfLimits().maxInflatedBytes;
  if (xmlBytes.length > cap) {
    const message = `The invoice's CII is ${xmlBytes.length} bytes; a Factur-X embeds at most ${cap}`;
    throw new MappingError('PAYLOAD_TOO_LARGE', message, [{ field: 'xml', rule: 'max-embedded-bytes', message }]);
  }
  const guideline = /GuidelineSpecifiedDocumentContextParameter>\s*<(?:[\w.-]+:)?ID[^>]*>([^<]*)</.exec(xml.slice(0, 16_384))?.[1]?.trim();
  const profile = profileFromGuideline(guideline) ?? 'EN 16931';

  const { pdf } = await invoicePdfDocument(c);
  const date = documentDate(c);
  embedCii(pdf, xmlBytes, date, DATA_PROFILES.has(profile) ? 'Data' : 'Alternative');

  const context = pdf.context;
  const title = `${c.kind === 'credit-note' ? 'Credit note' : 'Invoice'} ${c.number ?? ''}`.trim();
  pdf.setTitle(title);
  pdf.setSubject(title);
  const xmp = Buffer.from(facturXXmp({ title, author: c.seller?.name ?? '', date: date.toISOString().replace(/\.\d{3}Z$/, 'Z'), profile }), 'utf8');
  // PDF/A: the metadata stream stays uncompressed (readable by any XMP scanner).
  pdf.catalog.set(PDFName.of('Metadata'), context.register(context.stream(xmp, { Type: 'Metadata', Subtype: 'XML', Length: xmp.length })));
  const icc = context.register(context.flateStream(srgbIccProfile(), { N: 3 }));
  pdf.catalog.set(PDFName.of('OutputIntents'), context.obj([{
    Type: 'OutputIntent', S: 'GTS_PDFA1', OutputConditionIdentifier: PDFString.of(SRGB_PROFILE_NAME), Info: PDFString.of(SRGB_PROFILE_NAME), DestOutputProfile: icc,
  }]));
  const seed = createHash('md5').update(options.documentId ?? '').update('\0').update(xmlBytes).digest('hex');
  context.trailerInfo.ID = context.obj([PDFHexString.of(seed), PDFHexString.of(seed)]);
  return { pdf: await pdf.save({ useObjectStreams: false }), xml, profile };
}
