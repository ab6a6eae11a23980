/**
 * Caps on the shape of an XML document, checked by one linear pass over the text before any
 * parser sees it. libxml2's duplicate-attribute check, saxon-js's tree builder and XSD/Schematron
 * regexes all grow faster than the input on some shapes (50,000 attributes on one element took
 * 10 s); counting elements, attributes, depth and text runs first costs one scan and refuses those
 * shapes with PAYLOAD_TOO_LARGE before the super-linear step.
 *
 * The scan does not judge well-formedness (libxml2 does, right after): it only needs to find tag
 * boundaries, so malformed input simply ends the scan.
 */
import { MappingError } from '../errors.ts';

export interface XmlLimits {
  /** Elements in the whole document. */
  maxElements: number;
  /** Attributes (namespace declarations included) on one element. */
  maxAttributesPerElement: number;
  /** Element nesting depth. */
  maxDepth: number;
  /** One text run, CDATA section or attribute value, in characters (bytes for single-byte text). */
  maxTextLength: number;
}

/**
 * Generous for real invoices (a 10,000-line UBL invoice has ~300,000 elements, depth < 15, a few
 * attributes per element; an embedded base64 attachment is one long text run) and far below the
 * shapes that stall the parsers.
 */
export const DEFAULT_XML_LIMITS: XmlLimits = Object.freeze({
  maxElements: 1_000_000,
  maxAttributesPerElement: 256,
  maxDepth: 128,
  maxTextLength: 8 * 1024 * 1024,
});

let active: XmlLimits = DEFAULT_XML_LIMITS;

/** Sets the caps every XML intake of this process applies (from loadConfig(), once at start). */
export function configureXmlLimits(limits: XmlLimits): void {
  active = Object.freeze({ ...limits });
}

export function xmlLimits(): XmlLimits {
  return active;
}

function tooLarge(rule: string, message: string, field: string): never {
  throw new MappingError('PAYLOAD_TOO_LARGE', message, [{ field, rule, message }]);
}

const GT = 0x3e, SLASH = 0x2f, BANG = 0x21, QMARK = 0x3f, EQ = 0x3d, DQ = 0x22, SQ = 0x27;

/** The text as UTF-16 code units, without decoding: latin1 keeps one char per byte, so ASCII markup stays where it was. */
function asText(input: string | Uint8Array): string {
  if (typeof input === 'string') return input;
  const buf = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  if (buf.length >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff))) {
    return new TextDecoder(buf[0] === 0xff ? 'utf-16le' : 'utf-16be').decode(buf);
  }
  return buf.toString('latin1');
}

/**
 * Throws MappingError PAYLOAD_TOO_LARGE (details name the cap) when the document exceeds a cap.
 * Linear in the input: every character is looked at a bounded number of times.
 */
export function assertXmlWithinLimits(input: string | Uint8Array, limits: XmlLimits = active, field = 'xml'): void {
  const s = asText(input);
  const n = s.length;
  let elements = 0;
  let depth = 0;
  let i = 0;
  const checkText = (length: number, what: string): void => {
    if (length > limits.maxTextLength) {
      tooLarge('max-text-length', `The document has ${what} of ${length} characters; at most ${limits.maxTextLength} are accepted`, field);
    }
  };
  while (i < n) {
    const lt = s.indexOf('<', i);
    if (lt < 0) { checkText(n - i, 'a text node'); break; }
    checkText(lt - i, 'a text node');
    const next = s.charCodeAt(lt + 1);
    if (next === QMARK) { const e = s.indexOf('?>', lt + 2); if (e < 0) break; i = e + 2; continue; }
    if (next === BANG) {
      if (s.startsWith('<!--', lt)) { const e = s.indexOf('-->', lt + 4); if (e < 0) break; i = e + 3; continue; }
      if (s.startsWith('<![CDATA[', lt)) {
        const e = s.indexOf(']]>', lt + 9);
        if (e < 0) break;
        checkText(e - lt - 9, 'a CDATA section');
        i = e + 3;
        continue;
      }
      const e = s.indexOf('>', lt + 2); // DOCTYPE and the like: refused by the intake that follows
      if (e < 0) break;
      i = e + 1;
      continue;
    }
    if (next === SLASH) { depth--; const e = s.indexOf('>', lt + 2); if (e < 0) break; i = e + 1; continue; }
    // Start tag: count attributes ('=' outside quoted values) up to '>' or '/>'.
    if (++elements > limits.maxElements) tooLarge('max-elements', `The document has more than ${limits.maxElements} elements`, field);
    if (++depth > limits.maxDepth) tooLarge('max-depth', `The document nests elements deeper than ${limits.maxDepth} levels`, field);
    let j = lt + 1;
    let attributes = 0;
    let closed = false;
    while (j < n) {
      const c = s.charCodeAt(j);
      if (c === GT) { closed = true; break; }
      if (c === DQ || c === SQ) {
        const e = s.indexOf(c === DQ ? '"' : "'", j + 1);
        if (e < 0) { j = n; break; }
        checkText(e - j - 1, 'an attribute value');
        j = e + 1;
        continue;
      }
      if (c === EQ && ++attributes > limits.maxAttributesPerElement) {
        tooLarge('max-attributes', `An element carries more than ${limits.maxAttributesPerElement} attributes`, field);
      }
      j++;
    }
    if (!closed) break;
    if (s.charCodeAt(j - 1) === SLASH) depth--;
    i = j + 1;
  }
}
