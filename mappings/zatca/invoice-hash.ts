/**
 * The invoice hash of ZATCA's security features standard: SHA-256 of the invoice canonicalised
 * (C14N 1.1) after the three parts the stamp adds are taken out — `ext:UBLExtensions`,
 * `cac:Signature` and the QR's `cac:AdditionalDocumentReference` (the signature's XPath transforms
 * `not(//ancestor-or-self::…)`). It is the signature's invoice digest, QR tag 6, the next invoice's
 * PIH and what ZATCA's `invoiceHash` field carries; base64 of the 32 bytes.
 *
 * C14N is xml-crypto's inclusive canonicaliser: C14N 1.1 differs from 1.0 only in the handling of
 * `xml:id`/`xml:base`-family attributes, which a ZATCA invoice does not carry (the tests compare with
 * libxml2's C14N 1.1).
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { C14nCanonicalization } from 'xml-crypto';
import { parseXmlHardened } from '../xml/parse.ts';
import { CAC_NS, CBC_NS } from '../ubl-2.1/namespaces.ts';
import { EXT_NS } from './from-canonical.ts';

interface XNode { nodeType: number; localName?: string; namespaceURI?: string | null; childNodes: ArrayLike<XNode>; textContent: string | null; removeChild(n: XNode): void }
const { DOMParser } = createRequire(import.meta.url)('@xmldom/xmldom') as { DOMParser: new () => { parseFromString(xml: string, type: string): { documentElement: XNode } } };

const elementChildren = (n: XNode): XNode[] => Array.from(n.childNodes).filter((c) => c.nodeType === 1);
const is = (n: XNode, ns: string, local: string) => n.localName === local && n.namespaceURI === ns;

/** True for the parts the hash leaves out (they are what the stamp adds). */
function stampPart(el: XNode): boolean {
  if (is(el, EXT_NS, 'UBLExtensions') || is(el, CAC_NS, 'Signature')) return true;
  return is(el, CAC_NS, 'AdditionalDocumentReference') && elementChildren(el).some((c) => is(c, CBC_NS, 'ID') && (c.textContent ?? '').trim() === 'QR');
}

/** The invoice as it is hashed: canonical XML without the stamp's parts. */
export function canonicalInvoiceForHash(xml: string): string {
  parseXmlHardened(xml, 'ZATCA invoice');
  if (/<!DOCTYPE/i.test(xml)) throw new Error('a DOCTYPE is not allowed in an invoice');
  const root = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
  // The transforms' XPath (`//ancestor-or-self::`) reaches these anywhere; in UBL they are children of the root.
  const stack: XNode[] = [root];
  while (stack.length) {
    const el = stack.pop()!;
    for (const c of elementChildren(el)) {
      if (stampPart(c)) el.removeChild(c);
      else stack.push(c);
    }
  }
  return new C14nCanonicalization().process(root as never, {}) as string;
}

/** The invoice hash, base64 of the SHA-256. */
export function zatcaInvoiceHash(xml: string): string {
  return createHash('sha256').update(canonicalInvoiceForHash(xml), 'utf8').digest('base64');
}
