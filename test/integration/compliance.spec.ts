/**
 * Compliance over HTTP: `GET /v1/compliance/status` (the mandate map, one country, bad countries,
 * the `compliance` scope, support derived from the connectors running at the time of the call), and
 * Belgium: plain Peppol with the Belgian rules on the synchronous send answer as BR-BE-*, and no
 * regulator report.
 */
import type { Service } from 'moleculer';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { reissued } from '../support/issuers.ts';
import { UBL_BE_INVOICE } from '../support/ubl-be-invoice.ts';
import { connectorService } from '../../services/connectors/connector-service.ts';
import peppolLike from '../support/connectors/peppol-like/index.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_DELIVERY_RETRY_MS = '20';

let t: TestApp;
let a: Awaited<ReturnType<typeof bootstrap>>;
let b: Awaited<ReturnType<typeof bootstrap>>;
beforeAll(async () => {
  t = await startTestApp();
  [a, b] = [await bootstrap(t.baseUrl, { label: 'alice' }), await bootstrap(t.baseUrl, { label: 'bob' })];
});
afterAll(async () => { await t.stop(); });

const status = (key: string, query = '') => api(t.baseUrl, 'GET', `/v1/compliance/status${query}`, { key });

describe('GET /v1/compliance/status', () => {
  it('lists every country of the mandate map with its mandate, status and what this deployment supports', async () => {
    const res = await status(a.apiKey);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ dataVersion: expect.stringMatching(/^\d+\.\d+\.\d+$/), asOf: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), mode: 'test', evaluatedOn: new Date().toISOString().slice(0, 10) });
    const countries = res.body.countries as Array<Record<string, any>>;
    expect(countries).toHaveLength(48);
    expect(countries.map((c) => c.country)).toEqual(expect.arrayContaining(['FR', 'IT', 'BE', 'DE', 'PL', 'SA', 'AE', 'SG', 'AU', 'TW']));

    const italy = countries.find((c) => c.country === 'IT')!;
    expect(italy).toMatchObject({ name: 'Italy', models: ['clearance'], scope: ['B2B', 'B2G', 'B2C'], status: 'in_force', formats: [{ id: 'fatturapa', name: 'FatturaPA 1.2.3' }], platforms: expect.arrayContaining([expect.objectContaining({ id: 'sdi', kind: 'tax-platform' })]) });
    // Only the sandbox network runs here: it cannot clear through SdI.
    expect(italy.support).toMatchObject({ coverage: 'none', models: [{ model: 'clearance', supported: false, connectors: [] }], gaps: [expect.stringContaining('SdI')] });
    expect(italy.support.connectors).toEqual([expect.objectContaining({ id: 'sandbox-network', national: false, roles: expect.arrayContaining(['send']) })]);

    const fr = countries.find((c) => c.country === 'FR')!;
    expect(fr.phases).toEqual(expect.arrayContaining([expect.objectContaining({ date: '2026-09-01', scope: ['B2B'] }), expect.objectContaining({ date: '2027-09-01' })]));
    // French formats run the French CIUS pack (selected by the destination country).
    expect(fr.support.formats.find((f: { id: string }) => f.id === 'ubl').rulePacks).toEqual(expect.arrayContaining([expect.stringMatching(/^en16931@/), expect.stringMatching(/^br-fr@/)]));
  });

  it('answers one country with ?country=', async () => {
    const res = await status(a.apiKey, '?country=BE');
    expect(res.status).toBe(200);
    expect(res.body.countries).toHaveLength(1);
    const be = res.body.countries[0];
    expect(be).toMatchObject({
      country: 'BE', name: 'Belgium', models: ['peppol'], status: 'phasing_in',
      formats: [{ id: 'peppol-bis-3', name: 'Peppol BIS 3.0', syntaxes: ['ubl'], en16931: true }],
      nextPhase: { date: '2028-01-01', kind: 'e-reporting' },
      // Test keys: the sandbox network stands in for Peppol.
      support: { coverage: 'full', models: [{ model: 'peppol', supported: true, simulated: true, connectors: ['sandbox-network'] }], gaps: [] },
    });
    expect(be.support.formats).toEqual([{ id: 'peppol-bis-3', rulePacks: [expect.stringMatching(/^en16931@/), expect.stringMatching(/^peppol-bis@3\.0\.\d+$/)] }]);
  });

  it('derives support from the connectors running at the time of the call', async () => {
    const svc = t.app.broker.createService(connectorService(peppolLike, { id: 'peppol-like', concurrency: 1 })) as Service;
    await t.app.broker.waitForServices(['adapter.peppol-like'], 5_000);
    try {
      const be = (await status(a.apiKey, '?country=BE')).body.countries[0];
      expect(be.support.models).toEqual([{ model: 'peppol', supported: true, simulated: false, connectors: ['peppol-like'] }]);
      expect(be.support.connectors.map((c: { id: string }) => c.id)).toEqual(['peppol-like', 'sandbox-network']);
    } finally {
      await t.app.broker.destroyService(svc);
    }
    const after = (await status(a.apiKey, '?country=BE')).body.countries[0];
    expect(after.support.models[0]).toMatchObject({ simulated: true, connectors: ['sandbox-network'] });
  });

  it('refuses a malformed or unknown country with the error envelope', async () => {
    for (const bad of ['?country=fr', '?country=FRA', '?country=1', '?country=', '?country=BE&country=FR']) {
      expectEnvelope(await status(a.apiKey, bad), 400, 'INVALID_REQUEST');
    }
    for (const unknown of ['ZZ', 'US', 'UK']) {
      const res = await status(a.apiKey, `?country=${unknown}`);
      expectEnvelope(res, 400, 'INVALID_ENUM');
      expect(res.body.error.details).toEqual([{ field: 'country', rule: 'enumValue', message: expect.stringContaining(`'${unknown}'`) }]);
      expect(res.body.error.message).toContain('BE');
    }
  });

  it('needs the compliance scope', async () => {
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/compliance/status'), 401, 'MISSING_AUTH');
    const reader = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: a.apiKey, body: { name: 'reader', scopes: ['documents.read'] } });
    expect(reader.status).toBe(201);
    expectEnvelope(await status(reader.body.key), 403, 'INSUFFICIENT_SCOPE');
    const auditor = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: a.apiKey, body: { name: 'auditor', scopes: ['compliance'] } });
    expect((await status(auditor.body.key, '?country=PL')).body.countries[0]).toMatchObject({ country: 'PL', models: ['clearance'], support: { coverage: 'none' } });
  });
});

describe('Belgium: plain Peppol, Belgian rules on the send answer, no regulator report', () => {
  let counter = 0;
  /** The UBL.BE invoice from alice to bob (both Belgian sandbox companies, 0208 enterprise numbers). */
  function belgianInvoice(): { number: string; xml: string } {
    const number = `BE-${Date.now()}-${++counter}`;
    const buyer = b.company.peppolId.slice(5);
    const xml = reissued(UBL_BE_INVOICE, a.company)
      .replace('<cbc:ID>F-2026-001</cbc:ID>', `<cbc:ID>${number}</cbc:ID>`)
      .replace(/(<cac:AccountingCustomerParty>[\s\S]*?<cbc:EndpointID schemeID="0208">)[^<]*/, `$1${buyer}`);
    return { number, xml };
  }
  const send = (xml: string) => api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'ubl-xml', to: b.company.peppolId, xml } });

  it('refuses an invoice breaking a Belgian rule with 422 UBL_VALIDATION_FAILED carrying BR-BE-*', async () => {
    expect(b.company.peppolId).toMatch(/^0208:\d{10}$/);
    const { xml } = belgianInvoice();
    const broken = xml.replace('<cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Name>03</cbc:Name>', '<cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Name>21%</cbc:Name>');
    expect(broken).not.toBe(xml);
    const res = await send(broken);
    expectEnvelope(res, 422, 'UBL_VALIDATION_FAILED');
    expect(res.body.error.details).toEqual([{ field: expect.stringMatching(/TaxCategory/), rule: 'BR-BE-10', message: expect.stringContaining('21%') }]);
    expect(res.body.error.findings).toEqual([expect.objectContaining({ rule: 'BR-BE-10', sourceRule: 'ubl-BE-10', severity: 'fatal', source: expect.stringMatching(/^br-be@/) })]);
    expect(res.body.error.message).toContain('BR-BE-10');
  });

  it('shows the same BR-BE ids on POST /v1/documents/validate', async () => {
    const { xml } = belgianInvoice();
    const res = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key: a.apiKey, body: { format: 'ubl-xml', xml: xml.replace(/<cac:TaxTotal><cbc:TaxAmount currencyID="EUR">21.00<\/cbc:TaxAmount><\/cac:TaxTotal>/, '') } });
    expect(res.status).toBe(200);
    expect(res.body.packs).toEqual(expect.arrayContaining([expect.stringMatching(/^br-be@/)]));
    expect(res.body.findings.filter((f: { source: string }) => f.source.startsWith('br-be@')).map((f: { rule: string; sourceRule: string }) => [f.rule, f.sourceRule])).toEqual([['BR-BE-14', 'ubl-BE-14']]);
  });

  it('accepts a good one, delivers it, and records no compliance.reported event', async () => {
    const { number, xml } = belgianInvoice();
    const res = await send(xml);
    expect(res.status).toBe(201);
    const until = Date.now() + 15_000;
    let doc = res.body;
    while (doc.deliveryStatus === 'pending' && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      doc = (await api(t.baseUrl, 'GET', `/v1/documents/${res.body.id}`, { key: a.apiKey })).body;
    }
    expect(doc).toMatchObject({ number, deliveryStatus: 'delivered' });
    // The event log has the delivery (so it is written), and no report to a regulator, on either side.
    const events = async (key: string, type: string) => (await api(t.baseUrl, 'GET', `/v1/events?type=${type}&limit=100`, { key })).body.data as Array<{ data: { documentId: string } }>;
    let delivered: unknown[] = [];
    while (!delivered.length && Date.now() < until) {
      delivered = (await events(a.apiKey, 'document.delivered')).filter((e) => e.data.documentId === res.body.id);
      if (!delivered.length) await new Promise((r) => setTimeout(r, 100));
    }
    expect(delivered).toHaveLength(1);
    expect(await events(a.apiKey, 'compliance.reported')).toEqual([]);
    expect(await events(b.apiKey, 'compliance.reported')).toEqual([]);
  });
});
