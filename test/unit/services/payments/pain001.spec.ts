/**
 * The pain.001.001.09 builder: several transfers from two debtor accounts validate against the ISO
 * XSD of the corpus, and follow the EPC SEPA usage rules (Latin character set, lengths, SEPA, SLEV,
 * EUR, control sums).
 */
import { DOMParser } from '@xmldom/xmldom';
import { buildPain001, PAIN_001_NS, type CreditTransferMessage } from '../../../../services/payments/pain001.ts';
import { sepaId, sepaText } from '../../../../services/payments/sepa-text.ts';
import { pain001XsdErrors } from '../../../support/pain001-xsd.ts';

const EPC_TEXT = /^[A-Za-z0-9/\-?:().,'+ ]*$/;

const message: CreditTransferMessage = {
  messageId: 'pxp-01JD7Z3V9Q1M2N3P4R5S6T7V8W', createdAt: new Date('2026-11-26T09:15:00.123Z'), initiatingParty: 'Müller & Söhne Großhandel GmbH',
  executionDate: '2026-11-27', currency: 'EUR',
  batches: [
    {
      debtor: { name: 'Client SA', iban: 'FR1420041010050500013M02606', bic: 'PSSTFRPPPAR' },
      transfers: [
        { instructionId: '01JD7Z3V9Q1M2N3P4R5S6T7V8A', endToEndId: 'INV_2026/0001', amount: '242.00', creditor: { name: 'Acme SPRL', iban: 'BE68539007547034', bic: 'GEBABEBB' }, remittance: 'Invoice INV_2026/0001 of 2026-03-01' },
        { instructionId: '01JD7Z3V9Q1M2N3P4R5S6T7V8B', endToEndId: '//weird id with spaces and a very long tail beyond 35//', amount: '0.01', creditor: { name: 'Ærøskøbing Café «Zoë» — ' + 'x'.repeat(100), iban: 'DE89370400440532013000', bic: null }, remittance: `Facture n° 42 € ${'é'.repeat(200)}` },
      ],
    },
    {
      debtor: { name: 'Filiale Łódź', iban: 'PL61109010140000071219812874', bic: null },
      transfers: [{ instructionId: '01JD7Z3V9Q1M2N3P4R5S6T7V8C', endToEndId: 'F-3', amount: '999999999.99', creditor: { name: 'Acme', iban: 'NL91ABNA0417164300', bic: 'ABNANL2A' }, remittance: 'F-3' }],
    },
  ],
};

const xml = buildPain001(message);
const doc = new DOMParser().parseFromString(xml, 'application/xml');
const all = (name: string) => Array.from(doc.getElementsByTagNameNS(PAIN_001_NS, name));
const text = (name: string) => all(name).map((e) => e.textContent ?? '');

it('validates against the ISO 20022 pain.001.001.09 XSD (shared/corpus/bank4j)', () => {
  expect(pain001XsdErrors(xml)).toEqual([]);
});

it('a broken message does not validate (the check is real)', () => {
  expect(pain001XsdErrors(xml.replace('<ChrgBr>SLEV</ChrgBr>', '<ChrgBr>FREE</ChrgBr>')).length).toBeGreaterThan(0);
  expect(pain001XsdErrors(xml.replace(/<ReqdExctnDt>[\s\S]*?<\/ReqdExctnDt>/, '')).length).toBeGreaterThan(0);
});

it('follows the EPC SCT usage rules: SEPA service level, SLEV, EUR, TRF', () => {
  expect(text('Cd')).toEqual(['SEPA', 'SEPA']);
  expect(text('ChrgBr')).toEqual(['SLEV', 'SLEV']);
  expect(text('PmtMtd')).toEqual(['TRF', 'TRF']);
  expect(all('InstdAmt').map((e) => e.getAttribute('Ccy'))).toEqual(['EUR', 'EUR', 'EUR']);
  expect(text('Dt')).toEqual(['2026-11-27', '2026-11-27']);
});

it('counts and sums: the group header and each block agree with their transfers', () => {
  expect(text('NbOfTxs')).toEqual(['3', '2', '1']);
  expect(text('CtrlSum')).toEqual(['1000000242.00', '242.01', '999999999.99']);
  expect(text('CreDtTm')).toEqual(['2026-11-26T09:15:00']);
});

it('keeps every text in the EPC Latin set and within its length', () => {
  for (const name of ['Nm', 'Ustrd', 'MsgId', 'PmtInfId', 'InstrId', 'EndToEndId']) {
    for (const value of text(name)) expect(value).toMatch(EPC_TEXT);
  }
  for (const v of text('Nm')) expect(v.length).toBeLessThanOrEqual(70);
  for (const v of text('Ustrd')) expect(v.length).toBeLessThanOrEqual(140);
  for (const name of ['MsgId', 'PmtInfId', 'InstrId', 'EndToEndId']) {
    for (const v of text(name)) {
      expect(v.length).toBeLessThanOrEqual(35);
      expect(v).not.toMatch(/^\/|\/$|\/\/| /);
    }
  }
  expect(text('Nm')).toContain('Muller + Sohne Grosshandel GmbH');
  expect(text('Nm')).toContain('Filiale Lodz');
  expect(text('EndToEndId')[0]).toBe('INV-2026/0001');
});

it('an account without a BIC goes IBAN-only (agent NOTPROVIDED for the debtor, no creditor agent)', () => {
  expect(text('BICFI')).toEqual(['PSSTFRPPPAR', 'GEBABEBB', 'ABNANL2A']);
  expect(text('Id').filter((v) => v === 'NOTPROVIDED')).toHaveLength(1);
});

describe('sepaText / sepaId', () => {
  it('transliterates to the EPC set', () => {
    expect(sepaText('Crème brûlée & Co. «Ltd» № 5', 70)).toBe('Creme brulee + Co. Ltd 5');
    expect(sepaText('Straße 7; tel: +49 (0)30', 70)).toBe('Strasse 7 tel: +49 (0)30');
    expect(sepaText('   ', 70)).toBe('');
    expect(sepaText('a'.repeat(80), 70)).toHaveLength(70);
  });
  it('makes identifiers without spaces, leading/trailing or double slashes', () => {
    expect(sepaId('//INV 2026//001/')).toBe('INV2026/001');
    expect(sepaId('x'.repeat(50))).toHaveLength(35);
  });
});
