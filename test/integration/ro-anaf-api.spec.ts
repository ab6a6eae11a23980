/**
 * Romania end to end through the API: the ro-anaf connector enabled by configuration
 * (EINV_CONNECTOR_RO_ANAF_*) against the ANAF simulator on 127.0.0.1. A Romanian company sends a JSON
 * invoice to a Romanian buyer (test key: a connector naming RO wins over the sandbox network); ANAF
 * clears it: the document carries ANAF's upload index and the ANAF-signed archive is downloadable at
 * /clearance/original; compliance.reported says so. ANAF's refusal (nok, BR-RO-L1024) fails the
 * document with ANAF's code and frees its number: the corrected invoice with the same number clears.
 * The buyer's invoices are polled from ANAF into document.received.
 */
import { unzipSync, strFromU8 } from 'fflate';
import { startTestApp, api, type TestApp } from '../support/app.ts';
import { issuers, type Issuers } from '../support/issuers.ts';
import { startAnafSimulator, type AnafSimulator } from '../support/anaf-simulator.ts';
import { romanianJsonInvoice, RO_SELLER_VAT, RO_BUYER_VAT } from '../support/romanian-invoice.ts';
import { jsonToCanonical, canonicalToCiusRoUbl } from '../../mappings/index.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_DELIVERY_RETRY_MS = '20';
process.env.EINV_RATE_LIMITS = 'free=100000';

let t: TestApp;
let sim: AnafSimulator;
let ro: Issuers;
const ENV_KEYS: string[] = [];

beforeAll(async () => {
  sim = await startAnafSimulator({ processingMs: 200 });
  const env: Record<string, string> = {
    EINV_CONNECTORS: 'sandbox-network,ro-anaf',
    EINV_CONNECTOR_RO_ANAF_BASE_URL: sim.prodUrl,
    EINV_CONNECTOR_RO_ANAF_TEST_BASE_URL: sim.testUrl,
    EINV_CONNECTOR_RO_ANAF_TOKEN_URL: sim.tokenUrl,
    EINV_CONNECTOR_RO_ANAF_CLIENT_ID: sim.clientId,
    EINV_CONNECTOR_RO_ANAF_CLIENT_SECRET: sim.clientSecret,
    EINV_CONNECTOR_RO_ANAF_REFRESH_TOKEN: sim.refreshToken,
    EINV_CONNECTOR_RO_ANAF_CIFS: RO_BUYER_VAT.slice(2),
    EINV_CONNECTOR_RO_ANAF_POLL_INTERVAL_MS: '200',
    EINV_CONNECTOR_RO_ANAF_STATUS_CHECK_MS: '100',
    EINV_CONNECTOR_RO_ANAF_TIMEOUT_MS: '5000',
  };
  for (const [k, v] of Object.entries(env)) { process.env[k] = v; ENV_KEYS.push(k); }
  t = await startTestApp();
  ro = await issuers(t.baseUrl, [RO_SELLER_VAT, RO_BUYER_VAT], 'ro');
});
afterAll(async () => {
  await t?.stop();
  await sim?.close();
  for (const k of ENV_KEYS) delete process.env[k];
});

const asSeller = () => ({ key: ro.apiKey, headers: ro.as(RO_SELLER_VAT) });
const send = (document: Record<string, unknown>) => api(t.baseUrl, 'POST', '/v1/documents/send', { ...asSeller(), body: { type: 'invoice', format: 'json', to: `9947:${RO_BUYER_VAT}`, document } });

async function settled(id: string, ms = 20_000): Promise<Record<string, any>> {
  const until = Date.now() + ms;
  for (;;) {
    const doc = (await api(t.baseUrl, 'GET', `/v1/documents/${id}`, asSeller())).body;
    if (doc.deliveryStatus !== 'pending' || Date.now() > until) return doc;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function eventsFor(type: string, match: (e: { data: Record<string, any> }) => boolean, ms = 15_000): Promise<Array<{ data: Record<string, any> }>> {
  const until = Date.now() + ms;
  for (;;) {
    const all = (await api(t.baseUrl, 'GET', `/v1/events?type=${type}&limit=100`, { key: ro.apiKey })).body.data as Array<{ data: Record<string, any> }>;
    const found = all.filter(match);
    if (found.length || Date.now() > until) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const uploadOf = (number: string) => [...sim.uploads.values()].filter((u) => u.xml.includes(`<cbc:ID>${number}</cbc:ID>`));

describe('Romania: e-Factura through the API', () => {
  it('GET /v1/compliance/status: Romania is cleared by ro-anaf, with the CIUS-RO pack', async () => {
    const res = await api(t.baseUrl, 'GET', '/v1/compliance/status?country=RO', { key: ro.apiKey });
    expect(res.status).toBe(200);
    const romania = res.body.countries[0];
    expect(romania.support.models).toEqual(expect.arrayContaining([{ model: 'clearance', supported: true, simulated: false, connectors: ['ro-anaf'] }]));
    expect(romania.support.formats).toEqual(expect.arrayContaining([{ id: 'cius-ro', rulePacks: expect.arrayContaining(['cius-ro@1.0.1']) }]));
  });

  it('POST /v1/documents/validate runs the CIUS-RO rules on a document declaring CIUS-RO', async () => {
    const xml = canonicalToCiusRoUbl(jsonToCanonical({ type: 'invoice', document: romanianJsonInvoice('FCT-VAL-1') }, { today: '2026-11-02' }));
    const clean = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key: ro.apiKey, body: { format: 'ubl-xml', xml } });
    expect(clean.status).toBe(200);
    expect(clean.body).toMatchObject({ valid: true, packs: expect.arrayContaining(['cius-ro@1.0.1']) });
    const bad = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key: ro.apiKey, body: { format: 'ubl-xml', xml: xml.replace('<cbc:CountrySubentity>RO-B</cbc:CountrySubentity>', '<cbc:CountrySubentity>Bucuresti</cbc:CountrySubentity>') } });
    expect(bad.body.valid).toBe(false);
    expect(bad.body.findings.filter((f: { source: string }) => f.source.startsWith('cius-ro@')).map((f: { rule: string }) => f.rule)).toEqual(['BR-RO-111']);
  });

  it('a Romanian company\'s JSON invoice is cleared by ANAF; the signed archive is the document\'s legal original', async () => {
    const number = `FCT-${Date.now()}`;
    const res = await send(romanianJsonInvoice(number));
    expect(res.status === 201 ? 201 : res.text).toBe(201);
    const doc = await settled(res.body.id);
    expect(doc).toMatchObject({ number, deliveryStatus: 'delivered' });
    const [upload] = uploadOf(number);
    expect(upload).toMatchObject({ cif: RO_SELLER_VAT.slice(2), standard: 'UBL', state: 'ok' });
    expect(doc.clearance).toMatchObject({ authority: 'ANAF', status: 'cleared', authorityId: upload!.index, details: { id_descarcare: upload!.downloadId } });
    expect(doc.clearance.qr ?? null).toBeNull();

    const original = await fetch(`${t.baseUrl}/v1/documents/${res.body.id}/clearance/original`, { headers: { authorization: `Bearer ${ro.apiKey}`, ...ro.as(RO_SELLER_VAT) } });
    expect(original.status).toBe(200);
    expect(original.headers.get('content-type')).toContain('application/zip');
    const files = unzipSync(new Uint8Array(await original.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual([`${upload!.index}.xml`, `semnatura_${upload!.index}.xml`]);
    const cleared = strFromU8(files[`${upload!.index}.xml`]!);
    expect(cleared).toContain('urn:efactura.mfinante.ro:CIUS-RO:1.0.1');
    expect(cleared).toContain('<cbc:CityName>SECTOR3</cbc:CityName>');

    const reported = await eventsFor('compliance.reported', (e) => e.data.documentId === res.body.id);
    expect(reported).toHaveLength(1);
    expect(reported[0]!.data).toMatchObject({ reportedTo: 'ANAF', status: 'reported', authorityId: upload!.index, connectorId: 'ro-anaf' });
  });

  it('ANAF refuses an invoice (nok): failed with ANAF\'s code, and the corrected invoice with the same number clears', async () => {
    const number = `FCT-NOK-${Date.now()}`;
    const bad = romanianJsonInvoice(number, { lines: [{ description: `Servicii de consultanta ${'x'.repeat(100)}`, quantity: 1, unit: 'C62', unitPrice: 100, vatRate: 19 }] });
    const res = await send(bad);
    expect(res.status).toBe(201);
    const failed = await settled(res.body.id);
    expect(failed).toMatchObject({ deliveryStatus: 'failed', errorCode: 'ANAF:BR-RO-L1024' });
    expect(failed.errorMessage).toContain('BT-153');
    const reported = await eventsFor('compliance.reported', (e) => e.data.documentId === res.body.id);
    expect(reported[0]!.data).toMatchObject({ reportedTo: 'ANAF', status: 'failed', errorCode: 'ANAF:BR-RO-L1024' });

    const corrected = await send(romanianJsonInvoice(number));
    expect(corrected.status).toBe(201);
    expect(corrected.body.id).not.toBe(res.body.id);
    expect(await settled(corrected.body.id)).toMatchObject({ number, deliveryStatus: 'delivered', clearance: { authority: 'ANAF', status: 'cleared' } });
    expect(uploadOf(number).map((u) => u.state)).toEqual(['nok', 'ok']);
  });

  it('the buyer\'s invoices are polled from ANAF into document.received', async () => {
    const number = `EXT-${Date.now()}`;
    const xml = canonicalToCiusRoUbl(jsonToCanonical({ type: 'invoice', document: romanianJsonInvoice(number, { seller: { name: 'Furnizor Extern SRL', vatNumber: 'RO22222222', address: { street: 'Str. Lunga 5', city: 'Brasov', region: 'Brasov', country: 'RO' } } }) }, { today: '2026-11-02' }));
    const m = sim.receive(RO_BUYER_VAT.slice(2), '22222222', xml);
    const received = await eventsFor('document.received', (e) => e.data.number === number || e.data.documentNumber === number, 20_000);
    expect(received.length).toBeGreaterThanOrEqual(1);
    const search = await api(t.baseUrl, 'POST', '/v1/documents/search', { key: ro.apiKey, headers: ro.as(RO_BUYER_VAT), body: { filters: { direction: 'incoming', number } } });
    const incoming = search.body.data?.[0];
    expect(incoming).toMatchObject({ direction: 'incoming', number, companyId: ro.companies[RO_BUYER_VAT]!.id });
    const original = await api(t.baseUrl, 'GET', incoming.links.original, { key: ro.apiKey, headers: ro.as(RO_BUYER_VAT) });
    expect(original.text).toBe(xml);
    expect(m.tip).toBe('FACTURA PRIMITA');
  });
});
