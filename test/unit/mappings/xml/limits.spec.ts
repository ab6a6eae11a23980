import { assertXmlWithinLimits, DEFAULT_XML_LIMITS, type XmlLimits } from '../../../../mappings/xml/limits.ts';
import { readTree } from '../../../../mappings/xml/tree.ts';
import { MappingError } from '../../../../mappings/errors.ts';
import { deepNesting, hugeText, manyAttributes, manyElements } from '../../../support/hostile-inputs.ts';
import { corpusFiles } from '../support/corpus.ts';
import { readFileSync } from 'node:fs';

const small: XmlLimits = { maxElements: 10, maxAttributesPerElement: 3, maxDepth: 4, maxTextLength: 20 };

function capHit(input: string | Uint8Array, limits: XmlLimits = small): string | undefined {
  try {
    assertXmlWithinLimits(input, limits);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(MappingError);
    expect((err as MappingError).code).toBe('PAYLOAD_TOO_LARGE');
    return (err as MappingError).details[0]!.rule;
  }
}

describe('assertXmlWithinLimits', () => {
  it('accepts a document exactly at every cap', () => {
    const xml = '<?xml version="1.0"?><!-- c --><a x="1" y="2" z="3"><b><c><d>12345678901234567890</d></c></b><e/><e/><e/><e/><e/><e/></a>';
    expect(capHit(xml)).toBeUndefined();
  });

  it('names the cap a document exceeds', () => {
    expect(capHit('<a w="1" x="2" y="3" z="4"/>')).toBe('max-attributes');
    expect(capHit('<a><b><c><d><e/></d></c></b></a>')).toBe('max-depth');
    expect(capHit(`<a>${'x'.repeat(21)}</a>`)).toBe('max-text-length');
    expect(capHit(`<a><![CDATA[${'x'.repeat(21)}]]></a>`)).toBe('max-text-length');
    expect(capHit(`<a x="${'x'.repeat(21)}"/>`)).toBe('max-text-length');
    expect(capHit(`<a>${'<b/>'.repeat(10)}</a>`)).toBe('max-elements');
  });

  it('does not count markup inside comments, CDATA, processing instructions or quoted values', () => {
    expect(capHit('<a><!-- <b><c><d><e> --><?pi <x a="1" b="2" c="3" d="4"?><![CDATA[<b><c><d><e>]]></a>')).toBeUndefined();
    expect(capHit('<a x="a=b=c=d=e" y=\'<b><c>\'/>')).toBeUndefined();
  });

  it('reads bytes as well as text, and UTF-16 with a BOM', () => {
    expect(capHit(Buffer.from('<a w="1" x="2" y="3" z="4"/>'))).toBe('max-attributes');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<a w="1" x="2" y="3" z="4"/>', 'utf16le')]);
    expect(capHit(utf16)).toBe('max-attributes');
  });

  it('refuses the issue-11 shapes under the default caps, in linear time', () => {
    const t0 = performance.now();
    expect(capHit(manyAttributes(50_000), DEFAULT_XML_LIMITS)).toBe('max-attributes');
    expect(capHit(deepNesting(10_000), DEFAULT_XML_LIMITS)).toBe('max-depth');
    expect(capHit(hugeText(9 * 1024 * 1024), DEFAULT_XML_LIMITS)).toBe('max-text-length');
    expect(capHit(manyElements(1_000_001), DEFAULT_XML_LIMITS)).toBe('max-elements');
    // Linear: about 2 s on a quiet 2-core machine; a quadratic scan of a million elements takes hours.
    // The bound only tells those apart (a loaded CI machine doubles the first); figures live in bench/.
    expect(performance.now() - t0).toBeLessThan(20_000);
  });

  it('accepts every official example under the default caps', () => {
    for (const file of corpusFiles('peppol-bis-invoice-3/rules/examples')) expect(capHit(readFileSync(file), DEFAULT_XML_LIMITS)).toBeUndefined();
  });

  it('is applied by the translators\' XML intake before libxml2 parses', () => {
    expect(() => readTree(manyAttributes(300))).toThrow(expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE' }));
  });
});
