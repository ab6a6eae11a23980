/**
 * The `einv` command line as a user runs it: the real binary (bin/einv.ts under Node 24) in child
 * processes against a live API on 127.0.0.1. bootstrap saves the key with mode 0600 → `tail events`
 * is started first and follows the log → send of a folder of 20 invoices (table, exit 0) → the 20
 * document.sent events reach the tail → validate of a broken invoice (exit 1, rule, JSON path and
 * fix) → a folder with one bad file (exit 1, FAILED row) → webhooks verify with a signature made by
 * the product's own signer (valid: exit 0; tampered body or wrong secret: exit 1).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { signWebhookPayload } from '../../services/webhooks/signature.ts';
import { freePort } from '../support/servers.ts';
import { newId } from '../../services/shared/ids.ts';
import pg from 'pg';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000';

const BIN = resolve(import.meta.dirname, '../../bin/einv.ts');

interface Run { code: number | null; stdout: string; stderr: string }

/** Runs `einv …` as a child process (asynchronously: the API under test lives in this process). */
function einv(args: string[], options: { input?: string; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    // Only what the arguments say: no EINV_* credential or config of the machine running the test.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['EINV_CONFIG', 'EINV_API_KEY', 'EINV_BASE_URL', 'EINV_WEBHOOK_SECRET'].includes(k)));
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => { stdout += b.toString('utf8'); });
    child.stderr.on('data', (b: Buffer) => { stderr += b.toString('utf8'); });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`einv ${args.join(' ')} timed out; stdout: ${stdout}; stderr: ${stderr}`)); }, options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => { clearTimeout(timer); resolveRun({ code, stdout, stderr }); });
    child.stdin.end(options.input ?? '');
  });
}

let t: TestApp;
let dir: string;
let recipient: Awaited<ReturnType<typeof bootstrap>>;

beforeAll(async () => {
  t = await startTestApp();
  recipient = await bootstrap(t.baseUrl, { label: 'cli-recipient' });
  dir = mkdtempSync(join(tmpdir(), 'einv-cli-'));
}, 60_000);
afterAll(async () => {
  await t?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const invoice = (number: string, sellerVat: string, line: Record<string, unknown> = { description: 'Consulting', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 21 }) => ({
  number, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO-1',
  seller: { name: 'CLI Seller BV', vatNumber: sellerVat, address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } },
  buyer: { name: 'CLI Buyer BV', vatNumber: recipient.company.vatNumber, address: { street: 'Kerkstraat 2', city: 'Gent', postalCode: '9000', country: 'BE' } },
  lines: [line],
});

it('bootstrap → tail events → send 20 → validate a broken one → webhooks verify', async () => {
  const config = join(dir, 'conf', 'config.json');
  const global = ['--base-url', t.baseUrl, '--config', config];

  // bootstrap: the key lands in the config file, readable by its owner only.
  const boot = await einv([...global, 'bootstrap', '--label', 'cli-e2e']);
  expect(boot).toMatchObject({ code: 0, stderr: '' });
  expect(boot.stdout).toContain(`Test key saved to ${config} (mode 0600)`);
  expect(statSync(config).mode & 0o777).toBe(0o600);
  const saved = JSON.parse(readFileSync(config, 'utf8')) as { apiKey: string; companyId: string; baseUrl: string };
  expect(saved.apiKey).toMatch(/^svc_test_/);
  expect(saved.baseUrl).toBe(t.baseUrl);
  expect(boot.stdout).not.toContain(saved.apiKey);
  const company = await api(t.baseUrl, 'GET', `/v1/companies/${saved.companyId}`, { key: saved.apiKey });
  const sellerVat = company.body.vatNumber as string;

  // --print: the key on stdout, no file.
  const printed = await einv(['--base-url', t.baseUrl, '--config', join(dir, 'unused.json'), 'bootstrap', '--print']);
  expect(printed.code).toBe(0);
  expect(printed.stdout.trim()).toMatch(/^svc_test_\S+$/);
  expect(() => statSync(join(dir, 'unused.json'))).toThrow();

  // tail follows the log from now on: nothing old, then the sends as they happen.
  const tail = einv([...global, 'tail', 'events', '--type', 'document.sent', '--history', '0', '--interval', '300', '--max', '20'], { timeoutMs: 90_000 });

  // send: a folder of 20 invoices.
  const folder = join(dir, 'invoices');
  mkdirSync(folder);
  const numbers = Array.from({ length: 20 }, (_, i) => `CLI-${Date.now()}-${String(i).padStart(2, '0')}`);
  numbers.forEach((n, i) => writeFileSync(join(folder, `invoice-${String(i).padStart(2, '0')}.json`), JSON.stringify(invoice(n, sellerVat))));
  const sent = await einv([...global, 'send', folder, '--to', recipient.company.peppolId], { timeoutMs: 90_000 });
  expect(sent.stderr).not.toContain('einv:');
  expect(sent.code).toBe(0);
  expect(sent.stdout).toContain('20 sent, 0 failed');
  expect((sent.stdout.match(/│ sent /g) ?? []).length).toBe(20);
  const ids = [...sent.stdout.matchAll(/(doc_[0-9A-Za-z]+)/g)].map((m) => m[1]);
  expect(new Set(ids).size).toBe(20);

  const followed = await tail;
  expect(followed.code).toBe(0);
  const lines = followed.stdout.trim().split('\n');
  expect(lines).toHaveLength(20);
  for (const l of lines) expect(l).toMatch(/document\.sent/);
  expect(new Set(lines.map((l) => /doc_[0-9A-Za-z]+/.exec(l)?.[0]))).toEqual(new Set(ids));

  // validate: a broken invoice is explained, and the exit code says so.
  const broken = join(dir, 'broken.json');
  writeFileSync(broken, JSON.stringify({ type: 'invoice', document: { ...invoice('CLI-BROKEN', sellerVat), totals: { gross: 1 } } }));
  const judged = await einv([...global, 'validate', broken]);
  expect(judged.code).toBe(1);
  expect(judged.stdout).toMatch(/^broken\.json: INVALID: \d+ error\(s\)/);
  expect(judged.stdout).toMatch(/✖ error {3}BR-CO-15 \[BT-112\]/);
  expect(judged.stdout).toMatch(/at {3}document\.\S+ {2}\(\/ubl:Invoice/);
  expect(judged.stdout).toMatch(/fix: \S+/);
  const good = join(dir, 'good.json');
  writeFileSync(good, JSON.stringify(invoice('CLI-GOOD', sellerVat)));
  expect(await einv([...global, 'validate', good])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^good\.json: valid/) });

  // send: one bad file among good ones fails the run.
  const mixed = join(dir, 'mixed');
  mkdirSync(mixed);
  writeFileSync(join(mixed, 'a.json'), JSON.stringify(invoice(`CLI-MIX-${Date.now()}`, sellerVat)));
  writeFileSync(join(mixed, 'b.json'), JSON.stringify(invoice(`CLI-MIX-${Date.now()}-B`, 'BE0000000000')));
  const partly = await einv([...global, 'send', mixed, '--to', recipient.company.peppolId]);
  expect(partly.code).toBe(1);
  expect(partly.stdout).toContain('1 sent, 1 failed');
  expect(partly.stdout).toMatch(/b\.json +│ FAILED/);

  // webhooks verify: signed by the product's own signer.
  const secret = 'whsec_cli_test_secret';
  const body = JSON.stringify({ id: 'evt_01JD7Z3V9Q1M2N3P4R5S6T7V8W', type: 'document.sent', data: { documentId: ids[0] } });
  const bodyFile = join(dir, 'delivery.json');
  writeFileSync(bodyFile, body);
  const header = signWebhookPayload([secret], body, Math.floor(Date.now() / 1000));
  const valid = await einv(['webhooks', 'verify', '--secret', secret, '--signature', header, '--body', bodyFile]);
  expect(valid).toMatchObject({ code: 0, stdout: expect.stringContaining('valid signature: document.sent evt_01JD7Z3V9Q1M2N3P4R5S6T7V8W') });
  const fromStdin = await einv(['webhooks', 'verify', '--secret', secret, '--signature', header], { input: body });
  expect(fromStdin.code).toBe(0);
  const tampered = await einv(['webhooks', 'verify', '--secret', secret, '--signature', header], { input: body.replace('document.sent', 'document.paid') });
  expect(tampered).toMatchObject({ code: 1, stdout: expect.stringContaining('INVALID signature: no signature matches') });
  const wrongSecret = await einv(['webhooks', 'verify', '--secret', 'whsec_other', '--signature', header, '--body', bodyFile]);
  expect(wrongSecret.code).toBe(1);
  const stale = signWebhookPayload([secret], body, Math.floor(Date.now() / 1000) - 600);
  expect(await einv(['webhooks', 'verify', '--secret', secret, '--signature', stale, '--body', bodyFile])).toMatchObject({ code: 1, stdout: expect.stringContaining('too old') });
}, 180_000);

it('tail prints an event whose transaction commits after a later event was already shown', async () => {
  const key = await bootstrap(t.baseUrl, { label: 'cli-late-commit' });
  const global = ['--base-url', t.baseUrl, '--api-key', key.apiKey];
  const tail = einv([...global, 'tail', 'events', '--type', 'document.sent', '--history', '0', '--interval', '200', '--max', '2'], { timeoutMs: 60_000 });
  await new Promise((r) => setTimeout(r, 1_000));

  // A writer opens its transaction and writes its event (the smaller id) but has not committed yet.
  const slow = new pg.Client({ connectionString: t.databaseUrl });
  await slow.connect();
  const lateId = newId('event');
  await slow.query('begin');
  await slow.query(
    `insert into events (id, organization_id, company_id, type, livemode, api_version, data, created_at, dispatched_at)
     values ($1, $2, $3, 'document.sent', false, '2025-01-01', $4, now(), now())`,
    [lateId, key.organizationId, key.company.id, JSON.stringify({ documentId: 'doc_late_commit' })]);
  try {
    // Meanwhile a send commits its document.sent (the greater id), and the tail shows it.
    await new Promise((r) => setTimeout(r, 5));
    const other = join(dir, 'late');
    mkdirSync(other);
    writeFileSync(join(other, 'a.json'), JSON.stringify(invoice(`CLI-LATE-${Date.now()}`, key.company.vatNumber)));
    const sent = await einv([...global, 'send', other, '--to', recipient.company.peppolId]);
    expect(sent.code).toBe(0);
    await new Promise((r) => setTimeout(r, 1_000));
  } finally {
    await slow.query('commit');
    await slow.end();
  }

  const followed = await tail;
  expect(followed.code).toBe(0);
  const lines = followed.stdout.trim().split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[1]).toContain(lateId);
  expect(lines[0]).not.toContain(lateId);
}, 90_000);

it('says what is wrong in one line, with exit code 2: no key, unknown file, unreachable server', async () => {
  const noKey = await einv(['--base-url', t.baseUrl, '--config', join(dir, 'none.json'), 'send', dir]);
  expect(noKey).toMatchObject({ code: 2, stderr: expect.stringContaining('einv: no API key: run `einv bootstrap`') });
  const missing = await einv(['--base-url', t.baseUrl, '--api-key', 'svc_test_x', 'validate', join(dir, 'nope.json')]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toMatch(/^einv: .*nope\.json/);
  expect(missing.stderr).not.toMatch(/\bat .*\.ts:\d+/);
  const down = await einv(['--base-url', `http://127.0.0.1:${await freePort()}`, '--api-key', 'svc_test_x', 'tail', 'events']);
  expect(down).toMatchObject({ code: 2, stderr: expect.stringMatching(/^einv: fetch failed \(ECONNREFUSED\)/) });
  const badKey = await einv(['--base-url', t.baseUrl, '--api-key', 'svc_test_wrong', 'tail', 'events']);
  expect(badKey).toMatchObject({ code: 2, stderr: expect.stringMatching(/^einv: cannot read the event log: [A-Z_]+: /) });
}, 60_000);
