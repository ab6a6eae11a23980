import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validate, InvalidXmlInputError, getRegistry } from '../../../../services/validation/engine/index.ts';
import { validateXsd } from '../../../../services/validation/engine/xsd.ts';
import { parseInput } from '../../../../services/validation/engine/xml-input.ts';
import { corpusDir } from '../../../support/corpus.ts';

const CORPUS = corpusDir();
const read = (p: string): Buffer => readFileSync(join(CORPUS, p));

function invalidInput(fn: () => unknown): InvalidXmlInputError {
  try { fn(); } catch (e) {
    if (e instanceof InvalidXmlInputError) return e;
    throw e;
  }
  throw new Error('expected InvalidXmlInputError');
}

describe('validation engine: hardened XML intake', () => {
  it('refuses a billion-laughs document with INVALID_REQUEST and details', () => {
    const bomb = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">&lol3;</Invoice>`;
    const e = invalidInput(() => validate(bomb));
    expect(e.code).toBe('INVALID_REQUEST');
    expect(e.details[0]).toMatchObject({ field: 'body', rule: 'no-doctype' });
    expect(e.message).toMatch(/DOCTYPE/);
  });

  it('refuses an XXE document (external entity to a local file) before any parser resolves it', () => {
    const xxe = `<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">&xxe;</Invoice>`;
    const e = invalidInput(() => validate(Buffer.from(xxe)));
    expect(e.code).toBe('INVALID_REQUEST');
    expect(JSON.stringify(e.details)).not.toContain('root:');
  });

  it('refuses non-well-formed XML and unknown roots with a clear message', () => {
    expect(invalidInput(() => validate('<Invoice><a></Invoice>')).details[0]!.rule).toBe('well-formed');
    const e = invalidInput(() => validate('<foo xmlns="urn:x"/>'));
    expect(e.details[0]!.rule).toBe('root-element');
    expect(e.message).toContain('{urn:x}foo');
  });
});

describe('validation engine: XSD', () => {
  it('accepts the official UBL, CII, CDAR and FatturaPA examples', () => {
    for (const f of [
      'eInvoicing-EN16931/ubl/examples/ubl-tc434-example1.xml',
      'eInvoicing-EN16931/ubl/examples/ubl-tc434-creditnote1.xml',
      'eInvoicing-EN16931/cii/examples/CII_example1.xml',
      'gobl.cii/test/data/parse/UC1_F202500003_01-CDV-200_Deposee.xml',
      'ph-fatturapa/docs/1.2.2/examples/IT01234567890_FPA01.xml',
      'ph-fatturapa/docs/1.2.2/examples/IT01234567890_FPR01.xml',
    ]) {
      const p = parseInput(read(f));
      expect({ f, errors: validateXsd(p.text, p.syntax) }).toEqual({ f, errors: [] });
    }
  });

  it('FatturaPA: all six official examples validate, except docs/ FPR02 whose <ContattiTrasmittente/> is out of sequence (ph-fatturapa removes it in its "good" copy)', () => {
    for (const n of ['FPA01', 'FPA02', 'FPA03', 'FPR01', 'FPR03']) {
      const p = parseInput(read(`ph-fatturapa/docs/1.2.2/examples/IT01234567890_${n}.xml`));
      expect({ n, errors: validateXsd(p.text, p.syntax) }).toEqual({ n, errors: [] });
    }
    for (const n of ['FPA01', 'FPA02', 'FPA03', 'FPR01', 'FPR02', 'FPR03']) {
      const p = parseInput(read(`ph-fatturapa/src/test/resources/external/examples/122/good/IT01234567890_${n}.xml`));
      expect({ n, errors: validateXsd(p.text, p.syntax) }).toEqual({ n, errors: [] });
    }
    const fpr02 = parseInput(read('ph-fatturapa/docs/1.2.2/examples/IT01234567890_FPR02.xml'));
    const errors = validateXsd(fpr02.text, fpr02.syntax);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain("'ContattiTrasmittente': This element is not expected");
  });

  it('rejects the bad FatturaPA file and an out-of-order UBL document', () => {
    const bad = parseInput(read('ph-fatturapa/src/test/resources/external/examples/122/bad/IT01234567890_FPA01.xml'));
    expect(validateXsd(bad.text, bad.syntax).length).toBeGreaterThan(0);
    const r = validate(`<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
      xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"><cbc:ID>1</cbc:ID><cbc:CustomizationID>urn:cen.eu:en16931:2017</cbc:CustomizationID></Invoice>`);
    expect(r.valid).toBe(false);
    const xsd = r.findings.filter((f) => f.rule === 'XSD');
    expect(xsd.length).toBeGreaterThan(0);
    expect(xsd[0]).toMatchObject({ severity: 'fatal', source: 'xsd:ubl-2.1' });
  });

  it('validates a pain.001.001.09 message against the ISO schema', () => {
    const ok = `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"><CstmrCdtTrfInitn><GrpHdr><MsgId>M1</MsgId>
      <CreDtTm>2026-11-22T10:00:00</CreDtTm><NbOfTxs>1</NbOfTxs><InitgPty><Nm>ACME</Nm></InitgPty></GrpHdr>
      <PmtInf><PmtInfId>P1</PmtInfId><PmtMtd>TRF</PmtMtd><ReqdExctnDt><Dt>2026-11-23</Dt></ReqdExctnDt><Dbtr><Nm>ACME</Nm></Dbtr>
      <DbtrAcct><Id><IBAN>FR7630006000011234567890189</IBAN></Id></DbtrAcct><DbtrAgt><FinInstnId><BICFI>AGRIFRPP</BICFI></FinInstnId></DbtrAgt>
      <CdtTrfTxInf><PmtId><EndToEndId>E1</EndToEndId></PmtId><Amt><InstdAmt Ccy="EUR">10.00</InstdAmt></Amt>
      <Cdtr><Nm>Bob</Nm></Cdtr><CdtrAcct><Id><IBAN>DE89370400440532013000</IBAN></Id></CdtrAcct></CdtTrfTxInf></PmtInf></CstmrCdtTrfInitn></Document>`;
    const r = validate(ok);
    expect(r.syntax).toBe('pain.001');
    expect(r.findings).toEqual([]);
    const bad = validate(ok.replace('<NbOfTxs>1</NbOfTxs>', ''));
    expect(bad.valid).toBe(false);
  });
});

describe('validation engine: packs and result shape', () => {
  it('selects EN 16931 always, Peppol BIS by CustomizationID, and reports profile and findings', () => {
    const cen = validate(read('eInvoicing-EN16931/ubl/examples/ubl-tc434-example1.xml'));
    expect(cen).toMatchObject({ valid: true, profile: 'en16931', syntax: 'ubl-invoice' });
    expect(cen.packs).toEqual(['en16931@1.3.16']);
    const peppol = validate(read('peppol-bis-invoice-3/rules/examples/base-example.xml'));
    expect(peppol.profile).toBe('peppol-bis-billing-3.0');
    expect(peppol.packs[0]).toBe('en16931@1.3.16');
    if (getRegistry().has('peppol-bis', 'ubl')) expect(peppol.packs).toContain(`peppol-bis@${getRegistry().available('ubl').find((f) => f.pack === 'peppol-bis')!.version}`);
  });

  it('turns a broken invoice into findings with rule, severity, location, bt, message and hint', () => {
    const xml = read('eInvoicing-EN16931/ubl/examples/ubl-tc434-example1.xml').toString('utf8')
      .replace(/<cbc:CustomizationID>[^<]*<\/cbc:CustomizationID>/, '');
    const r = validate(xml, { skipXsd: true });
    expect(r.valid).toBe(false);
    const br01 = r.findings.find((f) => f.rule === 'BR-01');
    expect(br01).toMatchObject({ severity: 'fatal', location: '/ubl:Invoice[1]', bt: ['BT-24'], source: 'en16931@1.3.16' });
    expect(br01!.message.length).toBeGreaterThan(10);
    expect(br01!.hint.length).toBeGreaterThan(10);
  });
});
