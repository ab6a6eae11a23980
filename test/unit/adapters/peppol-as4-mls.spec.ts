/**
 * Which MLS a received document calls for (Peppol MLS 1.0, SBDH MLS_TO / MLS_TYPE): an RE with a BV
 * line per fatal finding when the platform found it invalid, an AP only when the sender asked for
 * every status, none for a repeat or a document the validator could not judge; sent to MLS_TO, else
 * to the sending access point's SPID.
 */
import { mlsFor } from '../../../adapters/peppol-as4/mls.ts';
import { spidOfSeat } from '../../../mappings/peppol/mls.ts';
import type { AcceptResult } from '../../../adapters/sdk/index.ts';
import type { SbdhHeader } from '../../../mappings/peppol/sbdh.ts';

const sbdh = (over: Partial<SbdhHeader> = {}): SbdhHeader => ({
  sender: { scheme: 'iso6523-actorid-upis', value: '0088:1' }, receiver: { scheme: 'iso6523-actorid-upis', value: '0088:2' },
  documentType: { scheme: 'busdox-docid-qns', value: 'x' }, process: { scheme: 'cenbii-procid-ubl', value: 'y' }, countryC1: 'BE',
  standard: 's', typeVersion: '2.1', type: 'Invoice', instanceIdentifier: 'inst-1', creationDateAndTime: '2026-11-26T00:00:00Z', ...over,
});
const valid: AcceptResult = { documentId: 'd1', duplicate: false, validation: { valid: true, findings: [{ rule: 'W-1', severity: 'warning', message: 'w', location: '/a' }] } };
const invalid: AcceptResult = {
  documentId: 'd1', duplicate: false,
  validation: { valid: false, findings: [{ rule: 'BR-01', severity: 'fatal', message: 'no spec id', location: '/Invoice/cbc:CustomizationID' }, { rule: 'W-1', severity: 'warning', message: 'w', location: '' }] },
};

it('the SPID of a seat: 0242 and its six digits', () => {
  expect(spidOfSeat('POP000306')).toBe('0242:000306');
});

it('an invalid document: RE with a BV line per fatal finding, to the sending access point', () => {
  expect(mlsFor(invalid, sbdh(), 'POP000002')).toEqual({
    to: '0242:000002', responseCode: 'RE', instanceIdentifier: 'inst-1',
    lines: [{ reasonCode: 'BV', description: 'BR-01: no spec id', location: '/Invoice/cbc:CustomizationID' }],
  });
});

it('MLS_TO, when the SBDH names one, is where it goes', () => {
  expect(mlsFor(invalid, sbdh({ mlsTo: { scheme: 'iso6523-actorid-upis', value: '0242:123456' } }), 'POP000002')?.to).toBe('0242:123456');
});

it('a valid document: AP only when the sender asked ALWAYS_SEND; nothing under FAILURE_ONLY or by default', () => {
  expect(mlsFor(valid, sbdh({ mlsType: 'ALWAYS_SEND' }), 'POP000002')).toEqual({ to: '0242:000002', responseCode: 'AP', lines: [], instanceIdentifier: 'inst-1' });
  expect(mlsFor(valid, sbdh({ mlsType: 'FAILURE_ONLY' }), 'POP000002')).toBeNull();
  expect(mlsFor(valid, sbdh(), 'POP000002')).toBeNull();
});

it('no MLS for a repeated message, nor for a document the validator could not judge', () => {
  expect(mlsFor({ ...invalid, duplicate: true }, sbdh(), 'POP000002')).toBeNull();
  expect(mlsFor({ documentId: 'd1', duplicate: false }, sbdh({ mlsType: 'ALWAYS_SEND' }), 'POP000002')).toBeNull();
});
