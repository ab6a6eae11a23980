/**
 * The web dashboard in a real headless Chromium (Debian's, driven by playwright-core) against the
 * real app: sign in with an API key (only a session token reaches the browser's storage), send an
 * invoice and a batch between two sandbox organizations, see it arrive on the other side and move
 * its lifecycle, a webhook's failed attempt then its replay, the event log, the request charts and
 * a request's trace, companies and keys, and the sandbox controls. Every page is saved as a
 * screenshot with its real data (path printed at the end); any CSP violation or page error fails.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestApp, bootstrap, api, type TestApp } from '../support/app.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { buildDashboard } from '../../scripts/build-app.ts';
import { DASHBOARD_DIST } from '../../services/gateway/dashboard-assets.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000,platform=100000';

const CHROMIUM = process.env.EINV_CHROMIUM ?? '/usr/bin/chromium';
/** Where the screenshots go (gitignored). */
const SHOTS = resolve('.artifacts', 'dashboard-e2e');
/** A bound on each browser step: generous, since the machine may be loaded. */
const STEP_MS = 30_000;

let t: TestApp;
let browser: Browser;
let receiver: Receiver;
let sender: Awaited<ReturnType<typeof bootstrap>>;
let recipient: Awaited<ReturnType<typeof bootstrap>>;
const problems: string[] = [];
const run = `E2E${Date.now().toString(36).toUpperCase()}`;

beforeAll(async () => {
  if (!existsSync(join(DASHBOARD_DIST, 'index.html'))) await buildDashboard();
  rmSync(SHOTS, { recursive: true, force: true });
  mkdirSync(SHOTS, { recursive: true });
  t = await startTestApp();
  sender = await bootstrap(t.baseUrl, { label: 'Sender', keyType: 'platform' });
  recipient = await bootstrap(t.baseUrl, { label: 'Recipient' });
  // The first delivery fails (a retry is scheduled), later ones succeed: the replay lands.
  receiver = await startReceiver((n) => (n === 1 ? 500 : 200));
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'], timeout: 60_000 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await t?.stop();
  console.log(`dashboard screenshots: ${SHOTS}`);
}, 60_000);

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 }, baseURL: t.baseUrl });
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_MS);
  page.setDefaultNavigationTimeout(STEP_MS);
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => { if (msg.type() === 'error' && /Content Security Policy|Refused to/i.test(msg.text())) problems.push(`console: ${msg.text()}`); });
  page.on('dialog', (dialog) => void dialog.accept());
  return page;
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

/** Repeats `step` (e.g. a click on Filter) until `done` holds; bounded. */
async function until(step: () => Promise<unknown>, done: () => Promise<boolean>, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await step();
    if (await done()) return;
    if (Date.now() > deadline) throw new Error('the dashboard did not show the expected state in time');
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function signIn(page: Page, key: string): Promise<void> {
  await page.goto('/app/');
  await page.getByTestId('api-key').fill(key);
  await page.getByTestId('sign-in').click();
  await page.getByTestId('nav-documents').waitFor();
  // Only the sealed session token is stored, in this tab's sessionStorage; never the key.
  const stored = await page.evaluate(() => ({ session: JSON.stringify(sessionStorage), local: JSON.stringify(localStorage), cookies: document.cookie, token: JSON.parse(sessionStorage.getItem('einv.dashboard.session') ?? '{}').token as unknown }));
  expect(stored.token).toMatch(/^ses_/);
  expect(stored.session + stored.local + stored.cookies).not.toContain(key);
  expect(stored.local).toBe('{}');
}

/** Searches the documents list for `text` until a row of it shows `status`. */
async function findDocument(page: Page, text: string, status: string, direction = ''): Promise<void> {
  await page.getByTestId('nav-documents').click();
  const filters = page.getByTestId('document-filters');
  await filters.getByLabel('Search').fill(text);
  await filters.getByLabel('Direction').selectOption(direction);
  const row = page.getByTestId('document-row').filter({ hasText: text }).filter({ hasText: status });
  await until(() => filters.getByRole('button', { name: 'Filter' }).click(), async () => (await row.count()) > 0);
}

/** Runs a browser scenario; on failure the page as it was is saved next to the screenshots. */
async function scenario(name: string, steps: (page: Page) => Promise<void>): Promise<void> {
  const page = await newPage();
  try {
    await steps(page);
  } catch (err) {
    await shot(page, `failed-${name}`).catch(() => {});
    throw err;
  } finally {
    await page.context().close();
  }
  expect(problems).toEqual([]);
}

it('a sender signs in, sends an invoice and a batch, and walks through every page', () => scenario('sender', async (page) => {
  await page.goto('/app/');
  await page.getByTestId('api-key').waitFor();
  await shot(page, '01-sign-in');
  await signIn(page, sender.apiKey);
  await expect(page.getByTestId('acting-company').textContent()).resolves.toContain('Sender');

  // A webhook for every event, before anything happens; the receiver fails the first delivery.
  await page.getByTestId('nav-webhooks').click();
  await page.getByTestId('webhook-url').fill(receiver.url);
  await page.getByTestId('webhook-create').click();
  await page.getByTestId('webhook').filter({ hasText: receiver.url }).waitFor();
  await page.getByTestId('nav-documents').click();

  // One invoice to the other organization's Peppol id: delivered.
  const send = page.getByTestId('send-invoice');
  await send.getByTestId('send-to').fill(recipient.company.peppolId);
  await send.getByTestId('send-number').fill(`${run}-1`);
  await send.getByTestId('send-submit').click();
  await expect(page.getByTestId('send-result').textContent()).resolves.toMatch(/^Sent /);
  await findDocument(page, `${run}-1`, 'delivered', 'outgoing');

  // A batch of three, with its delivery progress.
  await send.getByTestId('send-number').fill(`${run}-B`);
  await send.getByTestId('send-count').fill('3');
  await send.getByTestId('send-submit').click();
  await page.getByTestId('progress').waitFor();
  await page.getByTestId('send-result').filter({ hasText: 'Batch done: 3 delivered, 0 failed' }).waitFor({ timeout: 120_000 });
  expect(await page.getByTestId('progress').getAttribute('aria-valuenow')).toBe('3');
  await findDocument(page, run, 'delivered');
  expect(await page.getByTestId('document-row').count()).toBeGreaterThanOrEqual(4);
  await shot(page, '02-documents');

  // The outgoing document: fields, lifecycle timeline, a representation fetched with the session.
  await page.getByTestId('document-row').filter({ hasText: `${run}-1` }).click();
  await expect(page.getByTestId('document-title').textContent()).resolves.toContain(`${run}-1`);
  await page.getByTestId('lifecycle-timeline').locator('li').first().waitFor();
  await page.getByTestId('representations').getByRole('button', { name: 'JSON' }).click();
  await page.getByTestId('representations').getByRole('link', { name: 'Download JSON' }).waitFor();
  await page.getByTestId('preview').waitFor();
  await shot(page, '03-document-outgoing');

  // Webhooks: the first real delivery failed (a retry is scheduled on its timeline); its replay succeeds.
  await page.getByTestId('nav-webhooks').click();
  const hook = page.getByTestId('webhook').filter({ hasText: receiver.url });
  const failed = hook.getByTestId('delivery').filter({ hasText: '#1 500' }).filter({ hasNotText: 'test' });
  await until(() => hook.getByRole('button', { name: 'Refresh' }).click(), async () => (await failed.count()) > 0);
  const succeededBefore = await hook.locator('[data-testid=delivery] .badge.good').count();
  await failed.first().getByTestId('replay').click();
  await until(() => hook.getByRole('button', { name: 'Refresh' }).click(), async () => (await hook.locator('[data-testid=delivery] .badge.good').count()) > succeededBefore);
  await hook.getByTestId('webhook-test').click();
  await until(() => hook.getByRole('button', { name: 'Refresh' }).click(), async () => (await hook.getByTestId('delivery').filter({ hasText: 'webhook.test' }).count()) > 0);
  expect(receiver.requests.length).toBeGreaterThanOrEqual(3);
  await shot(page, '04-webhooks');

  // The event log.
  await page.getByTestId('nav-events').click();
  const sentEvent = page.getByTestId('event-row').filter({ hasText: 'document.sent' });
  await sentEvent.first().waitFor();
  await sentEvent.first().click();
  await page.locator('pre').first().waitFor();
  await shot(page, '05-events');

  // Requests: the charts are drawn, and one request's trace opens.
  await page.getByTestId('nav-requests').click();
  await page.getByTestId('chart-minute').locator('canvas').waitFor();
  await page.getByTestId('chart-hour').locator('canvas').waitFor();
  const post = page.getByTestId('request-row').filter({ hasText: '/v1/documents/send' });
  await post.first().waitFor();
  await post.first().click();
  await page.getByTestId('trace').getByText('documents.').first().waitFor();
  await page.getByTestId('trace-calls').waitFor();
  await shot(page, '06-requests-trace');

  // Companies and keys (a platform key manages keys): a new key is shown once.
  await page.getByTestId('nav-companies').click();
  await page.getByTestId('company-row').first().waitFor();
  await page.getByTestId('key-row').first().waitFor();
  await page.getByTestId('key-name').fill('e2e reader');
  await page.getByTestId('key-create').click();
  await expect(page.getByTestId('new-key').textContent()).resolves.toMatch(/^svc_/);
  await page.getByTestId('key-row').filter({ hasText: 'e2e reader' }).waitFor();
  await shot(page, '07-companies-keys');

  // Sandbox controls: the clock, a harmless reset, a short forced rate limit.
  await page.getByTestId('nav-sandbox').click();
  await page.getByTestId('clock-advance').click();
  await page.getByTestId('sandbox-clock').getByText(/offset 86400 s/).waitFor();
  await page.getByTestId('reset-scope').selectOption('idempotency');
  await page.getByTestId('reset-run').click();
  await page.getByTestId('sandbox-reset').getByText(/Deleted/).waitFor();
  await page.getByTestId('sandbox-bootstrap-run').click();
  await page.getByTestId('sandbox-peppol-id').waitFor();
  await page.getByTestId('rate-limit-exhaust').click();
  await page.getByTestId('sandbox-rate-limit').getByText(/Throttled until/).waitFor();
  await shot(page, '08-sandbox');
  await page.getByRole('button', { name: 'Back to real time' }).click();
  await page.getByTestId('sandbox-clock').locator('.note.error').filter({ hasText: 'RATE_LIMITED' }).waitFor();

  await page.getByTestId('sign-out').click();
  await page.getByTestId('api-key').waitFor();
  expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
}), 300_000);

/**
 * A German invoice whose seller telephone has no digits: valid, with the Peppol warning DE-R-027 on
 * the seller party, which the recipient's page shows next to the From field.
 */
async function sendGermanInvoiceWithAWarning(number: string): Promise<void> {
  // The sender's forced rate limit (sandbox page, first test) may still run: wait it out, bounded.
  const deadline = Date.now() + 30_000;
  while ((await api(t.baseUrl, 'GET', '/v1/me', { key: sender.apiKey })).status === 429 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
  const company = await api(t.baseUrl, 'POST', '/v1/companies', { key: sender.apiKey, body: { vatNumber: 'DE123456789' } });
  expect(company.status).toBe(201);
  const address = (city: string, postalCode: string) => ({ street: 'Hauptstr. 1', city, postalCode, country: 'DE' });
  const sent = await api(t.baseUrl, 'POST', '/v1/documents/send', {
    key: sender.apiKey, headers: { 'x-service-company': company.body.id },
    body: {
      type: 'invoice', format: 'json', to: recipient.company.peppolId,
      document: {
        number, dueDate: '2026-12-31', buyerReference: 'REF-1',
        seller: { name: 'Muster GmbH', vatNumber: 'DE123456789', address: address('Berlin', '10115'), contact: { name: 'Buchhaltung', phone: 'n/a', email: 'buchhaltung@example.de' } },
        buyer: { name: 'Recipient', peppolId: recipient.company.peppolId, address: address('Köln', '50667') },
        payment: { means: '58', iban: 'DE89370400440532013000' },
        lines: [{ description: 'Beratung', quantity: 1, unitPrice: 100, vatRate: 19 }],
      },
    },
  });
  expect(sent.status).toBe(201);
}

it('the recipient sees the invoice arrive, moves its lifecycle with the buttons, consents to an agent (PKCE) and hands off to another', () => scenario('recipient', async (page) => {
  await sendGermanInvoiceWithAWarning(`${run}-DE`);
  await signIn(page, recipient.apiKey);
  await findDocument(page, `${run}-1`, 'received', 'incoming');
  await page.getByTestId('document-row').filter({ hasText: `${run}-1` }).click();
  await page.getByTestId('validation-summary').getByText(/Validation on arrival/).waitFor();
  const moves = page.getByTestId('lifecycle-moves');
  await moves.getByTestId('move-204').waitFor();
  await moves.getByTestId('move-205').click();
  await page.getByTestId('lifecycle-timeline').locator('li', { hasText: '205' }).waitFor();
  await page.getByTestId('document-title').locator('.badge', { hasText: 'approved' }).waitFor();
  await shot(page, '09-document-incoming');

  // Validation findings sit next to the field they concern.
  await findDocument(page, `${run}-DE`, 'received', 'incoming');
  await page.getByTestId('document-row').filter({ hasText: `${run}-DE` }).click();
  await page.locator('tr[data-field=from]').getByTestId('finding').filter({ hasText: 'DE-R-027' }).waitFor();
  await page.getByTestId('validation-summary').getByText(/1 warnings/).waitFor();
  await shot(page, '10-document-findings');

  // An agent asks for access with PKCE; the user consents in the dashboard; the agent gets its key.
  const verifier = randomBytes(32).toString('base64url');
  const asked = await api(t.baseUrl, 'POST', '/v1/oauth/authorize', { body: { client_name: 'E2E agent', scopes: ['documents.read'], code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' } });
  expect(asked.status).toBe(201);
  await page.goto(`/app/#/consent/${asked.body.id}`);
  await page.getByTestId('consent').getByText('E2E agent').waitFor();
  await page.getByTestId('consent-grant').click();
  const code = (await page.getByTestId('consent-code').textContent())!;
  await shot(page, '11-agent-consent');
  const agentKey = await api(t.baseUrl, 'POST', '/v1/oauth/keys', { body: { code, code_verifier: verifier } });
  expect(agentKey.status).toBe(201);
  expect(agentKey.body.scopes).toEqual(['documents.read']);
  const seen = await api(t.baseUrl, 'GET', `/v1/documents?search=${run}-1`, { key: agentKey.body.key });
  expect(seen.body.data.map((d: { number: string }) => d.number)).toContain(`${run}-1`);

  // A handoff token minted here signs another browser in (redeemed for a key, exchanged for a session).
  await page.getByTestId('nav-companies').click();
  await page.getByTestId('handoff-mint').click();
  const handoff = (await page.getByTestId('handoff-token').textContent())!;
  const agent = await newPage();
  try {
    await agent.goto('/app/');
    await agent.locator('input[name=handoff]').fill(handoff);
    await agent.getByRole('button', { name: 'Redeem' }).click();
    await agent.getByTestId('nav-documents').waitFor();
    await agent.getByTestId('document-row').filter({ hasText: `${run}-1` }).waitFor();
  } finally {
    await agent.context().close();
  }
}), 180_000);
