/**
 * lifecycleToCdar: each French lifecycle move gives a CDAR D22B message that is XSD-valid and passes
 * our BR-FR-CDV pack, with the party roles of its phase, the amount blocks of its status and the motif
 * from the official referential; bad input is one MappingError naming every problem. readCdar reads
 * back what was written.
 */
import { lifecycleToCdar, readCdar, MappingError, type CdarInput } from '../../../../mappings/index.ts';
import { validate } from '../../../../services/validation/engine/index.ts';
import { frenchInvoice } from '../../../support/french-invoice.ts';

type Step = CdarInput['step'];
const AT = '2026-11-25T09:59:00Z';

function cdar(step: Omit<Step, 'at'> & { at?: string }, invoice = frenchInvoice()): string {
  return lifecycleToCdar({ messageId: `cdv-${step.code}-1`, issuedAt: '2026-11-25T10:00:00+01:00', invoice, step: { at: AT, ...step } });
}

/** The message is valid: CDAR D22B XSD and every BR-FR-CDV rule. */
function expectValid(xml: string): void {
  const r = validate(xml);
  expect(r.syntax).toBe('cdar');
  expect(r.packs).toEqual(['br-fr-cdv@1.4.0']);
  expect(r.findings).toEqual([]);
  expect(r.valid).toBe(true);
}

function mappingError(fn: () => unknown): MappingError {
  try { fn(); } catch (e) { if (e instanceof MappingError) return e; throw e; }
  throw new Error('expected a MappingError');
}

describe('lifecycleToCdar: one valid message per status', () => {
  it('200 deposited: transmission phase, the seller platform to the seller and the PPF', () => {
    const xml = cdar({ code: '200', emittedBy: 'seller_platform' });
    expectValid(xml);
    const f = readCdar(xml);
    expect(f).toMatchObject({
      code: '200', label: 'Déposée', phase: '305', messageId: 'cdv-200-1', issuedAt: '2026-11-25T09:00:00Z', statusAt: '2026-11-25T09:59:00Z',
      guideline: 'urn.cpro.gouv.fr:1p0:CDV:invoice', businessProcess: 'REGULATED',
      invoice: { number: 'F202600042', issueDate: '2026-11-02', typeCode: '380', documentStatus: '10' },
      sender: { role: 'WK', ids: [] }, issuer: { role: 'WK', ids: [] },
      seller: { ids: [{ value: '303265045', scheme: '0002' }] },
      details: [], reasonCodes: [], amounts: {},
    });
    expect(f.recipients).toEqual([
      { role: 'SE', ids: [{ value: '303265045', scheme: '0002' }], name: 'Vendeur SAS', address: { value: '303265045', scheme: '0225' } },
      { role: 'DFH', ids: [{ value: '0000', scheme: '0238' }], name: 'PPF' },
    ]);
  });

  it('204 under review: processing phase, the buyer (BY, with its SIREN) to the seller; not for the PPF', () => {
    const xml = cdar({ code: '204', emittedBy: 'buyer' });
    expectValid(xml);
    const f = readCdar(xml);
    expect(f).toMatchObject({ code: '204', label: 'Prise_en_charge', phase: '23', invoice: { documentStatus: '45' }, issuer: { role: 'BY', ids: [{ value: '732829320', scheme: '0002' }], name: 'Acheteur SA' }, details: [] });
    expect(f.recipients.map((r) => r.role)).toEqual(['SE']);
  });

  it('205 approved', () => {
    const xml = cdar({ code: '205', emittedBy: 'buyer', note: 'Bon pour paiement' });
    expectValid(xml);
    expect(readCdar(xml)).toMatchObject({ code: '205', label: 'Approuvée', invoice: { documentStatus: '1' }, details: [{ notes: ['Bon pour paiement'], sequence: '1', amounts: [] }] });
  });

  it('206 partially approved: the four amount blocks MAP, MAPTTC, MNA, MNATTC and a motif (AUTRE when only a text is given)', () => {
    const xml = cdar({ code: '206', emittedBy: 'buyer', reason: 'Une ligne non livrée', amounts: { MAPTTC: '1200.00', MNATTC: '110', MAP: '1000.00', MNA: '100.00' } });
    expectValid(xml);
    const f = readCdar(xml);
    expect(f).toMatchObject({ code: '206', reasonCodes: ['AUTRE'], details: [{ reason: 'Une ligne non livrée' }], amounts: { MAP: '1000.00', MAPTTC: '1200.00', MNA: '100.00', MNATTC: '110.00' } });
    expect(f.details[0]!.amounts.every((a) => a.currency === 'EUR')).toBe(true);
  });

  it('207 in dispute: the buyer\'s motif from the referential', () => {
    const xml = cdar({ code: '207', emittedBy: 'buyer', reasonCode: 'TX_TVA_ERR', reason: 'Taux de TVA erroné' });
    expectValid(xml);
    expect(readCdar(xml)).toMatchObject({ code: '207', invoice: { documentStatus: '46' }, reasonCodes: ['TX_TVA_ERR'], details: [{ reason: 'Taux de TVA erroné' }] });
  });

  it('208 suspended: the API selector "suspended" is no motif, JUSTIF_ABS is written', () => {
    const xml = cdar({ code: '208', emittedBy: 'buyer', reasonCode: 'suspended', reason: 'Bon de livraison manquant' });
    expectValid(xml);
    expect(readCdar(xml).reasonCodes).toEqual(['JUSTIF_ABS']);
  });

  it('209 completed: the supplier to the buyer, with MAJ', () => {
    const xml = cdar({ code: '209', emittedBy: 'supplier', amounts: { MAJ: '1310.00' } });
    expectValid(xml);
    const f = readCdar(xml);
    expect(f).toMatchObject({ code: '209', issuer: { role: 'SE' }, amounts: { MAJ: '1310.00' } });
    expect(f.recipients).toEqual([{ role: 'BY', ids: [{ value: '732829320', scheme: '0002' }], name: 'Acheteur SA', address: { value: '732829320_STATUTS', scheme: '0225' } }]);
  });

  it('210 refused: the buyer\'s motif, and the PPF among the recipients', () => {
    const xml = cdar({ code: '210', emittedBy: 'buyer', reasonCode: 'DOUBLON', reason: 'Facture déjà reçue' });
    expectValid(xml);
    const f = readCdar(xml);
    expect(f).toMatchObject({ code: '210', label: 'Refusée', reasonCodes: ['DOUBLON'] });
    expect(f.invoice.documentStatus).toBeUndefined();
    expect(f.recipients.map((r) => r.role)).toEqual(['SE', 'DFH']);
  });

  it('211 payment sent: MPA with the payment date, RAP, and the payment reference', () => {
    const xml = cdar({ code: '211', emittedBy: 'buyer', paymentDate: '2026-11-20', paymentReference: 'VIR-2026-118', amounts: { MPA: '1000.00', RAP: '310.00' } });
    expectValid(xml);
    const f = readCdar(xml);
    expect(f).toMatchObject({ code: '211', invoice: { documentStatus: '47' }, amounts: { MPA: '1000.00', RAP: '310.00' }, details: [{ notes: ['VIR-2026-118'] }] });
    expect(f.details[0]!.amounts.find((a) => a.type === 'MPA')).toMatchObject({ date: '2026-11-20' });
  });

  it('212 collected: MEN split per VAT rate, each with its rate (BR-FR-CDV-14), and the PPF among the recipients', () => {
    const xml = cdar({ code: '212', emittedBy: 'supplier', paymentDate: '2026-11-21', amounts: { MEN: '655.00' } });
    expectValid(xml);
    const f = readCdar(xml);
    expect(f.details[0]!.amounts.map((a) => [a.type, a.amount, a.percent])).toEqual([['MEN', '600.00', '20.00'], ['MEN', '55.00', '10.00']]);
    expect(f.amounts).toEqual({ MEN: '655.00' });
    expect(f.recipients.map((r) => r.role)).toEqual(['BY', 'DFH']);
    // One VAT rate: one block, the whole amount.
    const single = frenchInvoice({ vatBreakdown: [{ taxableAmount: '100.00', taxAmount: '5.50', category: 'S', rate: '5.5' }] });
    const one = readCdar(cdar({ code: '212', emittedBy: 'supplier', amounts: { MEN: '105.50' }, paymentCurrency: 'EUR' }, single));
    expect(one.details[0]!.amounts.map((a) => [a.amount, a.percent])).toEqual([['105.50', '5.50']]);
  });

  it('213 rejected: a platform\'s word with a 213 motif, to the seller and the PPF', () => {
    const xml = cdar({ code: '213', emittedBy: 'platform', reasonCode: 'REJ_SEMAN', reason: 'BR-FR-12 en échec' });
    expectValid(xml);
    const f = readCdar(xml);
    expect(f).toMatchObject({ code: '213', phase: '305', issuer: { role: 'WK' }, reasonCodes: ['REJ_SEMAN'] });
    expect(f.recipients.map((r) => r.role)).toEqual(['SE', 'DFH']);
  });

  it('writes every status 200–213 valid, the platform statuses by a platform and the others by a company', () => {
    const emitter: Record<string, Step['emittedBy']> = { 200: 'seller_platform', 201: 'seller_platform', 202: 'buyer_platform', 203: 'buyer_platform', 209: 'supplier', 212: 'supplier', 213: 'platform' };
    const needs: Record<string, Partial<Step>> = { 210: { reasonCode: 'CMD_ERR' }, 212: { amounts: { MEN: '1310.00' } }, 213: { reasonCode: 'DOUBLON' } };
    for (let n = 200; n <= 213; n++) {
      const code = String(n);
      const xml = cdar({ code, emittedBy: emitter[code] ?? 'buyer', ...needs[code] });
      expect({ code, findings: validate(xml).findings }).toEqual({ code, findings: [] });
      expect(readCdar(xml).code).toBe(code);
    }
  });

  it('keeps the PPF rejection facts as given: an invoice number the PPF refuses still makes a valid message', () => {
    const xml = cdar({ code: '200', emittedBy: 'seller_platform' }, frenchInvoice({ number: 'F 2026#42' }));
    expectValid(xml);
    expect(readCdar(xml).invoice.number).toBe('F 2026#42');
  });

  it('a deposit (200) does not name the buyer: a buyer without a French identifier is no obstacle', () => {
    const foreign = frenchInvoice({ buyer: { name: 'Kunde GmbH', vatId: 'DE123456789' } });
    const xml = cdar({ code: '200', emittedBy: 'seller_platform' }, foreign);
    expectValid(xml);
    expect(JSON.stringify(readCdar(xml))).not.toContain('Kunde');
    expect(mappingError(() => cdar({ code: '204', emittedBy: 'buyer' }, foreign)).details[0]).toMatchObject({ field: 'invoice.buyer.legalRegistration' });
  });

  it('escapes what the caller wrote', () => {
    const xml = cdar({ code: '207', emittedBy: 'buyer', reasonCode: 'AUTRE', reason: 'prix <faux> & "quantité"' });
    expectValid(xml);
    expect(readCdar(xml).details[0]!.reason).toBe('prix <faux> & "quantité"');
  });
});

describe('lifecycleToCdar: bad input is a MappingError', () => {
  it('an unknown status code', () => {
    const e = mappingError(() => cdar({ code: '299', emittedBy: 'buyer' }));
    expect(e.code).toBe('INVALID_ENUM');
    expect(e.details).toEqual([expect.objectContaining({ field: 'step.code' })]);
  });

  it('a refusal without a motif, or with one outside its list', () => {
    expect(mappingError(() => cdar({ code: '210', emittedBy: 'buyer', reason: 'non' })).details).toEqual([expect.objectContaining({ field: 'step.reasonCode', rule: 'BR-FR-CDV-15' })]);
    const e = mappingError(() => cdar({ code: '210', emittedBy: 'buyer', reasonCode: 'JUSTIF_ABS' }));
    expect(e.code).toBe('INVALID_ENUM');
    expect(e.message).toContain('JUSTIF_ABS');
    expect(mappingError(() => cdar({ code: '207', emittedBy: 'buyer', reasonCode: 'NOT_A_MOTIF' })).details[0]).toMatchObject({ field: 'step.reasonCode', rule: 'BR-FR-CDV-CL-09' });
  });

  it('a collection without its amount, or an amount block the status does not carry, or an amount that is not a decimal', () => {
    expect(mappingError(() => cdar({ code: '212', emittedBy: 'supplier' })).details[0]).toMatchObject({ field: 'step.amounts.MEN', rule: 'BR-FR-CDV-14' });
    expect(mappingError(() => cdar({ code: '205', emittedBy: 'buyer', amounts: { MEN: '10.00' } })).details[0]).toMatchObject({ field: 'step.amounts.MEN', rule: 'BR-FR-CDV-CL-11' });
    expect(mappingError(() => cdar({ code: '211', emittedBy: 'buyer', amounts: { MPA: '12,50' } })).details[0]).toMatchObject({ field: 'step.amounts.MPA', rule: 'decimal' });
  });

  it('the wrong emitter for the phase: a platform status set by a company, a company status set by a platform', () => {
    expect(mappingError(() => cdar({ code: '200', emittedBy: 'buyer' })).details[0]).toMatchObject({ field: 'step.emittedBy' });
    expect(mappingError(() => cdar({ code: '212', emittedBy: 'platform', amounts: { MEN: '1.00' } })).details[0]).toMatchObject({ field: 'step.emittedBy' });
    expect(mappingError(() => cdar({ code: '204', emittedBy: 'nobody' as Step['emittedBy'] })).details[0]).toMatchObject({ field: 'step.emittedBy', rule: 'enum' });
  });

  it('every problem at once: bad dates, no invoice number, a party without a SIREN, a type code outside the French CIUS', () => {
    const invoice = frenchInvoice({ number: ' ', typeCode: '751', issueDate: '02/11/2026', buyer: { name: 'Inconnu' } });
    const e = mappingError(() => lifecycleToCdar({ messageId: '', issuedAt: 'yesterday', invoice, step: { code: '204', emittedBy: 'buyer', at: 'now' } }));
    expect(e.details.map((d) => d.field).sort()).toEqual(['invoice.buyer.legalRegistration', 'invoice.issueDate', 'invoice.number', 'invoice.typeCode', 'issuedAt', 'messageId', 'step.at'].sort());
    expect(e.message).toContain('(and 6 more)');
  });

  it('no invoice or no step', () => {
    expect(mappingError(() => lifecycleToCdar({ messageId: 'x', issuedAt: AT } as CdarInput)).details[0]).toMatchObject({ field: 'invoice', rule: 'required' });
    expect(mappingError(() => lifecycleToCdar({ messageId: 'x', issuedAt: AT, invoice: frenchInvoice() } as CdarInput)).details[0]).toMatchObject({ field: 'step' });
  });
});

describe('readCdar: what is not a status message', () => {
  it('another root, malformed XML, or a message without status or invoice number', () => {
    expect(mappingError(() => readCdar('<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>'))).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(mappingError(() => readCdar('<rsm:CrossDomainAcknowledgementAndResponse'))).toMatchObject({ code: 'INVALID_REQUEST' });
    const bare = '<rsm:CrossDomainAcknowledgementAndResponse xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossDomainAcknowledgementAndResponse:100"/>';
    const e = mappingError(() => readCdar(bare));
    expect(e.code).toBe('MISSING_FIELD');
    expect(e.details).toHaveLength(2);
  });

  it('a document over the shape caps is refused before parsing (PAYLOAD_TOO_LARGE)', () => {
    const deep = `<a>${'<b>'.repeat(5000)}${'</b>'.repeat(5000)}</a>`;
    expect(mappingError(() => readCdar(deep)).code).toBe('PAYLOAD_TOO_LARGE');
  });
});
