/**
 * Defects a new user hit (issue 13), each replayed through the real gateway: JSON sent as curl
 * sends it (form content type), documents larger than the JSON cap, validate with a raw body, and
 * `format: auto` recorded as the syntax it detected.
 */
import { readFileSync } from 'node:fs';
import { reissued } from '../support/issuers.ts';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { corpusPath } from '../support/corpus.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000';

let t: TestApp;
let a: Awaited<ReturnType<typeof bootstrap>>;
let b: Awaited<ReturnType<typeof bootstrap>>;
beforeAll(async () => {
  t = await startTestApp();
  [a, b] = [await bootstrap(t.baseUrl, { label: 'alice' }), await bootstrap(t.baseUrl, { label: 'bob' })];
});
afterAll(async () => { await t.stop(); });

const baseExample = () => readFileSync(corpusPath('peppol-bis-invoice-3/rules/examples/base-example.xml'), 'utf8');
const withNumber = (xml: string, number: string) => xml.replace(/(<\/cbc:CustomizationID>[\s\S]*?<cbc:ID>)[^<]+(<\/cbc:ID>)/, `$1${number}$2`);

async function delivered(key: string, id: string): Promise<Record<string, any>> {
  const until = Date.now() + 15_000;
  for (;;) {
    const doc = (await api(t.baseUrl, 'GET', `/v1/documents/${id}`, { key })).body;
    if (doc.deliveryStatus !== 'pending' || Date.now() > until) return doc;
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('a JSON body sent as curl -d sends it (application/x-www-form-urlencoded) is read as JSON and delivered, not stored as a file', async () => {
  const number = `CURL-${Date.now()}`;
  const body = JSON.stringify({
    type: 'invoice', format: 'json', to: b.company.peppolId,
    document: {
      number, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO-1',
      seller: { name: 'Acme SPRL', vatNumber: a.company.vatNumber, address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } },
      buyer: { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } },
      lines: [{ description: 'Work', quantity: 1, unit: 'HUR', unitPrice: 100, vatRate: 21 }],
    },
  });
  const res = await api(t.baseUrl, 'POST', '/v1/documents/send?type=invoice', { key: a.apiKey, rawBody: body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ format: 'json', number, deliveryStatus: 'pending' });
  expect(await delivered(a.apiKey, res.body.id)).toMatchObject({ deliveryStatus: 'delivered' });
});

it('documents larger than the 1 MiB JSON cap are accepted by send and validate, up to the body cap', async () => {
  // The base example with a 1.4 MB note: a realistic size for a 1,000-line invoice in XML.
  const xml = reissued(withNumber(baseExample(), `BIG-${Date.now()}`), a.company).replace('<cbc:DueDate>', `<cbc:Note>${'x'.repeat(1_400_000)}</cbc:Note><cbc:DueDate>`);
  expect(Buffer.byteLength(xml)).toBeGreaterThan(1_048_576);
  const validated = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key: a.apiKey, body: { format: 'ubl-xml', xml } });
  expect(validated.status).toBe(200);
  expect(validated.body.syntax).toBe('ubl-invoice');
  const sent = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'ubl-xml', to: b.company.peppolId, xml } });
  expect(sent.status).not.toBe(413);
  // Other operations keep the JSON cap.
  const other = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: a.apiKey, body: { name: 'x'.repeat(1_100_000) } });
  expect(other.status).toBe(413);
});

it('validate takes a raw body: the document itself, format from the query (default auto)', async () => {
  const raw = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key: a.apiKey, rawBody: baseExample(), headers: { 'content-type': 'application/xml' } });
  expect(raw.status).toBe(200);
  expect(raw.body).toMatchObject({ valid: true, syntax: 'ubl-invoice' });
  const declared = await api(t.baseUrl, 'POST', '/v1/documents/validate?format=ubl-xml&country=BE', { key: a.apiKey, rawBody: baseExample(), headers: { 'content-type': 'application/xml' } });
  expect(declared.status).toBe(200);
  expect(declared.body.valid).toBe(true);
});

it('format auto is recorded as the syntax it detected, on both sides', async () => {
  const number = `DETECT-${Date.now()}`;
  const res = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'auto', to: b.company.peppolId, file: { content: Buffer.from(reissued(withNumber(baseExample(), number), a.company)).toString('base64') } } });
  expect(res.status).toBe(201);
  expect(res.body.format).toBe('ubl-xml');
  expect(await delivered(a.apiKey, res.body.id)).toMatchObject({ deliveryStatus: 'delivered', format: 'ubl-xml' });
  const incoming = (await api(t.baseUrl, 'POST', '/v1/documents/search', { key: b.apiKey, body: { filters: { number, direction: 'incoming' } } })).body.data[0];
  expect(incoming.format).toBe('ubl-xml');
});

it('findings of a JSON send name the JSON field and a JSON hint beside the XPath', async () => {
  const res = await api(t.baseUrl, 'POST', '/v1/documents/send', {
    key: a.apiKey,
    body: {
      type: 'invoice', format: 'json', to: b.company.peppolId,
      document: {
        number: `PATHS-${Date.now()}`, issueDate: '2026-03-01', buyerReference: 'PO-1',
        seller: { name: 'Acme SPRL', vatNumber: a.company.vatNumber, address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } },
        buyer: { name: 'Client SA', vatNumber: 'BE0876543210', address: { street: 'Rue 2', city: 'Gent', postalCode: '9000', country: 'BE' } },
        lines: [{ description: 'Work', quantity: 1, unit: 'HUR', unitPrice: 100, vatRate: 21 }],
      },
    },
  });
  expect(res.status).toBe(422);
  const byRule = Object.fromEntries(res.body.error.findings.map((f: { rule: string }) => [f.rule, f]));
  // No due date nor payment terms on an amount due (BR-CO-25): the JSON field, not cac:PaymentTerms.
  expect(byRule['BR-CO-25']).toMatchObject({ path: 'document.dueDate', jsonHint: 'Set document.dueDate.', location: expect.stringMatching(/^\/ubl:Invoice/) });
  // A buyer enterprise number failing its check digits (its Peppol endpoint): the buyer of the body.
  expect(byRule['PEPPOL-COMMON-R043'].path).toMatch(/^document\.buyer/);
  expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(expect.arrayContaining(['document.dueDate']));
  // XML sends keep the XPath.
  const xml = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key: a.apiKey, body: { format: 'ubl-xml', xml: baseExample().replace(/<cbc:DueDate>[^<]*<\/cbc:DueDate>/, '') } });
  expect(xml.body.findings.every((f: { path?: string }) => f.path === undefined)).toBe(true);
});
