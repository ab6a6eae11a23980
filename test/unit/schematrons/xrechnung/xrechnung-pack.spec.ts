/**
 * The XRechnung pack (schematrons/xrechnung/3.0.2) on what the KoSIT XML-Mutate corpus leaves out
 * (test/conformance/xrechnung.spec.ts proves the rest): no corpus case makes BR-DE-20 fire (UBL or CII)
 * or the CII BR-DE-21 fire, and none states that BR-DE-23-b, BR-DE-24-b, BR-DE-25-b, BR-TMP-CVD-01 (both
 * syntaxes) or the CII BR-DE-20/21 stay silent on a good document. Each case takes a KoSIT base instance
 * (a good document for that rule), shows the rule silent on it, then breaks it minimally and shows the
 * rule firing. Also: the pack is chosen by the XRechnung identifiers, and the IBAN check needs no big integer.
 */
import { readFileSync } from 'node:fs';
import { validate } from '../../../../services/validation/engine/index.ts';
import { corpusPath } from '../../../support/corpus.ts';

const base = (path: string): string => readFileSync(corpusPath('xrechnung-schematron/test/instances', path), 'utf8');
/** Rule ids the XRechnung pack alone reports, with their severity. */
const fired = (xml: string): string[] => validate(xml, { packs: ['xrechnung'], skipXsd: true }).findings.map((f) => `${f.rule}/${f.severity}`);
/** A replacement that must apply (a test that changes nothing proves nothing). */
function edit(xml: string, from: string | RegExp, to: string): string {
  const out = xml.replace(from, to);
  if (out === xml) throw new Error(`no match for ${String(from)}`);
  return out;
}

const XR_CIUS = 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0';
const XR_EXTENSION = `${XR_CIUS}#conformant#urn:xeinkauf.de:kosit:extension:xrechnung_3.0`;
const PEPPOL = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0';

describe('BR-DE-20: the debited account (BT-91) of a SEPA direct debit is a valid IBAN', () => {
  // UBL: the base direct debit lacks the SEPA creditor identifier (BR-DE-30), which we add.
  const ubl = edit(base('ubl-inv/ubl-inv-br-de-25-test-bg-19.xml'), /(<cac:AccountingSupplierParty>\s*<cac:Party>)/,
    '$1<cac:PartyIdentification><cbc:ID schemeID="SEPA">DE98ZZZ09999999999</cbc:ID></cac:PartyIdentification>');
  const cii = base('cii/cii-br-de-25-test-bg-19.xml');

  it('UBL: silent on a valid IBAN (also written with spaces), fires on wrong check digits and on a non-IBAN', () => {
    expect(fired(ubl).filter((r) => !r.startsWith('BR-DE-TMP-32'))).toEqual([]);
    expect(fired(edit(ubl, 'DE79000000001234567890', 'DE79 0000 0000 1234 5678 90'))).not.toContain('BR-DE-20/warning');
    expect(fired(edit(ubl, 'DE79000000001234567890', 'DE79000000001234567891'))).toContain('BR-DE-20/warning');
    expect(fired(edit(ubl, 'DE79000000001234567890', '1234567890'))).toContain('BR-DE-20/warning');
  });

  it('CII: silent on a valid IBAN, fires on wrong check digits and on a missing debited account', () => {
    expect(fired(cii)).not.toContain('BR-DE-20/warning');
    expect(fired(edit(cii, '<ram:IBANID>DE79000000001234567890</ram:IBANID>', '<ram:IBANID>DE79000000001234567809</ram:IBANID>'))).toContain('BR-DE-20/warning');
    expect(fired(edit(cii, /<ram:PayerPartyDebtorFinancialAccount>[\s\S]*?<\/ram:PayerPartyDebtorFinancialAccount>/, ''))).toContain('BR-DE-20/warning');
  });

  it('a 32-character IBAN (a 38-digit number, beyond 2^53) is checked exactly: a valid one passes, one digit off fails', () => {
    // LC (Saint Lucia) IBANs have 32 characters, the longest in use; with the letters expanded that is a
    // 38-digit number, which a double cannot hold. Check digits of LC55HEMM000100010012001200023015 are 55.
    const long = edit(ubl, 'DE79000000001234567890', 'LC55HEMM000100010012001200023015');
    expect(fired(long)).not.toContain('BR-DE-20/warning');
    expect(fired(edit(long, 'LC55HEMM000100010012001200023015', 'LC55HEMM000100010012001200023016'))).toContain('BR-DE-20/warning');
  });
});

describe('BR-DE-21 (CII): the specification identifier (BT-24) is XRechnung\'s', () => {
  const cii = base('cii/cii-br-de-1-test.xml');
  it('silent for the CIUS and the extension, a warning for another identifier', () => {
    expect(fired(cii)).not.toContain('BR-DE-21/warning');
    expect(fired(edit(cii, `<ram:ID>${XR_CIUS}</ram:ID>`, `<ram:ID>${XR_EXTENSION}</ram:ID>`))).not.toContain('BR-DE-21/warning');
    expect(fired(edit(cii, `<ram:ID>${XR_CIUS}</ram:ID>`, `<ram:ID>${PEPPOL}</ram:ID>`))).toContain('BR-DE-21/warning');
  });
});

describe('BR-DE-23-b, BR-DE-24-b, BR-DE-25-b: a payment means carries only its own group', () => {
  it('UBL: silent on a plain credit transfer, card payment and direct debit; each fires once another group is added', () => {
    const transfer = base('ubl-inv/ubl-inv-br-de-23-test-bg-17.xml');
    const card = base('ubl-inv/ubl-inv-br-de-24-test-bg-18.xml');
    const debit = base('ubl-inv/ubl-inv-br-de-25-test-bg-19.xml');
    expect(fired(transfer)).not.toContain('BR-DE-23-b/fatal');
    expect(fired(card)).not.toContain('BR-DE-24-b/fatal');
    expect(fired(debit)).not.toContain('BR-DE-25-b/fatal');
    const cardAccount = '<cac:CardAccount><cbc:PrimaryAccountNumberID>1234</cbc:PrimaryAccountNumberID><cbc:NetworkID>VISA</cbc:NetworkID></cac:CardAccount>';
    const payeeAccount = '<cac:PayeeFinancialAccount><cbc:ID>DE79000000001234567890</cbc:ID></cac:PayeeFinancialAccount>';
    expect(fired(edit(transfer, '</cac:PaymentMeans>', `${cardAccount}</cac:PaymentMeans>`))).toContain('BR-DE-23-b/fatal');
    expect(fired(edit(card, '</cac:PaymentMeans>', `${payeeAccount}</cac:PaymentMeans>`))).toContain('BR-DE-24-b/fatal');
    expect(fired(edit(debit, '</cac:PaymentMeans>', `${cardAccount}</cac:PaymentMeans>`))).toContain('BR-DE-25-b/fatal');
  });

  it('CII: silent on a plain credit transfer and card payment; each fires with a debited account added', () => {
    const transfer = base('cii/cii-br-de-23-test-bg-17.xml');
    const card = base('cii/cii-br-de-24-test-bg-18.xml');
    expect(fired(transfer)).not.toContain('BR-DE-23-b/fatal');
    expect(fired(card)).not.toContain('BR-DE-24-b/fatal');
    const debited = '<ram:PayerPartyDebtorFinancialAccount><ram:IBANID>DE79000000001234567890</ram:IBANID></ram:PayerPartyDebtorFinancialAccount>';
    const addDebited = (xml: string): string => edit(xml, '</ram:SpecifiedTradeSettlementPaymentMeans>', `${debited}</ram:SpecifiedTradeSettlementPaymentMeans>`);
    expect(fired(addDebited(transfer))).toContain('BR-DE-23-b/fatal');
    expect(fired(addDebited(card))).toContain('BR-DE-24-b/fatal');
  });
});

describe('BR-TMP-CVD-01: the item classification scheme (BT-158) of a CVD invoice is from UNTDID 7143', () => {
  it('UBL and CII: silent on CVD and IB, fires on an unknown scheme', () => {
    const ubl = base('ubl-inv/ubl-inv-br-de-cvd-03-04-05-06-test.xml');
    const cii = base('cii/cii-br-de-cvd-03-04-05-06-test.xml');
    expect(fired(ubl)).not.toContain('BR-TMP-CVD-01/fatal');
    expect(fired(cii)).not.toContain('BR-TMP-CVD-01/fatal');
    expect(fired(edit(ubl, 'listID="IB" listVersionID="88">4839-2', 'listID="QQ" listVersionID="88">4839-2'))).toContain('BR-TMP-CVD-01/fatal');
    expect(fired(edit(cii, 'listID="IB" listVersionID="88">0721-880XYZ', 'listID="QQ" listVersionID="88">0721-880XYZ'))).toContain('BR-TMP-CVD-01/fatal');
  });
});

describe('selection by the specification identifier', () => {
  const cii = base('cii/cii-br-de-1-test.xml');
  it.each([
    ['the CIUS', XR_CIUS, true],
    ['the extension', XR_EXTENSION, true],
    ['XRechnung CVD', `${XR_CIUS}#compliant#urn:xeinkauf.de:kosit:xrechnung:cvd_0.9`, true],
    ['Peppol BIS', PEPPOL, false],
    ['XRechnung 2.3 (a former release, other rules)', 'urn:cen.eu:en16931:2017#compliant#urn:xoev-de:kosit:standard:xrechnung_2.3', false],
  ])('%s: xrechnung pack selected = %s', (_label, id, selected) => {
    const doc = cii.replace(`<ram:ID>${XR_CIUS}</ram:ID>`, `<ram:ID>${id}</ram:ID>`);
    expect(doc).toContain(`<ram:ID>${id}</ram:ID>`);
    const r = validate(doc, { skipXsd: true });
    expect(r.packs.includes('xrechnung@3.0.2')).toBe(selected);
  });
});
