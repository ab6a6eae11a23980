/**
 * The sa-zatca connector as the platform runs it — loaded by its id, configured from
 * EINV_CONNECTOR_SA_ZATCA_* variables, wrapped in adapter.sa-zatca with the real HTTP client — against
 * the ZATCA simulator on 127.0.0.1: the onboarding (CSR → compliance CSID → six compliance checks →
 * production CSID), a standard invoice cleared (ZATCA's QR, the cleared invoice as legal original), a
 * simplified one reported, the hash chain across invoices, a rejection (BR-KSA-67) and the corrected
 * invoice, 429 and a timeout (transient; the re-send submits the same invoice), a simplified invoice
 * reported later through status when ZATCA is down, a restart that continues the chain, a bad CSID.
 * The chain lives in the connector state (SDK 2.5) on PostgreSQL: each adapter broker runs the
 * connector-state service on the same database, as replicas would; two adapter instances issuing 20
 * invoices at once for one EGS unit give ICVs without gap or duplicate and an unbroken PIH chain.
 */
import { verify } from 'node:crypto';
import { ServiceBroker } from 'moleculer';
import type { OutboundMessage, SendResult, StatusResult } from '../../adapters/sdk/index.ts';
import { loadConnector } from '../../services/connectors/discovery.ts';
import { connectorService } from '../../services/connectors/connector-service.ts';
import { connectorSettings } from '../../services/shared/connector-settings.ts';
import { createHttpClient } from '../../services/connectors/http-client.ts';
import { newEgsKey, onboard, type Onboarded } from '../../adapters/sa-zatca/onboarding.ts';
import { decodeZatcaQr, FIRST_PIH } from '../../mappings/zatca/index.ts';
import type { CanonicalInvoice } from '../../mappings/index.ts';
import ConnectorStateService from '../../services/connectors/connector-state.service.ts';
import { attachDatabase } from '../../services/shared/persistence/database.ts';
import { useMigratedOrm } from '../support/migrated-orm.ts';
import { startZatcaSimulator, type ZatcaSimulator } from '../support/zatca-simulator.ts';
import { saudiInvoice, saudiB2cInvoice } from '../support/saudi-invoice.ts';

let zatca: ZatcaSimulator;
let onboarded: Onboarded;
const privateKeyPem = newEgsKey();
const db = useMigratedOrm();
const brokers: ServiceBroker[] = [];
const http = createHttpClient();

beforeAll(async () => {
  zatca = await startZatcaSimulator();
  onboarded = await onboard(http, {
    baseUrl: zatca.url, otp: zatca.otp, privateKeyPem,
    egs: { commonName: 'EGS-1', serialNumber: '1-Einv|2-1.0|3-0001', organization: 'Maximum Speed Tech Supply LTD', organizationUnit: 'Riyadh', vatNumber: '300075588700003', invoiceTypes: '1100', location: 'Riyadh', industry: 'Supply', templateName: 'ZATCA-Code-Signing' },
    seller: saudiInvoice().seller,
  });
});
afterAll(async () => {
  for (const b of brokers) await b.stop();
  await http.close();
  await zatca.close();
});

async function startAdapter(env: Record<string, string> = {}): Promise<ServiceBroker> {
  const vars = {
    EINV_CONNECTOR_SA_ZATCA_BASE_URL: zatca.url,
    EINV_CONNECTOR_SA_ZATCA_BINARY_SECURITY_TOKEN: onboarded.production.binarySecurityToken,
    EINV_CONNECTOR_SA_ZATCA_API_SECRET: onboarded.production.secret,
    EINV_CONNECTOR_SA_ZATCA_PRIVATE_KEY: privateKeyPem,
    EINV_CONNECTOR_SA_ZATCA_TIMEOUT_MS: '1500',
    ...env,
  };
  Object.assign(process.env, vars);
  const broker = new ServiceBroker({ logger: false, nodeID: `sa-zatca-${brokers.length}` });
  // A replica: the adapter and the state service on its own broker, over the one database.
  attachDatabase(broker, db.orm());
  broker.createService(ConnectorStateService);
  broker.createService(connectorService(await loadConnector('sa-zatca'), connectorSettings('sa-zatca')));
  await broker.start();
  for (const k of Object.keys(vars)) delete process.env[k];
  brokers.push(broker);
  return broker;
}

let seq = 0;
function messageOf(invoice: CanonicalInvoice, documentId = `doc_sa_${++seq}`): OutboundMessage {
  return {
    documentId, livemode: false, type: 'invoice', number: invoice.number, attempt: 1,
    sender: { peppolId: null, name: invoice.seller.name, organizationId: 'org_sa', companyId: 'comp_sa' },
    recipient: { country: 'SA' },
    payload: { content: Buffer.from('{}').toString('base64'), contentType: 'application/json', normalized: invoice as unknown as Record<string, unknown> },
  };
}
const send = (b: ServiceBroker, msg: OutboundMessage) => b.call('adapter.sa-zatca.send', msg, { timeout: 20_000 }) as Promise<SendResult>;
const status = (b: ServiceBroker, messageId: string) => b.call('adapter.sa-zatca.status', { messageId, livemode: false }) as Promise<StatusResult>;
const lastSubmission = () => zatca.submissions[zatca.submissions.length - 1]!;

describe('onboarding', () => {
  it('CSR → compliance CSID → the six compliance checks → production CSID', () => {
    expect(onboarded.checks).toEqual(['standard', 'simplified'].flatMap((kind) => ['invoice', 'credit-note', 'debit-note'].map((type) => ({ kind, type, status: 'PASS' }))));
    expect(zatca.submissions.filter((s) => s.endpoint === 'compliance')).toHaveLength(6);
    expect(onboarded.production.binarySecurityToken).not.toBe(onboarded.compliance.binarySecurityToken);
    expect(onboarded.production.certificatePem).toContain('BEGIN CERTIFICATE');
  });
});

describe('sa-zatca ↔ ZATCA simulator', () => {
  let adapter: ServiceBroker;
  beforeAll(async () => { adapter = await startAdapter(); });

  it('a standard invoice is cleared: ZATCA\'s UUID, its QR (verifying with ZATCA\'s key), the cleared invoice as the legal original', async () => {
    const r = await send(adapter, messageOf(saudiInvoice({ number: 'SA-B2B-1' })));
    expect(r).toMatchObject({ outcome: 'delivered', clearance: { status: 'cleared', details: { clearanceStatus: 'CLEARED', icv: '1', invoiceKind: 'standard' } } });
    const { clearance } = r as Extract<SendResult, { outcome: 'delivered' }>;
    const sub = lastSubmission();
    expect(sub).toMatchObject({ endpoint: 'clearance', status: 200, icv: 1, pih: FIRST_PIH, codes: [] });
    expect(clearance!.authorityId).toBe(sub.uuid);
    const qr = decodeZatcaQr(clearance!.qr!);
    expect(qr.get(6)!.toString()).toBe(sub.hash);
    expect(verify('sha256', Buffer.from(sub.hash, 'base64'), zatca.zatcaCertificate.publicKey, Buffer.from(qr.get(7)!.toString(), 'base64'))).toBe(true);
    const original = Buffer.from(clearance!.legalOriginal!.content, 'base64').toString('utf8');
    expect(original).toContain(clearance!.qr!);
    expect(original).toContain('<cbc:ID>SA-B2B-1</cbc:ID>');
    expect(JSON.parse(Buffer.from(clearance!.receipt!.content, 'base64').toString())).toMatchObject({ clearanceStatus: 'CLEARED' });
  });

  it('a simplified invoice is reported, chained to the previous invoice', async () => {
    const before = lastSubmission();
    const r = await send(adapter, messageOf(saudiB2cInvoice({ number: 'SA-B2C-1' })));
    expect(r).toMatchObject({ outcome: 'delivered', clearance: { status: 'reported', details: { reportingStatus: 'REPORTED', invoiceKind: 'simplified' } } });
    expect(lastSubmission()).toMatchObject({ endpoint: 'reporting', status: 200, icv: before.icv + 1, pih: before.hash });
    expect(decodeZatcaQr((r as Extract<SendResult, { outcome: 'delivered' }>).clearance!.qr!).has(9)).toBe(true);
  });

  it('ZATCA\'s rejection (BR-KSA-67) comes back with its code; the corrected invoice is cleared, chained after the rejected one', async () => {
    const bad = saudiInvoice({ number: 'SA-B2B-2', buyer: { ...saudiInvoice().buyer, address: { ...saudiInvoice().buyer.address, postalCode: '1234' } } });
    const r = await send(adapter, messageOf(bad));
    expect(r).toMatchObject({ outcome: 'rejected', errorCode: 'ZATCA:BR-KSA-67', errorMessage: expect.stringContaining('5 digits') });
    const rejected = lastSubmission();
    expect(rejected).toMatchObject({ status: 400, codes: ['BR-KSA-67'] });
    const fixed = await send(adapter, messageOf(saudiInvoice({ number: 'SA-B2B-2' })));
    expect(fixed).toMatchObject({ outcome: 'delivered', clearance: { status: 'cleared' } });
    expect(lastSubmission()).toMatchObject({ icv: rejected.icv + 1, pih: rejected.hash, status: 200 });
  });

  it('429 (Retry-After) and a timeout are transient; the re-sent document submits the same invoice', async () => {
    const msg = messageOf(saudiInvoice({ number: 'SA-B2B-3' }));
    zatca.failNext(1, 429, 30);
    expect(await send(adapter, msg)).toMatchObject({ outcome: 'transient', errorCode: 'ZATCA_HTTP_429', errorMessage: expect.stringContaining('retry after 30') });
    zatca.hangNext(1);
    expect(await send(adapter, { ...msg, attempt: 2 })).toMatchObject({ outcome: 'transient' });
    const previous = lastSubmission();
    const r = await send(adapter, { ...msg, attempt: 3 });
    expect(r).toMatchObject({ outcome: 'delivered', clearance: { status: 'cleared' } });
    const cleared = lastSubmission();
    expect(cleared.uuid).toBe((r as Extract<SendResult, { outcome: 'delivered' }>).clearance!.authorityId);
    expect(cleared.icv).toBe(previous.icv + 1);
    expect(zatca.submissions.filter((s) => s.uuid === cleared.uuid)).toHaveLength(1);
  });

  it('a simplified invoice ZATCA cannot take now is accepted and reported later through status', async () => {
    zatca.failNext(1, 503);
    const r = await send(adapter, messageOf(saudiB2cInvoice({ number: 'SA-B2C-2' })));
    expect(r).toMatchObject({ outcome: 'accepted', checkAfterMs: 300000 });
    const { messageId } = r as Extract<SendResult, { outcome: 'accepted' }>;
    zatca.failNext(1, 503);
    expect(await status(adapter, messageId)).toEqual({ outcome: 'pending', checkAfterMs: 300000 });
    expect(await status(adapter, messageId)).toMatchObject({ outcome: 'delivered', clearance: { status: 'reported', authorityId: messageId } });
    expect(await status(adapter, messageId)).toMatchObject({ outcome: 'rejected', errorCode: 'ZATCA_UNKNOWN_INVOICE' });
  });

  it('a restarted adapter continues the chain from the connector state', async () => {
    const before = lastSubmission();
    const restarted = await startAdapter();
    expect(await send(restarted, messageOf(saudiInvoice({ number: 'SA-B2B-4' })))).toMatchObject({ outcome: 'delivered' });
    expect(lastSubmission()).toMatchObject({ icv: before.icv + 1, pih: before.hash, status: 200, codes: [] });
  });

  it('two adapter instances issuing 20 invoices at once for one EGS unit: ICVs follow on without gap or duplicate, each PIH the previous hash', async () => {
    const before = lastSubmission();
    const replicas = [adapter, await startAdapter()];
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => send(replicas[i % 2]!, messageOf(saudiInvoice({ number: `SA-B2B-R${i}` })))));
    expect(results.map((r) => r.outcome)).toEqual(Array(20).fill('delivered'));
    const issued = zatca.submissions.filter((s) => s.icv > before.icv).sort((a, b) => a.icv - b.icv);
    expect(issued.map((s) => s.icv)).toEqual(Array.from({ length: 20 }, (_, i) => before.icv + 1 + i));
    let pih = before.hash;
    for (const s of issued) {
      expect(s).toMatchObject({ pih, status: 200 });
      expect(s.codes.filter((c) => c.startsWith('invalid-'))).toEqual([]);
      pih = s.hash;
    }
    expect(new Set(issued.map((s) => s.uuid)).size).toBe(20);
    // Both replicas issued, and the next invoice from either follows the last.
    expect(await send(replicas[1]!, messageOf(saudiInvoice({ number: 'SA-B2B-R20' })))).toMatchObject({ outcome: 'delivered' });
    expect(lastSubmission()).toMatchObject({ icv: before.icv + 21, pih, status: 200 });
  });

  it('a CSID secret ZATCA refuses is transient (never the document\'s fault) and never shows', async () => {
    const other = await startAdapter({ EINV_CONNECTOR_SA_ZATCA_API_SECRET: 'not-the-secret', EINV_CONNECTOR_SA_ZATCA_EGS_UNIT: 'egs-bad' });
    const r = await send(other, messageOf(saudiInvoice({ number: 'SA-B2B-5' })));
    expect(r).toMatchObject({ outcome: 'transient', errorCode: 'ZATCA_UNAUTHORIZED' });
    expect(JSON.stringify(r)).not.toContain('not-the-secret');
  });
});
