/**
 * ZUGFeRD 1.0 over HTTP: the FeRD samples, as bare XML and as a hybrid PDF, are sent with
 * format=auto by the company they name as seller, delivered through the sandbox network as EN 16931
 * CII (the caller's bytes stay the original), and received with the canonical fields; through a
 * Peppol connector the delivered form is Peppol BIS UBL naming the routing's endpoints, checked by
 * the Peppol rules; broken ZUGFeRD 1.0 documents are 400s in the error envelope with details.
 */
import { issuers } from '../support/issuers.ts';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { ZF1, readMustang, zugferd1Pdf } from '../support/zugferd1.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_DELIVERY_RETRY_MS = '20';
process.env.EINV_RATE_LIMITS = 'free=100000';
process.env.EINV_CONNECTORS_PATH = 'test/support/connectors';
process.env.EINV_CONNECTORS = 'sandbox-network,peppol-like';

/** The seller both FeRD samples (COMFORT "Einfach", EXTENDED "Warenrechnung") name. */
const FERD_SELLER_VAT = 'DE123456789';

let t: TestApp;
let ferd: Awaited<ReturnType<typeof issuers>>;
let bob: Awaited<ReturnType<typeof bootstrap>>;
beforeAll(async () => {
  t = await startTestApp();
  ferd = await issuers(t.baseUrl, [FERD_SELLER_VAT], 'ferd');
  bob = await bootstrap(t.baseUrl, { label: 'bob' });
});
afterAll(async () => {
  await t.stop();
  delete process.env.EINV_CONNECTORS_PATH;
  delete process.env.EINV_CONNECTORS;
});

const sendAuto = (content: Buffer, to: string, filename?: string) => api(t.baseUrl, 'POST', '/v1/documents/send', {
  key: ferd.apiKey, headers: ferd.as(FERD_SELLER_VAT),
  body: { type: 'invoice', format: 'auto', to, file: { content: content.toString('base64'), ...(filename ? { filename } : {}) } },
});

async function settle(id: string, ms = 15_000) {
  const until = Date.now() + ms;
  for (;;) {
    const res = await api(t.baseUrl, 'GET', `/v1/documents/${id}`, { key: ferd.apiKey, headers: ferd.as(FERD_SELLER_VAT) });
    if (res.body.deliveryStatus !== 'pending' || Date.now() > until) return res.body;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function incomingFor(number: string) {
  const until = Date.now() + 10_000;
  for (;;) {
    const res = await api(t.baseUrl, 'POST', '/v1/documents/search', { key: bob.apiKey, body: { filters: { direction: 'incoming', number } } });
    if (res.body.data?.length || Date.now() > until) return res.body.data?.[0];
    await new Promise((r) => setTimeout(r, 100));
  }
}

const bytesOf = async (key: string, path: string) => Buffer.from(await (await fetch(`${t.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } })).arrayBuffer());

describe('ZUGFeRD 1.0 sent with format=auto', () => {
  it('bare XML (COMFORT): created, delivered as EN 16931 CII, the ZUGFeRD 1.0 bytes kept as the original', async () => {
    const xml = readMustang(ZF1.comfort);
    const res = await sendAuto(xml, bob.company.peppolId);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ direction: 'outgoing', format: 'cii-xml', number: '471102', issueDate: '2013-03-05', dueDate: '2013-04-04', currency: 'EUR', totalAmount: 529.87, deliveryStatus: 'pending' });
    // Bare XML carries no PDF: the PDF link is the invoice drawn from it.
    expect(res.body.links.pdf).toBe(`/v1/documents/${res.body.id}/pdf`);
    expect(await settle(res.body.id)).toMatchObject({ deliveryStatus: 'delivered' });

    // The sender's record: its original is the caller's ZUGFeRD 1.0, its XML the CII delivered.
    const sender = { key: ferd.apiKey, headers: ferd.as(FERD_SELLER_VAT) };
    expect((await bytesOf(ferd.apiKey, `/v1/documents/${res.body.id}/original`)).equals(xml)).toBe(true);
    const sent = await api(t.baseUrl, 'GET', `/v1/documents/${res.body.id}/json`, sender);
    expect(sent.body).toMatchObject({ customizationId: 'urn:ferd:CrossIndustryDocument:invoice:1p0:comfort', number: '471102', seller: { name: 'Lieferant GmbH', vatId: FERD_SELLER_VAT } });

    const incoming = await incomingFor('471102');
    expect(incoming).toMatchObject({ direction: 'incoming', format: 'cii-xml', number: '471102', currency: 'EUR', totalAmount: 529.87 });
    const original = await api(t.baseUrl, 'GET', incoming.links.original, { key: bob.apiKey });
    expect(original.text).toBe(xml.toString('utf8'));
    const delivered = (await api(t.baseUrl, 'GET', incoming.links.xml, { key: bob.apiKey })).text;
    expect(delivered).toContain('<rsm:CrossIndustryInvoice');
    expect(delivered).toContain('<ram:ID>urn:cen.eu:en16931:2017</ram:ID>');
    expect(delivered).not.toContain('urn:ferd:');
    const json = (await api(t.baseUrl, 'GET', incoming.links.json, { key: bob.apiKey })).body;
    expect(json).toMatchObject({
      number: '471102', issueDate: '2013-03-05', currency: 'EUR',
      seller: { name: 'Lieferant GmbH', vatId: FERD_SELLER_VAT }, buyer: { name: 'Kunden AG Mitte' },
      totals: { taxExclusive: '473.00', vatTotal: '56.87', taxInclusive: '529.87', payable: '529.87' },
      vatBreakdown: [{ category: 'S', rate: '7.00', taxableAmount: '275.00', taxAmount: '19.25' }, { category: 'S', rate: '19.00', taxableAmount: '198.00', taxAmount: '37.62' }],
    });
    expect(json.lines.map((l: { item: { name: string }; netAmount: string }) => [l.item.name, l.netAmount])).toEqual([['Trennblätter A4', '198.00'], ['Joghurt Banane', '275.00']]);
  });

  it('hybrid PDF (EXTENDED with additional data): created with its PDF, delivered as CII, original and /pdf are the PDF', async () => {
    const pdf = readMustang(ZF1.pdf);
    const res = await sendAuto(pdf, bob.company.peppolId, 'rechnung.pdf');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ format: 'cii-xml', number: 'R87654321012345', issueDate: '2013-08-06', totalAmount: 518.99 });
    expect(await settle(res.body.id)).toMatchObject({ deliveryStatus: 'delivered' });
    const incoming = await incomingFor('R87654321012345');
    expect(incoming.links.pdf).toBe(`/v1/documents/${incoming.id}/pdf`);
    const original = await api(t.baseUrl, 'GET', incoming.links.pdf, { key: bob.apiKey });
    expect(original.headers.get('content-type')).toBe('application/pdf');
    expect((await bytesOf(bob.apiKey, incoming.links.original)).equals(pdf)).toBe(true);
    const delivered = (await api(t.baseUrl, 'GET', incoming.links.xml, { key: bob.apiKey })).text;
    expect(delivered).toContain('<rsm:CrossIndustryInvoice');
    const json = (await api(t.baseUrl, 'GET', incoming.links.json, { key: bob.apiKey })).body;
    expect(json).toMatchObject({ number: 'R87654321012345', orderReference: 'B123456789', totals: { chargeTotal: '3.00', allowanceTotal: '11.21', payable: '518.99' } });
    expect(json.lines).toHaveLength(6);
  });

  it('validate answers what send checks: the ZUGFeRD 1.0 schema and EN 16931 on the derived CII', async () => {
    const res = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key: ferd.apiKey, headers: ferd.as(FERD_SELLER_VAT), body: { format: 'auto', file: { content: readMustang(ZF1.extended).toString('base64') } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: true, syntax: 'zugferd-1', profile: 'zugferd-1-extended', customizationId: 'urn:ferd:CrossIndustryDocument:invoice:1p0:extended', packs: ['en16931@1.3.16'] });
    expect(res.body.renderedXml).toContain('<rsm:CrossIndustryInvoice');
    const extraTags = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key: ferd.apiKey, headers: ferd.as(FERD_SELLER_VAT), body: { format: 'auto', file: { content: readMustang('validator/src/test/resources/invalidV1ExtraTags.xml').toString('base64') } } });
    expect(extraTags.body.valid).toBe(false);
    expect(extraTags.body.findings.map((f: { rule: string; source: string }) => [f.rule, f.source])).toEqual([['XSD', 'xsd:zugferd-1.0']]);
  });

  it('through a Peppol network: delivered as Peppol BIS UBL naming both endpoints; the Peppol rules judge that form', async () => {
    // FeRD's COMFORT sample lacks what Peppol and the German Peppol rules ask (BT-10, a seller contact): refused with the rules named.
    const refused = await sendAuto(Buffer.from(readMustang(ZF1.comfort).toString('utf8').replace('<ram:ID>471102</ram:ID>', '<ram:ID>ZF1-PEPPOL-1</ram:ID>')), '0106:12345678');
    expectEnvelope(refused, 422, 'UBL_VALIDATION_FAILED');
    expect(refused.body.error.details.map((d: { rule: string }) => d.rule)).toEqual(expect.arrayContaining(['PEPPOL-EN16931-R003', 'DE-R-015']));

    // The same invoice with a buyer reference and a seller contact is delivered.
    const completed = readMustang(ZF1.comfort).toString('utf8')
      .replace('<ram:ID>471102</ram:ID>', '<ram:ID>ZF1-PEPPOL-2</ram:ID>')
      .replace('<ram:ApplicableSupplyChainTradeAgreement>', '<ram:ApplicableSupplyChainTradeAgreement>\n\t\t\t<ram:BuyerReference>04011000-12345-34</ram:BuyerReference>')
      .replace('<ram:Name>Lieferant GmbH</ram:Name>', '<ram:Name>Lieferant GmbH</ram:Name><ram:DefinedTradeContact><ram:PersonName>Max Muster</ram:PersonName><ram:TelephoneUniversalCommunication><ram:CompleteNumber>+49 89 1234</ram:CompleteNumber></ram:TelephoneUniversalCommunication><ram:EmailURIUniversalCommunication><ram:URIID>rechnung@lieferant.example</ram:URIID></ram:EmailURIUniversalCommunication></ram:DefinedTradeContact>');
    const res = await sendAuto(Buffer.from(completed), '0106:12345678');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ format: 'ubl-xml', number: 'ZF1-PEPPOL-2' });
    expect(await settle(res.body.id)).toMatchObject({ deliveryStatus: 'delivered' });
    const sender = { key: ferd.apiKey, headers: ferd.as(FERD_SELLER_VAT) };
    const ubl = (await api(t.baseUrl, 'GET', `/v1/documents/${res.body.id}/xml`, sender)).text;
    expect(ubl).toContain('<cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID>');
    expect(ubl).toContain('<cbc:EndpointID schemeID="0106">12345678</cbc:EndpointID>');
    const [scheme, value] = ferd.companies[FERD_SELLER_VAT]!.peppolId.split(':');
    expect(ubl).toContain(`<cbc:EndpointID schemeID="${scheme}">${value}</cbc:EndpointID>`);
    expect((await bytesOf(ferd.apiKey, `/v1/documents/${res.body.id}/original`)).toString('utf8')).toBe(completed);
  });
});

describe('broken ZUGFeRD 1.0 documents: 400 in the error envelope, with details', () => {
  const comfort = () => readMustang(ZF1.comfort).toString('utf8');
  const cases: Array<[string, () => Promise<Buffer> | Buffer, string, string]> = [
    ['truncated XML', () => Buffer.from(comfort().slice(0, comfort().length / 2)), 'INVALID_REQUEST', 'well-formed'],
    // FeRD's samples open with a 3 kB licence comment: cut there, nothing says what the bytes were meant to be.
    ['XML truncated before its root', () => Buffer.from(comfort().slice(0, 3000)), 'INVALID_REQUEST', 'auto-detect'],
    ['no context parameter', () => Buffer.from(comfort().replace(/<ram:GuidelineSpecifiedDocumentContextParameter>[\s\S]*?<\/ram:GuidelineSpecifiedDocumentContextParameter>/, '')), 'MISSING_FIELD', 'zugferd-1-guideline'],
    ['a wrong context parameter', () => Buffer.from(comfort().replace('urn:ferd:CrossIndustryDocument:invoice:1p0:comfort', 'urn:factur-x.eu:1p0:basic')), 'INVALID_REQUEST', 'zugferd-1-guideline'],
    ['an unknown profile', () => Buffer.from(comfort().replace('urn:ferd:CrossIndustryDocument:invoice:1p0:comfort', 'urn:ferd:CrossIndustryDocument:invoice:1p0:gold')), 'INVALID_ENUM', 'zugferd-1-profile'],
    ['no invoice number', () => Buffer.from(comfort().replace('<ram:ID>471102</ram:ID>', '')), 'MISSING_FIELD', 'BT-1'],
    ['no currency', () => Buffer.from(comfort().replace('<ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>', '')), 'MISSING_FIELD', 'BT-5'],
    ['a PDF without its attachment', () => zugferd1Pdf(undefined), 'INVALID_REQUEST', 'hybrid-embedded-xml'],
    ['a PDF whose attachment is not XML', () => zugferd1Pdf({ name: 'ZUGFeRD-invoice.xml', bytes: Buffer.from('%!PS-Adobe-3.0 not an invoice') }), 'INVALID_REQUEST', 'hybrid-embedded-xml'],
    ['a PDF whose XML is truncated', () => zugferd1Pdf({ name: 'ZUGFeRD-invoice.xml', bytes: Buffer.from(comfort().slice(0, 4000)) }), 'INVALID_REQUEST', 'well-formed'],
    ['a PDF whose XML has no number', () => zugferd1Pdf({ name: 'ZUGFeRD-invoice.xml', bytes: Buffer.from(comfort().replace('<ram:ID>471102</ram:ID>', '')) }), 'MISSING_FIELD', 'BT-1'],
  ];

  it.each(cases)('%s → send and validate answer 400', async (_name, make, code, rule) => {
    const content = await make();
    const res = await sendAuto(content, bob.company.peppolId);
    expectEnvelope(res, 400, code);
    expect(res.body.error.details.map((d: { rule: string }) => d.rule)).toContain(rule);
    for (const d of res.body.error.details) expect(d.field).toBeTruthy();
    const validated = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key: ferd.apiKey, headers: ferd.as(FERD_SELLER_VAT), body: { format: 'auto', file: { content: content.toString('base64') } } });
    expectEnvelope(validated, 400, code);
  });

  it('ZUGFeRD 1.0 sent as format=cii-xml → 400 saying to use format=auto', async () => {
    const res = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: ferd.apiKey, headers: ferd.as(FERD_SELLER_VAT), body: { type: 'invoice', format: 'cii-xml', to: bob.company.peppolId, xml: comfort() } });
    expectEnvelope(res, 400, 'INVALID_REQUEST');
    expect(res.body.error.message).toContain('format=auto');
  });
});
