/**
 * The French UBL generator's seven operations against the real app: every shipped template
 * generates a UBL that our own engine judges valid under EN 16931 + BR-FR (and XSD); a broken body
 * is refused with the JSON path of each problem; preview answers an invalid draft with its
 * findings; validate judges a supplied UBL by XPath and a JSON body by JSON path; convert goes
 * CII → French UBL (the official French use-case invoice UC10 from the corpus) and UBL → CII; a
 * stored invoice is rewritten as French UBL; and every bad input gets the envelope with its code.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { issuers, type Issuers } from '../support/issuers.ts';
import { validate as engineValidate } from '../../services/validation/engine/index.ts';
import { FRENCH_UBL_EXAMPLES } from '../../mappings/index.ts';
import { corpusDir } from '../support/corpus.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let t: TestApp;
let key: string;
let supplier: Issuers;
let buyerOrg: Awaited<ReturnType<typeof bootstrap>>;

const SELLER_VAT = 'FR44732829320';

beforeAll(async () => {
  t = await startTestApp();
  key = (await bootstrap(t.baseUrl, { label: 'fr-ubl' })).apiKey;
  [supplier, buyerOrg] = [await issuers(t.baseUrl, [SELLER_VAT], 'fr-ubl-supplier'), await bootstrap(t.baseUrl, { label: 'fr-ubl-buyer' })];
}, 60_000);
afterAll(async () => { await t?.stop(); });

const post = (path: string, body: unknown, k = key) => api(t.baseUrl, 'POST', path, { key: k, body });
const template = async (id: string) => (await api(t.baseUrl, 'GET', `/v1/fr/ubl/templates/${id}`, { key })).body.body;

describe('templates', () => {
  it('lists the shipped examples, and reads one with a body generate takes as is', async () => {
    const list = await api(t.baseUrl, 'GET', '/v1/fr/ubl/templates', { key });
    expect(list.status).toBe(200);
    expect(list.body.data.map((d: { id: string }) => d.id)).toEqual(FRENCH_UBL_EXAMPLES.map((e) => e.id));
    const one = await api(t.baseUrl, 'GET', '/v1/fr/ubl/templates/self-billing', { key });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: 'self-billing', body: { selfBilled: true, document: { number: 'AF2026-0101' } } });
  });

  it('answers 404 for an unknown template and 401 without a key', async () => {
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/fr/ubl/templates/nope', { key }), 404, 'RESOURCE_NOT_FOUND');
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/fr/ubl/templates'), 401, 'MISSING_AUTH');
  });
});

describe('generate', () => {
  it.each(FRENCH_UBL_EXAMPLES.map((e) => [e.id]))('%s: a UBL that passes XSD, EN 16931 and BR-FR', async (id) => {
    const res = await post('/v1/fr/ubl/generate', await template(id));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ syntax: 'ubl', valid: true, customizationId: 'urn:cen.eu:en16931:2017', processingRule: 'B2B' });
    expect(res.body.packs).toEqual(expect.arrayContaining(['en16931@1.3.16', 'br-fr@1.4.0']));
    expect(res.body.findings.filter((f: { severity: string }) => f.severity === 'fatal')).toEqual([]);
    // Judged again here, outside the service: the engine itself, XSD included.
    const again = engineValidate(res.body.xml, { country: 'FR' });
    expect({ valid: again.valid, fatal: again.findings.filter((f) => f.severity === 'fatal') }).toEqual({ valid: true, fatal: [] });
    expect(res.body.xml).toContain('<cbc:Note>#BAR#B2B</cbc:Note>');
    expect(res.body.xml).toMatch(/<cbc:EndpointID schemeID="0225">\d{9}/);
    expect(res.body.xml).toMatch(/<cbc:CompanyID schemeID="0002">\d{9}<\/cbc:CompanyID>/);
  });

  it('writes the French facts: SIRET as 0009 identifier, billing framework from the category, the three payment mentions, the extended profile on request', async () => {
    const body = await template('b2b-goods-multiple-vat-rates');
    const res = await post('/v1/fr/ubl/generate', { ...body, french: { operationCategory: 'goods', profile: 'extended-ctc-fr' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ billingFramework: 'B1', customizationId: 'urn:cen.eu:en16931:2017#conformant#urn.cpro.gouv.fr:1p0:extended-ctc-fr', valid: true });
    expect(res.body.packs).toEqual(expect.arrayContaining(['extended-ctc-fr@1.4.0', 'br-fr@1.4.0']));
    expect(res.body.xml).toContain('<cbc:ID schemeID="0009">30326504500011</cbc:ID>');
    expect(res.body.xml).toContain('<cbc:EndpointID schemeID="0225">732829320_ACHATS</cbc:EndpointID>');
    for (const code of ['PMT', 'PMD', 'AAB']) expect(res.body.xml).toContain(`<cbc:Note>#${code}#`);
    expect((res.body.xml.match(/<cac:TaxSubtotal>/g) ?? []).length).toBe(3);
  });

  it('refuses a B2B invoice whose buyer has no SIREN, naming the JSON field, before any rule runs', async () => {
    const body = await template('b2b-domestic-services');
    const { siren: _s, vatNumber: _v, ...buyer } = body.document.buyer;
    const res = await post('/v1/fr/ubl/generate', { ...body, document: { ...body.document, buyer } });
    expectEnvelope(res, 400, 'MISSING_FIELD');
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'document.buyer.siren', rule: 'BR-FR-11' })]);
  });

  it('refuses a SIREN that fails its check digit and a SIRET of another company', async () => {
    const body = await template('b2b-domestic-services');
    const res = await post('/v1/fr/ubl/generate', { ...body, document: { ...body.document, seller: { ...body.document.seller, siret: '73282932000017' }, buyer: { ...body.document.buyer, vatNumber: undefined, siren: '732829321' } } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['document.buyer.siren', 'document.seller.siret']);
  });

  it('refuses with 422 UBL_VALIDATION_FAILED when a French rule fails, the JSON path first', async () => {
    const body = await template('b2b-domestic-services');
    const res = await post('/v1/fr/ubl/generate', { ...body, document: { ...body.document, lines: [{ description: 'Conseil', quantity: 1, unitPrice: 100, vatRate: 19 }] } });
    expectEnvelope(res, 422, 'UBL_VALIDATION_FAILED');
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ rule: 'BR-FR-16_BT-152', field: 'document.lines[0]' })]));
    expect(res.body.error.findings.length).toBeGreaterThan(0);
  });

  it('refuses a body the schema rejects, with 400 and the field', async () => {
    const res = await post('/v1/fr/ubl/generate', { document: { number: 'X' }, french: { billingFramework: 'Z9' } });
    expectEnvelope(res, 400, 'INVALID_ENUM');
    expectEnvelope(await post('/v1/fr/ubl/generate', { french: {} }), 400, 'MISSING_FIELD');
  });
});

describe('preview', () => {
  it('answers an invalid draft with its XML and findings instead of refusing it', async () => {
    const body = await template('credit-note');
    const { billingReferenceDate: _d, ...document } = body.document;
    const res = await post('/v1/fr/ubl/preview', { ...body, document });
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(false);
    expect(res.body.xml).toContain('<CreditNote');
    expect(res.body.findings).toEqual(expect.arrayContaining([expect.objectContaining({ rule: 'BR-FR-CO-05_BT-3', severity: 'fatal', path: expect.stringMatching(/^document/) })]));
  });
});

describe('validate', () => {
  it('judges a supplied UBL by XPath, and a JSON body by JSON path', async () => {
    const good = (await post('/v1/fr/ubl/generate', await template('b2b-domestic-services'))).body.xml as string;
    const ok = await post('/v1/fr/ubl/validate', { format: 'ubl-xml', xml: good });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ valid: true, profile: 'en16931' });
    const broken = await post('/v1/fr/ubl/validate', { format: 'ubl-xml', xml: good.replace('<cbc:Note>#PMT#', '<cbc:Note>#XXX#') });
    expect(broken.body.valid).toBe(false);
    expect(broken.body.findings).toEqual(expect.arrayContaining([expect.objectContaining({ rule: 'BR-FR-05_BT-22-1', location: expect.stringMatching(/^\/ubl:Invoice\[1\]$/) })]));

    const body = await template('b2b-domestic-services');
    const json = await post('/v1/fr/ubl/validate', { format: 'json', ...body, document: { ...body.document, number: 'F 2026 42' } });
    expect(json.status).toBe(200);
    expect(json.body.valid).toBe(false);
    expect(json.body.findings).toEqual(expect.arrayContaining([expect.objectContaining({ rule: 'BR-FR-01_BT-1-2', path: 'document.number' })]));
  });

  it('answers 400 for a missing document or XML and for XML that is not XML', async () => {
    expectEnvelope(await post('/v1/fr/ubl/validate', { format: 'ubl-xml' }), 400, 'MISSING_FIELD');
    expectEnvelope(await post('/v1/fr/ubl/validate', { format: 'json' }), 400, 'MISSING_FIELD');
    const res = await post('/v1/fr/ubl/validate', { format: 'ubl-xml', xml: '<Invoice' });
    expectEnvelope(res, 400, 'INVALID_REQUEST');
    expect(res.body.error.message).toMatch(/not well-formed/);
  });
});

describe('convert', () => {
  it('converts a French UBL to CII and that CII back to French UBL, both valid under the French packs', async () => {
    const ubl = (await post('/v1/fr/ubl/generate', await template('b2b-goods-multiple-vat-rates'))).body.xml as string;
    const cii = await post('/v1/fr/ubl/convert', { to: 'cii', xml: ubl });
    expect(cii.status).toBe(200);
    expect(cii.body).toMatchObject({ syntax: 'cii', valid: true, billingFramework: 'B1', processingRule: 'B2B' });
    expect(cii.body.packs).toEqual(expect.arrayContaining(['en16931@1.3.16', 'br-fr@1.4.0']));
    expect(cii.body.xml).toContain('CrossIndustryInvoice');
    expect(cii.body.xml).toContain('F2026-0043');

    const back = await post('/v1/fr/ubl/convert', { to: 'ubl', xml: cii.body.xml });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ syntax: 'ubl', valid: true, billingFramework: 'B1' });
    expect(back.body.xml).toContain('<cbc:EndpointID schemeID="0225">732829320_ACHATS</cbc:EndpointID>');
    expect((back.body.xml.match(/<cac:TaxSubtotal>/g) ?? []).length).toBe(3);
  });

  it('does not call the official multi-vendor use case UC10 (CII, S8) valid: its sub-invoice lines have no place in the EN 16931 model', async () => {
    const cii = readFileSync(join(corpusDir(), 'mustangproject/validator/src/test/resources/UC10_F202600004_EXTENDED_FX_CII_Commentee.xml'), 'utf8');
    const ubl = await post('/v1/fr/ubl/convert', { to: 'ubl', xml: cii, french: { profile: 'extended-ctc-fr' } });
    expect(ubl.status).toBe(200);
    expect(ubl.body).toMatchObject({ syntax: 'ubl', valid: false, billingFramework: 'S8' });
    expect(ubl.body.xml).toContain('<cbc:ID>F202600004</cbc:ID>');
    expect(ubl.body.findings.map((f: { rule: string }) => f.rule)).toContain('BR-FR-MV-01_EXT-FR-FE-163');
  });

  it('refuses XML that is not the syntax it converts from, and XML that is not well-formed', async () => {
    const good = (await post('/v1/fr/ubl/generate', await template('b2b-domestic-services'))).body.xml as string;
    expectEnvelope(await post('/v1/fr/ubl/convert', { to: 'ubl', xml: '<Foo/>' }), 400, 'INVALID_REQUEST');
    expectEnvelope(await post('/v1/fr/ubl/convert', { to: 'ubl', xml: '<Invoice><broken' }), 400, 'INVALID_REQUEST');
    expectEnvelope(await post('/v1/fr/ubl/convert', { to: 'cii', xml: '<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>' }), 400, 'INVALID_REQUEST');
    expectEnvelope(await post('/v1/fr/ubl/convert', { to: 'pdf', xml: good }), 400, 'INVALID_ENUM');
  });
});

describe('generate from a stored document', () => {
  it('rewrites a sent Peppol invoice as French UBL (0225 addresses, SIREN from the VAT numbers, S1, notes)', async () => {
    const seller = { name: 'Atelier SARL', vatNumber: SELLER_VAT, address: { street: '2 rue de Lyon', city: 'Lyon', postalCode: '69001', country: 'FR' } };
    const buyer = { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } };
    const sent = await api(t.baseUrl, 'POST', '/v1/documents/send', {
      key: supplier.apiKey, headers: supplier.as(SELLER_VAT),
      body: { type: 'invoice', format: 'json', to: buyerOrg.company.peppolId, document: { number: `FRG-${Date.now()}`, issueDate: '2026-09-01', dueDate: '2026-10-01', buyerReference: 'PO', seller, buyer, lines: [{ description: 'Work', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 20 }] } },
    });
    expect(sent.status).toBe(201);
    const res = await api(t.baseUrl, 'POST', `/v1/fr/ubl/documents/${sent.body.id}`, { key: supplier.apiKey, headers: supplier.as(SELLER_VAT), body: {} });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ valid: true, billingFramework: 'S1', processingRule: 'B2B' });
    expect(res.body.xml).toContain('<cbc:EndpointID schemeID="0225">732829320</cbc:EndpointID>');
    expect(res.body.xml).toContain('<cbc:EndpointID schemeID="0225">303265045</cbc:EndpointID>');
  });

  it('answers 404 for a document the caller cannot see', async () => {
    expectEnvelope(await post('/v1/fr/ubl/documents/doc_01JUNKNOWN0000000000000000', {}), 404, 'DOCUMENT_NOT_FOUND');
  });
});
