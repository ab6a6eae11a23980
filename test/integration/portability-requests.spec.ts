/**
 * Portability requests through the API, on a real broker and PostgreSQL: resolving a taxpayer,
 * filing a request (mandate, gaps, legal clocks), its state folded from the evidence chain as the
 * other platform's messages arrive (`portability.message.recorded`, emitted here on the broker as
 * portability-messages does), tacit acceptance and execution driven by the sandbox's virtual
 * clock, the routing switch the execution makes by itself (once, whoever races) and completion once
 * the annuaire names this platform; the routing switch and the annuaire; the approval-checked and
 * deposited signatures of the mandate, with the approval service a real HTTP server on 127.0.0.1
 * (test/support/approval-simulator.ts); and the stored files given back byte for byte, checked
 * against the digest the evidence chain recorded.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { startApprovalSimulator, type ApprovalSimulator } from '../support/approval-simulator.ts';
import { MESSAGE_RECORDED_EVENT, type PortabilityMessageRecorded } from '../../services/portability/portability.contract.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000';
process.env.EINV_APPROVAL_TIMEOUT_MS = '700';
process.env.EINV_PA_MATRICULE = '0427';

const SIRET = '73282932000074';
const SIREN = '732829320';

let t: TestApp;
let db: pg.Client;
let approvals: ApprovalSimulator;
let org: Awaited<ReturnType<typeof bootstrap>>;
beforeAll(async () => {
  approvals = await startApprovalSimulator();
  process.env.EINV_APPROVAL_URL = approvals.url;
  t = await startTestApp();
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  org = await bootstrap(t.baseUrl, { label: 'portability' });
});
afterAll(async () => {
  await db?.end();
  await t.stop();
  await approvals.close();
});

/** A request's evidence rows as stored: each row's kind with its payload (the filing's and messages' left out). */
async function chainOf(requestRef: string): Promise<Array<Record<string, any>>> {
  const rows = (await db.query<{ kind: string; payload: Record<string, unknown> }>('select kind, payload from portability_evidence where request_ref = $1 order by seq', [requestRef])).rows;
  return rows.map((r) => (r.kind === 'request.created' || r.kind === 'message.recorded' ? { kind: r.kind } : { kind: r.kind, ...r.payload }));
}

/** The routing switches an organization holds for a SIREN, as stored. */
async function routingsOf(organizationId: string, siren: string) {
  return (await db.query('select id, role, siret, effective_date, connection_id from portability_routings where organization_id = $1 and siren = $2', [organizationId, siren])).rows;
}

const post = (key: string, path: string, body: unknown) => api(t.baseUrl, 'POST', path, { key, body });
const get = (key: string, path: string) => api(t.baseUrl, 'GET', path, { key });
const file = (key: string, body: Record<string, unknown>) => post(key, '/v1/portability/requests', body);
const read = (key: string, ref: string) => get(key, `/v1/portability/requests/${ref}`);

let messages = 0;
function emitMessage(organizationId: string, requestRef: string, m: Partial<PortabilityMessageRecorded>): string {
  const messageId = m.messageId ?? `pmsg_${++messages}`;
  const event: PortabilityMessageRecorded = {
    organizationId, requestRef, messageId, messageType: 'ACK', state: 'acknowledged', statusCode: 'ACK', directionRole: 'LOSING_PA',
    taxpayerSiren: SIREN, reasonCode: null, reasonText: null, createdAt: new Date().toISOString(), csvSha256: 'a'.repeat(64), ...m,
  };
  t.app.broker.emit(MESSAGE_RECORDED_EVENT, event);
  return messageId;
}

/** Reads the request until `done` holds (the event is handled asynchronously), at most 5 s. */
async function readUntil(key: string, ref: string, done: (body: any) => boolean): Promise<any> {
  const until = Date.now() + 5_000;
  for (;;) {
    const res = await read(key, ref);
    expect(res.status).toBe(200);
    if (done(res.body)) return res.body;
    if (Date.now() > until) throw new Error(`request ${ref} never reached the expected state: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const advance = async (key: string, companyId: string, by: string) => {
  const res = await post(key, '/v1/sandbox/clock/advance', { companyId, by });
  expect(res.status).toBe(200);
  return res.body.now as string;
};

describe('POST /v1/portability/resolve', () => {
  it('resolves a SIRET no company of ours holds through the company registry, asked under the SIREN\'s FR VAT number', async () => {
    const res = await post(org.apiKey, '/v1/portability/resolve', { taxpayer: SIRET });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      // The sandbox registry names every well-formed VAT number it is asked about.
      taxpayer: { name: 'Sandbox Company FR44732829320', country: 'FR', registrationNumber: SIREN, peppolId: `0009:${SIREN}`, addressingIdentifier: `${SIREN}_${SIRET}`, resolvedFrom: 'registry' },
      regime: 'FR_CTC',
      requirements: { addressChanges: [SIREN, SIRET], reGrant: true, archiveHolder: 'outgoing_platform' },
      stillNeeded: [],
    });
  });

  it('falls back to what the identifier says when the registry does not know it: French, 0009 + SIREN, its name still needed', async () => {
    // The sandbox registry knows no VAT number ending in 0000 (FR13100090000).
    const res = await post(org.apiKey, '/v1/portability/resolve', { taxpayer: '10009000000017' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      taxpayer: { name: null, country: 'FR', registrationNumber: '100090000', peppolId: '0009:100090000', addressingIdentifier: '100090000_10009000000017', resolvedFrom: 'identifier' },
      regime: 'FR_CTC',
      requirements: { addressChanges: ['100090000', '10009000000017'], reGrant: true, archiveHolder: 'outgoing_platform' },
      stillNeeded: ['name'],
    });
  });

  it('resolves a company of this platform by SIREN, by French VAT number and by name', async () => {
    const imported = await post(org.apiKey, '/v1/companies/import', { siret: '54205118000066', mode: 'portability', organizationId: org.organizationId, companyName: 'Fromagerie Durand' });
    expect(imported.status).toBeLessThan(300);
    const bySiren = await post(org.apiKey, '/v1/portability/resolve', { taxpayer: '542051180' });
    expect(bySiren.status).toBe(200);
    expect(bySiren.body.taxpayer).toMatchObject({ name: 'Fromagerie Durand', country: 'FR', registrationNumber: '542051180', peppolId: '0009:542051180', addressingIdentifier: '542051180', resolvedFrom: 'platform' });
    expect(bySiren.body.requirements.addressChanges).toEqual(['542051180', '0009:542051180']);
    // FR key of 542051180: (12 + 3 × (542051180 mod 97)) mod 97.
    const key = String((12 + 3 * (542051180 % 97)) % 97).padStart(2, '0');
    const byVat = await post(org.apiKey, '/v1/portability/resolve', { taxpayer: `FR${key}542051180` });
    expect(byVat.body.taxpayer).toMatchObject({ name: 'Fromagerie Durand', resolvedFrom: 'platform' });
    const byName = await post(org.apiKey, '/v1/portability/resolve', { taxpayer: 'name:Fromagerie Durand' });
    expect(byName.status).toBe(200);
    expect(byName.body.taxpayer).toMatchObject({ name: 'Fromagerie Durand', resolvedFrom: 'platform' });
  });

  it('resolves a Peppol id of another country from the identifier, and says which country a VAT number names', async () => {
    const peppol = await post(org.apiKey, '/v1/portability/resolve', { taxpayer: '0208:0403170701' });
    expect(peppol.body).toMatchObject({ taxpayer: { name: null, country: 'BE', peppolId: '0208:0403170701', addressingIdentifier: null, resolvedFrom: 'identifier' }, regime: 'PEPPOL', requirements: { addressChanges: ['0208:0403170701'] } });
    const vat = await post(org.apiKey, '/v1/portability/resolve', { taxpayer: 'DE123456789', country: 'FR' });
    expect(vat.body).toMatchObject({ taxpayer: { name: 'Sandbox Company DE123456789', country: 'DE', resolvedFrom: 'registry' }, regime: 'PEPPOL' });
  });

  it('answers 404 when no layer matches, 400 for a bad check digit, and asks for a country for a bare registration number', async () => {
    expectEnvelope(await post(org.apiKey, '/v1/portability/resolve', { taxpayer: 'name:Nobody Anywhere SARL' }), 404, 'RESOURCE_NOT_FOUND');
    expectEnvelope(await post(org.apiKey, '/v1/portability/resolve', { taxpayer: 'contact@unknown-company.example' }), 404, 'RESOURCE_NOT_FOUND');
    expectEnvelope(await post(org.apiKey, '/v1/portability/resolve', { taxpayer: 'HRB12345', country: 'DE' }), 404, 'RESOURCE_NOT_FOUND');
    expectEnvelope(await post(org.apiKey, '/v1/portability/resolve', { taxpayer: '73282932000075' }), 400, 'INVALID_REQUEST');
    expectEnvelope(await post(org.apiKey, '/v1/portability/resolve', { taxpayer: 'HRB12345' }), 400, 'MISSING_FIELD');
    expectEnvelope(await post(org.apiKey, '/v1/portability/resolve', {}), 400, 'MISSING_FIELD');
  });
});

describe('POST /v1/portability/requests', () => {
  it('files a request: received, a missing signatory as a gap, clocks on the platform clock, the first row of an intact chain', async () => {
    const res = await file(org.apiKey, { taxpayer: SIRET, outgoingPlatform: { name: 'Ancienne PA', matricule: '0101' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/v1/portability/requests/${res.body.requestRef}`);
    const b = res.body;
    expect(b).toMatchObject({
      requestRef: expect.stringMatching(/^prq_[0-9A-Z]{26}$/), organizationId: org.organizationId, state: 'received', statusCode: 'REQ', tacitApproval: false, objections: [],
      mandate: { taxpayerId: SIREN, incomingPlatform: '0427', outgoingPlatform: '0101', addressScope: [SIREN, SIRET], signatory: null, signedAt: null, signedBy: null, signatureMethod: null },
      mandateGaps: ['signatory', 'signature'],
      evidence: { verification: { intact: true, length: 1, brokenAt: null }, manifestSha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    expect(Date.parse(b.clocks.notifyBy) - Date.parse(b.createdAt)).toBe(24 * 3_600_000);
    expect(Date.parse(b.clocks.objectionWindowEnds)).toBeGreaterThan(Date.parse(b.clocks.notifyBy));
    // Default effective date: the first business day after the window could close.
    expect(b.mandate.effectiveDate > b.clocks.objectionWindowEnds.slice(0, 10)).toBe(true);
    expect(b.clocks.continuityUntil.slice(5)).toBe(b.mandate.effectiveDate.slice(5));
    expect(Number(b.clocks.continuityUntil.slice(0, 4))).toBe(Number(b.mandate.effectiveDate.slice(0, 4)) + 1);
    // Read back: the same.
    const again = await read(org.apiKey, b.requestRef);
    expect(again.body).toEqual(b);
  });

  it('records a signature the caller asserts (never invented), refuses one in the future, and takes the continuity override', async () => {
    const signedAt = new Date(Date.now() - 3_600_000).toISOString();
    const res = await file(org.apiKey, { taxpayer: SIRET, signatory: { name: 'Jeanne Martin', role: 'Gérante' }, signedAt, signatureMethod: 'paper', overrides: { minimalServiceMonths: 18 }, addressScope: [SIREN] });
    expect(res.status).toBe(201);
    expect(res.body.mandate).toMatchObject({ signedAt, signedBy: 'Jeanne Martin', signatureMethod: 'paper', addressScope: [SIREN], signatory: { name: 'Jeanne Martin', role: 'Gérante' } });
    expect(res.body.mandateGaps).toEqual([]);
    expect(res.body.evidence.verification).toEqual({ intact: true, length: 2, brokenAt: null });
    const eff = res.body.mandate.effectiveDate as string;
    const until = new Date(`${eff}T00:00:00Z`);
    until.setUTCMonth(until.getUTCMonth() + 18);
    expect(res.body.clocks.continuityUntil).toBe(until.toISOString().slice(0, 10));

    expectEnvelope(await file(org.apiKey, { taxpayer: SIRET, signedAt: new Date(Date.now() + 3_600_000).toISOString(), signatureMethod: 'paper' }), 400, 'INVALID_REQUEST');
    expectEnvelope(await file(org.apiKey, { taxpayer: SIRET, signedAt, signatureMethod: 'approval' }), 400, 'INVALID_REQUEST');
    expectEnvelope(await file(org.apiKey, { taxpayer: SIRET, signedAt: 'yesterday' }), 400, 'INVALID_DATE');
    expectEnvelope(await file(org.apiKey, { taxpayer: SIRET, effectiveDate: '2026-02-30' }), 400, 'INVALID_DATE');
    expectEnvelope(await file(org.apiKey, { taxpayer: SIRET, effectiveDate: new Date().toISOString().slice(0, 10) }), 400, 'INVALID_REQUEST');
    expectEnvelope(await file(org.apiKey, { taxpayer: SIRET, signatureMethod: 'fax' }), 400, 'INVALID_ENUM');
    expectEnvelope(await file(org.apiKey, { taxpayer: 'name:Nobody Anywhere SARL' }), 404, 'RESOURCE_NOT_FOUND');
  });

  it('answers 404 for a reference that is not the caller\'s', async () => {
    const mine = await file(org.apiKey, { taxpayer: SIRET });
    const other = await bootstrap(t.baseUrl, { label: 'other' });
    expectEnvelope(await read(other.apiKey, mine.body.requestRef), 404, 'RESOURCE_NOT_FOUND');
    expectEnvelope(await read(org.apiKey, 'prq_01JD7Z3V9Q1M2N3P4R5S6T7V8W'), 404, 'RESOURCE_NOT_FOUND');
    expectEnvelope(await read(org.apiKey, 'not-a-reference'), 400, 'INVALID_REQUEST');
  });
});

describe('state folded from the other platform\'s messages', () => {
  it('received → acknowledged → accepted, each message chained once', async () => {
    const { body } = await file(org.apiKey, { taxpayer: SIRET });
    const ack = emitMessage(org.organizationId, body.requestRef, { messageType: 'ACK', state: 'acknowledged', statusCode: 'ACK' });
    await readUntil(org.apiKey, body.requestRef, (b) => b.state === 'acknowledged');
    emitMessage(org.organizationId, body.requestRef, { messageId: ack });
    emitMessage(org.organizationId, body.requestRef, { messageType: 'DECISION', state: 'accepted', statusCode: 'ACC' });
    const accepted = await readUntil(org.apiKey, body.requestRef, (b) => b.state === 'accepted');
    expect(accepted).toMatchObject({ statusCode: 'ACC', tacitApproval: false, evidence: { verification: { intact: true, length: 3, brokenAt: null } } });
  });

  it('an admissible objection (a ground, within the window) rejects; one without a ground is listed and moves nothing', async () => {
    const rejected = (await file(org.apiKey, { taxpayer: SIRET })).body;
    const id = emitMessage(org.organizationId, rejected.requestRef, { messageType: 'DECISION', state: 'rejected', statusCode: 'REJ', reasonCode: 'MANDAT_INVALIDE', reasonText: 'Mandat non signé' });
    const r = await readUntil(org.apiKey, rejected.requestRef, (b) => b.state === 'rejected');
    expect(r.objections).toEqual([{ ground: 'MANDAT_INVALIDE', admissible: true, messageId: id, at: expect.any(String) }]);
    expect(r.statusCode).toBe('REJ');

    const groundless = (await file(org.apiKey, { taxpayer: SIRET })).body;
    emitMessage(org.organizationId, groundless.requestRef, { messageType: 'DECISION', state: 'rejected', statusCode: 'REJ' });
    const g = await readUntil(org.apiKey, groundless.requestRef, (b) => b.objections.length === 1);
    expect(g).toMatchObject({ state: 'received', objections: [{ ground: null, admissible: false }] });
  });

  it('a transport failure reported in a message fails the request; a message of another organization is not chained', async () => {
    const { body } = await file(org.apiKey, { taxpayer: SIRET });
    emitMessage('org_someone_else', body.requestRef, { messageType: 'DECISION', state: 'accepted', statusCode: 'ACC' });
    emitMessage(org.organizationId, body.requestRef, { messageType: 'REQUEST', state: 'failed', statusCode: 'ERR' });
    const failed = await readUntil(org.apiKey, body.requestRef, (b) => b.state === 'failed');
    expect(failed).toMatchObject({ statusCode: 'ERR', evidence: { verification: { length: 2 } } });
  });
});

describe('routing switch and annuaire', () => {
  it('answers the public default 9998 for a SIREN nobody switched, over HTTP and as the portability.annuaire action', async () => {
    const res = await get(org.apiKey, '/v1/portability/annuaire/404833048');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ siren: '404833048', currentPaMatricule: '9998', effectiveFrom: null, effectiveTo: null, isFlowie: false, level: null, source: 'default' });
    const viaAction = await t.app.broker.call('portability.annuaire', { siren: '404833048', livemode: false });
    expect(viaAction).toEqual(res.body);
    expectEnvelope(await get(org.apiKey, '/v1/portability/annuaire/12345'), 400, 'INVALID_REQUEST');
  });

  it('gaining: the address is valid from the effective date; idempotent on the SIREN', async () => {
    const o = await bootstrap(t.baseUrl, { label: 'routing-gain' });
    const body = { organizationId: o.organizationId, siren: '552100554', siret: '55210055400013', effectiveDate: '2031-03-03', role: 'GAINING_PA' };
    const first = await post(o.apiKey, '/v1/portability/routing', body);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      organizationId: o.organizationId, connectionId: o.company.id, role: 'GAINING_PA', siren: '552100554', siret: '55210055400013', effectiveDate: '2031-03-03',
      serviceUntil: null, created: true, address: { id: '552100554_55210055400013', siren: '552100554', active: false },
    });
    const again = await post(o.apiKey, '/v1/portability/routing', { ...body, effectiveDate: '2032-01-01' });
    expect(again.body).toEqual({ ...first.body, created: false });
    // Not in effect yet: another platform routes it until the day before.
    expect((await get(o.apiKey, '/v1/portability/annuaire/552100554')).body).toMatchObject({ currentPaMatricule: null, effectiveTo: '2031-03-02', isFlowie: false, level: 'SIRET', source: 'routing' });
  });

  it('losing: emission stops on the date and reception stays open 12 months (or minimalServiceMonths)', async () => {
    const o = await bootstrap(t.baseUrl, { label: 'routing-lose' });
    const res = await post(o.apiKey, '/v1/portability/routing', { organizationId: o.organizationId, siren: '303265045', effectiveDate: '2026-01-05', role: 'LOSING_PA' });
    expect(res.body).toMatchObject({ role: 'LOSING_PA', serviceUntil: '2027-01-05', address: { id: '303265045', active: expect.any(Boolean) } });
    const today = new Date().toISOString().slice(0, 10);
    expect(res.body.address.active).toBe(today < '2027-01-05');
    const longer = await post(o.apiKey, '/v1/portability/routing', { organizationId: o.organizationId, siren: '404833048', effectiveDate: '2030-06-30', role: 'LOSING_PA', minimalServiceMonths: 24 });
    expect(longer.body).toMatchObject({ serviceUntil: '2032-06-30', address: { active: true } });
    // Still ours until the day before the switch.
    expect((await get(o.apiKey, '/v1/portability/annuaire/404833048')).body).toMatchObject({ currentPaMatricule: '0427', effectiveTo: '2030-06-29', isFlowie: true, level: 'SIREN' });
  });

  it('refuses another organization, a bad SIREN or SIRET, and needs connectionId when the organization has more than one connection', async () => {
    const o = await bootstrap(t.baseUrl, { label: 'routing-errors' });
    const base = { organizationId: o.organizationId, siren: '542051180', effectiveDate: '2030-01-02', role: 'GAINING_PA' };
    expectEnvelope(await post(o.apiKey, '/v1/portability/routing', { ...base, organizationId: org.organizationId }), 403, 'ORGANIZATION_FORBIDDEN');
    expectEnvelope(await post(o.apiKey, '/v1/portability/routing', { ...base, siren: '542051181' }), 400, 'INVALID_REQUEST');
    expectEnvelope(await post(o.apiKey, '/v1/portability/routing', { ...base, siret: '55210055400013' }), 400, 'INVALID_REQUEST');
    expectEnvelope(await post(o.apiKey, '/v1/portability/routing', { ...base, effectiveDate: '2030-13-01' }), 400, 'INVALID_DATE');
    expectEnvelope(await post(o.apiKey, '/v1/portability/routing', { ...base, role: 'NEUTRAL' }), 400, 'INVALID_ENUM');
    expectEnvelope(await post(o.apiKey, '/v1/portability/routing', { ...base, connectionId: 'comp_01JD7Z3V9Q1M2N3P4R5S6T7V8W' }), 404, 'COMPANY_NOT_FOUND');
    const second = await post(o.apiKey, '/v1/companies/import', { siret: '54205118000066', mode: 'portability', organizationId: o.organizationId });
    expect(second.status).toBeLessThan(300);
    const companies = await get(o.apiKey, '/v1/companies');
    if (companies.body.data.length > 1) {
      expectEnvelope(await post(o.apiKey, '/v1/portability/routing', base), 400, 'MISSING_FIELD');
      const chosen = await post(o.apiKey, '/v1/portability/routing', { ...base, connectionId: second.body.id });
      expect(chosen.body).toMatchObject({ connectionId: second.body.id, created: true });
    } else {
      throw new Error(`the import did not add a second company: ${JSON.stringify(companies.body)}`);
    }
  });
});

describe('a request from filing to completed on the virtual clock', () => {
  it('tacit acceptance when the window lapses, executing from the effective date with the routing switch made by the execution itself, completed once the annuaire names this platform', async () => {
    const o = await bootstrap(t.baseUrl, { label: 'full-flow' });
    const now = new Date();
    const effectiveDate = new Date(now.getTime() + 40 * 86_400_000).toISOString().slice(0, 10);
    const created = await file(o.apiKey, { taxpayer: '55210055400013', effectiveDate, signatory: { name: 'Paul Durand' } });
    expect(created.status).toBe(201);
    const ref = created.body.requestRef as string;
    expect((await read(o.apiKey, ref)).body).toMatchObject({ state: 'received', tacitApproval: false });

    // 15 days on: the window (5 business days) closed in silence.
    const later = await advance(o.apiKey, o.company.id, '15d');
    expect(Date.parse(later)).toBeGreaterThan(Date.parse(created.body.clocks.objectionWindowEnds));
    const tacit = await read(o.apiKey, ref);
    expect(tacit.body).toMatchObject({ state: 'auto_accepted', statusCode: 'TAC', tacitApproval: true, evidence: { verification: { intact: true, length: 2 } } });
    expect((await read(o.apiKey, ref)).body.evidence.verification.length).toBe(2); // written once

    // An objection after the window is listed as late and changes nothing.
    emitMessage(o.organizationId, ref, { messageType: 'DECISION', state: 'rejected', statusCode: 'REJ', reasonCode: 'TROP_TARD' });
    const late = await readUntil(o.apiKey, ref, (b) => b.objections.length === 1);
    expect(late).toMatchObject({ state: 'auto_accepted', objections: [{ ground: 'TROP_TARD', admissible: false }] });

    // Past the effective date: executing, and the execution makes the gaining switch itself (nobody
    // calls routing); the annuaire then names this platform, so the same read completes.
    const executedOn = await advance(o.apiKey, o.company.id, '30d');
    expect(executedOn.slice(0, 10) >= effectiveDate).toBe(true);
    const completed = await read(o.apiKey, ref);
    expect(completed.body).toMatchObject({ state: 'completed', statusCode: 'CMP', tacitApproval: true, evidence: { verification: { intact: true, length: 6, brokenAt: null } } });
    expect(await chainOf(ref)).toMatchObject([
      { kind: 'request.created' }, { kind: 'tacit.accepted' }, { kind: 'message.recorded' }, { kind: 'execution.started', effectiveDate },
      { kind: 'routing.switched', role: 'GAINING_PA', siren: '552100554', siret: null, effectiveDate, connectionId: o.company.id, routingId: expect.stringMatching(/^prt_/) },
      { kind: 'routing.confirmed', currentPaMatricule: '0427', effectiveFrom: effectiveDate, level: 'SIREN' },
    ]);
    const switches = await routingsOf(o.organizationId, '552100554');
    expect(switches).toEqual([{ id: (await chainOf(ref))[4]!.routingId, role: 'GAINING_PA', siret: null, effective_date: effectiveDate, connection_id: o.company.id }]);

    // The address scope moves the SIREN itself: a SIREN-level line, this platform's from the effective date.
    const annuaire = await get(o.apiKey, '/v1/portability/annuaire/552100554');
    expect(annuaire.body).toEqual({ siren: '552100554', currentPaMatricule: '0427', effectiveFrom: effectiveDate, effectiveTo: null, isFlowie: true, level: 'SIREN', source: 'routing' });

    // The operator's routing call afterwards answers the switch the execution made.
    const routing = await post(o.apiKey, '/v1/portability/routing', { organizationId: o.organizationId, siren: '552100554', siret: '55210055400013', effectiveDate, role: 'GAINING_PA' });
    expect(routing.status).toBe(200);
    expect(routing.body).toMatchObject({ created: false, role: 'GAINING_PA', siren: '552100554', siret: null, effectiveDate, address: { id: '552100554', active: true } });
    expect(await routingsOf(o.organizationId, '552100554')).toEqual(switches);
    expect((await read(o.apiKey, ref)).body).toEqual(completed.body);
  });

  it('the scheduler wakes the request on its effective date: the annuaire names this platform with nobody reading the request', async () => {
    const o = await bootstrap(t.baseUrl, { label: 'executing-scheduled' });
    const effectiveDate = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10);
    const created = await file(o.apiKey, { taxpayer: '55210055400013', effectiveDate });
    expect(created.status).toBe(201);
    const ref = created.body.requestRef as string;
    const job = await db.query('select due_at, company_id from scheduled_jobs where kind = $1 and ref = $2', ['portability.execute', ref]);
    expect(job.rows).toEqual([{ due_at: new Date(`${effectiveDate}T00:00:00+01:00`), company_id: o.company.id }]);
    expect(await chainOf(ref)).toEqual([{ kind: 'request.created' }]);

    // The clock moves past the effective date; the request is not read, only the annuaire.
    await advance(o.apiKey, o.company.id, '50d');
    const until = Date.now() + 10_000;
    let annuaire = (await get(o.apiKey, '/v1/portability/annuaire/552100554')).body;
    while (!annuaire.isFlowie && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      annuaire = (await get(o.apiKey, '/v1/portability/annuaire/552100554')).body;
    }
    expect(annuaire).toEqual({ siren: '552100554', currentPaMatricule: '0427', effectiveFrom: effectiveDate, effectiveTo: null, isFlowie: true, level: 'SIREN', source: 'routing' });
    // The job chained the whole way (its rows are there before any read) and is done.
    const waitChain = Date.now() + 5_000;
    while ((await chainOf(ref)).length < 5 && Date.now() < waitChain) await new Promise((r) => setTimeout(r, 50));
    expect((await chainOf(ref)).map((r) => r.kind)).toEqual(['request.created', 'tacit.accepted', 'execution.started', 'routing.switched', 'routing.confirmed']);
    expect((await db.query('select 1 from scheduled_jobs where kind = $1 and ref = $2', ['portability.execute', ref])).rowCount).toBe(0);
    expect(await routingsOf(o.organizationId, '552100554')).toHaveLength(1);
    expect((await read(o.apiKey, ref)).body).toMatchObject({ state: 'completed', evidence: { verification: { intact: true, length: 5 } } });
  });

  it('racing readers of a request that reached its effective date make one switch and chain it once', async () => {
    const o = await bootstrap(t.baseUrl, { label: 'executing-race' });
    const effectiveDate = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10);
    // The scope names one establishment, not the SIREN: the switch is that SIRET's line.
    const created = await file(o.apiKey, { taxpayer: SIRET, effectiveDate, addressScope: [SIRET] });
    expect(created.status).toBe(201);
    const ref = created.body.requestRef as string;
    await advance(o.apiKey, o.company.id, '50d');

    const reads = await Promise.all(Array.from({ length: 8 }, () => read(o.apiKey, ref)));
    for (const r of reads) expect({ status: r.status, error: r.body.error }).toEqual({ status: 200, error: undefined });
    // A reader that lost the race to the lock may answer before the last row: never a broken or doubled chain.
    for (const r of reads) expect(r.body.evidence.verification).toMatchObject({ intact: true, brokenAt: null });
    const settled = await read(o.apiKey, ref);
    expect(settled.body).toMatchObject({ state: 'completed', evidence: { verification: { intact: true, length: 5 } } });
    expect((await chainOf(ref)).map((r) => r.kind)).toEqual(['request.created', 'tacit.accepted', 'execution.started', 'routing.switched', 'routing.confirmed']);
    expect(await routingsOf(o.organizationId, SIREN)).toEqual([{ id: expect.any(String), role: 'GAINING_PA', siret: SIRET, effective_date: effectiveDate, connection_id: o.company.id }]);
    expect((await get(o.apiKey, `/v1/portability/annuaire/${SIREN}`)).body).toMatchObject({ currentPaMatricule: '0427', isFlowie: true, level: 'SIRET', effectiveFrom: effectiveDate });
    const again = await post(o.apiKey, '/v1/portability/routing', { organizationId: o.organizationId, siren: SIREN, effectiveDate: '2035-01-01', role: 'LOSING_PA' });
    expect(again.body).toMatchObject({ created: false, role: 'GAINING_PA', siret: SIRET, effectiveDate });
  });
});

describe('mandate signature through the approval service', () => {
  it('opens a check bound to portability:<ref>:<mandateSha256>; signed only once the check passed, written into the chain by the first read', async () => {
    const { body } = await file(org.apiKey, { taxpayer: SIRET, signatory: { name: 'Jeanne Martin' } });
    const ref = body.requestRef as string;
    const opened = await post(org.apiKey, `/v1/portability/requests/${ref}/mandate/signature`, { userIds: ['user_1', 'user_2'] });
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({ requestRef: ref, status: 'open', mandateSha256: body.mandate.mandateSha256, contextKey: `portability:${ref}:${body.mandate.mandateSha256}`, objectId: expect.stringMatching(/^pfile_/) });
    expect(opened.body.agreementSha256).toBe(createHash('sha256').update(opened.body.agreement).digest('hex'));
    expect(opened.body.agreement).toContain(SIREN);
    expect(opened.body.agreement).toContain(body.mandate.effectiveDate);
    const check = approvals.checks.get(opened.body.checkId)!;
    expect(check).toMatchObject({ contextKey: opened.body.contextKey, userIds: ['user_1', 'user_2'], documentSha256: opened.body.agreementSha256 });

    const path = `/v1/portability/requests/${ref}/mandate/signature`;
    expect((await get(org.apiKey, path)).body).toMatchObject({ signed: false, status: 'open', signedAt: null });
    approvals.decide(check.id, 'refused');
    expect((await get(org.apiKey, path)).body).toMatchObject({ signed: false, status: 'refused' });
    approvals.decide(check.id, 'withdrawn');
    expect((await get(org.apiKey, path)).body).toMatchObject({ signed: false, status: 'withdrawn' });
    const decidedAt = new Date(Date.now() - 60_000).toISOString();
    approvals.decide(check.id, 'passed', 'user_2', decidedAt);
    const signed = await get(org.apiKey, path);
    expect(signed.body).toEqual({
      requestRef: ref, signed: true, status: 'passed', checkId: check.id, method: 'approval', signedAt: decidedAt, signedBy: 'user_2',
      agreementSha256: opened.body.agreementSha256, mandateSha256: body.mandate.mandateSha256,
    });
    const readsBefore = approvals.reads.length;
    expect((await get(org.apiKey, path)).body).toEqual(signed.body);
    expect(approvals.reads.length).toBe(readsBefore); // recorded: the service is not asked again
    const request = (await read(org.apiKey, ref)).body;
    expect(request.mandate).toMatchObject({ signedAt: decidedAt, signedBy: 'user_2', signatureMethod: 'approval', agreementSha256: opened.body.agreementSha256 });
    expect(request.mandateGaps).toEqual([]);
    expect(request.evidence.verification).toEqual({ intact: true, length: 3, brokenAt: null });

    expectEnvelope(await post(org.apiKey, path, { userIds: ['user_1'] }), 409, 'SIGNATURE_EXISTS');
  });

  it('a read while the approval service does not answer is 502 and records nothing; the next read finds the check', async () => {
    const { body } = await file(org.apiKey, { taxpayer: SIRET, signatory: { name: 'Jeanne Martin' } });
    const path = `/v1/portability/requests/${body.requestRef}/mandate/signature`;
    const opened = await post(org.apiKey, path, { userIds: ['user_1'] });
    approvals.decide(opened.body.checkId, 'passed', 'user_1', new Date(Date.now() - 1_000).toISOString());
    approvals.stall = true;
    try {
      expectEnvelope(await get(org.apiKey, path), 502, 'UPSTREAM_ERROR');
    } finally {
      approvals.stall = false;
    }
    expect((await read(org.apiKey, body.requestRef)).body).toMatchObject({ mandate: { signedAt: null }, evidence: { verification: { length: 2 } } });
    expect((await get(org.apiKey, path)).body).toMatchObject({ signed: true, status: 'passed', signedBy: 'user_1' });
  });

  it('binds the check to a document of the caller\'s when objectId names one (the rendering is not stored then)', async () => {
    const stored = await post(org.apiKey, '/v1/documents/send', { type: 'invoice', format: 'raw', file: { content: Buffer.from('signed mandate scan').toString('base64'), filename: 'mandat.txt' } });
    expect(stored.status).toBe(201);
    const { body } = await file(org.apiKey, { taxpayer: SIRET });
    const opened = await post(org.apiKey, `/v1/portability/requests/${body.requestRef}/mandate/signature`, { userIds: ['user_1'], objectId: stored.body.id });
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({ objectId: stored.body.id, status: 'open' });
    expect((await read(org.apiKey, body.requestRef)).body.evidence.verification.length).toBe(2);
  });

  it('409 when a decree item is missing, 404 for an objectId that is not a document of yours, 502 when the approval service does not answer', async () => {
    const incomplete = (await file(org.apiKey, { taxpayer: SIRET, addressScope: [] })).body;
    expect(incomplete.mandateGaps).toEqual(['addressScope', 'signatory', 'signature']);
    const refused = await post(org.apiKey, `/v1/portability/requests/${incomplete.requestRef}/mandate/signature`, { userIds: ['user_1'] });
    expectEnvelope(refused, 409, 'MANDATE_INCOMPLETE');
    expect(refused.body.error.details).toEqual([{ field: 'addressScope', rule: 'decreeItem', message: expect.any(String) }]);

    const ok = (await file(org.apiKey, { taxpayer: SIRET })).body;
    const path = `/v1/portability/requests/${ok.requestRef}/mandate/signature`;
    expectEnvelope(await post(org.apiKey, path, { userIds: ['user_1'], objectId: 'doc_01JD7Z3V9Q1M2N3P4R5S6T7V8W' }), 404, 'DOCUMENT_NOT_FOUND');
    expectEnvelope(await post(org.apiKey, path, {}), 400, 'MISSING_FIELD');

    approvals.stall = true;
    try {
      const started = Date.now();
      expectEnvelope(await post(org.apiKey, path, { userIds: ['user_1'] }), 502, 'UPSTREAM_ERROR');
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      approvals.stall = false;
    }
    // Nothing was recorded by the failed attempt.
    expect((await read(org.apiKey, ok.requestRef)).body.evidence.verification.length).toBe(1);
    expect((await get(org.apiKey, path)).body).toMatchObject({ signed: false, status: 'none', checkId: null });
  });
});

describe('POST …/mandate/signature/document', () => {
  function multipart(parts: Array<{ name: string; value: string | Buffer; filename?: string; type?: string }>): { body: Buffer; contentType: string } {
    const boundary = `----portability${Date.now()}`;
    const chunks: Buffer[] = [];
    for (const p of parts) {
      const disposition = `form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}`;
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`));
      chunks.push(Buffer.isBuffer(p.value) ? p.value : Buffer.from(p.value));
      chunks.push(Buffer.from('\r\n'));
    }
    chunks.push(Buffer.from(`--${boundary}--\r\n`));
    return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
  }
  const deposit = (ref: string, form: { body: Buffer; contentType: string }) =>
    api(t.baseUrl, 'POST', `/v1/portability/requests/${ref}/mandate/signature/document`, { key: org.apiKey, rawBody: form.body, headers: { 'content-type': form.contentType } });

  it('stores the signed file and records the signature with the digest of that file; a second one is 409', async () => {
    const { body } = await file(org.apiKey, { taxpayer: SIRET, signatory: { name: 'Jeanne Martin' } });
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2048, 7)]);
    const signedAt = '2026-01-15T10:30:00+01:00';
    const res = await deposit(body.requestRef, multipart([
      { name: 'signedBy', value: 'Jeanne Martin' }, { name: 'signedAt', value: signedAt }, { name: 'file', value: pdf, filename: 'mandat-signe.pdf', type: 'application/pdf' },
    ]));
    expect(res.status).toBe(201);
    const digest = createHash('sha256').update(pdf).digest('hex');
    expect(res.body).toMatchObject({ signed: true, method: 'paper', signedAt: '2026-01-15T09:30:00.000Z', signedBy: 'Jeanne Martin', agreementSha256: digest, fileId: expect.stringMatching(/^pfile_/) });
    const request = (await read(org.apiKey, body.requestRef)).body;
    expect(request.mandate).toMatchObject({ signedAt: '2026-01-15T09:30:00.000Z', agreementSha256: digest, signatureMethod: 'paper' });
    expect(request.mandateGaps).toEqual([]);

    const again = await deposit(body.requestRef, multipart([{ name: 'signedBy', value: 'X' }, { name: 'signedAt', value: signedAt }, { name: 'file', value: pdf, filename: 'b.pdf' }]));
    expectEnvelope(again, 409, 'SIGNATURE_EXISTS');
    expectEnvelope(await post(org.apiKey, `/v1/portability/requests/${body.requestRef}/mandate/signature`, { userIds: ['user_1'] }), 409, 'SIGNATURE_EXISTS');
  });

  it('400 for a signature dated in the future or a body that is not multipart, 413 for a file over 10 MB, 404 for another organization\'s request', async () => {
    const { body } = await file(org.apiKey, { taxpayer: SIRET });
    const future = new Date(Date.now() + 86_400_000).toISOString();
    expectEnvelope(await deposit(body.requestRef, multipart([{ name: 'signedBy', value: 'J' }, { name: 'signedAt', value: future }, { name: 'file', value: 'x', filename: 'a.pdf' }])), 400, 'INVALID_REQUEST');
    expectEnvelope(await deposit(body.requestRef, multipart([{ name: 'signedBy', value: 'J' }, { name: 'signedAt', value: '2026-01-01T00:00:00Z' }])), 400, 'INVALID_REQUEST');
    expectEnvelope(await deposit(body.requestRef, multipart([{ name: 'signedAt', value: '2026-01-01T00:00:00Z' }, { name: 'file', value: 'x', filename: 'a.pdf' }])), 400, 'MISSING_FIELD');
    expectEnvelope(await deposit(body.requestRef, { body: Buffer.from('just bytes'), contentType: 'application/pdf' }), 400, 'INVALID_REQUEST');
    expectEnvelope(await deposit(body.requestRef, multipart([{ name: 'signedBy', value: 'J\u0000' }, { name: 'signedAt', value: '2026-01-01T00:00:00Z' }, { name: 'file', value: 'x', filename: 'a.pdf' }])), 400, 'INVALID_REQUEST');
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 1);
    expectEnvelope(await deposit(body.requestRef, multipart([{ name: 'signedBy', value: 'J' }, { name: 'signedAt', value: '2026-01-01T00:00:00Z' }, { name: 'file', value: big, filename: 'big.pdf' }])), 413, 'PAYLOAD_TOO_LARGE');
    expect((await read(org.apiKey, body.requestRef)).body.evidence.verification.length).toBe(1);

    const other = await bootstrap(t.baseUrl, { label: 'other-deposit' });
    const res = await api(t.baseUrl, 'POST', `/v1/portability/requests/${body.requestRef}/mandate/signature/document`, { key: other.apiKey, rawBody: Buffer.from('x'), headers: { 'content-type': 'multipart/form-data; boundary=x' } });
    expectEnvelope(res, 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('downloading a request\'s stored files', () => {
  const download = async (key: string, path: string) => {
    const res = await fetch(`${t.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
    const bytes = Buffer.from(await res.arrayBuffer());
    let body: any;
    try { body = JSON.parse(bytes.toString('utf8')); } catch { body = undefined; }
    return { status: res.status, headers: res.headers, bytes, body, text: bytes.toString('utf8') };
  };
  const reprDigest = (bytes: Buffer) => `sha-256=:${createHash('sha256').update(bytes).digest('base64')}:`;
  function signedForm(pdf: Buffer, filename: string): { body: Buffer; contentType: string } {
    const boundary = `----download${Date.now()}`;
    const part = (headers: string, value: Buffer | string) => [Buffer.from(`--${boundary}\r\n${headers}\r\n\r\n`), Buffer.from(value), Buffer.from('\r\n')];
    return {
      contentType: `multipart/form-data; boundary=${boundary}`,
      body: Buffer.concat([
        ...part('Content-Disposition: form-data; name="signedBy"', 'Jeanne Martin'),
        ...part('Content-Disposition: form-data; name="signedAt"', '2026-01-15T10:30:00+01:00'),
        ...part(`Content-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/pdf`, pdf),
        Buffer.from(`--${boundary}--\r\n`),
      ]),
    };
  }

  it('gives the deposited signed mandate back byte for byte, with its type, name and the digest the chain recorded; refuses tampered bytes', async () => {
    const { body } = await file(org.apiKey, { taxpayer: SIRET, signatory: { name: 'Jeanne Martin' } });
    const ref = body.requestRef as string;
    const docPath = `/v1/portability/requests/${ref}/mandate/signature/document`;
    expectEnvelope(await get(org.apiKey, docPath), 404, 'RESOURCE_NOT_FOUND'); // nothing deposited yet

    // Every byte value, so a text decoding anywhere on the way would show.
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 256))]);
    const form = signedForm(pdf, 'mandat-signé.pdf');
    const deposited = await api(t.baseUrl, 'POST', docPath, { key: org.apiKey, rawBody: form.body, headers: { 'content-type': form.contentType } });
    expect(deposited.status).toBe(201);
    const digest = createHash('sha256').update(pdf).digest('hex');
    expect(deposited.body.agreementSha256).toBe(digest);

    for (const path of [docPath, `/v1/portability/requests/${ref}/files/${deposited.body.fileId}`]) {
      const res = await download(org.apiKey, path);
      expect(res.status).toBe(200);
      expect(res.bytes.equals(pdf)).toBe(true);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="mandat-sign_.pdf"; filename*=UTF-8\'\'mandat-sign%C3%A9.pdf');
      expect(res.headers.get('repr-digest')).toBe(reprDigest(pdf));
      expect(res.headers.get('etag')).toBe(`"${digest}"`);
    }

    // Another organization, an unknown file, a file of another request: 404 in the envelope.
    const other = await bootstrap(t.baseUrl, { label: 'other-download' });
    expectEnvelope(await get(other.apiKey, docPath), 404, 'RESOURCE_NOT_FOUND');
    expectEnvelope(await get(other.apiKey, `/v1/portability/requests/${ref}/files/${deposited.body.fileId}`), 404, 'RESOURCE_NOT_FOUND');
    expectEnvelope(await get(org.apiKey, `/v1/portability/requests/${ref}/files/pfile_01JD7Z3V9Q1M2N3P4R5S6T7V8W`), 404, 'RESOURCE_NOT_FOUND');
    const elsewhere = (await file(org.apiKey, { taxpayer: SIRET })).body.requestRef as string;
    expectEnvelope(await get(org.apiKey, `/v1/portability/requests/${elsewhere}/files/${deposited.body.fileId}`), 404, 'RESOURCE_NOT_FOUND');
    expectEnvelope(await get(org.apiKey, `/v1/portability/requests/${ref}/files/not-a-file`), 400, 'INVALID_REQUEST');

    // One byte changed where the file is stored: refused with a clear error, never served.
    await db.query('update portability_files set content = overlay(content placing $2 from 100 for 1) where id = $1', [deposited.body.fileId, Buffer.from([pdf[99]! ^ 0xff])]);
    for (const path of [docPath, `/v1/portability/requests/${ref}/files/${deposited.body.fileId}`]) {
      const refused = await get(org.apiKey, path);
      expectEnvelope(refused, 502, 'UPSTREAM_ERROR');
      expect(refused.body.error.message).toContain('corrupt');
      expect(refused.body.error.message).toContain(digest);
    }
    // The stored digest column changed too: the chain's digest is the one bytes are held to.
    await db.query('update portability_files set sha256 = encode(sha256(content), \'hex\') where id = $1', [deposited.body.fileId]);
    expectEnvelope(await get(org.apiKey, docPath), 502, 'UPSTREAM_ERROR');
    await db.query('update portability_files set content = $2, sha256 = $3 where id = $1', [deposited.body.fileId, pdf, digest]);
    expect((await download(org.apiKey, docPath)).bytes.equals(pdf)).toBe(true);

    // A chain that no longer verifies before the signature row vouches for nothing.
    await db.query('update portability_evidence set kind = \'tampered\' where request_ref = $1 and seq = 1', [ref]);
    try {
      const broken = await get(org.apiKey, docPath);
      expectEnvelope(broken, 502, 'UPSTREAM_ERROR');
      expect(broken.body.error.message).toContain('does not verify from seq 1');
      expectEnvelope(await get(org.apiKey, `/v1/portability/requests/${ref}/files/${deposited.body.fileId}`), 502, 'UPSTREAM_ERROR');
    } finally {
      await db.query('update portability_evidence set kind = \'request.created\' where request_ref = $1 and seq = 1', [ref]);
    }
    expect((await download(org.apiKey, docPath)).status).toBe(200);
  });

  it('gives the rendered agreement of an opened signature back as the text its digest covers', async () => {
    const { body } = await file(org.apiKey, { taxpayer: SIRET, signatory: { name: 'Jeanne Martin' } });
    const opened = await post(org.apiKey, `/v1/portability/requests/${body.requestRef}/mandate/signature`, { userIds: ['user_1'] });
    expect(opened.status).toBe(201);
    const res = await download(org.apiKey, `/v1/portability/requests/${body.requestRef}/files/${opened.body.objectId}`);
    expect(res.status).toBe(200);
    expect(res.text).toBe(opened.body.agreement);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('etag')).toBe(`"${opened.body.agreementSha256}"`);
    expect(res.headers.get('repr-digest')).toBe(reprDigest(Buffer.from(opened.body.agreement, 'utf8')));
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${body.mandate.reference}.txt"; filename*=UTF-8''${body.mandate.reference}.txt`);
    // The agreement is no deposited signed mandate.
    expectEnvelope(await get(org.apiKey, `/v1/portability/requests/${body.requestRef}/mandate/signature/document`), 404, 'RESOURCE_NOT_FOUND');
  });
});
