/**
 * POST /v1/documents/validate end to end: every input form (JSON body, UBL, CII, hybrid PDF), plain
 * findings, and clear 400s for bad input (including hostile XML), never a 500.
 */
import { readFileSync } from 'node:fs';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
const CORPUS = corpusDir();
const read = (path: string) => readFileSync(`${CORPUS}/${path}`, 'utf8');

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp({ services: ['gateway', 'tenancy', 'sandbox', 'validation'] });
  key = (await bootstrap(t.baseUrl)).apiKey;
});
afterAll(async () => { await t.stop(); });

const seller = { name: 'Acme SPRL', vatNumber: 'BE0403170701', address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } };
const buyer = { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } };
const invoice = (lines: unknown[]) => ({ number: 'INV-1', issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO-9', seller, buyer, lines });

it('validates a JSON body rendered to UBL and returns the rendered XML', async () => {
  const res = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key, body: { format: 'json', type: 'invoice', document: invoice([{ description: 'Consulting', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 21 }]) } });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ valid: true, syntax: 'ubl-invoice', findings: [] });
  expect(res.body.packs).toEqual(expect.arrayContaining([expect.stringMatching(/^en16931@/), expect.stringMatching(/^peppol-bis@/)]));
  expect(res.body.renderedXml).toContain('<cbc:ID>INV-1</cbc:ID>');
});

it('explains a failing document in plain language with the rule, the location, the business term and a hint', async () => {
  // An exempt line without its exemption reason breaks the E-category rules.
  const res = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key, body: { format: 'json', type: 'invoice', document: invoice([{ description: 'Exempt service', quantity: 1, unitPrice: 50, vatCategory: 'S', vatRate: 21 }, { description: 'Training', quantity: 1, unitPrice: 10, vatCategory: 'E', vatRate: 0, vatExemptionReason: 'Exempt' }]) } });
  expect(res.status).toBe(200);
  expect(res.body.valid).toBe(false);
  const fatal = res.body.findings.filter((f: { severity: string }) => f.severity === 'fatal');
  expect(fatal.map((f: { rule: string }) => f.rule).sort()).toEqual(['BR-E-01', 'BR-S-08']);
  for (const f of fatal) {
    expect(f.message.length).toBeGreaterThan(20);
    expect(f.message).not.toMatch(/^\[?BR-/);
    expect(f.hint.length).toBeGreaterThan(10);
    expect(f.location).toMatch(/^\//);
  }
});

it('validates caller UBL and CII as given, and finds a broken total', async () => {
  const ubl = read('peppol-bis-invoice-3/rules/examples/base-example.xml');
  const ok = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key, body: { format: 'ubl-xml', xml: ubl } });
  expect(ok.body).toMatchObject({ valid: true, profile: 'peppol-bis-billing-3.0' });
  const broken = ubl.replace(/<cbc:PayableAmount currencyID="EUR">([0-9.]+)</, '<cbc:PayableAmount currencyID="EUR">1.00<');
  const bad = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key, body: { format: 'ubl-xml', xml: broken } });
  expect(bad.body.valid).toBe(false);
  const br = bad.body.findings.find((f: { rule: string }) => f.rule === 'BR-CO-16');
  expect(br).toMatchObject({ severity: 'fatal', bt: expect.stringMatching(/^B[TG]-/) });

  const cii = read('eInvoicing-EN16931/cii/examples/CII_example1.xml');
  const ciiRes = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key, body: { format: 'cii-xml', xml: cii } });
  expect(ciiRes.status).toBe(200);
  expect(ciiRes.body.syntax).toBe('cii');
  expect(ciiRes.body.findings.filter((f: { severity: string }) => f.severity === 'fatal')).toEqual([]);
});

it('validates the CII inside a hybrid PDF deposited with format=auto', async () => {
  const pdf = readFileSync(`${CORPUS}/mustangproject/validator/src/test/resources/validXRechnung.pdf`);
  const res = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key, body: { format: 'auto', file: { content: pdf.toString('base64') } } });
  expect(res.status).toBe(200);
  expect(res.body.syntax).toBe('cii');
  expect(Array.isArray(res.body.findings)).toBe(true);
});

it('answers 400 with field details for missing input, bad JSON documents and hostile or broken XML', async () => {
  const missing = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key, body: { format: 'ubl-xml' } });
  expectEnvelope(missing, 400, 'MISSING_FIELD');
  expect(missing.body.error.details[0].field).toBe('xml');
  const subtype = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key, body: { format: 'json', type: 'credit-note', documentSubtype: 'PREPAYMENT_INVOICE', document: invoice([]) } });
  expectEnvelope(subtype, 400, 'INVALID_REQUEST');
  expect(subtype.body.error.details).toEqual(expect.arrayContaining([{ field: 'documentSubtype', rule: 'invoice-only', message: expect.any(String) }]));
  const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">&lol2;</Invoice>`;
  expectEnvelope(await api(t.baseUrl, 'POST', '/v1/documents/validate', { key, body: { format: 'ubl-xml', xml: laughs } }), 400, 'INVALID_REQUEST');
  const xxe = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">&e;</Invoice>`;
  const xxeRes = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key, body: { format: 'ubl-xml', xml: xxe } });
  expectEnvelope(xxeRes, 400, 'INVALID_REQUEST');
  expect(xxeRes.text).not.toContain('root:');
  expectEnvelope(await api(t.baseUrl, 'POST', '/v1/documents/validate', { key, body: { format: 'ubl-xml', xml: '<Invoice><unclosed>' } }), 400, 'INVALID_REQUEST');
  expectEnvelope(await api(t.baseUrl, 'POST', '/v1/documents/validate', { key, body: { format: 'auto', file: { content: Buffer.from('%PDF-1.7 broken').toString('base64') } } }), 400, 'INVALID_REQUEST');
  expectEnvelope(await api(t.baseUrl, 'POST', '/v1/documents/validate', { key, body: { format: 'yaml' } }), 400, 'INVALID_ENUM');
});

it('requires the send scope', async () => {
  const narrow = await api(t.baseUrl, 'POST', '/v1/api-keys', { key, body: { name: 'reader', scopes: ['documents.read'] } });
  expectEnvelope(await api(t.baseUrl, 'POST', '/v1/documents/validate', { key: narrow.body.key, body: { format: 'ubl-xml', xml: '<x/>' } }), 403, 'INSUFFICIENT_SCOPE');
});
