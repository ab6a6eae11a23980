/**
 * The VIES registry connector (adapters/vies) against a VIES simulator on 127.0.0.1: enrichment
 * from its answer, refusals, and a registry outage that never loses a company: it is created
 * `pending_verification`, cannot be registered yet, and is verified by the re-check job once VIES
 * answers again (brought forward with the sandbox clock instead of waited for).
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomInt } from 'node:crypto';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

/** What the simulator answers per VAT number (default: valid, with a name and an address). */
const down = new Set<string>();
const asked: Array<{ countryCode: string; vatNumber: string }> = [];
const vies = createServer((req: IncomingMessage, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const q = JSON.parse(body) as { countryCode: string; vatNumber: string };
    asked.push(q);
    const vat = `${q.countryCode}${q.vatNumber}`;
    res.setHeader('content-type', 'application/json');
    if (req.url !== '/vies/check-vat-number' || req.method !== 'POST') { res.writeHead(404).end('{}'); return; }
    if (down.has(vat)) { res.end(JSON.stringify({ countryCode: q.countryCode, vatNumber: q.vatNumber, valid: false, userError: 'MS_UNAVAILABLE' })); return; }
    if (vat.endsWith('500')) { res.writeHead(503).end('{"actionSucceed":false}'); return; }
    if (vat.endsWith('000')) { res.end(JSON.stringify({ countryCode: q.countryCode, vatNumber: q.vatNumber, valid: false, userError: 'INVALID', name: '---', address: '---' })); return; }
    res.end(JSON.stringify({ countryCode: q.countryCode, vatNumber: q.vatNumber, valid: true, userError: 'VALID', name: `VIES GMBH ${q.vatNumber}`, address: 'Hauptstrasse 5\nHinterhaus\n10115 Berlin' }));
  });
});

let t: TestApp;
beforeAll(async () => {
  await new Promise<void>((resolve) => vies.listen(0, '127.0.0.1', resolve));
  process.env.EINV_CONNECTORS = 'sandbox-network,vies';
  process.env.EINV_CONNECTOR_VIES_BASE_URL = `http://127.0.0.1:${(vies.address() as AddressInfo).port}/vies`;
  process.env.EINV_CONNECTOR_VIES_TIMEOUT_MS = '2000';
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
  vies.close();
  delete process.env.EINV_CONNECTORS;
});

const germanVat = (ending: string) => `DE${randomInt(100_000, 999_999)}${ending}`;

it('a country VIES covers is checked there (before the sandbox registry): name and address as VIES gives them', async () => {
  const org = await bootstrap(t.baseUrl, { keyType: 'platform' });
  const vatNumber = germanVat('123');
  const res = await api(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber } });
  expect(res.status).toBe(201);
  expect(asked).toContainEqual({ countryCode: 'DE', vatNumber: vatNumber.slice(2) });
  expect(res.body).toMatchObject({
    name: `VIES GMBH ${vatNumber.slice(2)}`, status: 'active', dataProviderType: 'vies',
    address: { street: 'Hauptstrasse 5', streetLine2: 'Hinterhaus', postalCode: '10115', city: 'Berlin', country: 'DE' },
  });
  expectEnvelope(await api(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber: germanVat('000') } }), 422, 'VAT_NOT_FOUND');
});

it('VIES down: the company is created pending verification, cannot register yet, and is verified once VIES answers again', async () => {
  const org = await bootstrap(t.baseUrl, { keyType: 'platform' });
  for (const vatNumber of [germanVat('456'), germanVat('500')]) {
    if (!vatNumber.endsWith('500')) down.add(vatNumber);
    const res = await api(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ vatNumber, status: 'pending_verification', name: vatNumber, dataProviderType: null });
    expectEnvelope(await api(t.baseUrl, 'POST', `/v1/companies/${res.body.id}/register`, { key: org.apiKey }), 409, 'INVALID_TRANSITION');
  }
  const [pending] = (await api(t.baseUrl, 'GET', '/v1/companies', { key: org.apiKey })).body.data.filter((c: { vatNumber: string }) => down.has(c.vatNumber));
  // Still down at the first re-check (a minute later in the company's time): still pending.
  const advance = (by: string) => api(t.baseUrl, 'POST', '/v1/sandbox/clock/advance', { key: org.apiKey, body: { companyId: pending.id, by } });
  const askedBefore = asked.length;
  expect((await advance('1h')).status).toBe(200);
  for (let i = 0; i < 50 && asked.length === askedBefore; i++) await new Promise((r) => setTimeout(r, 100));
  expect(asked.length).toBeGreaterThan(askedBefore);
  expect((await api(t.baseUrl, 'GET', `/v1/companies/${pending.id}`, { key: org.apiKey })).body.status).toBe('pending_verification');

  // VIES is back: the next re-check verifies and enriches it.
  down.clear();
  expect((await advance('1d')).status).toBe(200);
  let company = pending;
  for (let i = 0; i < 50 && company.status !== 'active'; i++) {
    await new Promise((r) => setTimeout(r, 100));
    company = (await api(t.baseUrl, 'GET', `/v1/companies/${pending.id}`, { key: org.apiKey })).body;
  }
  expect(company).toMatchObject({ status: 'active', name: `VIES GMBH ${pending.vatNumber.slice(2)}`, dataProviderType: 'vies' });
  expect((await api(t.baseUrl, 'POST', `/v1/companies/${pending.id}/register`, { key: org.apiKey })).status).toBe(200);
});

it('a platform onboarding while VIES is down: the tenant is created pending with its key, and published once the re-check verifies it', async () => {
  const org = await bootstrap(t.baseUrl, { keyType: 'platform' });
  const vatNumber = germanVat('789');
  down.add(vatNumber);
  const res = await api(t.baseUrl, 'POST', '/v1/platform/companies', { key: org.apiKey, body: { vatNumber } });
  expect(res.status).toBe(201);
  expect(res.body.company).toMatchObject({ vatNumber, status: 'pending_verification', smpRegistered: false });
  expect(res.body.apiKey.companyId).toBe(res.body.company.id);
  down.clear();
  expect((await api(t.baseUrl, 'POST', '/v1/sandbox/clock/advance', { key: org.apiKey, body: { companyId: res.body.company.id, by: '1d' } })).status).toBe(200);
  let company = res.body.company;
  for (let i = 0; i < 100 && !company.smpRegistered; i++) {
    await new Promise((r) => setTimeout(r, 100));
    company = (await api(t.baseUrl, 'GET', `/v1/companies/${company.id}`, { key: org.apiKey })).body;
  }
  expect(company).toMatchObject({ status: 'active', smpRegistered: true, dataProviderType: 'vies' });
  const events = (await api(t.baseUrl, 'GET', '/v1/events?type=company.smp_registered', { key: org.apiKey })).body.data;
  expect(events.map((e: { data: { companyId: string } }) => e.data.companyId)).toContain(company.id);
});
