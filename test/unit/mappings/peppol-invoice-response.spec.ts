/**
 * The Peppol Invoice Response mapping (mappings/peppol/invoice-response.ts): each buyer move of the
 * platform's lifecycle becomes the T111 status and clarifications the specification asks for, the
 * builder writes what reads back field by field, refuses what would break a T111 rule (naming it),
 * and the reader refuses what is not an Invoice Response.
 */
import {
  buildInvoiceResponse, INVOICE_RESPONSE_CUSTOMIZATION_ID, INVOICE_RESPONSE_DOCUMENT_TYPE_ID, INVOICE_RESPONSE_PROFILE_ID, isInvoiceResponseDocumentType,
  LIFECYCLE_STATUS_OF_RESPONSE, readInvoiceResponse, responseCodeOf, responseOfMove, type InvoiceResponseInput,
} from '../../../mappings/peppol/invoice-response.ts';
import { buildMls, MLS_DOCUMENT_TYPE_ID } from '../../../mappings/peppol/mls.ts';
import { MappingError } from '../../../mappings/errors.ts';

const base: InvoiceResponseInput = {
  id: 'imrid001',
  responseCode: 'AP',
  issueDate: '2026-11-20',
  sender: { endpoint: '0088:5790000000011', name: 'Buyer organization' },
  receiver: { endpoint: '0208:0403170701', name: 'Seller company' },
  document: { id: 'INV-2026-0042', issueDate: '2026-11-02', typeCode: '380' },
};

function ruleOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof MappingError) return err.details[0]!.rule;
    throw err;
  }
  throw new Error('expected a MappingError');
}

describe('lifecycle moves as Invoice Response statuses', () => {
  it.each([
    ['203', 'AB'], ['204', 'IP'], ['205', 'AP'], ['206', 'CA'], ['207', 'UQ'], ['208', 'UQ'], ['210', 'RE'], ['211', 'PD'],
  ])('buyer code %s is sent as %s, and read back as the same API status', (code, response) => {
    expect(responseCodeOf(code)).toBe(response);
    const move = responseOfMove({ code, reason: 'Purchase order 4711 is missing' })!;
    expect(move.responseCode).toBe(response);
    const read = readInvoiceResponse(buildInvoiceResponse({ ...base, responseCode: move.responseCode, clarifications: move.clarifications }));
    expect(read.responseCode).toBe(response);
    expect(LIFECYCLE_STATUS_OF_RESPONSE[read.responseCode]).toBe({ AB: 'received', IP: 'under_review', AP: 'approved', CA: 'approved', UQ: 'disputed', RE: 'rejected', PD: 'paid' }[response]);
  });

  it.each(['200', '201', '202', '209', '212', '213'])('%s (a seller or platform step) has no Invoice Response form', (code) => {
    expect(responseCodeOf(code)).toBeUndefined();
    expect(responseOfMove({ code })).toBeUndefined();
  });

  it('a rejection keeps an OPStatusReason code it is given, with the reason as text (R001)', () => {
    expect(responseOfMove({ code: '210', reasonCode: 'REF', reason: 'PO reference is missing' })!.clarifications).toEqual([{ list: 'reason', code: 'REF', text: 'PO reference is missing' }]);
  });

  it('a reason code of another list (a French motif) goes as OTH with the text (R002)', () => {
    expect(responseOfMove({ code: '210', reasonCode: 'DOUBLON', reason: 'Sent twice' })!.clarifications).toEqual([{ list: 'reason', code: 'OTH', text: 'Sent twice' }]);
    expect(responseOfMove({ code: '207', reasonCode: 'XYZ' })!.clarifications).toEqual([{ list: 'reason', code: 'OTH', text: 'Reason XYZ' }]);
  });

  it('an acceptance with no reason carries no clarification; a payment says when it took effect', () => {
    expect(responseOfMove({ code: '205' })!.clarifications).toEqual([]);
    expect(responseOfMove({ code: '211', paymentDate: '2026-11-30' })).toEqual({ responseCode: 'PD', clarifications: [], effectiveDate: '2026-11-30' });
  });

  it('a payment with an amount left to pay is PPD, with a text (R004, R005)', () => {
    const move = responseOfMove({ code: '211', paymentDate: '2026-11-30', amounts: { MPA: '600.00', RAP: '400.00' } })!;
    expect(move.clarifications).toEqual([{ list: 'reason', code: 'PPD', text: 'Partially paid; 400.00 remains to be paid' }]);
    const read = readInvoiceResponse(buildInvoiceResponse({ ...base, ...move }));
    expect(read).toMatchObject({ responseCode: 'PD', effectiveDate: '2026-11-30', clarifications: [{ list: 'reason', code: 'PPD' }] });
  });
});

describe('buildInvoiceResponse and readInvoiceResponse', () => {
  it('writes the T111 layout and reads it back field by field', () => {
    const xml = buildInvoiceResponse({ ...base, responseCode: 'RE', note: 'See our letter', clarifications: [{ list: 'reason', code: 'REF', text: 'PO reference is missing' }, { list: 'action', code: 'NIN', text: 'Send a new invoice' }] });
    expect(xml).toContain(`<cbc:CustomizationID>${INVOICE_RESPONSE_CUSTOMIZATION_ID}</cbc:CustomizationID>`);
    expect(xml).toContain('<cbc:EndpointID schemeID="0088">5790000000011</cbc:EndpointID>');
    expect(xml).toContain('<cbc:StatusReasonCode listID="OPStatusAction">NIN</cbc:StatusReasonCode>');
    expect(readInvoiceResponse(xml)).toEqual({
      ...base, responseCode: 'RE', note: 'See our letter', customizationId: INVOICE_RESPONSE_CUSTOMIZATION_ID, profileId: INVOICE_RESPONSE_PROFILE_ID,
      clarifications: [{ list: 'reason', code: 'REF', text: 'PO reference is missing' }, { list: 'action', code: 'NIN', text: 'Send a new invoice' }],
    });
  });

  it('escapes what the parties and reasons say', () => {
    const xml = buildInvoiceResponse({ ...base, responseCode: 'UQ', sender: { ...base.sender, name: 'A & B <Buyers>' }, clarifications: [{ list: 'reason', code: 'OTH', text: 'Price "list" < agreed' }] });
    const read = readInvoiceResponse(xml);
    expect(read.sender.name).toBe('A & B <Buyers>');
    expect(read.clarifications).toEqual([{ list: 'reason', code: 'OTH', text: 'Price "list" < agreed' }]);
  });

  it.each<[string, Partial<InvoiceResponseInput>, string]>([
    ['RE without a clarification', { responseCode: 'RE', clarifications: [] }, 'PEPPOL-T111-R001'],
    ['UQ without a clarification', { responseCode: 'UQ' }, 'PEPPOL-T111-R001'],
    ['CA without a clarification', { responseCode: 'CA' }, 'PEPPOL-T111-R001'],
    ['a reason code outside OPStatusReason', { responseCode: 'RE', clarifications: [{ list: 'reason', code: 'XXX' }] }, 'PEPPOL-T111-R007'],
    ['an action code outside OPStatusAction', { responseCode: 'RE', clarifications: [{ list: 'action', code: 'REF' }] }, 'PEPPOL-T111-R006'],
    ['PPD with another status', { responseCode: 'AP', clarifications: [{ list: 'reason', code: 'PPD', text: 'half' }] }, 'PEPPOL-T111-R005'],
    ['PPD without a text', { responseCode: 'PD', clarifications: [{ list: 'reason', code: 'PPD' }] }, 'PEPPOL-T111-R004'],
    ['a status outside UNCL 4343', { responseCode: 'ZZ' as never }, 'PEPPOL-T111-B00301'],
    ['an issue date that is no date', { issueDate: '2026-13-01' }, 'PEPPOL-COMMON-R030'],
    ['a party without a scheme', { sender: { endpoint: '5790000000011', name: 'Buyer' } }, 'PEPPOL-T111-B00202'],
    ['no document reference', { document: { id: ' ' } }, 'PEPPOL-T111-B00401'],
  ])('refuses %s (%s)', (_what, change, rule) => {
    expect(ruleOf(() => buildInvoiceResponse({ ...base, ...change }))).toBe(rule);
  });

  it('refuses what is not an Invoice Response: an MLS, another root, a DOCTYPE, no status', () => {
    const mls = buildMls({ responseCode: 'AP', id: 'm1', senderSpid: '0242:000001', receiverSpid: '0242:000002', referencedMessage: { instanceIdentifier: 'x' } });
    expect(ruleOf(() => readInvoiceResponse(mls))).toBe('PEPPOL-T111-R003');
    expect(ruleOf(() => readInvoiceResponse('<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>'))).toBe('root-element');
    expect(ruleOf(() => readInvoiceResponse('<!DOCTYPE x [<!ENTITY a "b">]><x/>'))).toMatch(/no-doctype|well-formed/);
    const noStatus = buildInvoiceResponse(base).replace('<cbc:ResponseCode>AP</cbc:ResponseCode>', '');
    expect(ruleOf(() => readInvoiceResponse(noStatus))).toBe('PEPPOL-T111-B00301');
  });

  it('its Peppol document type is told from the MLS one', () => {
    expect(isInvoiceResponseDocumentType(INVOICE_RESPONSE_DOCUMENT_TYPE_ID)).toBe(true);
    expect(isInvoiceResponseDocumentType(MLS_DOCUMENT_TYPE_ID)).toBe(false);
  });
});
