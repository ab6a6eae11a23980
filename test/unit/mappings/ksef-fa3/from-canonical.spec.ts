/**
 * Canonical → FA(3): what comes out is valid against the official FA(3) schema (vendored unchanged
 * under schematrons/xsd/ksef-fa3) for a domestic invoice with three rates, a correction (faktura
 * korygująca), foreign buyers, exempt and reverse-charged lines; the fields land where the mapping
 * says; what FA(3) cannot take is refused with every problem and its path. FA(3) → canonical reads
 * the same invoice back.
 */
import { MappingError, canonicalToFa3, fa3ToCanonical, jsonToCanonical, type CanonicalInvoice } from '../../../../mappings/index.ts';
import { fa3XsdErrors } from '../../../support/ksef-fa3-xsd.ts';
import { BUYER_NIP, SELLER_NIP, polishInvoice } from '../../../support/polish-invoice.ts';

const opts = { createdAt: '2026-11-20T10:00:00Z', systemInfo: 'test' };
const fa3 = (c: CanonicalInvoice) => canonicalToFa3(c, opts);

function refused(c: CanonicalInvoice): MappingError {
  try {
    fa3(c);
  } catch (err) {
    expect(err).toBeInstanceOf(MappingError);
    return err as MappingError;
  }
  throw new Error('expected a MappingError');
}

describe('canonical → FA(3)', () => {
  it('a domestic invoice with 23 %, 8 % and 5 % lines is schema-valid, with the totals per rate and the lines', () => {
    const xml = fa3(polishInvoice());
    expect(fa3XsdErrors(xml)).toEqual([]);
    expect(xml).toContain('<KodFormularza kodSystemowy="FA (3)" wersjaSchemy="1-0E">FA</KodFormularza><WariantFormularza>3</WariantFormularza><DataWytworzeniaFa>2026-11-20T10:00:00Z</DataWytworzeniaFa>');
    expect(xml).toContain(`<Podmiot1><PrefiksPodatnika>PL</PrefiksPodatnika><DaneIdentyfikacyjne><NIP>${SELLER_NIP}</NIP><Nazwa>Sprzedawca Sp. z o.o.</Nazwa>`);
    expect(xml).toContain(`<Podmiot2><DaneIdentyfikacyjne><NIP>${BUYER_NIP}</NIP>`);
    expect(xml).toContain('<KodWaluty>PLN</KodWaluty><P_1>2026-11-20</P_1><P_2>FV/2026/11/001</P_2>');
    expect(xml).toContain('<P_13_1>1000.00</P_13_1><P_14_1>230.00</P_14_1><P_13_2>200.00</P_13_2><P_14_2>16.00</P_14_2><P_13_3>100.00</P_13_3><P_14_3>5.00</P_14_3><P_15>1551.00</P_15>');
    expect(xml).toContain('<RodzajFaktury>VAT</RodzajFaktury>');
    expect(xml).toContain('<FaWiersz><NrWierszaFa>1</NrWierszaFa><P_7>Usługi doradcze</P_7><Indeks>DOR-1</Indeks><P_8A>HUR</P_8A><P_8B>10</P_8B><P_9A>100</P_9A><P_11>1000.00</P_11><P_12>23</P_12></FaWiersz>');
    expect(xml).toContain('<GTIN>05901234123457</GTIN>');
    expect(xml).toContain('<Platnosc><TerminPlatnosci><Termin>2026-12-04</Termin></TerminPlatnosci><FormaPlatnosci>6</FormaPlatnosci><RachunekBankowy><NrRB>PL61109010140000071219812874</NrRB><SWIFT>WBKPPLPP</SWIFT></RachunekBankowy></Platnosc>');
    expect(xml).toContain('<Adnotacje><P_16>2</P_16><P_17>2</P_17><P_18>2</P_18><P_18A>2</P_18A><Zwolnienie><P_19N>1</P_19N></Zwolnienie>');
  });

  it('a correction (credit note) is a KOR naming the corrected invoice, with the reduction as negative differences', () => {
    const xml = fa3(polishInvoice({
      kind: 'credit-note', typeCode: '381', number: 'KOR/2026/11/001', notes: [{ text: 'Zwrot towaru' }],
      precedingInvoices: [{ number: 'FV/2026/11/001', issueDate: '2026-11-20' }, { number: '5260250274-20261120-0100A0D6723E-C2', issueDate: '2026-11-19' }],
    }));
    expect(fa3XsdErrors(xml)).toEqual([]);
    expect(xml).toContain('<RodzajFaktury>KOR</RodzajFaktury><PrzyczynaKorekty>Zwrot towaru</PrzyczynaKorekty>');
    expect(xml).toContain('<DaneFaKorygowanej><DataWystFaKorygowanej>2026-11-20</DataWystFaKorygowanej><NrFaKorygowanej>FV/2026/11/001</NrFaKorygowanej><NrKSeFN>1</NrKSeFN></DaneFaKorygowanej>');
    expect(xml).toContain('<NrKSeF>1</NrKSeF><NrKSeFFaKorygowanej>5260250274-20261120-0100A0D6723E-C2</NrKSeFFaKorygowanej>');
    expect(xml).toContain('<P_13_1>-1000.00</P_13_1><P_14_1>-230.00</P_14_1>');
    expect(xml).toContain('<P_15>-1551.00</P_15>');
    expect(xml).toContain('<P_8B>-10</P_8B>');

    // The KSeF number KSeF gave the corrected invoice, when the caller found it, replaces NrKSeFN.
    const known = canonicalToFa3(polishInvoice({ kind: 'credit-note', typeCode: '381', number: 'KOR/2', precedingInvoices: [{ number: 'FV/2026/11/001', issueDate: '2026-11-20' }] }), { ...opts, correctedKsefNumbers: { 'FV/2026/11/001': '5260250274-20261120-0100A0D6723E-C2' } });
    expect(fa3XsdErrors(known)).toEqual([]);
    expect(known).toContain('<NrFaKorygowanej>FV/2026/11/001</NrFaKorygowanej><NrKSeF>1</NrKSeF><NrKSeFFaKorygowanej>5260250274-20261120-0100A0D6723E-C2</NrKSeFFaKorygowanej>');
  });

  it('zero-rated, exempt, reverse-charged and foreign buyers take their FA(3) codes and buckets, all schema-valid', () => {
    const line = (category: string, rate: string | undefined, netAmount: string) => ({ quantity: '1', unit: 'C62', netAmount, price: { netPrice: netAmount }, vat: { category, ...(rate ? { rate } : {}) }, item: { name: `${category} item` } });
    const mixed = polishInvoice({
      lines: [line('S', '23', '100.00'), line('Z', '0', '10.00'), line('E', '0', '20.00'), line('AE', '0', '30.00')],
      vatBreakdown: [
        { taxableAmount: '100.00', taxAmount: '23.00', category: 'S', rate: '23' },
        { taxableAmount: '10.00', taxAmount: '0.00', category: 'Z', rate: '0' },
        { taxableAmount: '20.00', taxAmount: '0.00', category: 'E', rate: '0', exemptionReason: 'art. 43 ust. 1 pkt 37 ustawy o VAT' },
        { taxableAmount: '30.00', taxAmount: '0.00', category: 'AE', rate: '0' },
      ],
      totals: { taxExclusive: '160.00', vatTotal: '23.00', taxInclusive: '183.00', payable: '183.00' },
    });
    const xml = fa3(mixed);
    expect(fa3XsdErrors(xml)).toEqual([]);
    expect(xml).toContain('<P_13_1>100.00</P_13_1><P_14_1>23.00</P_14_1><P_13_6_1>10.00</P_13_6_1><P_13_7>20.00</P_13_7><P_13_10>30.00</P_13_10><P_15>183.00</P_15>');
    expect(xml).toContain('<P_18>1</P_18>');
    expect(xml).toContain('<Zwolnienie><P_19>1</P_19><P_19C>art. 43 ust. 1 pkt 37 ustawy o VAT</P_19C></Zwolnienie>');
    for (const code of ['<P_12>0 KR</P_12>', '<P_12>zw</P_12>', '<P_12>oo</P_12>']) expect(xml).toContain(code);

    // A German buyer: EU VAT number (KodUE + NrVatUE); reverse charge there is np II (P_13_9); intra-Community supply 0 WDT.
    const german = fa3({
      ...mixed,
      buyer: { name: 'Käufer GmbH', vatId: 'DE123456789', address: { line1: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' } },
      lines: [line('AE', '0', '30.00'), line('K', '0', '40.00')],
      vatBreakdown: [{ taxableAmount: '30.00', taxAmount: '0.00', category: 'AE', rate: '0' }, { taxableAmount: '40.00', taxAmount: '0.00', category: 'K', rate: '0' }],
      totals: { taxExclusive: '70.00', vatTotal: '0.00', taxInclusive: '70.00', payable: '70.00' },
      currency: 'EUR',
    });
    expect(fa3XsdErrors(german)).toEqual([]);
    expect(german).toContain('<DaneIdentyfikacyjne><KodUE>DE</KodUE><NrVatUE>123456789</NrVatUE><Nazwa>Käufer GmbH</Nazwa></DaneIdentyfikacyjne><Adres><KodKraju>DE</KodKraju>');
    expect(german).toContain('<P_13_6_2>40.00</P_13_6_2><P_13_9>30.00</P_13_9>');
    expect(german).toContain('<P_12>np II</P_12>');

    // A buyer outside the EU, and a consumer with no identifier at all.
    const us = fa3({ ...polishInvoice(), buyer: { name: 'Buyer Inc.', vatId: 'US12-3456789', address: { line1: '1 Main St', city: 'Boston', country: 'US' } } });
    expect(fa3XsdErrors(us)).toEqual([]);
    expect(us).toContain('<KodKraju>US</KodKraju><NrID>US123456789</NrID>');
    const consumer = fa3({ ...polishInvoice(), buyer: { name: 'Jan Kowalski' } });
    expect(fa3XsdErrors(consumer)).toEqual([]);
    expect(consumer).toContain('<DaneIdentyfikacyjne><BrakID>1</BrakID><Nazwa>Jan Kowalski</Nazwa></DaneIdentyfikacyjne><JST>2</JST>');
  });

  it('a JSON invoice of the API, mapped to canonical, is schema-valid FA(3)', () => {
    const c = jsonToCanonical({
      type: 'invoice',
      document: {
        number: 'FV/API/1', issueDate: '2026-11-21', dueDate: '2026-12-21', currency: 'PLN',
        seller: { name: 'Sprzedawca Sp. z o.o.', vatNumber: `PL${SELLER_NIP}`, address: { street: 'ul. Świętokrzyska 12', city: 'Warszawa', postalCode: '00-916', country: 'PL' } },
        buyer: { name: 'Nabywca S.A.', vatNumber: `PL${BUYER_NIP}`, address: { street: 'ul. Długa 5', city: 'Gdańsk', postalCode: '80-827', country: 'PL' } },
        lines: [{ description: 'Doradztwo', quantity: 3, unit: 'HUR', unitPrice: 150, vatRate: 23 }, { description: 'Dostawa', quantity: 1, unitPrice: 40.5, vatRate: 8 }],
      },
    });
    const xml = fa3(c);
    expect(fa3XsdErrors(xml)).toEqual([]);
    expect(xml).toContain('<P_13_1>450.00</P_13_1><P_14_1>103.50</P_14_1><P_13_2>40.50</P_13_2><P_14_2>3.24</P_14_2><P_15>597.24</P_15>');
  });

  it('refuses what FA(3) cannot hold, every problem with its path', () => {
    const noNip = refused(polishInvoice({ seller: { name: 'Vendeur SAS', vatId: 'FR40303265045', address: { city: 'Paris', country: 'FR' } } }));
    expect(noNip.details).toEqual([expect.objectContaining({ field: 'seller.vatId', rule: 'ksef-seller-nip' })]);
    expect(noNip.code).toBe('MISSING_FIELD');

    const badChecksum = refused(polishInvoice({ seller: { ...polishInvoice().seller, vatId: 'PL5260250275' } }));
    expect(badChecksum.details[0]).toMatchObject({ field: 'seller.vatId', rule: 'ksef-nip-checksum' });

    const many = refused(polishInvoice({
      seller: { name: 'Sprzedawca', vatId: `PL${SELLER_NIP}` },
      lines: [{ ...polishInvoice().lines[0]!, vat: { category: 'S', rate: '21' } }],
      vatBreakdown: [{ taxableAmount: '1000.00', taxAmount: '210.00', category: 'L', rate: '7' }],
    }));
    expect(many.details.map((d) => d.field)).toEqual(['seller.address', 'lines[0].vat', 'vatBreakdown[0]']);
    expect(many.message).toContain('(and 2 more)');

    const correction = refused(polishInvoice({ kind: 'credit-note', typeCode: '381' }));
    expect(correction.details[0]).toMatchObject({ field: 'precedingInvoices', rule: 'ksef-corrected-invoice' });
    const undated = refused(polishInvoice({ kind: 'credit-note', typeCode: '381', precedingInvoices: [{ number: 'FV/1' }] }));
    expect(undated.details[0]).toMatchObject({ field: 'precedingInvoices[0].issueDate' });

    const longName = refused(polishInvoice({ buyer: { ...polishInvoice().buyer, name: 'x'.repeat(513) } }));
    expect(longName.details[0]).toMatchObject({ field: 'buyer.name', rule: 'ksef-length' });
  });
});

describe('FA(3) → canonical', () => {
  it('reads back the parties, totals per rate, lines and payment of what canonicalToFa3 wrote', () => {
    const { canonical, original, syntax } = fa3ToCanonical(fa3(polishInvoice()));
    expect(syntax).toBe('ksef-fa3');
    expect(typeof original).toBe('string');
    expect(canonical).toMatchObject({
      kind: 'invoice', number: 'FV/2026/11/001', issueDate: '2026-11-20', currency: 'PLN', dueDate: '2026-12-04',
      seller: { name: 'Sprzedawca Sp. z o.o.', vatId: `PL${SELLER_NIP}`, address: { line1: 'ul. Świętokrzyska 12', postalCode: '00-916', city: 'Warszawa', country: 'PL' } },
      buyer: { name: 'Nabywca S.A.', vatId: `PL${BUYER_NIP}` },
      totals: { taxExclusive: '1300.00', vatTotal: '251.00', taxInclusive: '1551.00', payable: '1551.00' },
      paymentInstructions: { meansCode: '30', creditTransfers: [{ accountId: 'PL61109010140000071219812874', serviceProviderId: 'WBKPPLPP' }] },
    });
    expect(canonical.vatBreakdown).toEqual([
      { taxableAmount: '1000.00', taxAmount: '230.00', category: 'S', rate: '23.00' },
      { taxableAmount: '200.00', taxAmount: '16.00', category: 'S', rate: '8.00' },
      { taxableAmount: '100.00', taxAmount: '5.00', category: 'S', rate: '5.00' },
    ]);
    expect(canonical.lines.map((l) => [l.item.name, l.quantity, l.netAmount, l.vat])).toEqual([
      ['Usługi doradcze', '10', '1000.00', { category: 'S', rate: '23.00' }],
      ['Catering', '4', '200.00', { category: 'S', rate: '8.00' }],
      ['Książki', '2', '100.00', { category: 'S', rate: '5.00' }],
    ]);
  });

  it('a KOR reads back as a credit note with positive amounts and the corrected invoice', () => {
    const { canonical } = fa3ToCanonical(fa3(polishInvoice({ kind: 'credit-note', typeCode: '381', number: 'KOR/1', precedingInvoices: [{ number: 'FV/2026/11/001', issueDate: '2026-11-20' }] })));
    expect(canonical).toMatchObject({ kind: 'credit-note', typeCode: '381', number: 'KOR/1', precedingInvoices: [{ number: 'FV/2026/11/001', issueDate: '2026-11-20' }], totals: { taxInclusive: '1551.00' } });
  });

  it('refuses what is not FA(3), and an FA(3) without its number and total', () => {
    expect(() => fa3ToCanonical('<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>')).toThrow(MappingError);
    const e = (() => { try { fa3ToCanonical('<Faktura xmlns="http://crd.gov.pl/wzor/2025/06/25/13775/"><Fa><KodWaluty>PLN</KodWaluty></Fa></Faktura>'); } catch (err) { return err as MappingError; } return undefined; })();
    expect(e?.details.map((d) => d.field)).toEqual(['Faktura/Fa/P_2', 'Faktura/Fa/P_1', 'Faktura/Podmiot1/DaneIdentyfikacyjne/NIP', 'Faktura/Fa/P_15']);
  });
});
