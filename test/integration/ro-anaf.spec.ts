/**
 * The ro-anaf connector against the ANAF simulator on 127.0.0.1, through the platform's HTTP client:
 * an upload cleared (pending while ANAF processes it, then the ANAF-signed archive as legal original,
 * whose signature xmlsec1 verifies), ANAF's refusals (nok with the rule, XML it cannot read), throttling
 * and outages (429 with Retry-After, 503), the access token refreshed with the refresh token (also after
 * a 401), a refresh token ANAF no longer takes, the processing time bound, credit notes and foreign
 * buyers, and received invoices polled page by page into inbound.accept.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync, strFromU8 } from 'fflate';
import { memoryHost, sampleMessage, type MemoryHost } from '../../adapters/sdk/contract-suite.ts';
import type { DirectoryEntry, OutboundMessage, StatusResult } from '../../adapters/sdk/index.ts';
import roAnaf from '../../adapters/ro-anaf/ro-anaf.connector.ts';
import { createHttpClient, type HttpClient } from '../../services/connectors/http-client.ts';
import { jsonToCanonical, canonicalToCiusRoUbl } from '../../mappings/index.ts';
import { startAnafSimulator, type AnafSimulator } from '../support/anaf-simulator.ts';
import { romanianJsonInvoice } from '../support/romanian-invoice.ts';

let sim: AnafSimulator;
let http: HttpClient;
beforeAll(async () => { sim = await startAnafSimulator({ processingMs: 150, pageSize: 2 }); http = createHttpClient(); });
afterAll(async () => { await http.close(); await sim.close(); });

const buyer: DirectoryEntry = { organizationId: 'org_ro', companyId: 'comp_ro_buyer', peppolId: '9947:RO14399840', name: 'Client Comercial SA', country: 'RO', documentTypes: ['invoice', 'credit-note'] };

function host(overrides: { config?: Record<string, string | number>; secrets?: Record<string, string> } = {}): MemoryHost {
  const h = memoryHost([buyer], {
    config: { clientId: sim.clientId, baseUrl: sim.prodUrl, testBaseUrl: sim.testUrl, tokenUrl: sim.tokenUrl, cifs: '14399840', statusCheckMs: 50, timeoutMs: 5000, ...overrides.config },
    secrets: { clientSecret: sim.clientSecret, refreshToken: sim.refreshToken, ...overrides.secrets },
  });
  return Object.assign(h, { http });
}

function message(type: 'invoice' | 'credit-note', document: Record<string, unknown>): OutboundMessage {
  const canonical = jsonToCanonical({ type, document }, { today: '2026-11-02' });
  return { ...sampleMessage({ peppolId: '9947:RO14399840' }, type), number: canonical.number ?? null, payload: { content: '', contentType: 'application/json', normalized: canonical as unknown as Record<string, unknown> } };
}

/** Polls status until ANAF's answer is final (bounded). */
async function settle(h: MemoryHost, messageId: string): Promise<{ final: StatusResult; pendingSeen: number }> {
  let pendingSeen = 0;
  for (let i = 0; i < 60; i++) {
    const s = await roAnaf.status({ messageId, livemode: false }, h);
    if (s.outcome !== 'pending') return { final: s, pendingSeen };
    pendingSeen++;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('ANAF never answered');
}

async function uploaded(h: MemoryHost, msg: OutboundMessage): Promise<string> {
  const r = await roAnaf.send(msg, h);
  if (r.outcome !== 'accepted') throw new Error(`not accepted: ${JSON.stringify(r)}`);
  return r.messageId;
}

describe('ro-anaf ↔ ANAF simulator', () => {
  it('clears an invoice: pending while processed, then the ANAF-signed archive is the legal original', async () => {
    const h = host();
    const tokensBefore = sim.calls.token;
    const messageId = await uploaded(h, message('invoice', romanianJsonInvoice('FCT-2026-100')));
    const index = messageId.split('@')[0]!;
    const upload = sim.uploads.get(index)!;
    expect(upload).toMatchObject({ cif: '18547290', standard: 'UBL', extern: false });
    expect(upload.xml).toContain('<cbc:CountrySubentity>RO-B</cbc:CountrySubentity>');

    const { final, pendingSeen } = await settle(h, messageId);
    expect(pendingSeen).toBeGreaterThan(0);
    expect(final.outcome).toBe('delivered');
    const clearance = (final as Extract<StatusResult, { outcome: 'delivered' }>).clearance!;
    expect(clearance).toMatchObject({ status: 'cleared', authorityId: index, details: { index_incarcare: index, id_descarcare: upload.downloadId, invoiceFile: `${index}.xml` } });
    expect(clearance.qr).toBeUndefined();
    expect(clearance.legalOriginal).toMatchObject({ contentType: 'application/zip', filename: `${index}.zip` });
    const files = unzipSync(Buffer.from(clearance.legalOriginal!.content, 'base64'));
    expect(strFromU8(files[`${index}.xml`]!)).toBe(upload.xml);
    expect(Buffer.from(clearance.receipt!.content, 'base64').equals(Buffer.from(files[`semnatura_${index}.xml`]!))).toBe(true);

    // ANAF's signature verifies with an independent verifier, and covers the invoice's digest.
    const dir = mkdtempSync(join(tmpdir(), 'anaf-sig-'));
    try {
      writeFileSync(join(dir, 'anaf.pem'), sim.signerCertificatePem);
      writeFileSync(join(dir, 'sig.xml'), Buffer.from(files[`semnatura_${index}.xml`]!));
      execFileSync('xmlsec1', ['--verify', '--pubkey-cert-pem', join(dir, 'anaf.pem'), join(dir, 'sig.xml')], { stdio: 'pipe' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(strFromU8(files[`semnatura_${index}.xml`]!)).toContain(`sha256="${Buffer.from(clearance.details!.invoiceSha256!, 'hex').toString('base64')}"`);
    // One token for the whole exchange; none of it in the log.
    expect(sim.calls.token - tokensBefore).toBe(1);
    for (const t of sim.accessTokensIssued) expect(h.logged.join('\n')).not.toContain(t);
    expect(h.logged.join('\n')).not.toContain(sim.refreshToken);
  });

  it('nok: ANAF\'s validation refuses the invoice, the rule becomes the error code', async () => {
    const h = host();
    const messageId = await uploaded(h, message('invoice', romanianJsonInvoice('FCT-FARA-NUMAR')));
    const { final } = await settle(h, messageId);
    expect(final).toMatchObject({ outcome: 'rejected', errorCode: 'ANAF:BR-RO-010', errorMessage: expect.stringContaining('cel putin un caracter numeric') });
  });

  it('XML cu erori nepreluat de sistem: an upload ANAF cannot read is rejected', async () => {
    const h = host();
    const broken = `<Invoice><cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:efactura.mfinante.ro:CIUS-RO:1.0.1</cbc:CustomizationID>`;
    const msg = message('invoice', romanianJsonInvoice('FCT-2026-101'));
    const messageId = await uploaded(h, { ...msg, payload: { ...msg.payload, xml: broken, syntax: 'ubl-2.1' } });
    expect((await settle(h, messageId)).final).toMatchObject({ outcome: 'rejected', errorCode: 'ANAF:XML_ERRORS' });
  });

  it('a credit note goes as standard CN, an invoice to a foreign buyer with extern=DA; both clear', async () => {
    const h = host();
    const cn = await uploaded(h, message('credit-note', romanianJsonInvoice('CN-2026-5', { dueDate: undefined })));
    expect(sim.uploads.get(cn.split('@')[0]!)).toMatchObject({ standard: 'CN', extern: false });
    const foreign = await uploaded(h, message('invoice', romanianJsonInvoice('FCT-2026-102', { buyer: { name: 'Acme SPRL', vatNumber: 'BE0403170701', address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } } })));
    expect(sim.uploads.get(foreign.split('@')[0]!)).toMatchObject({ standard: 'UBL', extern: true });
    expect((await settle(h, cn)).final.outcome).toBe('delivered');
    expect((await settle(h, foreign)).final.outcome).toBe('delivered');
  });

  it('throttling and outages: 429 on upload is transient; 429 on status waits Retry-After; 503 waits', async () => {
    const h = host();
    sim.failNext('upload', 1, 429, 120);
    expect(await roAnaf.send(message('invoice', romanianJsonInvoice('FCT-2026-103')), h)).toMatchObject({ outcome: 'transient', errorCode: 'ANAF_HTTP_429' });
    const messageId = await uploaded(h, message('invoice', romanianJsonInvoice('FCT-2026-103')));
    sim.failNext('status', 1, 429, 120);
    expect(await roAnaf.status({ messageId, livemode: false }, h)).toEqual({ outcome: 'pending', checkAfterMs: 120_000 });
    sim.failNext('status', 1, 503);
    expect(await roAnaf.status({ messageId, livemode: false }, h)).toEqual({ outcome: 'pending', checkAfterMs: 50 });
    sim.failNext('upload', 1, 500);
    expect(await roAnaf.send(message('invoice', romanianJsonInvoice('FCT-2026-104')), h)).toMatchObject({ outcome: 'transient', errorCode: 'ANAF_HTTP_500' });
    expect((await settle(h, messageId)).final.outcome).toBe('delivered');
  });

  it('a revoked access token is refreshed once with the refresh token; a refresh token ANAF no longer takes is transient, and never logged', async () => {
    const h = host();
    await uploaded(h, message('invoice', romanianJsonInvoice('FCT-2026-105')));
    const before = sim.calls.token;
    sim.revokeAccessTokens();
    await uploaded(h, message('invoice', romanianJsonInvoice('FCT-2026-106')));
    expect(sim.calls.token - before).toBe(1);

    const stale = host({ secrets: { refreshToken: 'rt-revoked-long-ago' } });
    const r = await roAnaf.send(message('invoice', romanianJsonInvoice('FCT-2026-107')), stale);
    expect(r).toMatchObject({ outcome: 'transient', errorCode: 'ANAF_AUTH_FAILED', errorMessage: expect.stringContaining('authorise the application again') });
    expect(stale.logged.join('\n')).not.toContain('rt-revoked-long-ago');
  });

  it('an upload still processing after maxProcessingMs is rejected with ANAF_TIMEOUT', async () => {
    const slow = await startAnafSimulator({ processingMs: 60_000 });
    try {
      const h = memoryHost([buyer], {
        config: { clientId: slow.clientId, baseUrl: slow.prodUrl, testBaseUrl: slow.testUrl, tokenUrl: slow.tokenUrl, statusCheckMs: 50, maxProcessingMs: 100, timeoutMs: 5000 },
        secrets: { clientSecret: slow.clientSecret, refreshToken: slow.refreshToken },
      });
      Object.assign(h, { http });
      const messageId = await uploaded(h, message('invoice', romanianJsonInvoice('FCT-2026-108')));
      expect(await roAnaf.status({ messageId, livemode: false }, h)).toMatchObject({ outcome: 'pending' });
      await new Promise((r) => setTimeout(r, 150));
      expect(await roAnaf.status({ messageId, livemode: false }, h)).toMatchObject({ outcome: 'rejected', errorCode: 'ANAF_TIMEOUT' });
    } finally {
      await slow.close();
    }
  });

  it('receives: every page of the CUI\'s received invoices, each taken once; what is not an invoice is skipped', async () => {
    const h = host();
    const xml = (n: string) => canonicalToCiusRoUbl(jsonToCanonical({ type: 'invoice', document: romanianJsonInvoice(n) }, { today: '2026-11-02' }));
    const numbers = ['PRIM-1', 'PRIM-2', 'PRIM-3'];
    for (const n of numbers) sim.receive('14399840', '18547290', xml(n));
    sim.receive('14399840', '18547290', '<nu-este-factura/>');
    sim.receive('11111111', '18547290', xml('PRIM-ALTUL'));
    await roAnaf.start(h);
    await h.runTimers();
    await h.runTimers();
    const got = h.inboxed.filter((d) => numbers.includes(d.number ?? ''));
    expect(got.map((d) => d.number).sort()).toEqual(numbers);
    expect(h.inboxed.some((d) => d.number === 'PRIM-ALTUL')).toBe(false);
    expect(got[0]).toMatchObject({
      type: 'invoice', livemode: false,
      sender: { peppolId: '9947:RO18547290', name: 'Exemplu Software SRL' },
      recipient: { companyId: 'comp_ro_buyer', organizationId: 'org_ro' },
      payload: { contentType: 'application/xml', syntax: 'ubl-2.1' },
      evidence: { messageId: expect.stringMatching(/^anaf:\d+$/), details: { id_descarcare: expect.any(String) } },
    });
    // Each invoice handed over once across both polls (the second poll takes nothing new). The memory
    // host's directory answers for both modes, so the live-mode poll hands them over too: count test mode.
    // (The invoices cleared earlier in this file are listed for this buyer too.)
    const testCalls = h.acceptCalls.filter((d) => !d.livemode);
    expect(testCalls.length).toBeGreaterThanOrEqual(3);
    expect(new Set(testCalls.map((d) => d.messageId)).size).toBe(testCalls.length);
    expect(h.inboxed.some((d) => d.number === 'FCT-2026-100')).toBe(true);
    expect(h.logged.join('\n')).toContain('is not a UBL invoice');
  });
});
