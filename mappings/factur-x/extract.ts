/**
 * Hybrid PDFs (Factur-X, ZUGFeRD 1/2, XRechnung-in-PDF, Order-X): the embedded XML is extracted
 * byte-exact (the decoded embedded-file stream, nothing re-serialised) and the XMP Factur-X
 * extension schema is read for the profile. Broken PDFs give a MappingError, never a crash.
 */
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFRawStream, PDFStream, PDFString } from 'pdf-lib';
import type { PDFObject } from 'pdf-lib';
import { MappingError } from '../errors.ts';
import { pdfHeaderOffset, sniffXmlRoot } from '../detect/sniff.ts';
import type { XmlRoot } from '../detect/sniff.ts';
import { CII_RSM_NS } from '../cii-d16b/namespaces.ts';
import { UBL_CREDIT_NOTE_NS, UBL_INVOICE_NS } from '../ubl-2.1/namespaces.ts';
import { ZF1_RSM_NS } from '../zugferd-1/namespaces.ts';
import { assertObjectCount, capHitWhileLoading, decodeCapped, guardParserStreams, pdfLimits, pdfTooLarge } from './limits.ts';

guardParserStreams();

export type HybridFlavour = 'factur-x' | 'zugferd-2' | 'zugferd-1' | 'order-x' | 'unknown';
/** Normalised profiles (XMP ConformanceLevel); COMFORT is the ZUGFeRD name of EN 16931. */
export type HybridProfile = 'MINIMUM' | 'BASIC WL' | 'BASIC' | 'EN 16931' | 'EXTENDED' | 'XRECHNUNG';

export interface XmpFacturX {
  /** Namespace URI of the extension schema found (tells the flavour). */
  namespace: string;
  documentType?: string;
  documentFileName?: string;
  version?: string;
  conformanceLevel?: string;
}

export interface EmbeddedFile {
  name: string;
  relationship?: string;
  mimeType?: string;
  bytes: Buffer;
}

export interface HybridPdf {
  /** The embedded XML exactly as stored in the PDF (decoded stream bytes). */
  xml: Buffer;
  filename: string;
  /** AFRelationship of the embedded file (Data, Alternative, Source …). */
  relationship?: string;
  /** Syntax of the embedded XML: a hybrid invoice deposit is CII. */
  syntax: 'cii' | 'ubl' | 'zugferd-1' | 'order-x' | 'xml';
  root?: XmlRoot;
  flavour: HybridFlavour;
  /** Profile from the XMP ConformanceLevel, else from the XML guideline identifier (BT-24). */
  profile?: HybridProfile;
  /** Where the profile came from. */
  profileSource?: 'xmp' | 'xml';
  xmp?: XmpFacturX;
  /** BT-24 of the embedded XML (CII guideline id, ZUGFeRD 1 guideline, or UBL CustomizationID). */
  guidelineId?: string;
  /** BT-3 of the embedded XML (document type code). */
  typeCode?: string;
  /** Problems found in the XMP and attachments (missing extension schema, unknown conformance level, undecodable file …). */
  xmpIssues: string[];
  /** Every embedded file, for callers that keep attachments. */
  attachments: EmbeddedFile[];
}

function broken(message: string, rule = 'pdf-readable'): MappingError {
  return new MappingError('INVALID_REQUEST', message, [{ field: 'file.content', rule, message }]);
}

function decodeText(o: PDFObject | undefined): string | undefined {
  if (o instanceof PDFString || o instanceof PDFHexString) return o.decodeText();
  if (o instanceof PDFName) return o.decodeText();
  return undefined;
}

/** Name → file specification pairs of the catalog's EmbeddedFiles name tree. */
function nameTreeFileSpecs(node: PDFDict | undefined, out: Array<[string | undefined, PDFDict]>, depth = 0): void {
  if (!node || depth > 32) return;
  const names = node.lookupMaybe(PDFName.of('Names'), PDFArray);
  if (names) {
    for (let i = 0; i + 1 < names.size(); i += 2) {
      const spec = names.lookup(i + 1);
      if (spec instanceof PDFDict) out.push([decodeText(names.lookup(i)), spec]);
    }
  }
  const kids = node.lookupMaybe(PDFName.of('Kids'), PDFArray);
  if (kids) for (let i = 0; i < kids.size(); i++) {
    const k = kids.lookup(i);
    if (k instanceof PDFDict) nameTreeFileSpecs(k, out, depth + 1);
  }
}

function embeddedFile(specName: string | undefined, spec: PDFDict): EmbeddedFile | undefined {
  const ef = spec.lookupMaybe(PDFName.of('EF'), PDFDict);
  const stream = ef?.lookup(PDFName.of('UF')) ?? ef?.lookup(PDFName.of('F'));
  if (!(stream instanceof PDFStream)) return undefined;
  const name = decodeText(spec.lookup(PDFName.of('UF'))) ?? decodeText(spec.lookup(PDFName.of('F'))) ?? specName ?? '';
  let bytes: Buffer;
  if (stream instanceof PDFRawStream) {
    const decoded = decodeCapped(stream, `Embedded file ${name || '(unnamed)'}`);
    bytes = Buffer.from(decoded.buffer, decoded.byteOffset, decoded.byteLength);
  }
  else bytes = Buffer.from(stream.getContents());
  const subtype = stream.dict.lookup(PDFName.of('Subtype'));
  return {
    name,
    relationship: decodeText(spec.lookup(PDFName.of('AFRelationship'))),
    mimeType: subtype instanceof PDFName ? subtype.decodeText() : undefined,
    bytes,
  };
}

const FX_NS_RE = /xmlns:([A-Za-z_][\w.-]*)\s*=\s*["'](urn:(?:factur-x|ferd|zugferd):pdfa:CrossIndustryDocument[^"']*)["']/g;

/** Reads the Factur-X/ZUGFeRD XMP extension fields, element or attribute form. */
export function readXmpFacturX(xmp: string): XmpFacturX | undefined {
  const bindings = [...xmp.matchAll(FX_NS_RE)];
  if (bindings.length === 0) return undefined;
  // Several prefixes may be bound (the pdfaExtension schema description repeats the URI): the
  // one that carries the fields wins.
  let best: XmpFacturX | undefined;
  for (const [, prefix, namespace] of bindings) {
    const field = (name: string): string | undefined => {
      const el = new RegExp(`<${prefix}:${name}>([^<]*)</${prefix}:${name}>`).exec(xmp);
      const at = new RegExp(`\\b${prefix}:${name}\\s*=\\s*["']([^"']*)["']`).exec(xmp);
      const v = (el?.[1] ?? at?.[1])?.trim();
      return v ? v : undefined;
    };
    const found: XmpFacturX = { namespace: namespace! };
    const documentType = field('DocumentType');
    const documentFileName = field('DocumentFileName');
    const version = field('Version');
    const conformanceLevel = field('ConformanceLevel');
    if (documentType) found.documentType = documentType;
    if (documentFileName) found.documentFileName = documentFileName;
    if (version) found.version = version;
    if (conformanceLevel) found.conformanceLevel = conformanceLevel;
    if (!best || Object.keys(found).length > Object.keys(best).length) best = found;
  }
  return best;
}

export function normaliseConformanceLevel(level: string | undefined): HybridProfile | undefined {
  const l = (level ?? '').trim().toUpperCase().replace(/[\s_-]+/g, ' ');
  switch (l) {
    case 'MINIMUM': return 'MINIMUM';
    case 'BASIC WL': case 'BASICWL': return 'BASIC WL';
    case 'BASIC': return 'BASIC';
    case 'EN 16931': case 'EN16931': case 'COMFORT': return 'EN 16931';
    case 'EXTENDED': return 'EXTENDED';
    case 'XRECHNUNG': return 'XRECHNUNG';
    default: return undefined;
  }
}

/** Profile from the embedded XML's guideline identifier (BT-24 / ZUGFeRD 1 GuidelineSpecified…). */
export function profileFromGuideline(guideline: string | undefined): HybridProfile | undefined {
  const g = (guideline ?? '').toLowerCase();
  if (!g) return undefined;
  if (g.includes('xrechnung')) return 'XRECHNUNG';
  if (/:minimum\b/.test(g)) return 'MINIMUM';
  if (/:basicwl\b/.test(g)) return 'BASIC WL';
  if (/:basic\b/.test(g)) return 'BASIC';
  if (/:extended\b/.test(g)) return 'EXTENDED';
  if (/:(comfort|en16931)\b/.test(g)) return 'EN 16931';
  if (/^urn:cen\.eu:en16931:2017$/.test(g)) return 'EN 16931';
  return undefined;
}

function flavourOf(ns: string | undefined, root: XmlRoot | undefined): HybridFlavour {
  if (ns?.startsWith('urn:factur-x:pdfa:CrossIndustryDocument:1p0')) return 'order-x';
  if (ns?.startsWith('urn:factur-x:')) return 'factur-x';
  if (ns?.startsWith('urn:zugferd:')) return 'zugferd-2';
  if (ns?.startsWith('urn:ferd:')) return 'zugferd-1';
  if (root?.localName === 'CrossIndustryDocument' && root.namespace === ZF1_RSM_NS) return 'zugferd-1';
  return 'unknown';
}

function syntaxOf(root: XmlRoot | undefined): HybridPdf['syntax'] {
  if (!root) return 'xml';
  if (root.localName === 'CrossIndustryInvoice' && (root.namespace === CII_RSM_NS || root.namespace === '')) return 'cii';
  if ((root.localName === 'Invoice' && root.namespace === UBL_INVOICE_NS) || (root.localName === 'CreditNote' && root.namespace === UBL_CREDIT_NOTE_NS)) return 'ubl';
  if (root.localName === 'CrossIndustryDocument' && root.namespace === ZF1_RSM_NS) return 'zugferd-1';
  if (root.localName === 'SCRDMCCBDACIOMessageStructure') return 'order-x';
  return 'xml';
}

const PREFERRED_NAMES = ['factur-x.xml', 'zugferd-invoice.xml', 'xrechnung.xml', 'order-x.xml'];

function guidelineOf(xml: Buffer): string | undefined {
  // Reading the first GuidelineSpecifiedDocumentContextParameter/ID is enough; avoid a full parse.
  const s = xml.subarray(0, 16 * 1024).toString('utf8');
  const m = /GuidelineSpecifiedDocumentContextParameter>\s*<(?:[\w.-]+:)?ID[^>]*>([^<]*)</.exec(s) ?? /<(?:[\w.-]+:)?CustomizationID[^>]*>([^<]*)</.exec(s);
  return m?.[1]?.trim();
}

function typeCodeOf(xml: Buffer): string | undefined {
  // The first TypeCode of a CII/ZUGFeRD document is the document's own (ExchangedDocument comes
  // before any line or reference); UBL names it InvoiceTypeCode/CreditNoteTypeCode.
  const s = xml.subarray(0, 64 * 1024).toString('utf8');
  return /<(?:[\w.-]+:)?(?:InvoiceTypeCode|CreditNoteTypeCode|TypeCode)\b[^>]*>\s*([^<\s]+)\s*</.exec(s)?.[1];
}

/**
 * Extracts the e-invoice XML embedded in a hybrid PDF. Throws MappingError (INVALID_REQUEST) when
 * the bytes are not a readable PDF or carry no embedded XML.
 */
export async function extractHybridPdf(bytes: Uint8Array): Promise<HybridPdf> {
  const offset = pdfHeaderOffset(bytes);
  if (offset < 0) throw broken('Not a PDF: no %PDF- header in the first 1024 bytes', 'pdf-header');
  assertObjectCount(bytes);
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
  } catch (err) {
    if (err instanceof MappingError) throw err;
    throw broken(`PDF could not be read: ${(err as Error).message}`);
  }
  const capHit = capHitWhileLoading(doc.context);
  if (capHit) throw capHit;
  let catalog: PDFDict;
  try {
    catalog = doc.catalog;
    if (!catalog) throw new Error('no document catalog');
  } catch (err) {
    throw broken(`PDF could not be read: ${(err as Error).message}`);
  }

  const attachments: EmbeddedFile[] = [];
  const xmpIssues: string[] = [];
  let xmp: XmpFacturX | undefined;
  try {
    const specs: Array<[string | undefined, PDFDict]> = [];
    const names = catalog.lookupMaybe(PDFName.of('Names'), PDFDict);
    nameTreeFileSpecs(names?.lookupMaybe(PDFName.of('EmbeddedFiles'), PDFDict), specs);
    // PDF/A-3 associated files: a fallback when the name tree is damaged or missing.
    const af = catalog.lookupMaybe(PDFName.of('AF'), PDFArray);
    if (af) for (let i = 0; i < af.size(); i++) {
      const spec = af.lookup(i);
      if (spec instanceof PDFDict && !specs.some(([, s]) => s === spec)) specs.push([undefined, spec]);
    }
    const { maxEmbeddedFiles } = pdfLimits();
    if (specs.length > maxEmbeddedFiles) throw pdfTooLarge('max-embedded-files', `The PDF embeds ${specs.length} files; at most ${maxEmbeddedFiles} are accepted`);
    const seen = new Set<string>();
    for (const [name, spec] of specs) {
      let file: EmbeddedFile | undefined;
      try {
        file = embeddedFile(name, spec);
      } catch (err) {
        if (err instanceof MappingError) throw err;
        // One undecodable attachment must not hide the others.
        xmpIssues.push(`embedded file ${name ?? '(unnamed)'} could not be decoded: ${(err as Error).message}`);
      }
      if (file && !seen.has(file.name)) {
        seen.add(file.name);
        attachments.push(file);
      }
    }
  } catch (err) {
    if (err instanceof MappingError) throw err;
    throw broken(`PDF structure is damaged: ${(err as Error).message}`);
  }
  try {
    const metadata = catalog.lookup(PDFName.of('Metadata'));
    if (metadata instanceof PDFRawStream) {
      xmp = readXmpFacturX(Buffer.from(decodeCapped(metadata, 'The XMP metadata')).toString('utf8'));
    }
  } catch (err) {
    if (err instanceof MappingError) throw err;
    xmpIssues.push(`XMP metadata could not be read: ${(err as Error).message}`);
  }
  if (!xmp && !xmpIssues.some((i) => i.startsWith('XMP metadata'))) xmpIssues.push('no Factur-X/ZUGFeRD XMP extension schema in the document metadata');

  const xmlFiles = attachments.filter((a) => sniffXmlRoot(a.bytes) !== undefined);
  const wanted = xmp?.documentFileName?.toLowerCase();
  const chosen = (wanted ? xmlFiles.find((a) => a.name.toLowerCase() === wanted) : undefined)
    ?? PREFERRED_NAMES.map((n) => xmlFiles.find((a) => a.name.toLowerCase() === n)).find(Boolean)
    ?? xmlFiles[0];
  if (!chosen) {
    // The invoice file is there but is not XML (an image, a truncated or binary stream): say which.
    const named = attachments.find((a) => a.name.toLowerCase() === wanted) ?? attachments.find((a) => PREFERRED_NAMES.includes(a.name.toLowerCase()));
    if (named) throw broken(`The PDF's invoice attachment ${named.name} is not XML (it starts with ${JSON.stringify(named.bytes.subarray(0, 16).toString('latin1'))})`, 'hybrid-embedded-xml');
    throw broken(`PDF carries no embedded e-invoice XML${attachments.length ? ` (attachments: ${attachments.map((a) => a.name).join(', ')})` : ''}`, 'hybrid-embedded-xml');
  }
  if (wanted && chosen.name.toLowerCase() !== wanted) xmpIssues.push(`XMP DocumentFileName ${xmp!.documentFileName} names no embedded file`);

  const root = sniffXmlRoot(chosen.bytes);
  const levelProfile = normaliseConformanceLevel(xmp?.conformanceLevel);
  if (xmp?.conformanceLevel !== undefined && !levelProfile) xmpIssues.push(`unknown XMP ConformanceLevel "${xmp.conformanceLevel}"`);
  if (xmp && xmp.conformanceLevel === undefined) xmpIssues.push('XMP has no ConformanceLevel');
  // ZUGFeRD 1.0 has its own XMP namespace: a PDF that declares one flavour and embeds the other is suspect.
  const xmlIsZf1 = syntaxOf(root) === 'zugferd-1';
  if (xmp && xmp.namespace.startsWith('urn:ferd:') !== xmlIsZf1) {
    xmpIssues.push(xmlIsZf1 ? `the XMP declares ${xmp.namespace} but the embedded XML is ZUGFeRD 1.0` : `the XMP declares ZUGFeRD 1.0 (${xmp.namespace}) but the embedded XML is not a ZUGFeRD 1.0 CrossIndustryDocument`);
  }
  const guidelineId = guidelineOf(chosen.bytes);
  const typeCode = typeCodeOf(chosen.bytes);
  const xmlProfile = profileFromGuideline(guidelineId);
  const result: HybridPdf = {
    xml: chosen.bytes,
    filename: chosen.name,
    syntax: syntaxOf(root),
    flavour: flavourOf(xmp?.namespace, root),
    xmpIssues,
    attachments,
  };
  if (chosen.relationship !== undefined) result.relationship = chosen.relationship;
  if (guidelineId !== undefined) result.guidelineId = guidelineId;
  if (typeCode !== undefined) result.typeCode = typeCode;
  if (root) result.root = root;
  if (xmp) result.xmp = xmp;
  if (levelProfile) { result.profile = levelProfile; result.profileSource = 'xmp'; }
  else if (xmlProfile) { result.profile = xmlProfile; result.profileSource = 'xml'; }
  return result;
}
