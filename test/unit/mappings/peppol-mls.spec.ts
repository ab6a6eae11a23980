/**
 * The Peppol MLS mapping (mappings/peppol/mls.ts): what buildMls writes meets the MLS rules (pack
 * peppol-mls, through validateMls) and reads back field by field; readMls on peppol-commons'
 * published examples; input the builder refuses (each naming the rule it would break); hostile
 * XML the reader refuses; an MLS travels in a Peppol envelope under its document type and process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  MLS_CUSTOMIZATION_ID, MLS_DOCUMENT_TYPE, MLS_DOCUMENT_TYPE_ID, MLS_PROCESS, MLS_PROCESS_ID, MLS_PROFILE_ID, SPIS_SCHEME,
  buildMls, readMls, type MlsInput,
} from '../../../mappings/peppol/mls.ts';
import { buildSbd, readSbd } from '../../../mappings/peppol/sbdh.ts';
import { MappingError } from '../../../mappings/errors.ts';
import { validateMls } from '../../../services/validation/engine/mls.ts';
import { corpusPath } from '../../support/corpus.ts';

const MLS_GOOD = corpusPath('peppol-transport', 'peppol-commons', 'mls', 'good');
const example = (name: string): string => readFileSync(join(MLS_GOOD, name), 'utf8');

const INSTANCE = '90f14eff-3705-4869-ad3c-caae270a234e';
const base: MlsInput = {
  responseCode: 'AP',
  id: 'mls-0001',
  issueDate: '2026-11-20',
  issueTime: '09:30:15+01:00',
  senderSpid: '0242:000306',
  receiverSpid: '0242:123456',
  referencedMessage: { instanceIdentifier: INSTANCE },
};

/** The MappingError a call throws (fails the test when it throws nothing or something else). */
function errorOf(fn: () => unknown): MappingError {
  try {
    fn();
  } catch (err) {
    if (err instanceof MappingError) return err;
    throw err;
  }
  throw new Error('expected a MappingError');
}

describe('MLS identifiers', () => {
  it('are the specification\'s', () => {
    expect(MLS_CUSTOMIZATION_ID).toBe('urn:peppol:edec:mls:1.0');
    expect(MLS_PROFILE_ID).toBe('urn:peppol:edec:mls');
    expect(MLS_DOCUMENT_TYPE_ID).toBe('urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2::ApplicationResponse##urn:peppol:edec:mls:1.0::2.1');
    expect(MLS_PROCESS_ID).toBe('urn:peppol:edec:mls');
    expect(MLS_DOCUMENT_TYPE).toEqual({ scheme: 'busdox-docid-qns', value: MLS_DOCUMENT_TYPE_ID });
    expect(MLS_PROCESS).toEqual({ scheme: 'cenbii-procid-ubl', value: MLS_PROCESS_ID });
    expect(SPIS_SCHEME).toBe('0242');
  });
});

describe('buildMls → validateMls → readMls', () => {
  it('AP: clean, and reads back field by field', () => {
    const xml = buildMls(base);
    expect(validateMls(xml)).toEqual([]);
    expect(readMls(xml)).toEqual({
      responseCode: 'AP', id: 'mls-0001', issueDate: '2026-11-20', issueTime: '09:30:15+01:00',
      senderSpid: '0242:000306', receiverSpid: '0242:123456', referencedInstanceIdentifier: INSTANCE, lines: [],
    });
  });

  it('is laid out as the published examples: identifiers, SPIDs as scheme 0242 and the seat digits', () => {
    const xml = buildMls(base);
    expect(xml).toContain('<ApplicationResponse xmlns="urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2"');
    expect(xml).toContain('<cbc:CustomizationID>urn:peppol:edec:mls:1.0</cbc:CustomizationID><cbc:ProfileID>urn:peppol:edec:mls</cbc:ProfileID>');
    expect(xml).toContain('<cac:SenderParty><cbc:EndpointID schemeID="0242">000306</cbc:EndpointID></cac:SenderParty>');
    expect(xml).toContain('<cac:ReceiverParty><cbc:EndpointID schemeID="0242">123456</cbc:EndpointID></cac:ReceiverParty>');
    expect(xml).toContain(`<cac:DocumentReference><cbc:ID>${INSTANCE}</cbc:ID></cac:DocumentReference>`);
  });

  it('AB with warning lines (BW only): clean, lines read back', () => {
    const input: MlsInput = {
      ...base, responseCode: 'AB',
      lines: [{ reasonCode: 'BW', description: 'PEPPOL-EN16931-R005: VAT accounting currency code should differ', location: '/ubl:Invoice[1]/cbc:TaxCurrencyCode[1]' }],
    };
    const xml = buildMls(input);
    expect(validateMls(xml)).toEqual([]);
    const read = readMls(xml);
    expect(read.responseCode).toBe('AB');
    expect(read.lines).toEqual(input.lines);
    expect(read.description).toBeUndefined();
  });

  it('RE with reason lines: clean, every field and line read back; a missing location is NA, a missing text the reason\'s', () => {
    const input: MlsInput = {
      ...base, responseCode: 'RE', id: 'mls-re-1', description: 'Rejected due to validation errors',
      lines: [
        { reasonCode: 'BV', description: '[BR-CO-10] Sum of line amounts <> line total & more', location: '/ubl:Invoice[1]/cac:LegalMonetaryTotal[1]' },
        { reasonCode: 'SV', description: 'cvc-complex-type.2.4.a: element "cbc:Foo" not expected', location: '/ubl:Invoice[1]/cbc:Foo[1]' },
        { reasonCode: 'BW', description: 'A warning beside the failures' },
        { reasonCode: 'FD' },
      ],
    };
    const xml = buildMls(input);
    expect(validateMls(xml)).toEqual([]);
    expect(readMls(xml)).toEqual({
      responseCode: 'RE', id: 'mls-re-1', issueDate: '2026-11-20', issueTime: '09:30:15+01:00',
      senderSpid: '0242:000306', receiverSpid: '0242:123456', referencedInstanceIdentifier: INSTANCE,
      description: 'Rejected due to validation errors',
      lines: [
        input.lines![0], input.lines![1],
        { reasonCode: 'BW', description: 'A warning beside the failures', location: 'NA' },
        { reasonCode: 'FD', description: 'Failure of delivery to the receiver', location: 'NA' },
      ],
    });
  });

  it('RE without a description gets a summary of its failures (SCH-MLS-20)', () => {
    const xml = buildMls({ ...base, responseCode: 'RE', lines: [{ reasonCode: 'BV' }, { reasonCode: 'SV' }, { reasonCode: 'BV' }, { reasonCode: 'BW' }] });
    expect(validateMls(xml)).toEqual([]);
    expect(readMls(xml).description).toBe('Rejected: 3 failures (BV, SV)');
  });

  it('without issueDate/issueTime: the given clock, in UTC; SPIDs with a name and qualifier', () => {
    const xml = buildMls({
      ...base, issueDate: undefined, issueTime: undefined, now: new Date('2027-03-31T23:59:58.750+02:00'),
      senderSpid: '0242:000306-MLS.backup_1', receiverSpid: '0242:123456-abc',
    } as MlsInput);
    expect(validateMls(xml)).toEqual([]);
    const read = readMls(xml);
    expect([read.issueDate, read.issueTime]).toEqual(['2027-03-31', '21:59:58Z']);
    expect([read.senderSpid, read.receiverSpid]).toEqual(['0242:000306-MLS.backup_1', '0242:123456-abc']);
    const now = readMls(buildMls({ ...base, issueDate: undefined, issueTime: undefined } as MlsInput));
    expect(now.issueDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(now.issueTime).toMatch(/^\d{2}:\d{2}:\d{2}Z$/);
  });

  it('escapes markup in values (the text comes back as given)', () => {
    const tricky = `a <b> & "c" 'd' ]]> é €`;
    const xml = buildMls({ ...base, id: 'id-<&>', responseCode: 'RE', description: tricky, lines: [{ reasonCode: 'BV', description: tricky, location: "/a[@b='&']" }] });
    expect(validateMls(xml)).toEqual([]);
    const read = readMls(xml);
    expect(read.id).toBe('id-<&>');
    expect(read.description).toBe(tricky);
    expect(read.lines).toEqual([{ reasonCode: 'BV', description: tricky, location: "/a[@b='&']" }]);
  });
});

describe('buildMls refuses what would break an MLS rule', () => {
  const cases: [string, Partial<MlsInput> | Record<string, unknown>, string, string][] = [
    ['an unknown response code', { responseCode: 'OK' }, 'responseCode', 'SCH-MLS-19'],
    ['an empty id', { id: '' }, 'id', 'SCH-MLS-03'],
    ['an id with surrounding spaces', { id: ' x ' }, 'id', 'SCH-MLS-03'],
    ['an issue date with a timezone', { issueDate: '2026-11-20Z' }, 'issueDate', 'SCH-MLS-04'],
    ['an impossible issue date', { issueDate: '2026-02-30' }, 'issueDate', 'SCH-MLS-04'],
    ['an issue time without timezone', { issueTime: '09:30:15' }, 'issueTime', 'SCH-MLS-06'],
    ['an issue date without a time', { issueTime: undefined }, 'issueTime', 'MLS'],
    ['a sender that is not a SPID', { senderSpid: '0088:5798000000001' }, 'senderSpid', 'SCH-MLS-09'],
    ['a sender SPID of seven digits', { senderSpid: '0242:1234567' }, 'senderSpid', 'SCH-MLS-09'],
    ['a receiver SPID without the scheme', { receiverSpid: '123456' }, 'receiverSpid', 'SCH-MLS-09'],
    ['an empty referenced instance identifier', { referencedMessage: { instanceIdentifier: '' } }, 'referencedMessage.instanceIdentifier', 'SCH-MLS-26'],
    ['RE without lines', { responseCode: 'RE' }, 'lines', 'SCH-MLS-23'],
    ['RE with warnings only', { responseCode: 'RE', lines: [{ reasonCode: 'BW' }] }, 'lines', 'SCH-MLS-24'],
    ['AP with a failure', { responseCode: 'AP', lines: [{ reasonCode: 'BV' }] }, 'lines', 'SCH-MLS-25'],
    ['AB with a delivery failure', { responseCode: 'AB', lines: [{ reasonCode: 'FD' }] }, 'lines', 'SCH-MLS-25'],
    ['an unknown reason code', { responseCode: 'RE', lines: [{ reasonCode: 'XX' }] }, 'lines[0].reasonCode', 'SCH-MLS-31'],
    ['an empty line description', { responseCode: 'RE', lines: [{ reasonCode: 'BV', description: ' ' }] }, 'lines[0].description', 'SCH-MLS-29'],
    ['an empty line location', { responseCode: 'RE', lines: [{ reasonCode: 'BV', location: '' }] }, 'lines[0].location', 'SCH-MLS-27'],
    ['an empty RE description', { responseCode: 'RE', description: '', lines: [{ reasonCode: 'BV' }] }, 'description', 'SCH-MLS-21'],
    ['a control character in a description', { responseCode: 'RE', description: 'a\u0007b', lines: [{ reasonCode: 'BV' }] }, 'description', 'SCH-MLS-21'],
  ];
  it.each(cases)('%s', (_name, change, field, rule) => {
    const e = errorOf(() => buildMls({ ...base, ...change } as MlsInput));
    expect(e.code).toBe('INVALID_REQUEST');
    expect(e.details[0]).toMatchObject({ field, rule });
  });
});

describe('readMls', () => {
  it('reads the published RE example field by field', () => {
    expect(readMls(example('MessageLevelStatus_Example_RE.xml'))).toEqual({
      responseCode: 'RE', id: 'MLS-ID123', issueDate: '2025-03-11', issueTime: '12:00:00Z',
      senderSpid: '0242:123456', receiverSpid: '0242:234567', referencedInstanceIdentifier: INSTANCE,
      description: 'Rejected due to validation errors',
      lines: [{
        reasonCode: 'BV', location: '/Catalogue/cac:CatalogueLine[3]/cac:Item[1]/cac:ClassifiedTaxCategory[1]/cbc:ID[1]',
        description: 'Validation gives error [CL-T77-R002]- Tax categories MUST be coded using UN/ECE 5305 code list',
      }],
    });
  });

  it.each([
    ['MessageLevelStatus_Example_AP.xml', 'AP', '0242:123456', '0242:234567', 0],
    ['MessageLevelStatus_Example_AB.xml', 'AB', '0242:123456', '0242:234567', 0],
    ['MessageLevelStatus_Example_AB3.xml', 'AB', '0242:123456-MLS.ANYTHING', '0242:234567-mls.P12345.99', 0],
    // one LineResponse with two Responses (two issues at one location): two lines
    ['MessageLevelStatus_Example_RE3.xml', 'RE', '0242:123456', '0242:234567', 2],
    ['MessageLevelStatus_Example_RE4.xml', 'RE', '0242:123456', '0242:234567', 2],
  ] as const)('%s', (file, code, sender, receiver, lines) => {
    const mls = readMls(Buffer.from(example(file)));
    expect([mls.responseCode, mls.senderSpid, mls.receiverSpid, mls.referencedInstanceIdentifier, mls.lines.length])
      .toEqual([code, sender, receiver, INSTANCE, lines]);
  });

  it('reads values trimmed (the rules normalize them too); each Response of a LineResponse is a line at its location', () => {
    const location = '/Catalogue/cac:CatalogueLine[3]/cac:Item[1]/cac:ClassifiedTaxCategory[1]/cbc:ID[1]';
    const mls = readMls(example('MessageLevelStatus_Example_RE3.xml'));
    expect(mls.referencedInstanceIdentifier).toBe(INSTANCE);
    expect(mls.lines).toEqual([
      { reasonCode: 'BV', location, description: 'Validation gives error [CL-T77-R002]- Tax categories MUST be coded using UN/ECE 5305 code list' },
      { reasonCode: 'BW', location, description: 'Something else went wrong - just a warning' },
    ]);
  });

  it('refuses hostile input and what is not an MLS', () => {
    const ap = buildMls(base);
    const body = ap.replace(/^<\?xml[^>]*\?>\n?/, '');
    const hostile: [string, string | Buffer][] = [
      ['external entity (XXE)', `<?xml version="1.0"?>\n<!DOCTYPE ApplicationResponse [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n${body.replace(INSTANCE, '&x;')}`],
      ['entity expansion', `<!DOCTYPE a [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>\n${body.replace('mls-0001', '&c;')}`],
      ['plain DOCTYPE', `<!DOCTYPE ApplicationResponse>\n${body}`],
      ['NUL character', ap.replace('mls-0001', 'mls\u00000001')],
      ['not well-formed', ap.slice(0, -10)],
      ['undeclared prefix', ap.replace('<cbc:ID>mls-0001</cbc:ID>', '<x:ID>mls-0001</x:ID>')],
      ['empty', ''],
      ['an invoice', '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>'],
      ['ApplicationResponse in no namespace', body.replace(' xmlns="urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2"', '')],
      ['another ApplicationResponse (invoice response)', ap.replace(MLS_CUSTOMIZATION_ID, 'urn:fdc:peppol.eu:poacc:trns:invoice_response:3')],
      ['a response code outside AP/AB/RE', ap.replace('<cbc:ResponseCode>AP<', '<cbc:ResponseCode>XZ<')],
      ['no document response', ap.replace(/<cac:DocumentResponse>.*<\/cac:DocumentResponse>/s, '')],
      ['no sender endpoint', ap.replace(/<cac:SenderParty>.*<\/cac:SenderParty>/s, '<cac:SenderParty/>')],
    ];
    for (const [name, xml] of hostile) {
      const e = errorOf(() => readMls(xml));
      expect([name, e.code]).toEqual([name, 'INVALID_REQUEST']);
    }
  });
});

describe('an MLS in the Peppol envelope', () => {
  it('wraps under the MLS document type and process and comes back unchanged', () => {
    const mlsXml = buildMls({ ...base, responseCode: 'RE', lines: [{ reasonCode: 'BV', description: 'BR-01 broken' }] });
    const sbd = buildSbd({
      sender: { scheme: 'iso6523-actorid-upis', value: '0242:000306' },
      receiver: { scheme: 'iso6523-actorid-upis', value: '0242:123456' },
      documentType: MLS_DOCUMENT_TYPE, process: MLS_PROCESS, countryC1: 'BE',
      standard: 'urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2', typeVersion: '2.1', type: 'ApplicationResponse',
      instanceIdentifier: '2f1e7c4a-0d1b-4a7e-9d59-4c1f0e0a9b11', creationDateAndTime: '2026-11-20T09:30:15+01:00',
    }, mlsXml);
    const { header, document } = readSbd(sbd);
    expect(header.documentType).toEqual(MLS_DOCUMENT_TYPE);
    expect(header.process).toEqual(MLS_PROCESS);
    expect(readMls(document)).toEqual(readMls(mlsXml));
    expect(validateMls(document)).toEqual([]);
  });
});
