/**
 * Platform operation end to end: a platform key acts for its managed companies through
 * X-Service-Company; one call onboards a tenant (company, SMP publication, tenant webhook, tenant
 * key; idempotent with Idempotency-Key, 409 COMPANY_EXISTS afterwards); tenants and their keys are
 * listed, keys revoked, tenants suspended and resumed; white-label settings are validated in the
 * spec's envelope and a custom domain is served for its organization only; usage per tenant and
 * the organization's statistics add up for a known set of documents.
 */
import { request } from 'node:http';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { startReceiver, eventually, type Receiver } from '../support/webhook-receiver.ts';
import { randomBelgianEnterpriseNumber } from '../../services/sandbox/belgian-company.ts';
import { startTxtDns, type TxtDns } from '../support/txt-dns.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000,platform=100000';

let t: TestApp;
let receiver: Receiver;
let customerDns: TxtDns;
type Org = Awaited<ReturnType<typeof bootstrap>>;
let plat: Org;
let other: Org;
let wl: Org;

interface Onboarded { company: { id: string; vatNumber: string; peppolId: string; smpRegistered: boolean; metadata?: Record<string, unknown> }; apiKey: { id: string; key: string; companyId: string; scopes: string[]; keyType: string }; webhook: { id: string; secret: string; companyId: string; events: string[] } | null }

const newVat = () => `BE${randomBelgianEnterpriseNumber()}`;

async function onboard(body: Record<string, unknown>, headers: Record<string, string> = {}, key = plat.apiKey) {
  return api<Onboarded & { error: { code: string; existingId?: string; details: Array<{ field: string }> } }>(t.baseUrl, 'POST', '/v1/platform/companies', { key, body, headers });
}

beforeAll(async () => {
  customerDns = await startTxtDns();
  process.env.EINV_CUSTOM_DOMAIN_DNS_SERVERS = customerDns.server;
  t = await startTestApp();
  receiver = await startReceiver();
  [plat, other, wl] = [
    await bootstrap(t.baseUrl, { label: 'plat', keyType: 'platform' }),
    await bootstrap(t.baseUrl, { label: 'other', keyType: 'white_label' }),
    await bootstrap(t.baseUrl, { label: 'wl', keyType: 'white_label' }),
  ];
}, 30_000);

afterAll(async () => {
  delete process.env.EINV_CUSTOM_DOMAIN_DNS_SERVERS;
  await customerDns?.close();
  await receiver?.close();
  await t?.stop();
});

describe('platform keys act for managed companies', () => {
  it('a platform key without X-Service-Company gets 403 COMPANY_REQUIRED; with one of its companies it acts for it', async () => {
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me/company', { key: plat.apiKey }), 403, 'COMPANY_REQUIRED');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/documents/send', { key: plat.apiKey, body: { type: 'invoice', format: 'json', to: other.company.peppolId, document: { number: 'X' } } }), 403, 'COMPANY_REQUIRED');
    const own = await api(t.baseUrl, 'GET', '/v1/me/company', { key: plat.apiKey, headers: { 'x-service-company': plat.company.id } });
    expect(own.status).toBe(200);
    expect(own.body.id).toBe(plat.company.id);
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me/company', { key: plat.apiKey, headers: { 'x-service-company': other.company.id } }), 403, 'COMPANY_FORBIDDEN');
  });
});

describe('POST /v1/platform/companies', () => {
  let tenant: Onboarded;
  const vatNumber = newVat();

  it('registers the company, opens its tenant webhook, mints its tenant key and publishes it to the SMP', async () => {
    const body = {
      vatNumber, name: 'Tenant One BV', metadata: { tenantId: 'crm-001' },
      webhook: { url: receiver.url, events: ['company.smp_registered', 'compliance.reported.failed'] },
      apiKey: { name: 'tenant one', scopes: ['send', 'documents.read', 'companies.read', 'stats', 'receive'] },
    };
    const res = await onboard(body, { 'idempotency-key': 'onboard-1' });
    expect(res.status).toBe(201);
    tenant = res.body;
    expect(res.headers.get('location')).toBe(`/v1/companies/${tenant.company.id}`);
    expect(tenant.company).toMatchObject({ vatNumber, name: 'Tenant One BV', organizationId: plat.organizationId, metadata: { tenantId: 'crm-001' }, peppolId: `0208:${vatNumber.slice(2)}` });
    expect(tenant.apiKey).toMatchObject({ keyType: 'personal', companyId: tenant.company.id, scopes: body.apiKey.scopes, key: expect.stringMatching(/^svc_test_/) });
    expect(tenant.webhook).toMatchObject({ companyId: tenant.company.id, events: ['company.smp_registered', 'compliance.reported.failed'], secret: expect.stringMatching(/^whsec_/) });

    // The tenant key acts for its company only.
    const me = await api(t.baseUrl, 'GET', '/v1/me/company', { key: tenant.apiKey.key });
    expect(me.body.id).toBe(tenant.company.id);
    // SMP publication is asynchronous: company.smp_registered reaches the tenant webhook.
    await receiver.waitFor(1, 15_000);
    const delivered = JSON.parse(receiver.requests[0]!.rawBody);
    expect(delivered).toMatchObject({ type: 'company.smp_registered', data: { companyId: tenant.company.id, peppolId: tenant.company.peppolId } });
    expect((await api(t.baseUrl, 'GET', `/v1/companies/${tenant.company.id}`, { key: plat.apiKey })).body.smpRegistered).toBe(true);

    // Idempotent: the same key and body answer the same company, secrets masked.
    const replay = await onboard(body, { 'idempotency-key': 'onboard-1' });
    expect(replay.status).toBe(201);
    expect(replay.body.company.id).toBe(tenant.company.id);
    expect(replay.body.apiKey.id).toBe(tenant.apiKey.id);
    expect(replay.body.apiKey.key).not.toBe(tenant.apiKey.key);
    expect(replay.body.webhook!.secret).not.toBe(tenant.webhook!.secret);
    expect(replay.headers.get('idempotent-replay-redacted')).toBe('apiKey.key, webhook.secret');
    // Another (or an expired) Idempotency-Key for the same VAT number: 409 with the existing company.
    for (const headers of [{ 'idempotency-key': 'onboard-2' }, {}] as Array<Record<string, string>>) {
      const again = await onboard(body, headers);
      expectEnvelope(again, 409, 'COMPANY_EXISTS');
      expect(again.body.error.existingId).toBe(tenant.company.id);
    }
  });

  it('refuses what it cannot do in full and leaves nothing behind', async () => {
    const vat = newVat();
    // A tenant key cannot hold scopes the caller lacks.
    const narrow = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: plat.apiKey, body: { name: 'narrow', keyType: 'platform', scopes: ['platform', 'companies.write'] } });
    expect(narrow.status).toBe(201);
    expectEnvelope(await onboard({ vatNumber: vat, apiKey: { scopes: ['send'] } }, {}, narrow.body.key), 403, 'INSUFFICIENT_SCOPE');
    // A webhook target this mode may not call, and field errors, in the envelope.
    const bad = await onboard({ vatNumber: vat, webhook: { url: 'https://user:pw@example.com/hook', events: ['*'] } });
    expectEnvelope(bad, 400, 'INVALID_REQUEST');
    expect(bad.body.error.details[0]!.field).toBe('webhook.url');
    expectEnvelope(await onboard({ vatNumber: vat, webhook: { url: receiver.url, events: ['document.exploded'] } }), 400, 'INVALID_ENUM');
    expectEnvelope(await onboard({ vatNumber: 'be123' }), 400, 'INVALID_VAT_FORMAT');
    // The company is created, then its key cannot be: the company goes again (nothing half-onboarded).
    process.env.EINV_MAX_API_KEYS_PER_ORGANIZATION = '1';
    try {
      expectEnvelope(await onboard({ vatNumber: vat, webhook: { url: receiver.url, events: ['*'] } }), 409, 'LIMIT_EXCEEDED');
    } finally {
      delete process.env.EINV_MAX_API_KEYS_PER_ORGANIZATION;
    }
    expectEnvelope(await api(t.baseUrl, 'GET', `/v1/companies/vat:${vat}`, { key: plat.apiKey }), 404, 'COMPANY_NOT_FOUND');
    // Only the first tenant's webhook exists: none was left by the refused onboardings.
    expect((await api(t.baseUrl, 'GET', '/v1/webhooks', { key: plat.apiKey })).body.data.map((w: { id: string }) => w.id)).toEqual([tenant.webhook!.id]);
    // The same VAT number onboards once the cause is gone.
    const later = await onboard({ vatNumber: vat });
    expect(later.status).toBe(201);
    // A key bound to one company does not run platform operations.
    expectEnvelope(await onboard({ vatNumber: vat }, {}, tenant.apiKey.key), 403, 'INSUFFICIENT_SCOPE');
  });

  it('lists tenants and their keys, suspends and resumes a tenant, revokes a tenant key', async () => {
    const list = await api(t.baseUrl, 'GET', '/v1/platform/companies', { key: plat.apiKey });
    expect(list.status).toBe(200);
    const row = list.body.data.find((c: { id: string }) => c.id === tenant.company.id);
    expect(row).toMatchObject({ suspended: false, suspendedAt: null, tenantKeys: 1 });
    const keys = await api(t.baseUrl, 'GET', `/v1/platform/api-keys?companyId=${tenant.company.id}`, { key: plat.apiKey });
    expect(keys.body.data.map((k: { id: string }) => k.id)).toEqual([tenant.apiKey.id]);
    expect(keys.body.data[0].key).toBeUndefined();

    const suspended = await api(t.baseUrl, 'POST', `/v1/platform/companies/${tenant.company.id}/suspend`, { key: plat.apiKey });
    expect(suspended.status).toBe(200);
    expect(suspended.body).toMatchObject({ id: tenant.company.id, suspended: true, suspendedAt: expect.any(String) });
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me/company', { key: tenant.apiKey.key }), 403, 'COMPANY_SUSPENDED');
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me/company', { key: plat.apiKey, headers: { 'x-service-company': tenant.company.id } }), 403, 'COMPANY_SUSPENDED');
    expect((await api(t.baseUrl, 'GET', '/v1/platform/companies?status=suspended', { key: plat.apiKey })).body.data.map((c: { id: string }) => c.id)).toEqual([tenant.company.id]);
    const resumed = await api(t.baseUrl, 'POST', `/v1/platform/companies/${tenant.company.id}/resume`, { key: plat.apiKey });
    expect(resumed.body.suspended).toBe(false);
    expect((await api(t.baseUrl, 'GET', '/v1/me/company', { key: tenant.apiKey.key })).status).toBe(200);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/platform/companies/comp_unknown/suspend', { key: plat.apiKey }), 404, 'COMPANY_NOT_FOUND');

    // The platform's own keys are not tenant keys; another organization's tenant keys are not visible.
    const platKeyId = (await api(t.baseUrl, 'GET', '/v1/me', { key: plat.apiKey })).body.apiKeyId;
    expectEnvelope(await api(t.baseUrl, 'DELETE', `/v1/platform/api-keys/${platKeyId}`, { key: plat.apiKey }), 404, 'RESOURCE_NOT_FOUND');
    expectEnvelope(await api(t.baseUrl, 'DELETE', `/v1/platform/api-keys/${tenant.apiKey.id}`, { key: other.apiKey }), 404, 'RESOURCE_NOT_FOUND');
    const revoked = await api(t.baseUrl, 'DELETE', `/v1/platform/api-keys/${tenant.apiKey.id}`, { key: plat.apiKey });
    expect(revoked.body).toMatchObject({ id: tenant.apiKey.id, revoked: true });
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: tenant.apiKey.key }), 401, 'REVOKED_KEY');
    expect((await api(t.baseUrl, 'GET', `/v1/platform/api-keys?companyId=${tenant.company.id}`, { key: plat.apiKey })).body.data).toEqual([]);
  });
});

/** A request with its own Host header (fetch does not send a chosen one). */
function onHost(host: string, path: string, key?: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${t.baseUrl}${path}`, { headers: { host, ...(key ? { authorization: `Bearer ${key}` } : {}) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('PATCH /v1/platform/settings', () => {
  it('validates branding, domain and defaults field by field, in the spec\'s envelope', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ branding: { logoUrl: 'http://cdn.example.com/logo.png' } }, 'INVALID_REQUEST', 'branding.logoUrl'],
      [{ branding: { primaryColor: 'red' } }, 'INVALID_REQUEST', 'branding.primaryColor'],
      [{ branding: { primaryColor: '#12345' } }, 'INVALID_REQUEST', 'branding.primaryColor'],
      [{ branding: { supportEmail: 'not-an-email' } }, 'INVALID_REQUEST', 'branding.supportEmail'],
      [{ branding: { displayName: '' } }, 'INVALID_REQUEST', 'branding.displayName'],
      [{ customDomain: '10.0.0.1' }, 'INVALID_REQUEST', 'customDomain'],
      [{ customDomain: 'no_underscores.example.com' }, 'INVALID_REQUEST', 'customDomain'],
      [{ defaults: { preferredFormat: 'pdf' } }, 'INVALID_ENUM', 'defaults.preferredFormat'],
      [{ defaults: { autoCompliance: { france: false } } }, 'INVALID_REQUEST', 'defaults.autoCompliance'],
      [{ defaults: { autoCompliance: { FR: 'no' } } }, 'INVALID_REQUEST', 'defaults.autoCompliance'],
    ];
    for (const [body, code, field] of cases) {
      const res = await api(t.baseUrl, 'PATCH', '/v1/platform/settings', { key: wl.apiKey, body });
      expectEnvelope(res, 400, code);
      expect(res.body.error.details.map((d: { field: string }) => d.field).join(' ')).toContain(field);
    }
    // Nothing of the refused changes was kept.
    const now = await api(t.baseUrl, 'GET', '/v1/platform/settings', { key: wl.apiKey });
    expect(now.body).toMatchObject({ branding: { displayName: null, logoUrl: null, primaryColor: null, supportEmail: null }, customDomain: null, defaults: { preferredFormat: null, autoCompliance: {} } });
  });

  it('keeps branding and defaults, returns the DNS records of a custom domain, and serves that host for its organization only', async () => {
    // Branding and custom domains are white-label features; defaults are open to platforms too.
    const notWhiteLabel = await api(t.baseUrl, 'PATCH', '/v1/platform/settings', { key: plat.apiKey, body: { branding: { displayName: 'Platform' } } });
    expectEnvelope(notWhiteLabel, 403, 'WHITE_LABEL_ONLY');
    expectEnvelope(await api(t.baseUrl, 'PATCH', '/v1/platform/settings', { key: plat.apiKey, body: { customDomain: 'billing.platform.example' } }), 403, 'WHITE_LABEL_ONLY');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/platform/settings/custom-domain/verify', { key: plat.apiKey }), 403, 'WHITE_LABEL_ONLY');

    const res = await api(t.baseUrl, 'PATCH', '/v1/platform/settings', {
      key: wl.apiKey,
      body: {
        branding: { displayName: 'Acme e-Invoicing', logoUrl: 'https://cdn.example.com/logo.svg', primaryColor: '#0A66C2', supportEmail: 'help@acme.example' },
        customDomain: 'Einvoicing.Acme.example',
        defaults: { preferredFormat: 'ubl-xml', autoCompliance: { FR: false, IT: true } },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      organizationId: wl.organizationId, plan: 'white_label',
      branding: { displayName: 'Acme e-Invoicing', logoUrl: 'https://cdn.example.com/logo.svg', primaryColor: '#0A66C2', supportEmail: 'help@acme.example' },
      defaults: { preferredFormat: 'ubl-xml', autoCompliance: { FR: false, IT: true } },
      quotas: { requestsPerMinute: 1200, documentsPerMonth: null },
    });
    const domain = res.body.customDomain;
    expect(domain.domain).toBe('einvoicing.acme.example');
    expect(domain.dnsRecords).toEqual([
      { type: 'CNAME', name: 'einvoicing.acme.example', value: 'localhost', purpose: expect.any(String) },
      { type: 'TXT', name: '_svc-challenge.einvoicing.acme.example', value: expect.stringMatching(/^svc-verify-[0-9a-f]{32}$/), purpose: expect.any(String) },
    ]);
    // A partial change keeps the rest; null clears one member.
    const partial = await api(t.baseUrl, 'PATCH', '/v1/platform/settings', { key: wl.apiKey, body: { branding: { supportEmail: null }, defaults: { autoCompliance: { DE: true } } } });
    expect(partial.body.branding).toMatchObject({ displayName: 'Acme e-Invoicing', supportEmail: null });
    expect(partial.body.defaults.autoCompliance).toEqual({ FR: false, IT: true, DE: true });
    expect(partial.body.customDomain.dnsRecords[1].value).toBe(domain.dnsRecords[1].value);

    expect(domain).toMatchObject({ status: 'pending_verification', verifiedAt: null });

    // Not served before its TXT challenge is verified; verifying before the record exists is refused.
    expect((await onHost('einvoicing.acme.example', '/v1/branding')).body.error.code).toBe('RESOURCE_NOT_FOUND');
    expect((await onHost('einvoicing.acme.example', '/v1/me', other.apiKey)).status).toBe(200);
    const early = await api(t.baseUrl, 'POST', '/v1/platform/settings/custom-domain/verify', { key: wl.apiKey });
    expectEnvelope(early, 422, 'DOMAIN_NOT_VERIFIED');
    customerDns.publish('_svc-challenge.einvoicing.acme.example', 'svc-verify-someone-else');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/platform/settings/custom-domain/verify', { key: wl.apiKey }), 422, 'DOMAIN_NOT_VERIFIED');
    customerDns.publish('_svc-challenge.einvoicing.acme.example', domain.dnsRecords[1].value);
    const verified = await api(t.baseUrl, 'POST', '/v1/platform/settings/custom-domain/verify', { key: wl.apiKey });
    expect(verified.status).toBe(200);
    expect(verified.body.customDomain).toMatchObject({ domain: 'einvoicing.acme.example', status: 'verified', verifiedAt: expect.any(String) });
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/platform/settings/custom-domain/verify', { key: other.apiKey }), 409, 'INVALID_TRANSITION');

    // Another organization cannot take a domain that is served.
    expectEnvelope(await api(t.baseUrl, 'PATCH', '/v1/platform/settings', { key: other.apiKey, body: { customDomain: 'einvoicing.acme.example' } }), 409, 'DOMAIN_IN_USE');

    // The gateway serves the host for its organization: public branding, its own keys; other organizations' keys are refused there.
    const branding = await onHost('einvoicing.acme.example', '/v1/branding');
    expect(branding).toMatchObject({ status: 200, body: { organizationId: wl.organizationId, domain: 'einvoicing.acme.example', branding: { displayName: 'Acme e-Invoicing' } } });
    expect((await onHost('einvoicing.acme.example:443', '/v1/me', wl.apiKey)).status).toBe(200);
    const foreign = await onHost('einvoicing.acme.example', '/v1/me', other.apiKey);
    expect(foreign).toMatchObject({ status: 403, body: { error: { code: 'ORGANIZATION_FORBIDDEN' } } });
    expect((await onHost('unknown.example.org', '/v1/branding')).body.error.code).toBe('RESOURCE_NOT_FOUND');
    // Released: the host serves nobody any more.
    await api(t.baseUrl, 'PATCH', '/v1/platform/settings', { key: wl.apiKey, body: { customDomain: null } });
    expect((await onHost('einvoicing.acme.example', '/v1/me', other.apiKey)).status).toBe(200);
  });
});

describe('usage and statistics', () => {
  it('GET /v1/platform/usage and GET /v1/stats add up for a known set of documents', async () => {
    const buyer = await bootstrap(t.baseUrl, { label: 'usage-buyer' });
    const hooks = await startReceiver((_n, req) => (req.headers['x-service-event'] === 'document.received' ? 500 : 200));
    try {
      expect((await api(t.baseUrl, 'POST', '/v1/webhooks', { key: buyer.apiKey, body: { url: hooks.url, events: ['document.received', 'lifecycle.updated'] } })).status).toBe(201);
      const [t1, t2] = [
        (await onboard({ vatNumber: newVat(), name: 'Usage One', metadata: { tenantId: 'crm-101' } })).body,
        (await onboard({ vatNumber: newVat(), name: 'Usage Two' })).body,
      ];
      const send = async (key: string, sellerVat: string, to: string, lines?: unknown[]) => api(t.baseUrl, 'POST', '/v1/documents/send', {
        key,
        body: {
          type: 'invoice', format: 'json', to,
          document: {
            number: `USE-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO',
            seller: { name: 'Seller', vatNumber: sellerVat, address: { street: 'Rue 1', city: 'Brussels', postalCode: '1000', country: 'BE' } },
            buyer: { name: 'Buyer', vatNumber: 'FR40303265045', address: { street: '1 rue', city: 'Paris', postalCode: '75001', country: 'FR' } },
            lines: lines ?? [{ description: 'Work', quantity: 1, unit: 'HUR', unitPrice: 100, vatRate: 21 }],
          },
        },
      });
      const sent = [
        await send(t1.apiKey.key, t1.company.vatNumber, buyer.company.peppolId),
        await send(t1.apiKey.key, t1.company.vatNumber, buyer.company.peppolId),
        await send(t2.apiKey.key, t2.company.vatNumber, buyer.company.peppolId),
        await send(buyer.apiKey, buyer.company.vatNumber, t1.company.peppolId),
      ];
      expect(sent.map((r) => r.status)).toEqual([201, 201, 201, 201]);
      // One send the rules refuse: a validation failure of the buyer.
      const refused = await send(buyer.apiKey, buyer.company.vatNumber, t1.company.peppolId, [{ description: 'S', quantity: 1, unitPrice: 50, vatCategory: 'S', vatRate: 21 }, { description: 'E', quantity: 1, unitPrice: 10, vatCategory: 'E', vatRate: 0, vatExemptionReason: 'Exempt' }]);
      expectEnvelope(refused, 422, 'UBL_VALIDATION_FAILED');
      // The buyer approves one received invoice.
      const received = await eventually(async () => {
        const list = await api(t.baseUrl, 'POST', '/v1/documents/search', { key: buyer.apiKey, body: { filters: { direction: 'incoming' } } });
        return list.body.data.length === 3 ? list.body.data as Array<{ id: string }> : undefined;
      }, 15_000, 'the buyer\'s three invoices');
      expect((await api(t.baseUrl, 'POST', `/v1/documents/${received[0]!.id}/lifecycle`, { key: buyer.apiKey, body: { status: 'approved' } })).status).toBe(200);
      await eventually(async () => (await api(t.baseUrl, 'POST', '/v1/documents/search', { key: plat.apiKey, headers: { 'x-service-company': t1.company.id }, body: { filters: { direction: 'incoming' } } })).body.data.length === 1 || undefined, 15_000, 't1\'s received invoice');
      // Webhook deliveries: 3 document.received (failing, retried later), 1 lifecycle.updated (succeeded).
      await hooks.waitFor(4, 15_000);
      await eventually(async () => {
        const s = (await api(t.baseUrl, 'GET', '/v1/stats', { key: buyer.apiKey })).body;
        return s.webhooks.succeeded === 1 && s.validationFailures.refused === 1 ? s : undefined;
      }, 15_000, 'the deliveries recorded and the refused send logged');

      const usage = await api(t.baseUrl, 'GET', '/v1/platform/usage?period=month&groupBy=company', { key: plat.apiKey });
      expect(usage.status).toBe(200);
      const month = new Date().toISOString().slice(0, 7);
      expect(usage.body.period).toMatchObject({ month, start: `${month}-01T00:00:00.000Z` });
      expect(usage.body.total).toEqual({ documentsSent: 3, documentsReceived: 1, complianceReports: 0 });
      expect(usage.body.byCompany).toEqual(expect.arrayContaining([
        { companyId: t1.company.id, tenantId: 'crm-101', name: 'Usage One', sent: 2, received: 1, complianceReports: 0 },
        { companyId: t2.company.id, tenantId: null, name: 'Usage Two', sent: 1, received: 0, complianceReports: 0 },
      ]));
      expect(usage.body.byCompany).toHaveLength(2);
      // Another month holds nothing; a malformed one is refused.
      expect((await api(t.baseUrl, 'GET', '/v1/platform/usage?month=2020-01', { key: plat.apiKey })).body).toMatchObject({ total: { documentsSent: 0, documentsReceived: 0 }, byCompany: [] });
      expectEnvelope(await api(t.baseUrl, 'GET', '/v1/platform/usage?month=2020-13', { key: plat.apiKey }), 400, 'INVALID_REQUEST');
      expectEnvelope(await api(t.baseUrl, 'GET', '/v1/platform/usage?groupBy=country', { key: plat.apiKey }), 400, 'INVALID_ENUM');

      const stats = await api(t.baseUrl, 'GET', '/v1/stats?period=month', { key: buyer.apiKey });
      expect(stats.status).toBe(200);
      expect(stats.body).toMatchObject({
        organizationId: buyer.organizationId, companyId: buyer.company.id,
        documents: { sent: 1, received: 3, byType: { invoice: { sent: 1, received: 3 } }, byStatus: { sent: 1, received: 2, approved: 1 } },
        validationFailures: { refused: 1, receivedInvalid: 0, total: 1 },
        webhooks: { succeeded: 1, failed: 0, pending: 3, successRate: 1 },
        complianceReports: { reported: 0, failed: 0, total: 0 },
      });
      expect(Object.values(stats.body.documents.byDeliveryStatus as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(1);
      // The platform sees its tenants' documents; one tenant through X-Service-Company sees its own.
      const platStats = (await api(t.baseUrl, 'GET', '/v1/stats', { key: plat.apiKey })).body;
      expect(platStats.documents).toMatchObject({ sent: 3, received: 1 });
      expect(platStats.companyId).toBeNull();
      const t2Stats = (await api(t.baseUrl, 'GET', '/v1/stats', { key: plat.apiKey, headers: { 'x-service-company': t2.company.id } })).body;
      expect(t2Stats.documents).toMatchObject({ sent: 1, received: 0 });

      // defaults.preferredFormat applies to the platform's tenants: a send without `format` takes it.
      const bare = (key: string, sellerVat: string, to: string) => api(t.baseUrl, 'POST', '/v1/documents/send', {
        key,
        body: {
          type: 'invoice', to,
          document: {
            number: `BARE-${Date.now()}`, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO',
            seller: { name: 'Seller', vatNumber: sellerVat, address: { street: 'Rue 1', city: 'Brussels', postalCode: '1000', country: 'BE' } },
            buyer: { name: 'Buyer', vatNumber: 'FR40303265045', address: { street: '1 rue', city: 'Paris', postalCode: '75001', country: 'FR' } },
            lines: [{ description: 'Work', quantity: 1, unit: 'HUR', unitPrice: 100, vatRate: 21 }],
          },
        },
      });
      const noPreference = await bare(buyer.apiKey, buyer.company.vatNumber, t1.company.peppolId);
      expectEnvelope(noPreference, 400, 'MISSING_FIELD');
      expect(noPreference.body.error.details[0].field).toBe('format');
      expect((await api(t.baseUrl, 'PATCH', '/v1/platform/settings', { key: plat.apiKey, body: { defaults: { preferredFormat: 'json' } } })).status).toBe(200);
      const preferred = await bare(t2.apiKey.key, t2.company.vatNumber, buyer.company.peppolId);
      expect(preferred.status).toBe(201);
      expect(preferred.body.format).toBe('json');
    } finally {
      await hooks.close();
    }
  }, 60_000);
});
