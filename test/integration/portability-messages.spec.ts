/**
 * Portability messages end to end on the real app: a message is built (subject, 18-column CSV and
 * its digest), logged, addressed through the registry snapshot (an operator file here), and mailed
 * through a real SMTP server on 127.0.0.1 when the key is live and the deployment dispatches; a
 * sandbox key never reaches a platform; each refusal reason and a refusing SMTP server are logged
 * as such; `portability.message.recorded` follows every message. Then the list (newest first,
 * filters, cursor, real total), the proof bundle with the annuaire snapshot, the parse endpoint's
 * 400s, the platform list (matricules for signed-in readers only) and company suggestions.
 * The annuaire snapshot comes from the real `portability` service running beside it.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServiceSchema } from 'moleculer';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { makeLive } from '../support/live-key.ts';
import { eventually } from '../support/webhook-receiver.ts';
import { startSmtpCapture, partsOf, type SmtpCapture } from '../support/smtp.ts';
import { PORTABILITY_CSV_COLUMNS } from '../../mappings/portability/index.ts';
import type { PortabilityMessageRecorded } from '../../services/portability-messages/portability-messages.contract.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

const dir = mkdtempSync(join(tmpdir(), 'einv-portability-'));
const registryFile = join(dir, 'platforms.json');
writeFileSync(registryFile, JSON.stringify({
  source: 'test registry', snapshotDate: '2026-11-01',
  platforms: [
    { name: 'Plateforme Alpha', website: 'https://alpha.example', email: 'contact@alpha.example', portabilityEmail: 'portabilite@alpha.example', contactEmail: null, registeredOn: '2025-09-01', status: 'registered', matricule: '0042', matriculeConfidence: 'published' },
    { name: 'Bêta Factures', website: 'https://beta.example', email: 'hello@beta.example', portabilityEmail: null, contactEmail: 'support@beta.example', registeredOn: null, status: 'pending_interop' },
    { name: 'Gamma', website: null, status: 'registered' },
  ],
}));

const recorded: PortabilityMessageRecorded[] = [];
const ListenerService: ServiceSchema = {
  name: 'test-portability-listener',
  events: { 'portability.message.recorded'(ctx: { params: PortabilityMessageRecorded }) { recorded.push(ctx.params); } },
};

let t: TestApp;
let smtp: SmtpCapture;
let sandboxKey: string;
let liveKey: string;

beforeAll(async () => {
  smtp = await startSmtpCapture();
  Object.assign(process.env, { EINV_SMTP_URL: smtp.url, EINV_MAIL_FROM: 'portabilite@ours.example', EINV_PORTABILITY_DISPATCH: 'true', EINV_PORTABILITY_PLATFORMS_FILE: registryFile });
  t = await startTestApp({ extraServices: [ListenerService] });
  sandboxKey = (await bootstrap(t.baseUrl, { label: 'porta-sandbox' })).apiKey;
  liveKey = (await bootstrap(t.baseUrl, { label: 'porta-live' })).apiKey;
  await makeLive(t.databaseUrl, liveKey);
});
afterAll(async () => {
  await t.stop();
  await smtp.close();
  for (const k of ['EINV_SMTP_URL', 'EINV_MAIL_FROM', 'EINV_PORTABILITY_DISPATCH', 'EINV_PORTABILITY_PLATFORMS_FILE', 'EINV_PORTABILITY_RELAY_URL']) delete process.env[k];
});

const request = (over: Record<string, unknown> = {}) => ({
  messageType: 'REQUEST', state: 'received', requestRef: 'PORT-2026-0001', directionRole: 'GAINING_PA', taxpayerSiren: '120027016', taxpayerSiret: '12002701600357',
  taxpayerName: 'Exemple; "SARL"', gainingPaId: 'ours', gainingPaName: 'Our Platform', losingPaName: 'Plateforme Alpha', effectiveDate: '2026-12-15',
  transferredAddresses: ['0225:120027016', '0225:120027016_12002701600357'], mandateRef: 'MDT-1', mandateSignatory: 'Jeanne Martin', ...over,
});
const post = (key: string, body: Record<string, unknown>) => api(t.baseUrl, 'POST', '/v1/portability/messages', { key, body });
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('POST /v1/portability/messages', () => {
  it('mails a live message to the platform the registry names, the CSV inline, and logs it with the SMTP message id', async () => {
    const before = smtp.messages.length;
    const res = await post(liveKey, request());
    expect(res.status).toBe(201);
    const m = res.body;
    expect(Object.keys(m).sort()).toEqual(['createdAt', 'csvHeader', 'csvRow', 'csvSha256', 'dispatched', 'directionRole', 'filename', 'id', 'messageType', 'reason', 'recipientSource', 'requestRef', 'smtpMessageId', 'state', 'statusCode', 'subject', 'taxpayerSiren', 'to', 'transport'].sort());
    expect(m).toMatchObject({
      subject: '[PORTABILITE][REQUEST][REQ][SIREN:120027016][REF:PORT-2026-0001]', messageType: 'REQUEST', statusCode: 'REQ', state: 'received',
      to: 'portabilite@alpha.example', recipientSource: 'registry:Plateforme Alpha', dispatched: true, reason: 'sent', transport: 'smtp',
      csvHeader: PORTABILITY_CSV_COLUMNS.join(';'),
    });
    expect(res.headers.get('location')).toBe(`/v1/portability/messages/${m.id}`);
    expect(m.filename).toMatch(/^PORTABILITE_REQUEST_REQ_120027016_PORT-2026-0001_\d{8}T\d{6}Z\.csv$/);
    expect(m.csvRow).toBe(`PORT-2026-0001;REQUEST;REQ;GAINING_PA;120027016;12002701600357;"Exemple; ""SARL""";ours;Our Platform;;Plateforme Alpha;2026-12-15;0225:120027016|0225:120027016_12002701600357;MDT-1;Jeanne Martin;${m.createdAt};;`);
    expect(m.csvSha256).toBe(sha256(`${m.csvHeader}\r\n${m.csvRow}\r\n`));

    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    expect(mail!.to).toEqual(['portabilite@alpha.example']);
    expect(mail!.from).toBe('portabilite@ours.example');
    expect(mail!.subject).toBe(m.subject);
    expect(mail!.messageId).toBe(m.smtpMessageId);
    const parts = partsOf(mail!.raw);
    expect(parts).toHaveLength(1);
    expect(parts[0]!.content).toContain(`-----BEGIN PORTABILITE CSV-----\r\n${m.csvHeader}\r\n${m.csvRow}\r\n-----END PORTABILITE CSV-----`);

    const event = await eventually(async () => recorded.find((e) => e.messageId === m.id));
    expect(event).toEqual({
      organizationId: expect.stringMatching(/^org_/), messageId: m.id, requestRef: 'PORT-2026-0001', messageType: 'REQUEST', state: 'received', statusCode: 'REQ',
      directionRole: 'GAINING_PA', taxpayerSiren: '120027016', reasonCode: null, reasonText: null, createdAt: m.createdAt, csvSha256: m.csvSha256,
    });
  });

  it('a direct relay carries the CSV as the attached file instead of inline', async () => {
    const relay = await startSmtpCapture();
    process.env.EINV_PORTABILITY_RELAY_URL = relay.url;
    try {
      const res = await post(liveKey, request({ messageType: 'COMPLETION', state: 'completed', requestRef: 'PORT-RELAY' }));
      expect(res.body).toMatchObject({ dispatched: true, reason: 'sent', transport: 'relay', to: 'portabilite@alpha.example' });
      const [mail] = await relay.waitFor(1);
      const [text, file] = partsOf(mail!.raw);
      expect(text!.content).toContain(`attached as ${res.body.filename}`);
      expect(text!.content).not.toContain(res.body.csvRow);
      expect(file).toEqual({ contentType: 'text/csv', filename: res.body.filename, content: `${res.body.csvHeader}\r\n${res.body.csvRow}\r\n` });
      expect(sha256(file!.content)).toBe(res.body.csvSha256);
    } finally {
      delete process.env.EINV_PORTABILITY_RELAY_URL;
      await relay.close();
    }
  });

  it('a sandbox key never reaches a platform: logged with reason sandbox, nothing mailed', async () => {
    const before = smtp.messages.length;
    const res = await post(sandboxKey, request({ requestRef: 'PORT-SANDBOX' }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ to: 'portabilite@alpha.example', recipientSource: 'registry:Plateforme Alpha', dispatched: false, reason: 'sandbox', smtpMessageId: null, transport: null });
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.messages.length).toBe(before);
    await eventually(async () => recorded.some((e) => e.messageId === res.body.id));
  });

  it('explicit `to` always wins; the contact address serves a platform without a portability one; the decision goes back to the gaining platform', async () => {
    expect((await post(liveKey, request({ to: 'ops@elsewhere.example', requestRef: 'PORT-TO' }))).body).toMatchObject({ to: 'ops@elsewhere.example', recipientSource: 'explicit', reason: 'sent' });
    const decision = await post(liveKey, request({ messageType: 'DECISION', state: 'accepted', directionRole: undefined, gainingPaName: 'BETA factures', losingPaName: 'Ours', requestRef: 'PORT-DEC' }));
    expect(decision.body).toMatchObject({ to: 'support@beta.example', recipientSource: 'registry:Bêta Factures', statusCode: 'ACC', reason: 'sent' });
    const byMatricule = await post(liveKey, request({ messageType: 'ACK', state: 'acknowledged', directionRole: 'LOSING_PA', gainingPaId: '0042', gainingPaName: undefined, requestRef: 'PORT-MAT' }));
    expect(byMatricule.body).toMatchObject({ to: 'portabilite@alpha.example', recipientSource: 'registry:Plateforme Alpha' });
  });

  it('logs what it could not mail: no recipient, dispatch off, no SMTP server, a refusing server', async () => {
    expect((await post(liveKey, request({ losingPaName: 'Gamma', requestRef: 'PORT-NOADDR' }))).body).toMatchObject({ to: null, recipientSource: 'unresolved', dispatched: false, reason: 'no_recipient' });
    expect((await post(liveKey, request({ losingPaName: 'Unknown PA', requestRef: 'PORT-UNKNOWN' }))).body).toMatchObject({ to: null, recipientSource: 'unresolved', reason: 'no_recipient' });
    process.env.EINV_PORTABILITY_DISPATCH = 'false';
    try {
      expect((await post(liveKey, request({ requestRef: 'PORT-OFF' }))).body).toMatchObject({ dispatched: false, reason: 'dispatch_disabled', transport: null });
    } finally { process.env.EINV_PORTABILITY_DISPATCH = 'true'; }
    delete process.env.EINV_SMTP_URL;
    try {
      expect((await post(liveKey, request({ requestRef: 'PORT-NOSMTP' }))).body).toMatchObject({ dispatched: false, reason: 'not_configured', transport: null });
    } finally { process.env.EINV_SMTP_URL = smtp.url; }
    smtp.refuse('mailbox unavailable');
    try {
      const refused = await post(liveKey, request({ requestRef: 'PORT-REFUSED' }));
      expect(refused.status).toBe(201);
      expect(refused.body).toMatchObject({ dispatched: false, transport: 'smtp', smtpMessageId: null });
      expect(refused.body.reason).toMatch(/^mail error: .*550.*mailbox unavailable/);
      const listed = await api(t.baseUrl, 'GET', '/v1/portability/messages?requestRef=PORT-REFUSED', { key: liveKey });
      expect(listed.body.data.map((r: { id: string }) => r.id)).toEqual([refused.body.id]);
    } finally { smtp.refuse(null); }
  });

  it.each([
    ['a SIREN of 8 digits', { taxpayerSiren: '12002701' }, 'INVALID_REQUEST', 'taxpayerSiren'],
    ['an unknown state', { state: 'pending' }, 'INVALID_ENUM', 'state'],
    ['an unknown message type', { messageType: 'NOTICE' }, 'INVALID_ENUM', 'messageType'],
    ['a requestRef containing ]', { requestRef: 'PORT]1' }, 'INVALID_REQUEST', 'requestRef'],
    ['a requestRef with a line break', { requestRef: 'PORT\r\nBcc: x@y.example' }, 'INVALID_REQUEST', 'requestRef'],
    ['a rejection without reasonCode', { messageType: 'DECISION', state: 'rejected' }, 'MISSING_FIELD', 'reasonCode'],
    ['a request datetime without timezone', { requestDatetime: '2026-11-27T10:00:00' }, 'INVALID_DATE', 'requestDatetime'],
    ['an impossible effective date', { effectiveDate: '2026-02-30' }, 'INVALID_DATE', 'effectiveDate'],
    ['a SIRET of 13 digits', { taxpayerSiret: '1200270160035' }, 'INVALID_REQUEST', 'taxpayerSiret'],
    ['a missing requestRef', { requestRef: undefined }, 'MISSING_FIELD', 'requestRef'],
  ])('400 for %s', async (_name, over, code, field) => {
    const res = await post(liveKey, request(over));
    expectEnvelope(res, 400, code);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('a rejection carries its reason into the CSV', async () => {
    const res = await post(sandboxKey, request({ messageType: 'DECISION', state: 'rejected', reasonCode: 'MANDATE_INVALID', reasonText: 'Signatory not empowered', requestRef: 'PORT-REJ' }));
    expect(res.body).toMatchObject({ statusCode: 'REJ', state: 'rejected' });
    expect(res.body.csvRow.endsWith(';MANDATE_INVALID;Signatory not empowered')).toBe(true);
  });
});

describe('GET /v1/portability/messages and /{id}', () => {
  let key: string;
  const ids: string[] = [];
  beforeAll(async () => {
    key = (await bootstrap(t.baseUrl, { label: 'porta-list' })).apiKey;
    for (const [i, over] of [{ requestRef: 'L-1' }, { requestRef: 'L-1', messageType: 'ACK', state: 'acknowledged', directionRole: 'LOSING_PA', taxpayerSiren: '999999999' }, { requestRef: 'L-2', taxpayerSiren: '552100554' }].entries()) {
      const res = await post(key, request(over));
      expect({ i, status: res.status }).toEqual({ i, status: 201 });
      ids.push(res.body.id);
    }
  });

  it('lists the organization\'s messages newest first with the real total, filters and a cursor', async () => {
    const all = await api(t.baseUrl, 'GET', '/v1/portability/messages', { key });
    expect(all.body).toMatchObject({ total: 3, hasMore: false, cursor: null });
    expect(all.body.data.map((m: { id: string }) => m.id)).toEqual([...ids].reverse());
    const first = await api(t.baseUrl, 'GET', '/v1/portability/messages?limit=2', { key });
    expect(first.body).toMatchObject({ total: 3, hasMore: true });
    const second = await api(t.baseUrl, 'GET', `/v1/portability/messages?limit=2&cursor=${first.body.cursor}`, { key });
    expect(second.body).toMatchObject({ total: 3, hasMore: false, cursor: null });
    expect([...first.body.data, ...second.body.data].map((m: { id: string }) => m.id)).toEqual([...ids].reverse());
    const filtered = async (query: string) => (await api(t.baseUrl, 'GET', `/v1/portability/messages?${query}`, { key })).body as { total: number; data: Array<{ id: string }> };
    expect(await filtered('requestRef=L-1')).toMatchObject({ total: 2 });
    expect((await filtered('siren=552100554')).data.map((m) => m.id)).toEqual([ids[2]]);
    expect((await filtered('state=acknowledged&messageType=ACK')).data.map((m) => m.id)).toEqual([ids[1]]);
    expect(await filtered('dispatched=true')).toMatchObject({ total: 0, data: [] });
    expect(await filtered('dispatched=false')).toMatchObject({ total: 3 });
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/portability/messages?state=pending', { key }), 400, 'INVALID_ENUM');
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/portability/messages?siren=123', { key }), 400, 'INVALID_REQUEST');
    // Another organization sees none of them.
    expect((await api(t.baseUrl, 'GET', '/v1/portability/messages?requestRef=L-1', { key: sandboxKey })).body).toMatchObject({ total: 0, data: [] });
  });

  it('gives the proof bundle: CSV fields and digest, recipient and its resolution, the annuaire snapshot the portability service gave when it was sent', async () => {
    const res = await api(t.baseUrl, 'GET', `/v1/portability/messages/${ids[0]}`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: ids[0], to: 'portabilite@alpha.example', recipientSource: 'registry:Plateforme Alpha', reason: 'sandbox', smtpMessageId: null,
      csvFields: { request_ref: 'L-1', taxpayer_siren: '120027016', taxpayer_name: 'Exemple; "SARL"', transferred_addresses: '0225:120027016|0225:120027016_12002701600357' },
      recipientResolution: {
        source: 'registry', counterpart: { role: 'LOSING_PA', id: null, name: 'Plateforme Alpha' },
        platform: { name: 'Plateforme Alpha', matricule: '0042', email: 'portabilite@alpha.example' }, registry: { source: 'test registry', snapshotDate: '2026-11-01' },
      },
      // No routing switch recorded for this SIREN: the public default, nobody declared.
      annuaire: { siren: '120027016', currentPaMatricule: '9998', isFlowie: false, source: 'default' },
    });
    expect(Object.keys(res.body.csvFields)).toEqual([...PORTABILITY_CSV_COLUMNS]);
    expect(res.body.csvSha256).toBe(sha256(`${res.body.csvHeader}\r\n${res.body.csvRow}\r\n`));
    expectEnvelope(await api(t.baseUrl, 'GET', `/v1/portability/messages/${ids[0]}`, { key: sandboxKey }), 404, 'RESOURCE_NOT_FOUND');
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/portability/messages/pmsg_nothing', { key }), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('POST /v1/portability/messages/parse', () => {
  const row = 'PORT-9;DECISION;REJ;LOSING_PA;120027016;;Exemple;;;;;;;;;2026-11-27T08:30:00Z;MANDATE_INVALID;"a; b"';
  const parse = (body: Record<string, unknown>) => api(t.baseUrl, 'POST', '/v1/portability/messages/parse', { key: sandboxKey, body });

  it('reads the subject and the 18 fields of a row', async () => {
    const res = await parse({ subject: '[PORTABILITE][DECISION][REJ][SIREN:120027016][REF:PORT-9]', csvRow: row });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ messageType: 'DECISION', statusCode: 'REJ', state: 'rejected', siren: '120027016', requestRef: 'PORT-9' });
    expect(Object.keys(res.body.fields)).toEqual([...PORTABILITY_CSV_COLUMNS]);
    expect(res.body.fields).toMatchObject({ reason_code: 'MANDATE_INVALID', reason_text: 'a; b', request_datetime: '2026-11-27T08:30:00Z' });
    expect((await parse({ subject: '[PORTABILITE][ACK][ACK][SIREN:120027016][REF:x]' })).body).toEqual({ messageType: 'ACK', statusCode: 'ACK', state: 'acknowledged', siren: '120027016', requestRef: 'x' });
  });

  it.each([
    ['an off-grammar subject', { subject: 'Re: [PORTABILITE][REQUEST][REQ][SIREN:120027016][REF:R]' }, 'INVALID_REQUEST'],
    ['a SIREN not of 9 digits', { subject: '[PORTABILITE][REQUEST][REQ][SIREN:1200270][REF:R]' }, 'INVALID_REQUEST'],
    ['an unknown message type', { subject: '[PORTABILITE][HELLO][REQ][SIREN:120027016][REF:R]' }, 'INVALID_ENUM'],
    ['an unknown status code', { subject: '[PORTABILITE][REQUEST][NOP][SIREN:120027016][REF:R]' }, 'INVALID_ENUM'],
    ['a reference containing ]', { subject: '[PORTABILITE][REQUEST][REQ][SIREN:120027016][REF:R]]' }, 'INVALID_REQUEST'],
    ['a row of 17 columns', { subject: '[PORTABILITE][REQUEST][REQ][SIREN:120027016][REF:R]', csvRow: row.replace(/;"a; b"$/, '') }, 'INVALID_REQUEST'],
    ['a row with its header', { subject: '[PORTABILITE][REQUEST][REQ][SIREN:120027016][REF:R]', csvRow: `${PORTABILITY_CSV_COLUMNS.join(';')}\r\n${row}` }, 'INVALID_REQUEST'],
    ['no subject', { csvRow: row }, 'MISSING_FIELD'],
  ])('400 for %s', async (_name, body, code) => {
    expectEnvelope(await parse(body), 400, code);
  });
});

describe('GET /v1/portability/platforms', () => {
  it('is public; matricules only for signed-in readers, and only where the snapshot has one', async () => {
    const anonymous = await api(t.baseUrl, 'GET', '/v1/portability/platforms');
    expect(anonymous.status).toBe(200);
    expect(anonymous.body).toMatchObject({ total: 3, source: 'test registry', snapshotDate: '2026-11-01' });
    expect(anonymous.body.data[0]).toEqual({ name: 'Plateforme Alpha', website: 'https://alpha.example', email: 'contact@alpha.example', portabilityEmail: 'portabilite@alpha.example', contactEmail: null, registeredOn: '2025-09-01', status: 'registered' });
    const signedIn = await api(t.baseUrl, 'GET', '/v1/portability/platforms', { key: sandboxKey });
    expect(signedIn.body.data[0]).toMatchObject({ name: 'Plateforme Alpha', matricule: '0042', matriculeConfidence: 'published' });
    expect(signedIn.body.data[1]).not.toHaveProperty('matricule');
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/portability/platforms', { key: 'svc_test_not_a_key' }), 401, 'INVALID_TOKEN');
  });

  it('filters by q (name without accents, e-mail, website) and status', async () => {
    const names = async (query: string) => (await api(t.baseUrl, 'GET', `/v1/portability/platforms?${query}`)).body.data.map((p: { name: string }) => p.name);
    expect(await names('q=beta')).toEqual(['Bêta Factures']);
    expect(await names('q=portabilite%40alpha')).toEqual(['Plateforme Alpha']);
    expect(await names('q=beta.example')).toEqual(['Bêta Factures']);
    expect(await names('status=pending_interop')).toEqual(['Bêta Factures']);
    expect(await names('status=registered&q=gam')).toEqual(['Gamma']);
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/portability/platforms?status=approved'), 400, 'INVALID_ENUM');
  });
});

describe('GET /v1/portability/companies', () => {
  let company: { id: string; vatNumber: string; peppolId: string };
  beforeAll(async () => {
    const boot = await bootstrap(t.baseUrl, { label: 'Zephyr Lookup' });
    company = boot.company;
    // Registered (published by this platform's SMP): the directory lists it.
    expect((await api(t.baseUrl, 'POST', `/v1/companies/${company.id}/register`, { key: boot.apiKey })).status).toBe(200);
  });
  const suggest = async (query: string) => (await api(t.baseUrl, 'GET', `/v1/portability/companies?${query}`, { key: sandboxKey })).body;

  it('ranks this platform\'s participants by name', async () => {
    const res = await suggest('q=zephyr');
    expect(res.query).toEqual({ q: 'zephyr', country: null, kind: 'name', peppolId: null, note: null });
    expect(res.data[0]).toMatchObject({ name: 'Zephyr Lookup Sandbox BV', peppolId: company.peppolId, source: 'platform', score: 0.8 });
    expect(res.sources).toEqual([{ source: 'platform', available: true, message: null }, { source: 'peppol-directory', available: false, message: expect.stringContaining('EINV_PEPPOL_DIRECTORY_URL') }]);
  });

  it('looks an identifier up directly: VAT number, Peppol id, a bare number under its country\'s register scheme', async () => {
    expect(await suggest(`q=${company.vatNumber}`)).toMatchObject({ query: { kind: 'vatNumber', peppolId: company.peppolId }, data: [{ peppolId: company.peppolId, score: 1, source: 'platform' }] });
    expect(await suggest(`q=${encodeURIComponent(company.peppolId)}`)).toMatchObject({ query: { kind: 'peppolId' }, data: [{ peppolId: company.peppolId, score: 1 }] });
    const enterpriseNumber = company.peppolId.split(':')[1]!;
    expect(await suggest(`q=${enterpriseNumber}&country=BE`)).toMatchObject({ query: { kind: 'registrationNumber', peppolId: `0208:${enterpriseNumber}`, note: null }, data: [{ peppolId: company.peppolId, score: 1 }] });
    expect((await suggest('q=120027016&country=FR')).query).toMatchObject({ kind: 'registrationNumber', peppolId: '0009:120027016' });
    expect((await suggest('q=12002701600357&country=FR')).query).toMatchObject({ peppolId: '0009:120027016' });
  });

  it('invents no scheme: a bare number without a country, or of a country without a register scheme, is not looked up', async () => {
    const de = await suggest('q=123456789&country=DE');
    expect(de).toMatchObject({ data: [], query: { kind: 'registrationNumber', peppolId: null, note: expect.stringContaining('No Peppol register scheme') } });
    expect(await suggest('q=123456789')).toMatchObject({ data: [], query: { peppolId: null, note: expect.stringContaining('country') } });
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/portability/companies?q=x&country=france', { key: sandboxKey }), 400, 'INVALID_REQUEST');
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/portability/companies', { key: sandboxKey }), 400, 'MISSING_FIELD');
  });
});

describe('GET /v1/portability/access-point/{participantId} without a Peppol discovery connector', () => {
  it('is 503 naming what to enable, and 400 for a malformed id (the resolution itself: portability-access-point.spec.ts)', async () => {
    const res = await api(t.baseUrl, 'GET', '/v1/portability/access-point/0208:0403170701', { key: sandboxKey });
    expectEnvelope(res, 503, 'UPSTREAM_UNAVAILABLE');
    expect(res.body.error.message).toContain('peppol-discovery');
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/portability/access-point/nope', { key: sandboxKey }), 400, 'INVALID_REQUEST');
  });
});
