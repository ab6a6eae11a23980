/**
 * The fr-ppf connector as the platform runs it — loaded from adapters/fr-ppf by its id, configured from
 * EINV_CONNECTOR_FR_PPF_* variables, wrapped in its adapter.fr-ppf service with the real HTTP client —
 * filing CDAR messages built by lifecycleToCdar with the PPF simulator on 127.0.0.1: success, the PPF's
 * rejections 00025 and 00058, a PPF that is down or answers 503 (transient), a bad client secret
 * (transient: never the document's fault), and the same report id twice (filed once, also after a restart).
 */
import { ServiceBroker } from 'moleculer';
import { lifecycleToCdar, type CanonicalInvoice, type CdarInput } from '../../mappings/index.ts';
import type { ReportMessage, ReportResult } from '../../adapters/sdk/index.ts';
import { loadConnector } from '../../services/connectors/discovery.ts';
import { connectorService } from '../../services/connectors/connector-service.ts';
import { connectorSettings } from '../../services/shared/connector-settings.ts';
import { freePort } from '../support/servers.ts';
import { frenchInvoice } from '../support/french-invoice.ts';
import { frPpfEnv, startPpfSimulator, type PpfSimulator } from '../support/ppf-simulator.ts';

let ppf: PpfSimulator;
const brokers: ServiceBroker[] = [];

beforeAll(async () => { ppf = await startPpfSimulator(); });
afterAll(async () => {
  for (const b of brokers) await b.stop();
  await ppf.close();
});

/** Starts adapter.fr-ppf the way discovery does, with these connector variables. */
async function startAdapter(env: Record<string, string> = {}): Promise<ServiceBroker> {
  const vars = {
    ...frPpfEnv(ppf),
    EINV_CONNECTOR_FR_PPF_TIMEOUT_MS: '5000',
    ...env,
  };
  Object.assign(process.env, vars);
  const broker = new ServiceBroker({ logger: false, nodeID: `fr-ppf-${brokers.length}` });
  broker.createService(connectorService(await loadConnector('fr-ppf'), connectorSettings('fr-ppf')));
  await broker.start();
  for (const k of Object.keys(vars)) delete process.env[k];
  brokers.push(broker);
  return broker;
}

let seq = 0;
function reportOf(step: Omit<CdarInput['step'], 'at'>, invoice: CanonicalInvoice = frenchInvoice(), reportId = `rpt_fr_${++seq}`): ReportMessage {
  const xml = lifecycleToCdar({ messageId: `cdv_${reportId}`, issuedAt: '2026-11-25T10:00:00Z', invoice, step: { at: '2026-11-25T09:59:00Z', ...step } });
  return {
    reportId, livemode: false, kind: 'lifecycle', country: 'FR',
    reporter: { peppolId: '0009:30326504500018', name: 'Vendeur SAS', organizationId: 'org_fr', companyId: 'comp_fr' },
    documentIds: ['doc_fr_1'],
    payload: { content: Buffer.from(xml).toString('base64'), contentType: 'application/xml', filename: `${reportId}.xml` },
  };
}

const report = (b: ServiceBroker, msg: ReportMessage) => b.call('adapter.fr-ppf.report', msg) as Promise<ReportResult>;
const collected = { code: '212', emittedBy: 'supplier' as const, paymentDate: '2026-11-21', amounts: { MEN: '1310.00' } };
/** A public buyer (SIREN in the 1/2 ranges) and its electronic address. */
const publicBuyer = (address: string) => frenchInvoice({ buyer: { name: 'Commune de Test', legalRegistration: { value: '212000004', scheme: '0002' }, electronicAddress: { value: address, scheme: '0225' } } });

describe('fr-ppf ↔ PPF simulator', () => {
  let adapter: ServiceBroker;
  beforeAll(async () => { adapter = await startAdapter(); });

  it('files a collection (212): accepted, with the PPF flow id; the PPF got the CDAR with its token', async () => {
    const msg = reportOf(collected);
    const r = await report(adapter, msg);
    const flow = ppf.flows.get(msg.reportId)!;
    expect(r).toEqual({ outcome: 'accepted', reportId: msg.reportId, networkReportId: flow.flowId });
    expect(flow.acknowledgement).toEqual({ status: 'Ok', details: [] });
    expect(flow.facts).toMatchObject({ code: '212', invoice: { number: 'F202600042' }, amounts: { MEN: '1310.00' } });
    expect(flow.xml).toBe(Buffer.from(msg.payload.content, 'base64').toString('utf8'));
    expect(ppf.deposits.filter((d) => d.trackingId === msg.reportId)).toEqual([{ trackingId: msg.reportId, authorized: true }]);
  });

  it('files the other reported statuses (200, 210, 213) with one token', async () => {
    const before = ppf.tokensIssued;
    for (const step of [
      { code: '200', emittedBy: 'seller_platform' as const },
      { code: '210', emittedBy: 'buyer' as const, reasonCode: 'DOUBLON', reason: 'déjà reçue' },
      { code: '213', emittedBy: 'platform' as const, reasonCode: 'REJ_SEMAN' },
    ]) {
      expect(await report(adapter, reportOf(step))).toMatchObject({ outcome: 'accepted' });
    }
    expect(ppf.tokensIssued - before).toBeLessThanOrEqual(1);
  });

  it('00025: an invoice number outside the format is rejected with the PPF code', async () => {
    const r = await report(adapter, reportOf({ code: '200', emittedBy: 'seller_platform' }, frenchInvoice({ number: 'F 2026#42' })));
    expect(r).toMatchObject({ outcome: 'rejected', errorCode: 'PPF:00025' });
    expect((r as { errorMessage: string }).errorMessage).toContain('F 2026#42');
  });

  it('00058: a public buyer without an executing-service code is rejected; with one it is accepted', async () => {
    const r = await report(adapter, reportOf(collected, publicBuyer('212000004')));
    expect(r).toMatchObject({ outcome: 'rejected', errorCode: 'PPF:00058', errorMessage: expect.stringContaining('212000004') });
    expect(await report(adapter, reportOf({ code: '210', emittedBy: 'buyer', reasonCode: 'CMD_ERR' }, publicBuyer('212000004_21200000400013')))).toMatchObject({ outcome: 'rejected', errorCode: 'PPF:00058' });
    expect(await report(adapter, reportOf(collected, publicBuyer('212000004_21200000400013_SERV42')))).toMatchObject({ outcome: 'accepted' });
  });

  it('the same report id twice is filed once and answers the first outcome, even from a restarted adapter', async () => {
    const msg = reportOf(collected);
    const first = await report(adapter, msg);
    expect(first.outcome).toBe('accepted');
    expect(await report(adapter, msg)).toEqual(first);
    expect(ppf.deposits.filter((d) => d.trackingId === msg.reportId)).toHaveLength(1);
    // A new adapter instance remembers nothing: the PPF's unicity check on the trackingId answers the first flow.
    const restarted = await startAdapter();
    expect(await report(restarted, msg)).toEqual(first);
    expect(ppf.deposits.filter((d) => d.trackingId === msg.reportId)).toHaveLength(2);
    expect([...ppf.flows.values()].filter((f) => f.trackingId === msg.reportId)).toHaveLength(1);
    // Concurrent filings of one report join the same filing.
    const again = reportOf(collected);
    const [a, b] = await Promise.all([report(adapter, again), report(adapter, again)]);
    expect(a).toEqual(b);
    expect(ppf.deposits.filter((d) => d.trackingId === again.reportId)).toHaveLength(1);
  });

  it('a PPF answering 503 is transient, and the next filing of the same report goes through', async () => {
    const msg = reportOf(collected);
    ppf.failNext(1, 503);
    expect(await report(adapter, msg)).toMatchObject({ outcome: 'transient', errorCode: 'PPF_HTTP_503' });
    expect(await report(adapter, msg)).toMatchObject({ outcome: 'accepted' });
  });
});

describe('fr-ppf when the PPF cannot be reached or will not authenticate', () => {
  it('a PPF that is down (connection refused) is transient', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const adapter = await startAdapter({ EINV_CONNECTOR_FR_PPF_BASE_URL: closed, EINV_CONNECTOR_FR_PPF_TOKEN_URL: `${closed}/token` });
    expect(await report(adapter, reportOf(collected))).toMatchObject({ outcome: 'transient', errorCode: 'HTTP_NETWORK_ERROR' });
  });

  it('a client secret the gateway refuses is transient (PPF_AUTH_FAILED), and the secret is never in the answer', async () => {
    const adapter = await startAdapter({ EINV_CONNECTOR_FR_PPF_CLIENT_SECRET: 'not-the-secret' });
    const r = await report(adapter, reportOf(collected));
    expect(r).toMatchObject({ outcome: 'transient', errorCode: 'PPF_AUTH_FAILED' });
    expect(JSON.stringify(r)).not.toContain('not-the-secret');
  });

  it('a payload that is not a CDAR is rejected before any call', async () => {
    const adapter = await startAdapter();
    const deposits = ppf.deposits.length;
    const msg = { ...reportOf(collected), payload: { content: Buffer.from('<Invoice/>').toString('base64'), contentType: 'application/xml' } };
    expect(await report(adapter, msg)).toMatchObject({ outcome: 'rejected', errorCode: 'PPF_INVALID_CDAR' });
    expect(ppf.deposits.length).toBe(deposits);
  });
});
