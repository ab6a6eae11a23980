/**
 * Peppol Reporting (mappings/peppol/reporting.ts, pack schematrons/peppol-reporting through
 * validateReport): the phase4 corpus examples (EUSR 1.1 empty, TSR 1.0 minimal) validate clean and
 * read back; a test month of exchanges builds a TSR and an EUSR whose totals and subtotals are the
 * specification's, and which validate clean on both engines; hand-broken reports raise their rule.
 */
import { readFileSync } from 'node:fs';
import {
  EUSR_CUSTOMIZATION_ID, EUSR_DOCUMENT_TYPE_ID, REPORTING_PROCESS_ID, TSR_CUSTOMIZATION_ID, TSR_DOCUMENT_TYPE_ID,
  buildEndUserStatisticsReport, buildTransactionStatisticsReport, readEndUserStatisticsReport, readTransactionStatisticsReport,
  type ReportingExchange, type ReportingInput, type ReportKey,
} from '../../../mappings/peppol/reporting.ts';
import { MappingError } from '../../../mappings/errors.ts';
import { validateReport } from '../../../services/validation/engine/reporting.ts';
import { corpusPath } from '../../support/corpus.ts';

const corpus = (name: string): string => readFileSync(corpusPath('peppol-transport', 'phase4', 'reporting', name), 'utf8');
const rules = (xml: string): string[] => [...new Set(validateReport(xml).map((f) => f.rule))].sort();

const INV = 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1';
const CN = 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1';
const BILLING = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';
const A = '9925:be0000000001';
const B = '0208:0000000002';
const C = '0106:12345678';

const ex = (e: Partial<ReportingExchange> & Pick<ReportingExchange, 'direction' | 'exchangedAt'>): ReportingExchange => ({
  documentTypeId: INV, processId: BILLING, senderParticipant: '0088:5790000000001', receiverParticipant: '0088:5790000000002',
  otherAccessPoint: 'POP000111', transportProtocol: 'peppol-transport-as4-v2_0', ...e,
});

const month: ReportingInput = {
  month: '2026-10',
  reporterId: 'POP000306',
  exchanges: [
    // counted: three sent (C1 our end users A and B, Belgium) …
    ex({ direction: 'sent', exchangedAt: '2026-10-01T00:00:00Z', senderParticipant: A, countryC1: 'BE' }),
    ex({ direction: 'sent', exchangedAt: '2026-10-15T10:00:00+02:00', senderParticipant: A, countryC1: 'BE', otherAccessPoint: 'POP000222' }),
    ex({ direction: 'sent', exchangedAt: '2026-10-20T12:00:00Z', documentTypeId: `busdox-docid-qns::${CN}`, senderParticipant: `iso6523-actorid-upis::${B}`, countryC1: 'BE' }),
    // … three received (C4 our end users A, C and B; senders in Germany and France)
    ex({ direction: 'received', exchangedAt: '2026-10-10T08:00:00Z', receiverParticipant: A.toUpperCase(), countryC1: 'DE', countryC4: 'BE', otherAccessPoint: 'POP000222' }),
    ex({ direction: 'received', exchangedAt: '2026-10-31T23:30:00-00:00', receiverParticipant: C, countryC1: 'FR', countryC4: 'NL', otherAccessPoint: 'POP000222' }),
    ex({ direction: 'received', exchangedAt: '2026-11-01T00:30:00+01:00', documentTypeId: CN, receiverParticipant: B, countryC1: 'DE', countryC4: 'BE' }),
    // not counted: the previous month in UTC, no receipt, the report itself
    ex({ direction: 'sent', exchangedAt: '2026-10-01T01:00:00+02:00', senderParticipant: '0088:9999999999999', countryC1: 'FR' }),
    ex({ direction: 'sent', exchangedAt: '2026-10-05T10:00:00Z', senderParticipant: '0088:8888888888888', countryC1: 'SE', receipt: false }),
    ex({ direction: 'sent', exchangedAt: '2026-10-02T10:00:00Z', documentTypeId: TSR_DOCUMENT_TYPE_ID, processId: REPORTING_PROCESS_ID, senderParticipant: A, countryC1: 'BE', otherAccessPoint: 'POP000001' }),
  ],
};

const keyText = (keys: ReportKey[]): string => keys.map((k) => `${k.metaSchemeID}=${k.metaSchemeID === 'DT' ? (k.value === INV ? 'INV' : k.value === CN ? 'CN' : k.value) : k.value}`).join(' ');

describe('Peppol Reporting: corpus examples', () => {
  test('the EUSR 1.1 empty example validates clean and reads back', () => {
    const xml = corpus('end-user-statistics-reporting-empty.xml');
    expect(validateReport(xml)).toEqual([]);
    const r = readEndUserStatisticsReport(xml);
    expect(r).toMatchObject({ customizationId: EUSR_CUSTOMIZATION_ID, reporterId: 'POP000360', reporterScheme: 'CertSubjectCN', period: { start: '2022-01-01', end: '2022-01-31' } });
    expect(r.fullSet).toEqual({ sending: 0, receiving: 0, sendingOrReceiving: 0 });
    expect(r.subsets).toEqual([]);
  });

  test('the TSR 1.0 minimal example validates clean and reads back', () => {
    const xml = corpus('transaction-statistics-minimal.xml');
    expect(validateReport(xml)).toEqual([]);
    const r = readTransactionStatisticsReport(xml);
    expect(r).toMatchObject({ customizationId: TSR_CUSTOMIZATION_ID, reporterId: 'POP000360', total: { incoming: 0, outgoing: 0 }, subtotals: [] });
  });

  test('compiled rules and saxon-js agree on the examples', () => {
    for (const name of ['end-user-statistics-reporting-empty.xml', 'transaction-statistics-minimal.xml']) {
      expect(validateReport(corpus(name), { engine: 'saxon' })).toEqual(validateReport(corpus(name)));
    }
  });
});

describe('Peppol Reporting: a month of exchanges', () => {
  const tsr = buildTransactionStatisticsReport(month);
  const eusr = buildEndUserStatisticsReport(month);

  test('the TSR counts the exchanges of the month with a receipt, in the three subtotal types', () => {
    expect(validateReport(tsr)).toEqual([]);
    expect(validateReport(tsr, { engine: 'saxon' })).toEqual([]);
    const r = readTransactionStatisticsReport(tsr);
    expect(r.period).toEqual({ start: '2026-10-01', end: '2026-10-31' });
    expect(r.reporterId).toBe('POP000306');
    expect(r.total).toEqual({ incoming: 3, outgoing: 3 });
    expect(r.subtotals.map((s) => `${s.type} ${keyText(s.keys)} in=${s.incoming} out=${s.outgoing}`)).toEqual([
      'PerTP TP=peppol-transport-as4-v2_0 in=3 out=3',
      `PerSP-DT-PR SP=POP000111 DT=CN PR=${BILLING} in=1 out=1`,
      `PerSP-DT-PR SP=POP000111 DT=INV PR=${BILLING} in=0 out=1`,
      `PerSP-DT-PR SP=POP000222 DT=INV PR=${BILLING} in=2 out=1`,
      `PerSP-DT-PR-CC SP=POP000111 DT=CN PR=${BILLING} CC=DE CC=BE in=1 out=0`,
      `PerSP-DT-PR-CC SP=POP000222 DT=INV PR=${BILLING} CC=DE CC=BE in=1 out=0`,
      `PerSP-DT-PR-CC SP=POP000222 DT=INV PR=${BILLING} CC=FR CC=NL in=1 out=0`,
    ]);
  });

  test('the EUSR counts distinct end users (case-insensitive ids), C1 country when sending, C4 when receiving', () => {
    expect(validateReport(eusr)).toEqual([]);
    expect(validateReport(eusr, { engine: 'saxon' })).toEqual([]);
    const r = readEndUserStatisticsReport(eusr);
    expect(r.customizationId).toBe(EUSR_CUSTOMIZATION_ID);
    expect(r.fullSet).toEqual({ sending: 2, receiving: 3, sendingOrReceiving: 3 });
    expect(r.subsets.map((s) => `${s.type} ${keyText(s.keys)} s=${s.sending} r=${s.receiving} e=${s.sendingOrReceiving}`)).toEqual([
      `PerDT-PR DT=CN PR=${BILLING} s=1 r=1 e=1`,
      `PerDT-PR DT=INV PR=${BILLING} s=1 r=2 e=2`,
      `PerDT-PR-EUC DT=CN PR=${BILLING} CC=BE s=1 r=1 e=1`,
      `PerDT-PR-EUC DT=INV PR=${BILLING} CC=BE s=1 r=1 e=1`,
      `PerDT-PR-EUC DT=INV PR=${BILLING} CC=NL s=0 r=1 e=1`,
      'PerDT-EUC DT=CN CC=BE s=1 r=1 e=1',
      'PerDT-EUC DT=INV CC=BE s=1 r=1 e=1',
      'PerDT-EUC DT=INV CC=NL s=0 r=1 e=1',
      'PerEUC CC=BE s=2 r=2 e=2',
      'PerEUC CC=NL s=0 r=1 e=1',
    ]);
  });

  test('a month without exchanges makes the zero reports, valid', () => {
    const empty = { ...month, month: '2026-02', exchanges: [] };
    const t = buildTransactionStatisticsReport(empty);
    const e = buildEndUserStatisticsReport(empty);
    expect(validateReport(t)).toEqual([]);
    expect(validateReport(e)).toEqual([]);
    expect(readTransactionStatisticsReport(t)).toMatchObject({ period: { start: '2026-02-01', end: '2026-02-28' }, total: { incoming: 0, outgoing: 0 }, subtotals: [] });
    expect(readEndUserStatisticsReport(e).fullSet).toEqual({ sending: 0, receiving: 0, sendingOrReceiving: 0 });
  });

  test('the document type ids of the reports', () => {
    expect(TSR_DOCUMENT_TYPE_ID).toBe('urn:fdc:peppol:transaction-statistics-report:1.0::TransactionStatisticsReport##urn:fdc:peppol.eu:edec:trns:transaction-statistics-reporting:1.0::1.0');
    expect(EUSR_DOCUMENT_TYPE_ID).toBe('urn:fdc:peppol:end-user-statistics-report:1.1::EndUserStatisticsReport##urn:fdc:peppol.eu:edec:trns:end-user-statistics-report:1.1::1.1');
    expect(REPORTING_PROCESS_ID).toBe('urn:fdc:peppol.eu:edec:bis:reporting:1.0');
  });
});

describe('Peppol Reporting: broken reports and refused input', () => {
  const tsr = buildTransactionStatisticsReport(month);
  const eusr = buildEndUserStatisticsReport(month);

  test('a TSR total that does not match its subtotals', () => {
    const broken = tsr.replace('<Total><Incoming>3</Incoming>', '<Total><Incoming>4</Incoming>');
    expect(broken).not.toBe(tsr);
    expect(rules(broken)).toEqual(['SCH-TSR-04', 'SCH-TSR-08', 'SCH-TSR-12']);
    expect(validateReport(broken, { engine: 'saxon' }).map((f) => f.rule).sort()).toEqual(validateReport(broken).map((f) => f.rule).sort());
  });

  test('a TSR with a wrong customization id, a repeated protocol and an outgoing country subtotal', () => {
    let broken = tsr.replace(TSR_CUSTOMIZATION_ID, 'urn:example');
    const tp = /<Subtotal type="PerTP">.*?<\/Subtotal>/s.exec(broken)![0];
    broken = broken.replace(tp, tp + tp);
    broken = broken.replace(/(<Subtotal type="PerSP-DT-PR-CC">.*?)<Outgoing>0<\/Outgoing>/s, '$1<Outgoing>2</Outgoing>');
    expect(rules(broken)).toEqual(['SCH-TSR-01', 'SCH-TSR-04', 'SCH-TSR-05', 'SCH-TSR-06', 'SCH-TSR-43']);
  });

  test('an EUSR whose full set is inconsistent, a bad country', () => {
    const broken = eusr.replace('<SendingOrReceivingEndUsers>3</SendingOrReceivingEndUsers>', '<SendingOrReceivingEndUsers>6</SendingOrReceivingEndUsers>')
      .replace('<Key metaSchemeID="CC" schemeID="EndUserCountry">NL</Key>', '<Key metaSchemeID="CC" schemeID="EndUserCountry">ZZ</Key>');
    expect(rules(broken)).toEqual(['SCH-EUSR-19', 'SCH-EUSR-30']);
  });

  test('a report of another root is refused', () => {
    expect(() => validateReport('<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>')).toThrow(/root element .*Expected a Peppol report/);
    expect(() => readTransactionStatisticsReport(eusr)).toThrow(MappingError);
  });

  test('the builders refuse input that would break a rule', () => {
    const ruleOf = (f: () => unknown): string | undefined => {
      try { f(); } catch (e) { return (e as MappingError).details?.[0]?.rule; }
      return undefined;
    };
    expect(ruleOf(() => buildTransactionStatisticsReport({ ...month, reporterId: '0242:000306' }))).toBe('SCH-TSR-18');
    expect(ruleOf(() => buildTransactionStatisticsReport({ ...month, month: '2026-13' }))).toBe('SCH-TSR-40');
    expect(ruleOf(() => buildTransactionStatisticsReport({ ...month, exchanges: [ex({ direction: 'sent', exchangedAt: '2026-10-02T10:00:00Z', otherAccessPoint: 'ap.example.com' })] }))).toBe('SCH-TSR-19');
    expect(ruleOf(() => buildEndUserStatisticsReport({ ...month, exchanges: [ex({ direction: 'received', exchangedAt: '2026-10-02T10:00:00Z', countryC1: 'DE' })] }))).toBe('SCH-EUSR-30');
    expect(() => buildTransactionStatisticsReport({ ...month, exchanges: [ex({ direction: 'sent', exchangedAt: '2026-10-02T10:00:00' })] })).toThrow(/timezone/);
    // the TSR counts an incoming exchange of unknown countries under ZZ
    const zz = buildTransactionStatisticsReport({ ...month, exchanges: [ex({ direction: 'received', exchangedAt: '2026-10-02T10:00:00Z' })] });
    expect(validateReport(zz)).toEqual([]);
    expect(readTransactionStatisticsReport(zz).subtotals.find((s) => s.type === 'PerSP-DT-PR-CC')!.keys.slice(3).map((k) => k.value)).toEqual(['ZZ', 'ZZ']);
  });
});
