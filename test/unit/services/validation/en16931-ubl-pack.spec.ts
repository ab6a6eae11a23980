/** Pack conventions (schematrons/README.md) hold for every assert of the EN 16931 UBL pack. */
import libxml from 'libxmljs2';
import type { Element } from 'libxmljs2';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCHEMATRONS_DIR } from '../../../../schematrons/packs.ts';

const SCH = 'http://purl.oclc.org/dsdl/schematron';
const doc = libxml.parseXml(readFileSync(join(SCHEMATRONS_DIR, 'en16931/1.3.16/en16931-ubl.sch'), 'utf8'));
const checks = doc.find<Element>('//sch:assert | //sch:report', { sch: SCH });
const diagnostics = new Set(doc.find<Element>('//sch:diagnostic', { sch: SCH }).map((d) => d.attr('id')!.value()));
const attr = (e: Element, n: string): string | undefined => e.attrs().find((a) => a.name() === n)?.value();

describe('EN 16931 UBL pack conventions', () => {
  it('has the rule families of the issue', () => {
    const ids = new Set(checks.map((c) => attr(c, 'id')!));
    for (const prefix of ['BR-', 'BR-CO-', 'BR-CL-', 'BR-DEC-', 'BR-S-', 'BR-Z-', 'BR-E-', 'BR-AE-', 'BR-IC-', 'BR-G-', 'BR-O-', 'BR-AF-', 'BR-AG-', 'BR-B-', 'UBL-SR-', 'UBL-DT-']) {
      expect({ prefix, present: [...ids].some((i) => i.startsWith(prefix)) }).toEqual({ prefix, present: true });
    }
    expect(checks.length).toBeGreaterThan(200);
  });

  it('every assert has an official-looking id, a fatal/warning flag, a BT/BG id, a hint and a message', () => {
    const bad = checks.filter((c) => {
      const id = attr(c, 'id') ?? '';
      const diag = attr(c, 'diagnostics') ?? '';
      return !/^(BR|UBL)-[A-Z0-9-]+$/.test(id) || !['fatal', 'warning'].includes(attr(c, 'flag') ?? '') ||
        !/^(B[TG]-\d+ ?)+$/.test(attr(c, 'bt') ?? '') || !diagnostics.has(diag) || c.text().trim().length < 10;
    }).map((c) => attr(c, 'id'));
    expect(bad).toEqual([]);
  });
});
