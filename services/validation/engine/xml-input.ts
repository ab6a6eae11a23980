/**
 * Hardened XML intake: one place that turns caller bytes into a parsed document.
 * - No DOCTYPE at all (e-invoice syntaxes never need one): this shuts out XXE, external DTD loading
 *   and entity-expansion bombs (billion laughs) before any parser sees them.
 * - Shape caps (mappings/xml/limits.ts) refuse documents whose element count, attributes per
 *   element, depth or text runs would make the parsers below super-linear (PAYLOAD_TOO_LARGE).
 * - libxml2 runs with noent=false (no entity substitution), dtdload=false, nonet=true, huge=false
 *   (libxml2's default size/depth limits), so even a DOCTYPE hidden from the pre-scan cannot
 *   reach the network or the file system.
 */
import libxml from 'libxmljs2';
import type { Document as XmlDocument } from 'libxmljs2';
import { InvalidXmlInputError, type DocumentSyntax } from './types.ts';
import { assertXmlWithinLimits } from '../../../mappings/xml/limits.ts';

export const NS = {
  ublInvoice: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  ublCreditNote: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
  ublOrder: 'urn:oasis:names:specification:ubl:schema:xsd:Order-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cii: 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  udt: 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
  ram: 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
  cdar: 'urn:un:unece:uncefact:data:standard:CrossDomainAcknowledgementAndResponse:100',
  fatturapa: 'http://ivaservizi.agenziaentrate.gov.it/docs/xsd/fatture/v1.2',
  pain001: 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.09',
  zf1: 'urn:ferd:CrossIndustryDocument:invoice:1p0',
  zf1Ram: 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:12',
} as const;

const ROOTS: Record<string, DocumentSyntax> = {
  [`{${NS.ublInvoice}}Invoice`]: 'ubl-invoice',
  [`{${NS.ublCreditNote}}CreditNote`]: 'ubl-creditnote',
  [`{${NS.ublOrder}}Order`]: 'ubl-order',
  [`{${NS.cii}}CrossIndustryInvoice`]: 'cii',
  [`{${NS.cdar}}CrossDomainAcknowledgementAndResponse`]: 'cdar',
  [`{${NS.fatturapa}}FatturaElettronica`]: 'fatturapa',
  [`{${NS.pain001}}Document`]: 'pain.001',
  [`{${NS.zf1}}CrossIndustryDocument`]: 'zugferd-1',
};

export interface ParsedInput {
  text: string;
  doc: XmlDocument;
  syntax: DocumentSyntax;
  rootName: string;
}

const fail = (message: string, rule: string): never => {
  throw new InvalidXmlInputError(message, [{ field: 'body', rule, message }]);
};

/** Decode bytes using the XML declaration's encoding (UTF-8 default; UTF-16 by BOM). */
export function decodeXml(input: string | Uint8Array): string {
  if (typeof input === 'string') return input;
  if (input.length >= 2 && ((input[0] === 0xff && input[1] === 0xfe) || (input[0] === 0xfe && input[1] === 0xff))) {
    return new TextDecoder(input[0] === 0xff ? 'utf-16le' : 'utf-16be').decode(input);
  }
  const head = new TextDecoder('latin1').decode(input.subarray(0, 200));
  const m = /^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head.replace(/^\uFEFF|^ï»¿/, ''));
  let label = (m?.[1] ?? 'utf-8').toLowerCase();
  try {
    return new TextDecoder(label, { fatal: true }).decode(input);
  } catch (e) {
    if (e instanceof RangeError) label = 'utf-8';
    return fail(`The document is not valid ${label} text: ${(e as Error).message}`, 'encoding');
  }
}

/** Reject a DOCTYPE anywhere before the root element (prolog scan, linear). */
export function assertNoDoctype(text: string): void {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const n = text.length;
  for (;;) {
    while (i < n && /\s/.test(text[i]!)) i++;
    if (text.startsWith('<?', i)) { const e = text.indexOf('?>', i + 2); if (e < 0) break; i = e + 2; continue; }
    if (text.startsWith('<!--', i)) { const e = text.indexOf('-->', i + 4); if (e < 0) break; i = e + 3; continue; }
    if (text.startsWith('<!', i) && /^<!doctype/i.test(text.slice(i, i + 9))) {
      fail('DOCTYPE declarations are not allowed: e-invoice documents need no DTD, and DTDs/entities are refused ' +
        'to prevent external entity (XXE) and entity-expansion attacks.', 'no-doctype');
    }
    break;
  }
  // an ENTITY declaration can only live in a DTD; a stray one is refused too (cheap, exact substring)
  const firstEl = text.indexOf('<', i);
  if (firstEl >= 0 && text.lastIndexOf('<!ENTITY', firstEl) >= 0) fail('Entity declarations are not allowed.', 'no-doctype');
}

export const SAFE_PARSE_OPTIONS = { noent: false, dtdload: false, dtdvalid: false, nonet: true, huge: false, recover: false } as const;

/**
 * The hardened intake every XML the engine reads goes through: decoded by its declaration, no
 * DOCTYPE or entity, the shape caps, then libxml2 without entity substitution or network.
 */
export function parseXmlDocument(input: string | Uint8Array): { text: string; doc: XmlDocument; rootName: string } {
  const text = decodeXml(input);
  if (text.trim() === '') fail('The document is empty.', 'well-formed');
  assertNoDoctype(text);
  // Shape caps (elements, attributes, depth, text) before libxml2, XSD and saxon-js see the text.
  assertXmlWithinLimits(text, undefined, 'body');
  let doc: XmlDocument;
  try {
    doc = libxml.parseXml(text, SAFE_PARSE_OPTIONS);
  } catch (e) {
    const err = e as { message?: string; line?: number; column?: number };
    const where = err.line ? ` (line ${err.line}${err.column ? `, column ${err.column}` : ''})` : '';
    return fail(`The document is not well-formed XML${where}: ${(err.message ?? String(e)).trim()}`, 'well-formed');
  }
  if (doc.getDtd()) fail('DOCTYPE declarations are not allowed.', 'no-doctype');
  const root = doc.root();
  if (!root) return fail('The document has no root element.', 'well-formed');
  return { text, doc, rootName: `{${root.namespace()?.href() ?? ''}}${root.name()}` };
}

/** Refuses a document whose root is not one the caller reads (`expected` names them for the message). */
export function refuseRoot(rootName: string, expected: string): never {
  return fail(`Unsupported document: root element ${rootName}. Expected ${expected}.`, 'root-element');
}

export function parseInput(input: string | Uint8Array): ParsedInput {
  const { text, doc, rootName } = parseXmlDocument(input);
  const syntax = ROOTS[rootName];
  if (!syntax) {
    return refuseRoot(rootName, 'a UBL 2.1 Invoice, CreditNote or Order, a CII D16B CrossIndustryInvoice, a CDAR D22B message, a FatturaPA 1.2 document, a pain.001.001.09 message or a ZUGFeRD 1.0 CrossIndustryDocument');
  }
  return { text, doc, syntax, rootName };
}

/** BT-24 (UBL CustomizationID) or CII guideline id. */
export function customizationIdOf(p: ParsedInput): string {
  const root = p.doc.root()!;
  if (p.syntax === 'ubl-invoice' || p.syntax === 'ubl-creditnote' || p.syntax === 'ubl-order') {
    return root.get<import('libxmljs2').Element>('cbc:CustomizationID', { cbc: NS.cbc })?.text().trim() ?? '';
  }
  if (p.syntax === 'cii') {
    return root.get<import('libxmljs2').Element>(
      'rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID', { rsm: NS.cii, ram: NS.ram },
    )?.text().trim() ?? '';
  }
  if (p.syntax === 'zugferd-1') {
    return root.get<import('libxmljs2').Element>(
      'rsm:SpecifiedExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID', { rsm: NS.zf1, ram: NS.zf1Ram },
    )?.text().trim() ?? '';
  }
  return '';
}

/** A real calendar date written YYYY-MM-DD (an optional xs:date time zone after it is ignored). */
function isoDate(y: string, m: string, d: string): string | undefined {
  const yy = Number(y), mm = Number(m), dd = Number(d);
  if (mm < 1 || mm > 12 || dd < 1) return undefined;
  const days = new Date(Date.UTC(yy, mm, 0)).getUTCDate();
  return dd <= days ? `${y}-${m}-${d}` : undefined;
}

/**
 * The document's issue date (BT-2) as an ISO date, used to pick the rule release in force: UBL
 * cbc:IssueDate (xs:date), CII rsm:ExchangedDocument/ram:IssueDateTime/udt:DateTimeString (format 102,
 * CCYYMMDD). Undefined when missing, repeated or unreadable.
 */
export function issueDateOf(p: ParsedInput): string | undefined {
  const root = p.doc.root()!;
  if (p.syntax === 'ubl-invoice' || p.syntax === 'ubl-creditnote') {
    const els = root.find<import('libxmljs2').Element>('cbc:IssueDate', { cbc: NS.cbc });
    if (els.length !== 1) return undefined;
    const m = /^(\d{4})-(\d{2})-(\d{2})(Z|[+-]\d{2}:\d{2})?$/.exec(els[0]!.text().trim());
    return m ? isoDate(m[1]!, m[2]!, m[3]!) : undefined;
  }
  if (p.syntax === 'cii') {
    const els = root.find<import('libxmljs2').Element>(
      'rsm:ExchangedDocument/ram:IssueDateTime/udt:DateTimeString',
      { rsm: NS.cii, ram: NS.ram, udt: NS.udt },
    );
    if (els.length !== 1) return undefined;
    const format = els[0]!.attr('format')?.value();
    if (format !== undefined && format.trim() !== '102') return undefined;
    const m = /^(\d{4})(\d{2})(\d{2})$/.exec(els[0]!.text().trim());
    return m ? isoDate(m[1]!, m[2]!, m[3]!) : undefined;
  }
  return undefined;
}

/** A coarse profile name from the specification identifier. */
export function profileOf(syntax: DocumentSyntax, customizationId: string): string {
  const c = customizationId;
  if (syntax === 'cdar' || syntax === 'fatturapa' || syntax === 'pain.001') return syntax;
  if (c === '') return 'unknown';
  if (syntax === 'ubl-order') return c === 'urn:fdc:peppol.eu:poacc:trns:order:3' ? 'peppol-bis-order-3' : 'unknown';
  if (syntax === 'zugferd-1') return /^urn:ferd:CrossIndustryDocument:invoice:1p0:(basic|comfort|extended)$/.exec(c) ? `zugferd-1-${c.slice(c.lastIndexOf(':') + 1)}` : 'unknown';
  if (c.includes('urn:fdc:peppol.eu:2017:poacc:billing:3.0')) return 'peppol-bis-billing-3.0';
  if (c.includes('urn:fdc:peppol.eu:2017:poacc:selfbilling:3.0')) return 'peppol-bis-selfbilling-3.0';
  if (c.includes('xeinkauf.de:kosit:xrechnung_3')) return c.includes('#conformant#urn:xeinkauf.de:kosit:extension') ? 'xrechnung-3.0-extension' : 'xrechnung-3.0';
  // the French reform's extended profile (AFNOR XP Z12-012), UBL or CII: the extended-ctc-fr pack replaces en16931
  if (c.includes('urn.cpro.gouv.fr:1p0:extended-ctc-fr')) return 'extended-ctc-fr';
  const fx = /urn:factur-x\.eu:1p0:(minimum|basicwl|basic|extended)|urn:cen\.eu:en16931:2017#conformant#urn:factur-x\.eu:1p0:(extended)/.exec(c);
  if (fx) return `factur-x-${fx[1] ?? fx[2]}`;
  if (c === 'urn:cen.eu:en16931:2017') return 'en16931';
  if (c.startsWith('urn:cen.eu:en16931:2017#compliant#') || c.startsWith('urn:cen.eu:en16931:2017#conformant#')) return 'en16931-cius';
  return 'unknown';
}
