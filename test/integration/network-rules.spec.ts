/**
 * The destination network decides which rules apply: a send routed through a connector of the
 * Peppol network must pass the Peppol BIS rules whatever the document's CustomizationID says, the
 * same document to a network without that rule is accepted; `POST /v1/documents/validate` with
 * `network: peppol` answers what such a send would.
 */
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { largeJsonInvoice } from '../support/hostile-inputs.ts';
import { selfBilledInvoiceBy, change } from '../support/peppol-self-billing.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_CONNECTORS_PATH = 'test/support/connectors';
process.env.EINV_CONNECTORS = 'sandbox-network,peppol-like';

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => {
  await t.stop();
  delete process.env.EINV_CONNECTORS_PATH;
  delete process.env.EINV_CONNECTORS;
});

interface Finding { rule: string; source: string }

/** The sender's own invoice as UBL, declared plain EN 16931 (not Peppol BIS) and without the Peppol business process. */
async function plainEn16931Invoice(key: string, vatNumber: string, number: string): Promise<string> {
  const rendered = await api<{ renderedXml: string }>(t.baseUrl, 'POST', '/v1/documents/validate', { key, body: { format: 'json', type: 'invoice', document: largeJsonInvoice(number, 1, vatNumber) } });
  expect(rendered.status).toBe(200);
  return rendered.body.renderedXml
    .replace(/<cbc:CustomizationID>[^<]*<\/cbc:CustomizationID>/, '<cbc:CustomizationID>urn:cen.eu:en16931:2017</cbc:CustomizationID>')
    .replace(/<cbc:ProfileID>[^<]*<\/cbc:ProfileID>/, '');
}

it('validate with network=peppol applies the Peppol BIS rules to a plain EN 16931 invoice', async () => {
  const a = await bootstrap(t.baseUrl, { label: 'net-a' });
  const xml = await plainEn16931Invoice(a.apiKey, a.company.vatNumber, 'NET-1');
  const plain = await api<{ valid: boolean; packs: string[]; findings: Finding[] }>(t.baseUrl, 'POST', '/v1/documents/validate', { key: a.apiKey, body: { format: 'ubl-xml', xml } });
  expect(plain.body.packs.some((p) => p.startsWith('peppol-bis@'))).toBe(false);
  expect(plain.body.valid).toBe(true);

  const peppol = await api<{ valid: boolean; packs: string[]; findings: Finding[] }>(t.baseUrl, 'POST', '/v1/documents/validate', { key: a.apiKey, body: { format: 'ubl-xml', xml, network: 'peppol' } });
  expect(peppol.body.packs.some((p) => p.startsWith('peppol-bis@'))).toBe(true);
  expect(peppol.body.valid).toBe(false);
  expect(peppol.body.findings.map((f) => f.rule)).toContain('PEPPOL-EN16931-R001');
});

it('a send through a Peppol connector must pass the Peppol rules; the same invoice to the sandbox network is accepted', async () => {
  const a = await bootstrap(t.baseUrl, { label: 'net-b' });
  const b = await bootstrap(t.baseUrl, { label: 'net-c' });
  const toPeppol = await api<{ error: { code: string; details: Array<{ rule: string }> } }>(t.baseUrl, 'POST', '/v1/documents/send', {
    key: a.apiKey, body: { type: 'invoice', format: 'ubl-xml', to: '0106:12345678', xml: await plainEn16931Invoice(a.apiKey, a.company.vatNumber, 'NET-2') },
  });
  expect(toPeppol.status).toBe(422);
  expect(toPeppol.body.error.code).toBe('UBL_VALIDATION_FAILED');
  expect(toPeppol.body.error.details.map((d) => d.rule)).toContain('PEPPOL-EN16931-R001');

  const toSandbox = await api<{ id: string }>(t.baseUrl, 'POST', '/v1/documents/send', {
    key: a.apiKey, body: { type: 'invoice', format: 'ubl-xml', to: b.company.id, xml: await plainEn16931Invoice(a.apiKey, a.company.vatNumber, 'NET-3') },
  });
  expect(toSandbox.status).toBe(201);
});

it('a self-billing invoice gets the Peppol self-billing rules, not the Billing rules, from the Peppol network: validated, sent, and refused when it breaks them', async () => {
  const a = await bootstrap(t.baseUrl, { label: 'net-sb' });
  const xml = selfBilledInvoiceBy(a.company.vatNumber, '2026-09-01');
  const checked = await api<{ valid: boolean; profile: string; packs: string[]; findings: Finding[] }>(t.baseUrl, 'POST', '/v1/documents/validate', { key: a.apiKey, body: { format: 'ubl-xml', xml, network: 'peppol' } });
  expect(checked.status).toBe(200);
  expect(checked.body).toMatchObject({ valid: true, profile: 'peppol-bis-selfbilling-3.0', findings: [] });
  expect(checked.body.packs.map((p) => p.replace(/^en16931@.*/, 'en16931'))).toEqual(['en16931', 'peppol-bis-sb@3.0.2']);

  // Through the Peppol connector: the Billing rules (R004, R007, P0100 on a self-billing document) would refuse it.
  const sent = await api<{ id: string; type: string }>(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'ubl-xml', to: '0106:12345678', xml } });
  expect(sent.status).toBe(201);

  // An ordinary invoice type code under the self-billing identifiers breaks the self-billing rules.
  const wrongType = change(xml, '<cbc:InvoiceTypeCode>389<', '<cbc:InvoiceTypeCode>380<').replace('<cbc:ID>SB-1</cbc:ID>', '<cbc:ID>SB-2</cbc:ID>');
  const refused = await api<{ error: { code: string; details: Array<{ rule: string; source?: string }> } }>(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'ubl-xml', to: '0106:12345678', xml: wrongType } });
  expect(refused.status).toBe(422);
  expect(refused.body.error.code).toBe('UBL_VALIDATION_FAILED');
  expect(refused.body.error.details.map((d) => d.rule)).toEqual(['PEPPOL-EN16931-P0100']);
});
