/**
 * The Peppol envelope (SBDH, Business Message Envelope 2.0) against the conformance corpus:
 * peppol-commons' good and bad envelopes (each bad one rejected with the class its name names;
 * the MLS_TO ones accepted with a warning, as peppol-commons ≥ 12.3.9 does), phase4's base
 * envelope field by field, our builder read back by our reader, the header a BIS Billing invoice
 * and credit note imply, and hostile XML.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  SBDH_NS, SbdhError, buildSbd, isDateTimeWithTimezone, readSbd, sameParticipant, sbdhFor,
} from '../../../mappings/peppol/sbdh.ts';
import type { SbdhErrorCode, SbdhHeader } from '../../../mappings/peppol/sbdh.ts';
import { BILLING_DOCUMENT_TYPES, BILLING_PROCESS } from '../../../mappings/identifiers/peppol-network.ts';
import { parseXmlHardened } from '../../../mappings/xml/parse.ts';
import { CORPUS_DIR, corpusAvailable, CORPUS_MISSING } from '../../support/corpus.ts';

if (!corpusAvailable()) throw new Error(CORPUS_MISSING);
const SBDH_DIR = join(CORPUS_DIR, 'peppol-transport/peppol-commons/sbdh');
const BASE_SBDH = join(CORPUS_DIR, 'peppol-transport/phase4/sbdh/base-sbdh.xml');
const BIS_EXAMPLES = join(CORPUS_DIR, 'peppol-bis-invoice-3/rules/examples');
const good = (name: string) => readFileSync(join(SBDH_DIR, 'good', name), 'utf8');
const invoiceXml = readFileSync(join(BIS_EXAMPLES, 'base-example.xml'), 'utf8');
const creditNoteXml = readFileSync(join(BIS_EXAMPLES, 'base-creditnote-correction.xml'), 'utf8');
const BIS3_CUSTOMIZATION = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0';

/** The SbdhError a call throws (fails the test when it throws nothing or something else). */
function sbdhErrorOf(fn: () => unknown): SbdhError {
  try {
    fn();
  } catch (err) {
    if (err instanceof SbdhError) return err;
    throw err;
  }
  throw new Error('expected an SbdhError');
}

describe('readSbd on the good envelopes', () => {
  const goodFiles = readdirSync(join(SBDH_DIR, 'good')).sort();

  it('finds the 14 corpus files', () => {
    expect(goodFiles).toHaveLength(14);
  });

  it.each(goodFiles)('%s is accepted', (name) => {
    const { header, document, warnings } = readSbd(readFileSync(join(SBDH_DIR, 'good', name)));
    expect(warnings).toEqual([]);
    expect(header.sender.scheme).toBe('iso6523-actorid-upis');
    expect(header.countryC1).toBe('AT');
    // The business document stands alone: it parses without the envelope, with its root where the header says.
    const root = parseXmlHardened(document).root()!;
    if (root.namespace()!.href() === 'http://peppol.eu/xsd/ticc/envelope/1.0') return; // a wrapped non-XML payload
    expect(root.name()).toBe(header.type);
    expect(root.namespace()!.href()).toBe(header.standard);
  });

  it('reads phase4 base-sbdh.xml field by field', () => {
    const { header, document, warnings } = readSbd(readFileSync(BASE_SBDH, 'utf8'));
    expect(warnings).toEqual([]);
    expect(header).toEqual({
      sender: { scheme: 'iso6523-actorid-upis', value: '9915:phase4-test-sender' },
      receiver: { scheme: 'iso6523-actorid-upis', value: '9915:helger' },
      documentType: { scheme: 'busdox-docid-qns', value: BILLING_DOCUMENT_TYPES.invoice },
      process: { scheme: 'cenbii-procid-ubl', value: 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0' },
      countryC1: 'GB',
      standard: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
      typeVersion: '2.1',
      type: 'Invoice',
      instanceIdentifier: '123456789',
      creationDateAndTime: '2023-10-25T15:42:10Z',
    } satisfies SbdhHeader);
    expect(document.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<Invoice ')).toBe(true);
  });

  it('reads MLS_TO, MLS_TYPE and the scope schemes when present', () => {
    const { header } = readSbd(good('good-bis3-full.xml'));
    expect(header.mlsTo).toEqual({ scheme: 'iso6523-actorid-upis', value: '9915:test' });
    expect(header.mlsType).toBe('ALWAYS_SEND');
    expect(readSbd(good('good-v11.xml')).header.process).toEqual({ scheme: 'ptype', value: 'urn:www.cenbii.eu:profile:bii04:ver1.0' });
    // Absent MLS_TYPE stays absent (FAILURE_ONLY is the reader's default to apply, not ours to write).
    expect(readSbd(good('good.xml')).header.mlsType).toBeUndefined();
  });

  it('declares on the business document the namespaces it inherited from the envelope', () => {
    // …but not the envelope's own, which nothing in it uses.
    expect(readSbd(good('good-bis3.xml')).document).not.toContain(SBDH_NS);
    const inEnvelopeNs = good('good-bis3.xml').replace('<!-- etc. -->', '<Note/>');
    const note = parseXmlHardened(readSbd(inEnvelopeNs).document).root()!.childNodes().find((n) => n.type() === 'element')!;
    expect(note.namespace()!.href()).toBe(SBDH_NS);

    // good-bis3.xml declares ubl:, cbc:, cac: only on the StandardBusinessDocument.
    const { document } = readSbd(good('good-bis3.xml'));
    const doc = parseXmlHardened(document);
    expect(doc.errors).toEqual([]);
    const root = doc.root()!;
    expect(root.namespace()!.href()).toBe('urn:oasis:names:specification:ubl:schema:xsd:Invoice-2');
    const declared = Object.fromEntries(root.namespaces(true).map((ns) => [ns.prefix() ?? '', ns.href()]));
    expect(declared).toMatchObject({
      ubl: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
      cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
      cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
    });
  });

  it('reads a BinaryContent payload without holding it to the XML rules', () => {
    const { header, document } = readSbd(good('good-hybrid-invoice.xml'));
    expect(header.standard).toBe('urn:peppol:doctype:pdf+xml');
    expect(header.typeVersion).toBe('0');
    expect(parseXmlHardened(document).root()!.attr('mimeType')!.value()).toBe('application/pdf');
  });
});

describe('readSbd on the bad envelopes', () => {
  /** File → the class it names (peppol-commons EPeppolSBDHDataError, one code each here). */
  const REJECTED: Record<string, SbdhErrorCode> = {
    'bad-no-xml.txt': 'NOT_XML',
    'bad-no-sbdh.xml': 'MISSING_SBDH',
    'bad-invalid-header-version.xml': 'INVALID_HEADER_VERSION',
    'bad-too-few-senders.xml': 'INVALID_SENDER_COUNT',
    'bad-too-many-senders.xml': 'INVALID_SENDER_COUNT',
    'bad-invalid-sender-authority.xml': 'INVALID_SENDER_AUTHORITY',
    'bad-invalid-sender-value.xml': 'INVALID_SENDER_VALUE',
    'bad-too-few-receivers.xml': 'INVALID_RECEIVER_COUNT',
    'bad-too-many-receivers.xml': 'INVALID_RECEIVER_COUNT',
    'bad-invalid-receiver-authority.xml': 'INVALID_RECEIVER_AUTHORITY',
    'bad-invalid-receiver-value.xml': 'INVALID_RECEIVER_VALUE',
    'bad-no-business-scope.xml': 'MISSING_BUSINESS_SCOPE',
    'bad-too-few-scopes.xml': 'INVALID_SCOPE_COUNT',
    'bad-no-document-type-identifier.xml': 'MISSING_DOCUMENT_TYPE',
    'bad-invalid-document-type-identifier.xml': 'INVALID_DOCUMENT_TYPE',
    'bad-no-process-identifier.xml': 'MISSING_PROCESS',
    'bad-invalid-process-identifier.xml': 'INVALID_PROCESS',
    'bad-no-country-c1.xml': 'MISSING_COUNTRY_C1',
    'bad-mls-type-empty.xml': 'INVALID_MLS_TYPE',
    'bad-mls-type-invalid-value.xml': 'INVALID_MLS_TYPE',
    'bad-no-business-message.xml': 'INVALID_BUSINESS_MESSAGE',
    'bad-invalid-business-message.xml': 'INVALID_BUSINESS_MESSAGE',
    'bad-invalid-standard.xml': 'INVALID_STANDARD',
    'bad-invalid-type-version.xml': 'INVALID_TYPE_VERSION',
    'bad-invalid-type.xml': 'INVALID_TYPE',
    'bad-invalid-instance-identifier.xml': 'INVALID_INSTANCE_IDENTIFIER',
    'bad-invalid-creation-date-and-time.xml': 'INVALID_CREATION_DATE_TIME',
  };
  /**
   * An unusable MLS_TO does not cost the invoice: the MLS specification sends the MLS to C2's SPID
   * when MLS_TO is "not present or invalid". Accepted, warned, left out of the header.
   */
  const WARNED = ['bad-mls-to-empty.xml', 'bad-mls-to-invalid-value.xml', 'bad-mls-to-no-scheme.xml', 'bad-mls-to-no-value.xml'];

  it('has a verdict for every corpus file', () => {
    expect(readdirSync(join(SBDH_DIR, 'bad')).sort()).toEqual([...Object.keys(REJECTED), ...WARNED].sort());
  });

  it.each(Object.entries(REJECTED))('%s → %s', (name, code) => {
    const err = sbdhErrorOf(() => readSbd(readFileSync(join(SBDH_DIR, 'bad', name))));
    expect(err.code).toBe(code);
    expect(err.message).not.toBe('');
  });

  it.each(WARNED)('%s is accepted with an INVALID_MLS_TO warning and no mlsTo', (name) => {
    const { header, warnings } = readSbd(readFileSync(join(SBDH_DIR, 'bad', name)));
    expect(header.mlsTo).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^INVALID_MLS_TO: /);
  });
});

describe('readSbd rules beyond the corpus', () => {
  const base = good('good-bis3.xml');
  const codeOf = (xml: string) => sbdhErrorOf(() => readSbd(xml)).code;

  it('wants COUNTRY_C1 as two upper-case letters, once', () => {
    expect(codeOf(base.replace('<InstanceIdentifier>AT<', '<InstanceIdentifier>at<'))).toBe('INVALID_COUNTRY_C1');
    expect(codeOf(base.replace('<InstanceIdentifier>AT<', '<InstanceIdentifier>AUT<'))).toBe('INVALID_COUNTRY_C1');
    const twice = base.replace('</BusinessScope>', '<Scope><Type>COUNTRY_C1</Type><InstanceIdentifier>DE</InstanceIdentifier></Scope></BusinessScope>');
    expect(codeOf(twice)).toBe('INVALID_COUNTRY_C1');
  });

  it('wants DOCUMENTID once, naming the payload root', () => {
    const scope = `<Scope><Type>DOCUMENTID</Type><InstanceIdentifier>${BILLING_DOCUMENT_TYPES.invoice}</InstanceIdentifier></Scope>`;
    expect(codeOf(base.replace('<BusinessScope>', `<BusinessScope>${scope}`))).toBe('INVALID_DOCUMENT_TYPE');
    // Standard, Type and TypeVersion agree with an Invoice; the DOCUMENTID names a CreditNote.
    const creditNoteId = BILLING_DOCUMENT_TYPES['credit-note'];
    expect(codeOf(base.replace(BILLING_DOCUMENT_TYPES.invoice, creditNoteId))).toBe('INVALID_DOCUMENT_TYPE');
  });

  it('wants a CreationDateAndTime with a timezone', () => {
    expect(codeOf(base.replace('2019-04-25T15:46:10Z', '2019-04-25T15:46:10'))).toBe('INVALID_CREATION_DATE_TIME');
    expect(codeOf(base.replace('2019-04-25T15:46:10Z', '2019-02-29T15:46:10Z'))).toBe('INVALID_CREATION_DATE_TIME');
    expect(readSbd(base.replace('2019-04-25T15:46:10Z', '2019-04-25T15:46:10.123-05:30')).header.creationDateAndTime).toBe('2019-04-25T15:46:10.123-05:30');
  });

  it('wants participant identifiers with a 4-digit ICD and at most 135 characters', () => {
    expect(codeOf(base.replace('>0088:7315458756324<', '>88:7315458756324<'))).toBe('INVALID_SENDER_VALUE');
    expect(codeOf(base.replace('>0088:4562458856624<', `>0088:${'x'.repeat(131)}<`))).toBe('INVALID_RECEIVER_VALUE');
    expect(readSbd(base.replace('>0088:4562458856624<', `>0088:${'x'.repeat(130)}<`)).header.receiver.value).toHaveLength(135);
  });

  it('wants the header first and exactly one business message', () => {
    expect(codeOf(`<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>`)).toBe('MISSING_SBDH');
    const second = base.replace('</StandardBusinessDocument>', '<ubl:Invoice/></StandardBusinessDocument>');
    expect(codeOf(second)).toBe('INVALID_BUSINESS_MESSAGE');
  });

  it('keeps MLS_TO a warning when the value is well-formed but the scheme is not a participant scheme', () => {
    const mls = base.replace('</BusinessScope>', '<Scope><Type>MLS_TO</Type><InstanceIdentifier>0242:000306</InstanceIdentifier><Identifier>busdox-docid-qns</Identifier></Scope></BusinessScope>');
    expect(readSbd(mls).warnings).toEqual([expect.stringMatching(/^INVALID_MLS_TO: MLS_TO scheme "busdox-docid-qns"/)]);
  });
});

describe('buildSbd', () => {
  const { header: baseHeader } = readSbd(readFileSync(BASE_SBDH, 'utf8'));

  it('wraps a document so that readSbd gives back the same header and document', () => {
    const header: SbdhHeader = {
      ...baseHeader,
      instanceIdentifier: 'a&b<c>"d\'e',
      mlsTo: { scheme: 'iso6523-actorid-upis', value: '0242:000306' },
      mlsType: 'ALWAYS_SEND',
    };
    const sbd = buildSbd(header, invoiceXml);
    // The caller's text goes in as written (it is the legal record); the envelope escapes its values.
    expect(sbd).toContain(invoiceXml.replace(/^<\?xml[^>]*\?>/, '').trim());
    expect(sbd).toContain('a&amp;b&lt;c&gt;');
    const read = readSbd(sbd);
    expect(read.header).toEqual(header);
    expect(read.warnings).toEqual([]);
    const root = parseXmlHardened(read.document).root()!;
    expect(root.name()).toBe('Invoice');
    expect(root.namespaces(true).map((ns) => ns.href())).not.toContain(SBDH_NS);
  });

  it('round-trips every good corpus envelope through its own header', () => {
    for (const name of readdirSync(join(SBDH_DIR, 'good'))) {
      const first = readSbd(good(name));
      const again = readSbd(buildSbd(first.header, first.document));
      expect(again.header).toEqual(first.header);
    }
  });

  it('leaves unprefixed elements of a document without default namespace where they were', () => {
    const doc = '<u:Invoice xmlns:u="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><Note>n</Note></u:Invoice>';
    const read = readSbd(buildSbd(baseHeader, doc));
    const note = parseXmlHardened(read.document).root()!.childNodes()[0]!;
    expect(note.namespace()).toBeNull();
  });

  it.each<[string, Partial<SbdhHeader>, SbdhErrorCode]>([
    ['a sender without ICD', { sender: { scheme: 'iso6523-actorid-upis', value: 'test' } }, 'INVALID_SENDER_VALUE'],
    ['a receiver under another scheme', { receiver: { scheme: 'GLN', value: '0088:1' } }, 'INVALID_RECEIVER_AUTHORITY'],
    ['a lower-case country', { countryC1: 'be' }, 'INVALID_COUNTRY_C1'],
    ['an unusable MLS_TO', { mlsTo: { scheme: 'iso6523-actorid-upis', value: 'test' } }, 'INVALID_MLS_TO'],
    ['an unknown MLS_TYPE', { mlsType: 'SOMETIMES' as 'ALWAYS_SEND' }, 'INVALID_MLS_TYPE'],
    ['another root', { type: 'CreditNote' }, 'INVALID_TYPE'],
    ['another namespace', { standard: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2' }, 'INVALID_STANDARD'],
    ['another syntax version', { typeVersion: '2.2' }, 'INVALID_TYPE_VERSION'],
    ['an empty instance identifier', { instanceIdentifier: '' }, 'INVALID_INSTANCE_IDENTIFIER'],
    ['a local time', { creationDateAndTime: '2024-01-01T10:00:00' }, 'INVALID_CREATION_DATE_TIME'],
  ])('refuses %s', (_what, change, code) => {
    expect(sbdhErrorOf(() => buildSbd({ ...baseHeader, ...change }, invoiceXml)).code).toBe(code);
  });

  it('refuses a document that is not one plain XML element', () => {
    expect(sbdhErrorOf(() => buildSbd(baseHeader, 'not xml')).code).toBe('INVALID_BUSINESS_MESSAGE');
    expect(sbdhErrorOf(() => buildSbd(baseHeader, `<!DOCTYPE Invoice [<!ENTITY x "y">]>${invoiceXml.replace(/^<\?xml[^>]*\?>/, '')}`)).code).toBe('INVALID_BUSINESS_MESSAGE');
    expect(sbdhErrorOf(() => buildSbd(baseHeader, '<Invoice/>')).code).toBe('INVALID_BUSINESS_MESSAGE');
  });
});

describe('sbdhFor', () => {
  const now = new Date('2026-03-01T12:34:56.789Z');
  const common = { sender: '9915:phase4-test-sender', receiver: 'iso6523-actorid-upis::0088:4562458856624', processId: BILLING_PROCESS.value, countryC1: 'BE', now };

  it('derives the header of a BIS Billing 3.0 invoice', () => {
    const header = sbdhFor({ ...common, documentXml: invoiceXml, documentTypeId: BILLING_DOCUMENT_TYPES.invoice, instanceIdentifier: 'inv-1' });
    expect(header).toEqual({
      sender: { scheme: 'iso6523-actorid-upis', value: '9915:phase4-test-sender' },
      receiver: { scheme: 'iso6523-actorid-upis', value: '0088:4562458856624' },
      documentType: { scheme: 'busdox-docid-qns', value: BILLING_DOCUMENT_TYPES.invoice },
      process: { scheme: 'cenbii-procid-ubl', value: 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0' },
      countryC1: 'BE',
      standard: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
      typeVersion: '2.1',
      type: 'Invoice',
      instanceIdentifier: 'inv-1',
      creationDateAndTime: '2026-03-01T12:34:56Z',
    } satisfies SbdhHeader);
    expect(readSbd(buildSbd(header, invoiceXml)).header).toEqual(header);
  });

  it('derives the header of a BIS Billing 3.0 credit note, with a fresh UUID', () => {
    const header = sbdhFor({ ...common, documentXml: creditNoteXml, documentTypeId: `busdox-docid-qns::${BILLING_DOCUMENT_TYPES['credit-note']}` });
    expect(header.documentType).toEqual({ scheme: 'busdox-docid-qns', value: BILLING_DOCUMENT_TYPES['credit-note'] });
    expect(header.standard).toBe('urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2');
    expect(header.type).toBe('CreditNote');
    expect(header.typeVersion).toBe('2.1');
    expect(header.instanceIdentifier).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const other = sbdhFor({ ...common, documentXml: creditNoteXml, documentTypeId: BILLING_DOCUMENT_TYPES['credit-note'] });
    expect(other.instanceIdentifier).not.toBe(header.instanceIdentifier);
    expect(readSbd(buildSbd(header, creditNoteXml)).header).toEqual(header);
  });

  it('refuses a document type that does not describe the document', () => {
    const forCreditNote = { ...common, documentXml: invoiceXml, documentTypeId: BILLING_DOCUMENT_TYPES['credit-note'] };
    expect(sbdhErrorOf(() => sbdhFor(forCreditNote)).code).toBe('INVALID_DOCUMENT_TYPE');
    const xrechnung = BILLING_DOCUMENT_TYPES.invoice.replace(BIS3_CUSTOMIZATION, 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0');
    expect(sbdhErrorOf(() => sbdhFor({ ...common, documentXml: invoiceXml, documentTypeId: xrechnung })).code).toBe('INVALID_DOCUMENT_TYPE');
  });

  it('refuses what the envelope could not carry', () => {
    const base = { ...common, documentXml: invoiceXml, documentTypeId: BILLING_DOCUMENT_TYPES.invoice };
    expect(sbdhErrorOf(() => sbdhFor({ ...base, countryC1: 'Belgium' })).code).toBe('INVALID_COUNTRY_C1');
    expect(sbdhErrorOf(() => sbdhFor({ ...base, sender: 'BE0123456789' })).code).toBe('INVALID_SENDER_VALUE');
    expect(sbdhErrorOf(() => sbdhFor({ ...base, now: new Date(Number.NaN) })).code).toBe('INVALID_CREATION_DATE_TIME');
  });
});

describe('hostile input', () => {
  const base = good('good-bis3.xml');

  it('refuses a DOCTYPE with entities without expanding them', () => {
    const laughs = '<?xml version="1.0"?><!DOCTYPE StandardBusinessDocument [<!ENTITY a "EXPANDED"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>';
    const xml = base.replace(/^<\?xml[^>]*\?>/, laughs).replace('<InstanceIdentifier>3739db04', '<InstanceIdentifier>&b;3739db04');
    const err = sbdhErrorOf(() => readSbd(xml));
    expect(err.code).toBe('NOT_XML');
    expect(err.message).not.toContain('EXPANDED');
  });

  it('refuses an external DTD', () => {
    const xml = base.replace(/^<\?xml[^>]*\?>/, '<?xml version="1.0"?><!DOCTYPE x SYSTEM "http://127.0.0.1:9/x.dtd">');
    expect(sbdhErrorOf(() => readSbd(xml)).code).toBe('NOT_XML');
  });

  it('refuses a NUL character, in text or bytes, even after a complete document', () => {
    expect(sbdhErrorOf(() => readSbd(`${base}\u0000<junk`)).code).toBe('NOT_XML');
    expect(sbdhErrorOf(() => readSbd(base.replace('0088:7315458756324', '0088:73\u000015458756324'))).code).toBe('NOT_XML');
    expect(sbdhErrorOf(() => readSbd(Buffer.from(base.replace('0088:7315458756324', '0088:73\u000015458756324')))).code).toBe('NOT_XML');
  });

  it('refuses empty input and undeclared prefixes', () => {
    expect(sbdhErrorOf(() => readSbd('')).code).toBe('NOT_XML');
    expect(sbdhErrorOf(() => readSbd(base.replace('<ubl:Invoice>', '<nope:Invoice>').replace('</ubl:Invoice>', '</nope:Invoice>'))).code).toBe('NOT_XML');
  });
});

describe('helpers', () => {
  it('compares participant identifiers case-insensitively', () => {
    expect(sameParticipant({ scheme: 'iso6523-actorid-upis', value: '9915:Test' }, { scheme: 'ISO6523-ACTORID-UPIS', value: '9915:test' })).toBe(true);
    expect(sameParticipant({ scheme: 'iso6523-actorid-upis', value: '9915:test' }, { scheme: 'iso6523-actorid-upis', value: '9915:test2' })).toBe(false);
  });

  it.each([
    ['2013-02-19T05:10:10Z', true], ['2013-02-19T05:10:10+01:00', true], ['2019-10-18T01:53:29.385+02:00', true],
    ['2024-02-29T00:00:00Z', true], ['2013-02-19T24:00:00Z', true], ['2013-02-19T05:10:10', false], ['2013-02-19', false],
    ['2013-13-19T05:10:10Z', false], ['2013-02-19T05:60:10Z', false], ['2013-02-19T05:10:10+15:00', false], ['', false],
  ])('isDateTimeWithTimezone(%j) is %s', (value, expected) => {
    expect(isDateTimeWithTimezone(value)).toBe(expected);
  });
});
