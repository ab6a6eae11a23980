/**
 * End to end through the API: the application boots with the it-sdi connector enabled by
 * configuration, pointed at the SDI simulator on 127.0.0.1; an Italian company sends JSON invoices
 * with `POST /v1/documents/send`; the connector transmits them as FatturaPA and the simulator posts
 * its notifications to `/connectors/it-sdi/trasmissione-fatture` through the gateway (the SDI's
 * certificate forwarded by a trusted proxy). The notifications drive the documents:
 *
 * - RC → `document.delivered` and `compliance.reported` (reported to SDI);
 * - NS 00306 (unknown recipient code) → `document.failed` with `SDI:00306`, `compliance.reported` failed;
 * - NE EC01 → the lifecycle moves to approved (205), EC02 → rejected (210) with reason code EC02,
 *   each `lifecycle.updated`, the step recorded as coming through it-sdi.
 */
import pg from 'pg';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { startSdiSimulator, type SdiSimulator } from '../support/sdi-simulator.ts';
import { selfSignedCertificate } from '../support/certificates.ts';
import { fatturaPaXsdErrors } from '../support/fatturapa-xsd.ts';
import { eventually } from '../support/webhook-receiver.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000,pro=100000';
process.env.EINV_DELIVERY_RETRY_MS = '100';

let t: TestApp;
let sim: SdiSimulator;
let db: pg.Client;
let seller: { key: string; companyId: string; vatNumber: string };

interface DocumentView { id: string; status: string; deliveryStatus: string; errorCode: string | null; errorMessage: string | null; lifecycleCode: string | null; clearance: { authority: string; status: string; authorityId: string | null } | null }
interface LifecycleView { status: string; currentCode: string | null; history: Array<{ code: string; emittedBy: string; reasonCode?: string; reason?: string; via?: string }> }
interface EventView { type: string; data: Record<string, unknown> }

const headers = () => ({ 'x-service-company': seller.companyId });

async function send(to: string, number: string): Promise<DocumentView> {
  const document = {
    number, issueDate: '2026-03-01', dueDate: '2026-04-01', currency: 'EUR', buyerReference: 'PO-1',
    seller: { name: 'Alpha SRL', vatNumber: seller.vatNumber, address: { street: 'Viale Roma 543', city: 'Sassari', postalCode: '07100', country: 'IT' } },
    buyer: { name: 'Beta SpA', vatNumber: 'IT09876543217', address: { street: 'Via Torino 38', city: 'Roma', postalCode: '00145', country: 'IT' } },
    payment: { means: 'credit_transfer', iban: 'IT60X0542811101000000123456' },
    lines: [{ description: 'Consulenza', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 22 }],
  };
  const res = await api<DocumentView>(t.baseUrl, 'POST', '/v1/documents/send', { key: seller.key, headers: headers(), body: { type: 'invoice', format: 'json', to, document } });
  if (res.status !== 201) throw new Error(`send ${number} → ${res.status} ${res.text}`);
  return res.body;
}

/** The IdentificativoSdI once the platform has recorded the SDI's answer for the document. */
async function identificativoOf(documentId: string): Promise<string> {
  return eventually(async () => {
    const { rows } = await db.query<{ id: string | null }>('select connector_message_id as id from documents where id = $1', [documentId]);
    return rows[0]?.id ?? undefined;
  }, 20_000, `the SDI's id for ${documentId}`, 100);
}

const documentOf = async (id: string) => (await api<DocumentView>(t.baseUrl, 'GET', `/v1/documents/${id}`, { key: seller.key, headers: headers() })).body;
const lifecycleOf = async (id: string) => (await api<LifecycleView>(t.baseUrl, 'GET', `/v1/documents/${id}/lifecycle`, { key: seller.key, headers: headers() })).body;
async function eventsOf(documentId: string): Promise<EventView[]> {
  const res = await api<{ data: EventView[] }>(t.baseUrl, 'GET', '/v1/events?limit=100', { key: seller.key, headers: headers() });
  return res.body.data.filter((e) => e.data.documentId === documentId);
}

beforeAll(async () => {
  const sdiCertificate = selfSignedCertificate('sdi-simulator', { bits: 1024 }).certPem;
  sim = await startSdiSimulator({ knownCodes: ['ABC1234', 'UFY9MH'], autoNotify: false });
  process.env.EINV_CONNECTORS = 'sandbox-network,it-sdi';
  process.env.EINV_CONNECTOR_IT_SDI_ENDPOINT = sim.url;
  process.env.EINV_CONNECTOR_IT_SDI_STATUS_CHECK_MS = '500';
  process.env.EINV_CONNECTOR_IT_SDI_SDI_CERTIFICATE_SUBJECT = 'CN=sdi-simulator';
  process.env.EINV_TRUST_PROXY = 'true';
  t = await startTestApp();
  sim.notifyUrl = `${t.baseUrl}/connectors/it-sdi/trasmissione-fatture`;
  sim.notifyHeaders = { 'x-client-cert': encodeURIComponent(sdiCertificate) };
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  const org = await bootstrap(t.baseUrl, { label: 'it-sdi-e2e', keyType: 'platform' });
  const vatNumber = 'IT01234567897';
  const company = await api<{ id: string }>(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber, name: 'Alpha SRL' } });
  if (company.status !== 201) throw new Error(`company → ${company.status} ${company.text}`);
  seller = { key: org.apiKey, companyId: company.body.id, vatNumber };
}, 120_000);

afterAll(async () => {
  await db?.end();
  await t?.stop();
  await sim?.stop();
  for (const k of ['EINV_CONNECTORS', 'EINV_CONNECTOR_IT_SDI_ENDPOINT', 'EINV_CONNECTOR_IT_SDI_STATUS_CHECK_MS', 'EINV_CONNECTOR_IT_SDI_SDI_CERTIFICATE_SUBJECT', 'EINV_TRUST_PROXY']) delete process.env[k];
});

describe('an Italian invoice through the API, the it-sdi connector and the SDI', () => {
  it('RC delivers it and reports it to the SDI; NE EC01 approves it', async () => {
    const sent = await send('0205:ABC1234', 'FT-E2E-1');
    const id = await identificativoOf(sent.id);
    const file = sim.received.find((f) => f.identificativoSdI === id)!;
    expect(fatturaPaXsdErrors(file.xml)).toEqual([]);
    expect(file).toMatchObject({ codiceDestinatario: 'ABC1234', numero: 'FT-E2E-1', verdict: { kind: 'RC' } });
    expect(file.nomeFile).toMatch(/^IT01234567897_[0-9A-Z]{5}\.xml$/);

    const [rc] = await sim.notifyPending();
    expect(rc).toMatchObject({ kind: 'RC', status: 200 });
    expect(await eventually(async () => { const d = await documentOf(sent.id); return d.deliveryStatus === 'delivered' ? d : undefined; }, 10_000, 'delivered')).toMatchObject({ errorCode: null });
    const events = await eventsOf(sent.id);
    expect(events.find((e) => e.type === 'document.delivered')).toBeDefined();
    expect(events.find((e) => e.type === 'compliance.reported')?.data).toMatchObject({ documentId: sent.id, reportedTo: 'SDI', status: 'reported', connectorId: 'it-sdi' });
    // The SDI's acceptance is the invoice's clearance, under the SDI's own id for it.
    expect((await documentOf(sent.id)).clearance).toEqual({ authority: 'SDI', status: 'cleared', authorityId: id, at: expect.any(String), qr: null, details: expect.objectContaining({ notification: 'RC', identificativoSdI: id }) });

    expect((await sim.esito(id, 'EC01')).status).toBe(200);
    const lifecycle = await eventually(async () => { const l = await lifecycleOf(sent.id); return l.currentCode === '205' ? l : undefined; }, 10_000, 'approved');
    expect(lifecycle).toMatchObject({ status: 'approved' });
    expect(lifecycle.history.at(-1)).toMatchObject({ code: '205', emittedBy: 'buyer', reasonCode: 'EC01', via: 'it-sdi' });
    expect((await eventsOf(sent.id)).filter((e) => e.type === 'lifecycle.updated').map((e) => e.data.currentStatus)).toContain('205');
  }, 60_000);

  it('NE EC02 rejects it, with the buyer\'s reason and EC02', async () => {
    const sent = await send('0205:ABC1234', 'FT-E2E-2');
    const id = await identificativoOf(sent.id);
    await sim.notifyPending();
    await eventually(async () => (await documentOf(sent.id)).deliveryStatus === 'delivered', 10_000, 'delivered');
    await sim.esito(id, 'EC02', 'Importo non dovuto');
    const lifecycle = await eventually(async () => { const l = await lifecycleOf(sent.id); return l.currentCode === '210' ? l : undefined; }, 10_000, 'rejected');
    expect(lifecycle).toMatchObject({ status: 'rejected' });
    expect(lifecycle.history.at(-1)).toMatchObject({ code: '210', emittedBy: 'buyer', reasonCode: 'EC02', reason: 'Importo non dovuto', via: 'it-sdi' });
  }, 60_000);

  it('NS 00306 (a recipient code the SDI does not know) fails it with SDI:00306 and reports the failure', async () => {
    const sent = await send('0205:ZZZ9999', 'FT-E2E-3');
    await identificativoOf(sent.id);
    const [ns] = await sim.notifyPending();
    expect(ns).toMatchObject({ kind: 'NS', status: 200 });
    const failed = await eventually(async () => { const d = await documentOf(sent.id); return d.deliveryStatus === 'failed' ? d : undefined; }, 10_000, 'failed');
    expect(failed).toMatchObject({ errorCode: 'SDI:00306', errorMessage: expect.stringContaining('00306') });
    const events = await eventsOf(sent.id);
    expect(events.find((e) => e.type === 'document.failed')?.data).toMatchObject({ errorCode: 'SDI:00306' });
    expect(events.find((e) => e.type === 'compliance.reported')?.data).toMatchObject({ reportedTo: 'SDI', status: 'failed', errorCode: 'SDI:00306' });
    // Refused by the SDI, the invoice was never issued: corrected, it goes again under the same number.
    expect(failed.clearance).toMatchObject({ authority: 'SDI', status: 'rejected', authorityId: null });
    const corrected = await send('0205:ABC1234', 'FT-E2E-3');
    expect(corrected.id).not.toBe(sent.id);
  }, 60_000);

  it('GET /v1/compliance/status counts it-sdi for Italy\'s clearance mandate', async () => {
    const res = await api<{ countries: Array<{ country: string; support: { models: Array<{ model: string; supported: boolean; connectors: string[] }>; connectors: Array<{ id: string; national: boolean }> } }> }>(t.baseUrl, 'GET', '/v1/compliance/status?country=IT', { key: seller.key, headers: headers() });
    expect(res.status).toBe(200);
    const italy = res.body.countries[0]!;
    expect(italy.support.models.find((m) => m.model === 'clearance')).toMatchObject({ supported: true, connectors: ['it-sdi'] });
    expect(italy.support.connectors.find((c) => c.id === 'it-sdi')).toMatchObject({ national: true });
  });

  it('the notification route refuses a caller whose certificate is not the SDI\'s', async () => {
    const res = await fetch(sim.notifyUrl!, { method: 'POST', headers: { 'content-type': 'text/xml' }, body: '<x/>' });
    expect(res.status).toBe(401);
    const other = selfSignedCertificate('someone-else', { bits: 1024 }).certPem;
    const forged = await fetch(sim.notifyUrl!, { method: 'POST', headers: { 'content-type': 'text/xml', 'x-client-cert': encodeURIComponent(other) }, body: '<x/>' });
    expect(forged.status).toBe(403);
  });
});
