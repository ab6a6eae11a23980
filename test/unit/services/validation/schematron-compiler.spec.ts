/**
 * The Schematron → XSLT compiler (schematrons/compiler): semantics of the supported subset,
 * checked end to end (compile → xslt3 SEF → saxon-js), and its refusal of unsupported input.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import SaxonJS from 'saxon-js';
import { compileSchematron, SchematronCompileError } from '../../../../schematrons/compiler/schematron-to-xslt.ts';

const require = createRequire(import.meta.url);

const SCH = `<?xml version="1.0"?>
<sch:schema xmlns:sch="http://purl.oclc.org/dsdl/schematron" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
            xmlns:einv="urn:einvoicing-exchange:schematron" queryBinding="xslt2">
  <sch:ns prefix="t" uri="urn:test"/>
  <xsl:key name="lineById" match="t:line" use="@id"/>
  <sch:let name="total" value="sum(/t:doc/t:line/@amount)"/>
  <sch:pattern id="first-rule-wins">
    <sch:rule context="t:line[@special]">
      <sch:report id="SPECIAL" flag="warning" test="true()">Line <sch:value-of select="@id"/> is special.</sch:report>
    </sch:rule>
    <sch:rule context="t:line">
      <sch:extends rule="positive"/>
      <sch:let name="a" value="number(@amount)"/>
      <sch:assert id="R-1" flag="fatal" einv:bt="BT-131 BG-25" diagnostics="R-1-fix" test="$a lt 100">Line <sch:value-of select="@id"/>: amount <sch:value-of select="$a"/> is 100 or more (document total <sch:value-of select="$total"/>) in <sch:name/>.</sch:assert>
    </sch:rule>
    <sch:rule abstract="true" id="positive">
      <sch:assert id="R-2" test="number(@amount) ge 0">Negative amount.</sch:assert>
    </sch:rule>
  </sch:pattern>
  <sch:pattern id="every-line-again">
    <sch:rule context="t:line">
      <sch:report id="SEEN" flag="warning" test="true()">seen <sch:value-of select="@id"/></sch:report>
    </sch:rule>
    <sch:rule context="t:line[@id = 'a']">
      <sch:report id="NEVER" flag="warning" test="true()">a later rule of a pattern never fires on a node an earlier rule matched</sch:report>
    </sch:rule>
  </sch:pattern>
  <sch:pattern id="doc">
    <sch:rule context="/t:doc">
      <sch:assert id="R-3" flag="fatal" test="count(key('lineById', 'x')) = 0">No line may have id x.</sch:assert>
    </sch:rule>
  </sch:pattern>
  <sch:diagnostics><sch:diagnostic id="R-1-fix">Split line <sch:value-of select="@id"/>.</sch:diagnostic></sch:diagnostics>
</sch:schema>`;

interface F { id: string; flag: string; kind: string; location: string; text: string; hint: string; bt: string }

function run(sch: string, xml: string): F[] {
  const dir = mkdtempSync(join(tmpdir(), 'sch-'));
  try {
    writeFileSync(join(dir, 'p.xsl'), compileSchematron(sch, 'test.sch').xslt);
    execFileSync(process.execPath, [require.resolve('xslt3/xslt3.js'), `-xsl:${join(dir, 'p.xsl')}`, `-export:${join(dir, 'p.sef.json')}`, '-nogo', '-relocate:on']);
    const sef = JSON.parse(readFileSync(join(dir, 'p.sef.json'), 'utf8')) as unknown;
    return SaxonJS.transform({ stylesheetInternal: sef, sourceText: xml, destination: 'raw' }, 'sync').principalResult as F[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('Schematron compiler', () => {
  it('implements first-rule-wins, lets, abstract rules, reports, value-of, name, diagnostics, keys and BT ids', () => {
    const xml = '<doc xmlns="urn:test"><line id="a" amount="150"/><line id="b" amount="-5" special="1"/><line id="x" amount="-1"/></doc>';
    const f = run(SCH, xml);
    const by = (id: string): F[] => f.filter((x) => x.id === id);
    // line b matches the first rule only: reported as special, never checked by R-1/R-2
    expect(by('SPECIAL')).toEqual([expect.objectContaining({ flag: 'warning', kind: 'report', text: 'Line b is special.', location: '/t:doc[1]/t:line[2]' })]);
    expect(by('R-1')).toEqual([expect.objectContaining({
      flag: 'fatal', kind: 'assert', bt: 'BT-131 BG-25', hint: 'Split line a.', location: '/t:doc[1]/t:line[1]',
      text: 'Line a: amount 150 is 100 or more (document total 144) in line.',
    })]);
    expect(by('R-2').map((x) => x.location)).toEqual(['/t:doc[1]/t:line[3]']);
    expect(by('R-2')[0]!.flag).toBe('fatal'); // no @flag = fatal
    expect(by('R-3')).toHaveLength(1);
    // a node matched in several patterns fires the first matching rule of each pattern
    expect(by('SEEN').map((x) => x.text)).toEqual(['seen a', 'seen b', 'seen x']);
    expect(by('NEVER')).toEqual([]);
  }, 60_000);

  it('refuses asserts without an official id or with another flag, and unsupported elements', () => {
    const wrap = (body: string): string => `<sch:schema xmlns:sch="http://purl.oclc.org/dsdl/schematron"><sch:pattern><sch:rule context="a">${body}</sch:rule></sch:pattern></sch:schema>`;
    expect(() => compileSchematron(wrap('<sch:assert test="1">x</sch:assert>'))).toThrow(SchematronCompileError);
    expect(() => compileSchematron(wrap('<sch:assert id="X" flag="error" test="1">x</sch:assert>'))).toThrow(/fatal or warning/);
    expect(() => compileSchematron(wrap('<sch:assert id="X" test="1"><sch:foo/></sch:assert>'))).toThrow(/unsupported/);
    expect(() => compileSchematron('<sch:schema xmlns:sch="http://purl.oclc.org/dsdl/schematron"><sch:include href="x"/></sch:schema>')).toThrow(/unsupported/);
  });
});
