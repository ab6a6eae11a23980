/**
 * The paused-webhook notification end to end: a webhook whose receiver (127.0.0.1) fails every
 * attempt is driven through its 8 attempts with the sandbox virtual clock; when the webhook goes
 * active → paused, the webhooks service emits `webhooks.paused` after its commit, and the mail
 * service mails the key owner (the e-mail given at bootstrap) through a real SMTP server on
 * 127.0.0.1: once, naming the endpoint, the cause and the call that resumes it. An organization
 * whose keys carry no e-mail is told nothing (and nothing breaks).
 */
import pg from 'pg';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { startReceiver, eventually, type Receiver } from '../support/webhook-receiver.ts';
import { EmitterService, touchCompany } from '../support/event-emitter.service.ts';
import { startSmtpCapture, partsOf, type SmtpCapture } from '../support/smtp.ts';
import { call } from '../../services/shared/call.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let t: TestApp;
let smtp: SmtpCapture;
const receivers: Receiver[] = [];

beforeAll(async () => {
  smtp = await startSmtpCapture();
  process.env.EINV_SMTP_URL = smtp.url;
  process.env.EINV_MAIL_FROM = 'alerts@einvoicing.test';
  t = await startTestApp({ extraServices: [EmitterService] });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await t.stop();
  await smtp.close();
  delete process.env.EINV_SMTP_URL;
  delete process.env.EINV_MAIL_FROM;
});

async function attemptsOf(hookId: string): Promise<number> {
  const client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  try {
    const rows = (await client.query(`select attempts from webhook_deliveries where webhook_id = $1 and not test order by id desc limit 1`, [hookId])).rows as Array<{ attempts: number }>;
    return rows[0]?.attempts ?? 0;
  } finally { await client.end(); }
}

/** A sandbox with a webhook to a receiver that always answers 500, driven to its pause. */
async function pausedHook(bootstrapBody: Record<string, unknown>) {
  const r = await startReceiver(() => 500);
  receivers.push(r);
  const boot = await bootstrap(t.baseUrl, bootstrapBody);
  const hook = (await api(t.baseUrl, 'POST', '/v1/webhooks', { key: boot.apiKey, body: { url: r.url, events: ['*'] } })).body as { id: string };
  await call(t.app.broker, touchCompany, { companyId: boot.company.id, type: 'document.delivered', data: { documentId: 'doc_1' } });
  await r.waitFor(1);
  for (let attempt = 2; attempt <= 8; attempt++) {
    await eventually(async () => (await attemptsOf(hook.id)) >= attempt - 1, 15_000, `attempt ${attempt - 1} recorded`);
    await api(t.baseUrl, 'POST', '/v1/sandbox/clock/advance', { key: boot.apiKey, body: { companyId: boot.company.id, by: '1d' } });
    await r.waitFor(attempt);
  }
  await eventually(async () => (await api(t.baseUrl, 'GET', `/v1/webhooks/${hook.id}`, { key: boot.apiKey })).body.status === 'paused', 15_000, 'webhook paused');
  return { boot, hook, receiver: r };
}

it('mails the key owner once when 8 failed attempts pause the webhook', async () => {
  const before = smtp.messages.length;
  const { hook, receiver } = await pausedHook({ label: 'mail-paused', email: 'Owner@Example.test' });
  const [mail] = (await smtp.waitFor(before + 1)).slice(before);
  expect(mail!.to).toEqual(['owner@example.test']);
  expect(mail!.from).toBe('alerts@einvoicing.test');
  expect(mail!.subject).toBe(`Webhook paused (sandbox): ${receiver.url}`);
  const [text] = partsOf(mail!.raw);
  expect(text!.contentType).toBe('text/plain');
  expect(text!.content).toContain(`Your sandbox webhook ${hook.id}`);
  expect(text!.content).toContain('failed all its 8 attempts');
  expect(text!.content).toContain('HTTP 500');
  expect(text!.content).toMatch(new RegExp(`PATCH \\S+/v1/webhooks/${hook.id}  \\{"status": "active"\\}`));
  // Once: a later tick finds it paused already and tells nobody again.
  await new Promise((res) => setTimeout(res, 1_000));
  expect(smtp.messages.filter((m) => m.subject.includes(receiver.url))).toHaveLength(1);
}, 90_000);

it('an organization-level webhook (a platform key\'s) tells the organization-wide key owners', async () => {
  const before = smtp.messages.length;
  const { hook, receiver } = await pausedHook({ label: 'mail-paused-platform', keyType: 'platform', email: 'platform-ops@example.test' });
  const [mail] = (await smtp.waitFor(before + 1)).slice(before).filter((m) => m.subject.includes(receiver.url));
  expect(mail!.to).toEqual(['platform-ops@example.test']);
  expect(partsOf(mail!.raw)[0]!.content).toContain(`Your sandbox webhook ${hook.id}`);
}, 90_000);

it('an organization whose keys carry no e-mail is paused all the same, and nobody is mailed', async () => {
  const before = smtp.messages.length;
  const { receiver } = await pausedHook({ label: 'mail-paused-nobody' });
  await new Promise((res) => setTimeout(res, 1_500));
  expect(smtp.messages.slice(before).filter((m) => m.subject.includes(receiver.url))).toEqual([]);
}, 90_000);
