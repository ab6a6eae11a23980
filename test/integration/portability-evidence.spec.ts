/**
 * The evidence chain of a portability request catches any change to one column of one row. A
 * request is given a chain of several rows (filing, an asserted signature, messages of the other
 * platform); then fast-check picks a row and a column and a new value, the test writes it with
 * direct SQL, and the API's read must say `intact: false` with `brokenAt` = that row's seq — and
 * fold nothing from it. The row is put back after each case, and the chain verifies again.
 */
import pg from 'pg';
import fc from 'fast-check';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { MESSAGE_RECORDED_EVENT, type PortabilityMessageRecorded } from '../../services/portability/portability.contract.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000';

interface RowSnapshot { request_ref: string; seq: number; kind: string; payload: string; recorded_at: string; previous_hash: string; hash: string }

let t: TestApp;
let db: pg.Client;
let key: string;
let ref: string;
let otherRef: string;
let snapshot: RowSnapshot[];

const read = async (requestRef: string) => {
  const res = await api(t.baseUrl, 'GET', `/v1/portability/requests/${requestRef}`, { key });
  expect(res.status).toBe(200);
  return res.body;
};

beforeAll(async () => {
  t = await startTestApp();
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  const org = await bootstrap(t.baseUrl, { label: 'evidence' });
  key = org.apiKey;
  const file = (body: Record<string, unknown>) => api(t.baseUrl, 'POST', '/v1/portability/requests', { key, body });
  const created = await file({ taxpayer: '73282932000074', signatory: { name: 'Jeanne Martin' }, signedAt: new Date(Date.now() - 86_400_000).toISOString(), signatureMethod: 'external' });
  expect(created.status).toBe(201);
  ref = created.body.requestRef;
  otherRef = (await file({ taxpayer: '552100554' })).body.requestRef;
  const message = (n: number, m: Partial<PortabilityMessageRecorded>) => t.app.broker.emit(MESSAGE_RECORDED_EVENT, {
    organizationId: org.organizationId, requestRef: ref, messageId: `pmsg_evidence_${n}`, messageType: 'ACK', state: 'acknowledged', statusCode: 'ACK',
    directionRole: 'LOSING_PA', taxpayerSiren: '732829320', reasonCode: null, reasonText: null, createdAt: new Date().toISOString(), csvSha256: 'b'.repeat(64), ...m,
  } satisfies PortabilityMessageRecorded);
  message(1, {});
  const until = Date.now() + 5_000;
  while ((await read(ref)).evidence.verification.length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  message(2, { messageType: 'DECISION', state: 'accepted', statusCode: 'ACC' });
  while ((await read(ref)).evidence.verification.length < 4 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  const body = await read(ref);
  expect(body).toMatchObject({ state: 'accepted', evidence: { verification: { intact: true, length: 4, brokenAt: null } } });
  snapshot = (await db.query<RowSnapshot>(`select request_ref, seq, kind, payload::text as payload, recorded_at::text as recorded_at, previous_hash, hash from portability_evidence where request_ref = $1 order by seq`, [ref])).rows;
  expect(snapshot.map((r) => r.kind)).toEqual(['request.created', 'signature.recorded', 'message.recorded', 'message.recorded']);
});

afterAll(async () => {
  await db?.end();
  await t.stop();
});

/** Puts the chain back exactly as it was (and takes away a row moved to the other request). */
async function restore(): Promise<void> {
  await db.query('begin');
  await db.query('delete from portability_evidence where request_ref = $1', [ref]);
  await db.query('delete from portability_evidence where request_ref = $1 and seq >= 1000', [otherRef]);
  for (const r of snapshot) {
    await db.query('insert into portability_evidence (request_ref, seq, kind, payload, recorded_at, previous_hash, hash) values ($1, $2, $3, $4::jsonb, $5::timestamptz, $6, $7)', [r.request_ref, r.seq, r.kind, r.payload, r.recorded_at, r.previous_hash, r.hash]);
  }
  await db.query('commit');
}

const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
const jsonScalar = fc.oneof(fc.string({ maxLength: 20 }).filter((s) => !s.includes('\u0000')), fc.integer(), fc.boolean(), fc.constant(null));

/** One change to one column of the row at `seq`, as SQL. */
const tamper = (seqs: number[]) => fc.oneof(
  fc.record({ column: fc.constant('request_ref' as const) }),
  fc.record({ column: fc.constant('seq' as const), value: fc.integer({ min: -50, max: 50 }).filter((v) => !seqs.includes(v)) }),
  fc.record({ column: fc.constant('kind' as const), value: fc.string({ minLength: 1, maxLength: 30 }).filter((s) => !s.includes('\u0000')) }),
  fc.record({ column: fc.constant('payload-add' as const), value: jsonScalar }),
  fc.record({ column: fc.constant('payload-replace' as const), value: fc.string({ maxLength: 20 }).filter((s) => !s.includes('\u0000')) }),
  fc.record({ column: fc.constant('recorded_at' as const), value: fc.integer({ min: -10_000_000, max: 10_000_000 }).filter((v) => v !== 0) }),
  fc.record({ column: fc.constant('previous_hash' as const), value: hex64 }),
  fc.record({ column: fc.constant('hash' as const), value: hex64 }),
);

type Tamper = { column: 'request_ref' } | { column: 'seq'; value: number } | { column: 'kind'; value: string } | { column: 'payload-add'; value: unknown }
  | { column: 'payload-replace'; value: string } | { column: 'recorded_at'; value: number } | { column: 'previous_hash' | 'hash'; value: string };

/** Applies the change; false when it would write the value the row already holds (nothing tampered). */
async function apply(seq: number, change: Tamper): Promise<boolean> {
  const row = snapshot.find((r) => r.seq === seq)!;
  const where = 'where request_ref = $1 and seq = $2';
  switch (change.column) {
    case 'request_ref': await db.query(`update portability_evidence set request_ref = $3, seq = seq + 1000 ${where}`, [ref, seq, otherRef]); return true;
    case 'seq': await db.query(`update portability_evidence set seq = $3 ${where}`, [ref, seq, change.value]); return true;
    case 'kind': if (change.value === row.kind) return false; await db.query(`update portability_evidence set kind = $3 ${where}`, [ref, seq, change.value]); return true;
    case 'payload-add': await db.query(`update portability_evidence set payload = payload || jsonb_build_object('__tampered', $3::jsonb) ${where}`, [ref, seq, JSON.stringify(change.value)]); return true;
    case 'payload-replace': {
      // Rewrites the row's first string member with another string.
      const payload = JSON.parse(row.payload) as Record<string, unknown>;
      const member = Object.keys(payload).sort().find((k) => typeof payload[k] === 'string');
      if (!member || payload[member] === change.value) return false;
      await db.query(`update portability_evidence set payload = jsonb_set(payload, $3::text[], to_jsonb($4::text)) ${where}`, [ref, seq, [member], change.value]);
      return true;
    }
    case 'recorded_at': await db.query(`update portability_evidence set recorded_at = recorded_at + ($3::int * interval '1 millisecond') ${where}`, [ref, seq, change.value]); return true;
    case 'previous_hash': if (change.value === row.previous_hash) return false; await db.query(`update portability_evidence set previous_hash = $3 ${where}`, [ref, seq, change.value]); return true;
    case 'hash': if (change.value === row.hash) return false; await db.query(`update portability_evidence set hash = $3 ${where}`, [ref, seq, change.value]); return true;
  }
}

it('any change to one column of one row is caught at that row (brokenAt), and folds nothing from it', async () => {
  const seqs = snapshot.map((r) => r.seq);
  let tampered = 0;
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...seqs), tamper(seqs), async (seq, change) => {
      try {
        if (!(await apply(seq, change as Tamper))) return;
        tampered++;
        const body = await read(ref);
        expect(body.evidence.verification).toEqual({ intact: false, length: 4, brokenAt: seq });
        // Nothing past the break is folded: a broken accepted message leaves the request acknowledged, etc.
        const expected = seq <= 3 ? 'received' : 'acknowledged';
        expect(body.state).toBe(expected);
        // A broken chain is never extended by a read.
        expect(Number((await db.query('select count(*) from portability_evidence where request_ref = $1', [ref])).rows[0].count)).toBeLessThanOrEqual(4);
      } finally {
        await restore();
      }
    }),
    { numRuns: 80, seed: 20261127 },
  );
  expect(tampered).toBeGreaterThan(60);
  expect((await read(ref)).evidence.verification).toEqual({ intact: true, length: 4, brokenAt: null });
}, 120_000);

it('taking the last row away is caught too: the request keeps the chain\'s head', async () => {
  await db.query('delete from portability_evidence where request_ref = $1 and seq = 4', [ref]);
  try {
    expect((await read(ref)).evidence.verification).toEqual({ intact: false, length: 4, brokenAt: 4 });
  } finally {
    await restore();
  }
  expect((await read(ref)).evidence.verification.intact).toBe(true);
});
