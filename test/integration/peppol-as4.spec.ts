/**
 * Two Peppol access points on 127.0.0.1 (peppol-transport.md §10 level 3): A is this platform
 * with the peppol-as4 connector (POP000001), B is the same connector under a host of its own with
 * another key (POP000002) behind its own HTTP server. Discovery is real: a DNS server answers the
 * SML zone, the platform's SMP publishes A's companies, a second SMP publishes B's participants,
 * every SMP answer signed. The PKI is a generated G3-shaped test PKI whose OCSP responder and CRL
 * run on loopback, with revocation checked hard.
 *
 * A → B: an invoice and a credit note arrive at B and A's documents are delivered on B's verified
 * receipt; B → A: the platform stores what B sends for its company (document.received); a refusal
 * of B's SBDH check fails A's document with SBDH_ERROR, an unserved participant with EBMS:0004, an
 * endpoint that keeps failing with TRANSPORT_FAILURE after the re-sends, and one that fails once
 * then works yields exactly one delivery. A's inbound endpoint refuses each security negative of
 * the test plan with its ebMS code; 100 sends in parallel all arrive.
 */
import { randomInt, X509Certificate } from 'node:crypto';
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { largeJsonInvoice } from '../support/hostile-inputs.ts';
import type { SmlDns } from '../support/sml-dns.ts';
import type { PeppolTestPki, RevocationServer, TestPkiEntity } from '../support/peppol-pki.ts';
import { startLoopbackPeppol, startRemoteAccessPoint, startRemoteSmp, type LoopbackPeppol, type RemoteAccessPoint, type RemoteSmp } from '../support/peppol-network.ts';
import { memoryHost, type MemoryHost } from '../../adapters/sdk/contract-suite.ts';
import type { OutboundMessage } from '../../adapters/sdk/index.ts';
import type { EvidenceView } from '../../services/documents/documents.contract.ts';
import peppolAs4 from '../../adapters/peppol-as4/peppol-as4.connector.ts';
import { BILLING_DOCUMENT_TYPES, BILLING_PROCESS, DOCUMENT_SCHEME, PARTICIPANT_SCHEME } from '../../mappings/identifiers/peppol-network.ts';
import { buildSbd, readSbd, sbdhFor, type SbdhHeader } from '../../mappings/peppol/sbdh.ts';
import { EUSR_DOCUMENT_TYPE_ID, readEndUserStatisticsReport, readTransactionStatisticsReport, REPORTING_PROCESS_ID, TSR_DOCUMENT_TYPE_ID } from '../../mappings/peppol/reporting.ts';
import { gunzipPayload } from '../../adapters/peppol-kit/as4/payload.ts';
import { receiptXml } from '../../adapters/peppol-kit/as4/messages.ts';
import { call } from '../../services/shared/call.ts';
import { submitReports } from '../../services/reporting/reporting.contract.ts';
import { buildMls, MLS_DOCUMENT_TYPE_ID, MLS_PROCESS, MLS_PROCESS_ID } from '../../mappings/peppol/mls.ts';
import { packUserMessage, unpackUserMessage } from '../../adapters/peppol-kit/as4/exchange.ts';
import { as4EndpointOf } from '../../adapters/peppol-kit/recipients.ts';
import { errorXml } from '../../adapters/peppol-kit/as4/messages.ts';
import { parseMultipartRelated, buildMultipartRelated } from '../../adapters/peppol-kit/as4/mime.ts';
import { readSignal } from '../../adapters/peppol-kit/as4/messages.ts';
import { parseStrictXml } from '../../adapters/peppol-kit/dom.ts';
import { verifySignature } from '../../adapters/peppol-kit/as4/wss.ts';
import { eventually } from '../support/webhook-receiver.ts';
import { randomGermanVat } from '../support/vat.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_SMP_MODE = 'test';
process.env.EINV_DELIVERY_RETRY_MS = '100';
process.env.EINV_RATE_LIMITS = 'free=100000,pro=100000';
// Peppol Reporting is filed by its action here; the cron never fires during the test.
process.env.EINV_PEPPOL_REPORTING_CRON = '0 0 1 1 *';

let net: LoopbackPeppol;

let t: TestApp;
let sml: SmlDns;
let revocation: RevocationServer;
let pki: PeppolTestPki;
let b: RemoteAccessPoint & { flakyFailures: number; reports: Array<{ header: SbdhHeader; document: string; from: string }> };
let bSmp: RemoteSmp;


/** Access point B: the connector under a host of its own, plus stand-ins that misbehave on purpose and OpenPeppol's reporting endpoint. */
async function startAccessPointB(key: TestPkiEntity): Promise<typeof b> {
  const directory = [
    { organizationId: 'org_b', companyId: 'cmp_b1', peppolId: '0088:5790000000011', name: 'B One', country: 'DK', documentTypes: ['invoice', 'credit-note'] },
    { organizationId: 'org_b', companyId: 'cmp_b5', peppolId: '0088:5790000000059', name: 'B Five', country: 'DK', documentTypes: ['invoice', 'credit-note'] },
  ];
  const state = { flakyFailures: 1, reports: [] as Array<{ header: SbdhHeader; document: string; from: string }> };
  const ap = await startRemoteAccessPoint(net, key, directory, (path, body, req, res) => {
    if (path === '/down') { res.writeHead(500, { 'content-type': 'text/plain' }).end('down'); return true; }
    if (path === '/flaky' && state.flakyFailures > 0) { state.flakyFailures--; res.writeHead(503, { 'content-type': 'text/plain' }).end('busy'); return true; }
    if (path === '/sbdh-refused') {
      const id = /<eb:MessageId>([^<]+)</.exec(body.toString('latin1'))?.[1] ?? null;
      res.writeHead(200, { 'content-type': 'application/soap+xml' }).end(errorXml({ refToMessageId: id, code: 'EBMS:0003', description: 'SBDH COUNTRY_C1 does not match the sender', now: new Date() }));
      return true;
    }
    if (path === '/openpeppol') {
      // OpenPeppol's access point for Peppol Reporting, as far as the exchange goes: unpack with B's key, keep the SBD, sign a receipt.
      const message = unpackUserMessage(String(req.headers['content-type']), body, { certificate: key.certificate, privateKey: key.privateKey });
      const sbd = readSbd(gunzipPayload(message.compressedSbd, 10_000_000));
      state.reports.push({ header: sbd.header, document: sbd.document, from: message.header.fromParty });
      const receipt = receiptXml({ refToMessageId: message.header.messageId, references: message.references, key: { certificate: key.certificate, privateKey: key.privateKey }, now: new Date() });
      res.writeHead(200, { 'content-type': 'application/soap+xml' }).end(receipt.xml);
      return true;
    }
    return false;
  });
  return Object.assign(state, ap);
}

beforeAll(async () => {
  net = await startLoopbackPeppol('einv-as4-');
  ({ pki, sml, revocation } = net);
  t = await startTestApp();
  b = await startAccessPointB(pki.ap2);
  bSmp = await startRemoteSmp(net, pki.ap2, () => b.url);
  for (const [participant, path] of [['0242:000002', '/as4'], ['0088:5790000000011', '/as4'], ['0088:5790000000028', '/as4'], ['0088:5790000000035', '/sbdh-refused'], ['0088:5790000000042', '/down'], ['0088:5790000000059', '/flaky'], ['9925:be0848934496', '/openpeppol']] as const) {
    bSmp.publish(participant, path);
  }
}, 60_000);

afterAll(async () => {
  await t?.stop();
  await b?.close();
  await bSmp?.close();
  await net?.close();
  for (const k of ['EINV_SMP_MODE', 'EINV_DELIVERY_RETRY_MS', 'EINV_RATE_LIMITS', 'EINV_PEPPOL_REPORTING_CRON']) delete process.env[k];
});

/** GET /v1/documents/:id/evidence, and its signed bundle verified with the platform's published keys. */
async function evidenceOf(key: string, documentId: string): Promise<EvidenceView['exchange'] & object> {
  const view = await api<EvidenceView>(t.baseUrl, 'GET', `/v1/documents/${documentId}/evidence`, { key });
  expect(view.status).toBe(200);
  const bundle = await fetch(`${t.baseUrl}/v1/documents/${documentId}/evidence/bundle`, { headers: { authorization: `Bearer ${key}` } });
  expect(bundle.headers.get('content-type')).toMatch(/^application\/jose/);
  const jwks = createLocalJWKSet((await api<JSONWebKeySet>(t.baseUrl, 'GET', '/.well-known/jwks.json')).body);
  const { payload, protectedHeader } = await compactVerify(await bundle.text(), jwks);
  expect(protectedHeader.typ).toBe('evidence+jws');
  expect(JSON.parse(new TextDecoder().decode(payload))).toMatchObject({ statement: 'document-exchange-evidence', evidence: view.body });
  expect(view.body.exchange).not.toBeNull();
  return view.body.exchange!;
}

interface DocumentView { id: string; status: string; deliveryStatus: string; errorCode: string | null; errorMessage: string | null }

/** A company of A sending with a test key: this access point is on the (loopback) Peppol test network. */
const testSender = (label: string) => bootstrap(t.baseUrl, { label });

async function sendInvoice(sender: { apiKey: string; company: { vatNumber: string } }, to: string, number: string, type: 'invoice' | 'credit-note' = 'invoice') {
  const { dueDate: _due, ...invoice } = largeJsonInvoice(number, 2, sender.company.vatNumber);
  const document = type === 'credit-note' ? { ...invoice, precedingInvoiceReference: 'INV-1' } : { ...invoice, dueDate: _due };
  const res = await api<DocumentView>(t.baseUrl, 'POST', '/v1/documents/send', { key: sender.apiKey, body: { type, format: 'json', to, document } });
  if (res.status !== 201) throw new Error(`send ${number} → ${res.status} ${res.text}`);
  return res.body;
}

/** The document once delivery has decided (delivered or failed). */
async function settled(key: string, id: string, timeoutMs = 20_000): Promise<DocumentView> {
  return eventually(async () => {
    const doc = (await api<DocumentView>(t.baseUrl, 'GET', `/v1/documents/${id}`, { key })).body;
    return doc.deliveryStatus === 'delivered' || doc.status === 'rejected' ? doc : undefined;
  }, timeoutMs, `document ${id} to be delivered or rejected`, 100);
}

describe('A sends to B', () => {
  it('delivers an invoice and a credit note on B\'s verified receipt; B has each once, as sent', async () => {
    const sender = await testSender('as4-a1');
    const invoice = await sendInvoice(sender, '0088:5790000000011', 'AS4-INV-1');
    const credit = await sendInvoice(sender, '0088:5790000000011', 'AS4-CN-1', 'credit-note');
    for (const doc of [invoice, credit]) expect(await settled(sender.apiKey, doc.id)).toMatchObject({ deliveryStatus: 'delivered', errorCode: null });
    const received = b.host.inboxed.filter((d) => d.messageId === `${invoice.id}@einv` || d.messageId === `${credit.id}@einv`);
    expect(received.map((d) => [d.type, d.number]).sort()).toEqual([['credit-note', 'AS4-CN-1'], ['invoice', 'AS4-INV-1']]);
    expect(received[0]!.recipient).toMatchObject({ companyId: 'cmp_b1', peppolId: '0088:5790000000011' });
    expect(received.every((d) => d.payload.xml?.includes('AS4-'))).toBe(true);
    const events = await api<{ data: Array<{ type: string; data: { documentId: string } }> }>(t.baseUrl, 'GET', '/v1/events?limit=50', { key: sender.apiKey });
    expect(events.body.data.filter((e) => e.type === 'document.delivered').map((e) => e.data.documentId)).toEqual(expect.arrayContaining([invoice.id, credit.id]));

    // The evidence kept on both sides: A holds B's signed receipt (it verifies, signed by POP000002), B the exchange's facts.
    const evidence = await evidenceOf(sender.apiKey, invoice.id);
    expect(evidence).toMatchObject({
      messageId: `${invoice.id}@einv`, instanceIdentifier: invoice.id, counterpartAccessPoint: 'POP000002', endpointUrl: `${b.url}/as4`,
      payloadSha256: expect.stringMatching(/^[0-9a-f]{64}$/), receiptMessageId: expect.any(String), details: { documentTypeId: BILLING_DOCUMENT_TYPES.invoice, processId: BILLING_PROCESS.value },
    });
    expect(verifySignature(parseStrictXml(evidence.receipt!)).signer.subject).toContain('CN=POP000002');
    expect(received.find((d) => d.type === 'invoice')!.evidence).toMatchObject({ messageId: `${invoice.id}@einv`, instanceIdentifier: invoice.id, counterpartAccessPoint: 'POP000001', details: { countryC1: 'BE' } });
  }, 60_000);

  it('a participant B does not serve: EBMS:0004 (PEPPOL:NOT_SERVICED), a permanent failure', async () => {
    const sender = await testSender('as4-a2');
    const doc = await settled(sender.apiKey, (await sendInvoice(sender, '0088:5790000000028', 'AS4-NS-1')).id);
    expect(doc).toMatchObject({ status: 'rejected', errorCode: 'EBMS:0004' });
    expect(doc.errorMessage).toContain('PEPPOL:NOT_SERVICED');
    // B recorded the refusal with its reason, the message and the sending access point.
    expect(b.host.logged.find((l) => l.includes('inbound message refused') && l.includes(`${doc.id}@einv`))).toMatch(/"code":"EBMS:0004".*"sender":"POP000001"/);
  }, 60_000);

  it('a header the receiving access point refuses: SBDH_ERROR', async () => {
    const sender = await testSender('as4-a3');
    const doc = await settled(sender.apiKey, (await sendInvoice(sender, '0088:5790000000035', 'AS4-SB-1')).id);
    expect(doc).toMatchObject({ status: 'rejected', errorCode: 'SBDH_ERROR' });
  }, 60_000);

  it('an endpoint that keeps failing: TRANSPORT_FAILURE after the re-sends, each with the same MessageId', async () => {
    const sender = await testSender('as4-a4');
    const before = b.hits.get('/down') ?? 0;
    const doc = await settled(sender.apiKey, (await sendInvoice(sender, '0088:5790000000042', 'AS4-DOWN-1')).id, 40_000);
    expect(doc).toMatchObject({ status: 'rejected', errorCode: 'TRANSPORT_FAILURE' });
    expect((b.hits.get('/down') ?? 0) - before).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('an endpoint that answers 503 once, then works: one delivery, B stores it once', async () => {
    const sender = await testSender('as4-a5');
    const sent = await sendInvoice(sender, '0088:5790000000059', 'AS4-FLAKY-1');
    expect(await settled(sender.apiKey, sent.id)).toMatchObject({ deliveryStatus: 'delivered', errorCode: null });
    expect(b.hits.get('/flaky')).toBe(2);
    expect(b.host.acceptCalls.filter((d) => d.messageId === `${sent.id}@einv`)).toHaveLength(1);
  }, 60_000);
});

describe('MLS from the receiving access point', () => {
  /** B's Message Level Status about a document A sent, as B would send it: an SBD to A's SPID over AS4. */
  function mlsFromB(responseCode: 'AP' | 'RE', documentId: string, to = '0242:000001') {
    const mls = buildMls({
      responseCode, id: `mls-${randomInt(1e9)}`, senderSpid: '0242:000002', receiverSpid: to, referencedMessage: { instanceIdentifier: documentId },
      ...(responseCode === 'RE' ? { lines: [{ reasonCode: 'BV', description: 'Buyer reference unknown to the buyer', location: '/Invoice/cbc:BuyerReference' }] } : {}),
    });
    const sbd = buildSbd(sbdhFor({ documentXml: mls, sender: '0242:000002', receiver: to, documentTypeId: MLS_DOCUMENT_TYPE_ID, processId: MLS_PROCESS_ID, countryC1: 'DK' }), mls);
    return packUserMessage({
      header: {
        messageId: `mls-${randomInt(1e9)}@test`, timestamp: new Date().toISOString(), conversationId: documentId, fromParty: 'POP000002', toParty: 'POP000001',
        process: { scheme: MLS_PROCESS.scheme, value: MLS_PROCESS_ID }, documentType: { scheme: DOCUMENT_SCHEME, value: MLS_DOCUMENT_TYPE_ID },
        originalSender: { scheme: PARTICIPANT_SCHEME, value: '0242:000002' }, finalRecipient: { scheme: PARTICIPANT_SCHEME, value: to },
      },
      sbd: Buffer.from(sbd), key: { certificate: pki.ap2.certificate, privateKey: pki.ap2.privateKey }, receiverCertificate: pki.ap1.certificate,
    });
  }
  const postToA = async (m: { contentType: string; body: Buffer }) => {
    const res = await fetch(`${t.baseUrl}/connectors/peppol-as4/as4`, { method: 'POST', headers: { 'content-type': m.contentType }, body: new Uint8Array(m.body) });
    return readSignal(parseStrictXml(await res.text()));
  };

  it('an RE fails the delivered document with AP_REJECTED and the reasons (document.failed); an AP leaves it delivered', async () => {
    const sender = await testSender('as4-mls');
    const rejected = await sendInvoice(sender, '0088:5790000000011', 'AS4-MLS-RE');
    const accepted = await sendInvoice(sender, '0088:5790000000011', 'AS4-MLS-AP');
    for (const d of [rejected, accepted]) expect(await settled(sender.apiKey, d.id)).toMatchObject({ deliveryStatus: 'delivered' });

    expect((await postToA(mlsFromB('RE', rejected.id))).kind).toBe('receipt');
    expect((await postToA(mlsFromB('AP', accepted.id))).kind).toBe('receipt');
    const after = (await api<DocumentView>(t.baseUrl, 'GET', `/v1/documents/${rejected.id}`, { key: sender.apiKey })).body;
    expect(after).toMatchObject({ status: 'rejected', deliveryStatus: 'failed', errorCode: 'AP_REJECTED' });
    expect(after.errorMessage).toContain('BV Buyer reference unknown to the buyer at /Invoice/cbc:BuyerReference');
    expect((await api<DocumentView>(t.baseUrl, 'GET', `/v1/documents/${accepted.id}`, { key: sender.apiKey })).body).toMatchObject({ deliveryStatus: 'delivered', errorCode: null });
    const events = await api<{ data: Array<{ type: string; data: { documentId: string; errorCode?: string } }> }>(t.baseUrl, 'GET', '/v1/events?limit=50', { key: sender.apiKey });
    expect(events.body.data.find((e) => e.type === 'document.failed' && e.data.documentId === rejected.id)?.data.errorCode).toBe('AP_REJECTED');
    expect((await evidenceOf(sender.apiKey, rejected.id)).details).toMatchObject({ 'status.responseCode': 'RE', 'status.status': 'rejected', 'status.from': 'POP000002' });
  }, 60_000);

  it("A's SMP publishes A's SPID (0242 + its seat digits) for MLS, so B finds where to send them", async () => {
    sml.register('0242:000001', `${t.baseUrl}/smp`);
    const found = await as4EndpointOf(b.host, '0242:000001', MLS_DOCUMENT_TYPE_ID);
    expect(found.endpoint?.url).toBe(`${t.baseUrl}/connectors/peppol-as4/as4`);
    expect(new X509Certificate(Buffer.from(found.endpoint!.certificate, 'base64')).subject).toContain('CN=POP000001');
    expect(found.documentTypeIds).toEqual([expect.stringContaining(MLS_DOCUMENT_TYPE_ID)]);
    expect((await as4EndpointOf(b.host, '0242:000001', BILLING_DOCUMENT_TYPES.invoice)).endpoint).toBeUndefined();
  });

  it('an MLS for another SPID is not ours: EBMS:0004 PEPPOL:NOT_SERVICED', async () => {
    const signal = await postToA(mlsFromB('AP', 'doc_unknown', '0242:000009'));
    expect(signal).toMatchObject({ kind: 'error', errors: [{ code: 'EBMS:0004', detail: 'PEPPOL:NOT_SERVICED' }] });
  });
});

describe('B sends to A', () => {
  let company: { id: string; peppolId: string };
  let owner: string;

  beforeAll(async () => {
    const org = await bootstrap(t.baseUrl, { label: 'as4-y', keyType: 'platform' });
    owner = org.apiKey;
    company = (await api<{ id: string; peppolId: string }>(t.baseUrl, 'POST', '/v1/companies', { key: owner, body: { vatNumber: randomGermanVat() } })).body;
    expect((await api(t.baseUrl, 'POST', `/v1/companies/${company.id}/register`, { key: owner })).status).toBe(200);
    sml.register(company.peppolId, `${t.baseUrl}/smp`);
  });

  async function ublInvoice(number: string): Promise<string> {
    const seller = await bootstrap(t.baseUrl, { label: `as4-render-${number}` });
    const rendered = await api<{ renderedXml: string }>(t.baseUrl, 'POST', '/v1/documents/validate', { key: seller.apiKey, body: { format: 'json', type: 'invoice', document: largeJsonInvoice(number, 1, seller.company.vatNumber) } });
    return rendered.body.renderedXml;
  }

  function messageFromB(xml: string, documentId: string): OutboundMessage {
    return {
      documentId, livemode: false, type: 'invoice', number: documentId,
      sender: { peppolId: '0088:5790000000011', name: 'B One', organizationId: 'org_b', companyId: 'cmp_b1' },
      recipient: { peppolId: company.peppolId },
      payload: { content: Buffer.from(xml).toString('base64'), contentType: 'application/xml', xml, syntax: 'ubl-2.1' },
      attempt: 1,
    };
  }

  it('the platform stores it for its company (document.received) and B gets a verified receipt; the same message again is one document', async () => {
    const xml = await ublInvoice('B2A-1');
    const message = messageFromB(xml, `b2a_${randomInt(1e9)}`);
    expect(await peppolAs4.send!(message, b.host)).toMatchObject({ outcome: 'delivered', messageId: `${message.documentId}@einv`, evidence: { counterpartAccessPoint: 'POP000001' } });
    expect(await peppolAs4.send!({ ...message, attempt: 2 }, b.host)).toMatchObject({ outcome: 'delivered', messageId: `${message.documentId}@einv` });
    const inbox = await api<{ data: Array<{ id: string; number: string; direction: string; senderPeppolId?: string }> }>(t.baseUrl, 'GET', '/v1/documents?direction=incoming', { key: owner });
    expect(inbox.body.data.filter((d) => d.number === 'B2A-1')).toHaveLength(1);
    const events = await api<{ data: Array<{ type: string }> }>(t.baseUrl, 'GET', '/v1/events?limit=20', { key: owner });
    expect(events.body.data.map((e) => e.type)).toContain('document.received');
    const stored = inbox.body.data.find((d) => d.number === 'B2A-1')!;
    // Received, then validated: the packs its CustomizationID and the Peppol network select, the verdict kept with it.
    const view = await api<{ validation: { valid: boolean; packs: string[]; errors: number } }>(t.baseUrl, 'GET', `/v1/documents/${stored.id}`, { key: owner });
    expect(view.body.validation).toMatchObject({ valid: true, errors: 0, packs: expect.arrayContaining([expect.stringMatching(/^en16931@/), expect.stringMatching(/^peppol-bis@3\.0\.20$/)]) });
    const evidence = await evidenceOf(owner, stored.id);
    expect(evidence).toMatchObject({ messageId: `${message.documentId}@einv`, instanceIdentifier: message.documentId, counterpartAccessPoint: 'POP000002', details: { countryC1: 'BE' } });
    expect(new X509Certificate(Buffer.from(evidence.counterpartCertificate!, 'base64')).subject).toContain('CN=POP000002');
    expect(verifySignature(parseStrictXml(evidence.receipt!)).signer.subject).toContain('CN=POP000001');
  }, 60_000);

  it('an invoice breaking the rules is stored all the same, with the verdict: invalid, the rules it breaks — and an MLS RE goes back to the sender', async () => {
    const xml = (await ublInvoice('B2A-BAD')).replace(/<cbc:BuyerReference>[^<]*<\/cbc:BuyerReference>/, '');
    const message = messageFromB(xml, `b2a_${randomInt(1e9)}`);
    expect(await peppolAs4.send!(message, b.host)).toMatchObject({ outcome: 'delivered' });
    const inbox = await api<{ data: Array<{ number: string; validation: { valid: boolean; errors: number; findings: Array<{ rule: string }> } }> }>(t.baseUrl, 'GET', '/v1/documents?direction=incoming', { key: owner });
    const stored = inbox.body.data.find((d) => d.number === 'B2A-BAD')!;
    expect(stored.validation).toMatchObject({ valid: false, errors: expect.any(Number) });
    expect(stored.validation.findings.map((f) => f.rule)).toContain('PEPPOL-EN16931-R003');
    // A, having found it invalid, sends B an MLS RE (to B's SPID, found through the SML and B's SMP); B moves its copy.
    const update = await eventually(async () => b.host.statusUpdates.find((u) => u.documentId === message.documentId), 15_000, 'the MLS at B');
    expect(update).toMatchObject({ status: 'rejected', evidence: { responseCode: 'RE', from: 'POP000001', senderSpid: '0242:000001' } });
    expect(update.reasons.find((r) => r.description?.startsWith('PEPPOL-EN16931-R003'))).toMatchObject({ code: 'BV' });
    // A valid invoice under the default MLS_TYPE (failure only) gets none.
    expect(b.host.statusUpdates.filter((u) => u.documentId !== message.documentId)).toEqual([]);
  }, 60_000);

  describe("A's inbound endpoint refuses (test plan §10 level 3)", () => {
    const as4Url = () => `${t.baseUrl}/connectors/peppol-as4/as4`;
    const INVOICE = BILLING_DOCUMENT_TYPES.invoice;
    let xml: string;
    beforeAll(async () => { xml = await ublInvoice('B2A-NEG'); });

    function sbdOf(overrides: { receiver?: string; dropCountry?: boolean } = {}): Buffer {
      const sbd = buildSbd(sbdhFor({ documentXml: xml, sender: '0088:5790000000011', receiver: overrides.receiver ?? company.peppolId, documentTypeId: INVOICE, processId: BILLING_PROCESS.value, countryC1: 'DK' }), xml);
      return Buffer.from(overrides.dropCountry ? sbd.replace(/<sh:Scope><sh:Type>COUNTRY_C1<\/sh:Type>.*?<\/sh:Scope>/, '') : sbd);
    }

    function messageOf(options: { signer?: TestPkiEntity; fromParty?: string; encryptFor?: TestPkiEntity; sbd?: Buffer; compressionType?: string | null } = {}) {
      const signer = options.signer ?? pki.ap2;
      return packUserMessage({
        header: {
          messageId: `neg-${randomInt(1e9)}@test`, timestamp: new Date().toISOString(), conversationId: 'neg',
          fromParty: options.fromParty ?? signer.name.replace(/^.*?(P[A-Z]{2}\d{6}).*$/, '$1'), toParty: 'POP000001',
          process: { scheme: BILLING_PROCESS.scheme, value: BILLING_PROCESS.value }, documentType: { scheme: DOCUMENT_SCHEME, value: INVOICE },
          originalSender: { scheme: PARTICIPANT_SCHEME, value: '0088:5790000000011' }, finalRecipient: { scheme: PARTICIPANT_SCHEME, value: company.peppolId },
          ...(options.compressionType !== undefined ? { part: { compressionType: options.compressionType } } : {}),
        },
        sbd: options.sbd ?? sbdOf(), key: { certificate: signer.certificate, privateKey: signer.privateKey }, receiverCertificate: (options.encryptFor ?? pki.ap1).certificate,
      });
    }

    const rewrite = (m: { contentType: string; body: Buffer }, edit: (soap: string) => string, editAttachment?: (b: Buffer) => Buffer) => {
      const parts = parseMultipartRelated(m.contentType, m.body);
      const att = parts.attachments[0]!;
      return buildMultipartRelated(edit(parts.root.body.toString('utf8')), [{ contentId: att.contentId!, contentType: 'application/octet-stream', body: editAttachment ? editAttachment(att.body) : att.body }]);
    };

    async function post(m: { contentType: string; body: Buffer }): Promise<{ status: number; code: string | null; detail: string; description: string }> {
      const res = await fetch(as4Url(), { method: 'POST', headers: { 'content-type': m.contentType }, body: new Uint8Array(m.body) });
      const text = await res.text();
      const signal = readSignal(parseStrictXml(text));
      const error = signal.kind === 'error' ? signal.errors[0]! : undefined;
      return { status: res.status, code: error?.code ?? null, detail: error?.detail ?? '', description: error?.description ?? '' };
    }

    it('accepts the well-made message these negatives start from', async () => {
      expect(await post(messageOf())).toEqual({ status: 200, code: null, detail: '', description: '' });
    });

    it.each([
      { what: 'signed with a revoked certificate', build: () => messageOf({ signer: pki.revokedAp }), code: 'EBMS:0101' },
      { what: 'signed with an expired certificate', build: () => messageOf({ signer: pki.expiredAp }), code: 'EBMS:0101' },
      { what: 'signed under a foreign CA', build: () => messageOf({ signer: pki.foreignAp }), code: 'EBMS:0101' },
      { what: 'signed under the production root (test and production never mix)', build: () => messageOf({ signer: pki.productionAp }), code: 'EBMS:0101' },
      { what: 'eb:From naming another access point than the signer', build: () => messageOf({ fromParty: 'POP000009' }), code: 'EBMS:0101' },
      { what: 'unsigned', build: () => rewrite(messageOf(), (s) => s.replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, '')), code: 'EBMS:0101' },
      { what: 'unencrypted', build: () => rewrite(messageOf(), (s) => s.replace(/<xenc:EncryptedData[\s\S]*<\/xenc:EncryptedData>/, '')), code: 'EBMS:0102' },
      { what: 'a SubjectKeyIdentifier instead of the BST', build: () => rewrite(messageOf(), (s) => s.replace(/(<ds:Signature[\s\S]*?<wsse:SecurityTokenReference>)<wsse:Reference [^>]*\/>/, '$1<wsse:KeyIdentifier ValueType="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509SubjectKeyIdentifier">AAAA</wsse:KeyIdentifier>')), code: 'EBMS:0103' },
      { what: 'a wrong algorithm URI', build: () => rewrite(messageOf(), (s) => s.replace('xmldsig-more#rsa-sha256', 'xmldsig#rsa-sha1')), code: 'EBMS:0103' },
      { what: 'the header changed after signing', build: () => rewrite(messageOf(), (s) => s.replace('>neg<', '>changed<')), code: 'EBMS:0101' },
      { what: 'the attachment changed after signing', build: () => rewrite(messageOf(), (s) => s, (a) => { const c = Buffer.from(a); c[30] = c[30]! ^ 1; return c; }), code: 'EBMS:0102' },
      { what: 'encrypted to another certificate', build: () => messageOf({ encryptFor: pki.ap2 }), code: 'EBMS:0102' },
      { what: 'CompressionType missing', build: () => messageOf({ compressionType: null }), code: 'EBMS:0303' },
      { what: 'CompressionType wrong', build: () => messageOf({ compressionType: 'application/rar' }), code: 'EBMS:0303' },
      { what: 'an SBDH Receiver that is not the finalRecipient', build: () => messageOf({ sbd: sbdOf({ receiver: '0088:5790000000011' }) }), code: 'EBMS:0003' },
      { what: 'an SBDH without COUNTRY_C1', build: () => messageOf({ sbd: sbdOf({ dropCountry: true }) }), code: 'EBMS:0004' },
    ])('$what → $code', async ({ build, code }) => {
      expect(await post(build())).toMatchObject({ status: 200, code });
    });

    it('more messages at once from one access point than senderConcurrency: the extra one waits (503, Retry-After)', async () => {
      const directory = [{ organizationId: 'org_y', companyId: company.id, peppolId: company.peppolId, name: 'Y', country: 'DE', documentTypes: ['invoice'] }];
      const host = memoryHost(directory, { config: { ...net.connectorOptions, requireHttps: false, certificateFile: net.files.aCertificate, senderConcurrency: 1 }, secrets: { privateKey: pki.ap1.privateKeyPem } });
      (host as { http: MemoryHost['http'] }).http = b.http;
      const request = (m: { contentType: string; body: Buffer }) => ({ method: 'POST', path: '/as4', headers: { 'content-type': m.contentType }, query: {}, body: m.body });
      const [first, second] = await Promise.all([peppolAs4.routes[0]!.handle(request(messageOf()), host), peppolAs4.routes[0]!.handle(request(messageOf()), host)]);
      expect(first.status).toBe(200);
      expect(String(first.body)).toContain('NonRepudiationInformation');
      expect(second).toMatchObject({ status: 503, headers: { 'retry-after': '5' } });
      expect(host.inboxed).toHaveLength(1);
    });

    it('a participant this platform does not serve → EBMS:0004 with PEPPOL:NOT_SERVICED', async () => {
      const m = packUserMessage({
        header: {
          messageId: `neg-ns-${randomInt(1e9)}@test`, timestamp: new Date().toISOString(), conversationId: 'neg', fromParty: 'POP000002', toParty: 'POP000001',
          process: { scheme: BILLING_PROCESS.scheme, value: BILLING_PROCESS.value }, documentType: { scheme: DOCUMENT_SCHEME, value: INVOICE },
          originalSender: { scheme: PARTICIPANT_SCHEME, value: '0088:5790000000011' }, finalRecipient: { scheme: PARTICIPANT_SCHEME, value: '0088:5799999999999' },
        },
        sbd: sbdOf({ receiver: '0088:5799999999999' }), key: { certificate: pki.ap2.certificate, privateKey: pki.ap2.privateKey }, receiverCertificate: pki.ap1.certificate,
      });
      expect(await post(m)).toMatchObject({ code: 'EBMS:0004', detail: 'PEPPOL:NOT_SERVICED' });
    });
  });
});

describe('Invoice Response (Peppol BIS Invoice Response 3)', () => {
  interface LifecycleView { status: string; currentCode: string | null; history: Array<{ code: string; emittedBy: string; reasonCode?: string; via?: string; response?: { via: string; status: string; messageId?: string } }> }
  let buyer: { owner: string; company: { id: string; peppolId: string } };

  beforeAll(async () => {
    const org = await bootstrap(t.baseUrl, { label: 'as4-ir-buyer', keyType: 'platform' });
    const company = (await api<{ id: string; peppolId: string }>(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber: randomGermanVat() } })).body;
    expect((await api(t.baseUrl, 'POST', `/v1/companies/${company.id}/register`, { key: org.apiKey })).status).toBe(200);
    sml.register(company.peppolId, `${t.baseUrl}/smp`);
    buyer = { owner: org.apiKey, company };
  });

  /** B (seller 0088:5790000000011) sends A's company an invoice over AS4; answers A's stored copy. */
  async function invoiceFromB(number: string): Promise<string> {
    const seller = await bootstrap(t.baseUrl, { label: `as4-ir-render-${number}` });
    const xml = (await api<{ renderedXml: string }>(t.baseUrl, 'POST', '/v1/documents/validate', { key: seller.apiKey, body: { format: 'json', type: 'invoice', document: largeJsonInvoice(number, 1, seller.company.vatNumber) } })).body.renderedXml;
    const message: OutboundMessage = {
      documentId: `b2a_${randomInt(1e9)}`, livemode: false, type: 'invoice', number,
      sender: { peppolId: '0088:5790000000011', name: 'B One', organizationId: 'org_b', companyId: 'cmp_b1' }, recipient: { peppolId: buyer.company.peppolId },
      payload: { content: Buffer.from(xml).toString('base64'), contentType: 'application/xml', xml, syntax: 'ubl-2.1' }, attempt: 1,
    };
    expect(await peppolAs4.send!(message, b.host)).toMatchObject({ outcome: 'delivered' });
    const inbox = await api<{ data: Array<{ id: string; number: string }> }>(t.baseUrl, 'GET', '/v1/documents?direction=incoming&limit=100', { key: buyer.owner });
    return inbox.body.data.find((d) => d.number === number)!.id;
  }

  it("A's buyer accepts and rejects: each answer reaches B's seller as an Invoice Response (AP, RE with its reason), and A's history says it was sent", async () => {
    const accepted = await invoiceFromB('IR-B2A-AP');
    const rejected = await invoiceFromB('IR-B2A-RE');
    expect((await api(t.baseUrl, 'POST', `/v1/documents/${accepted}/lifecycle`, { key: buyer.owner, body: { status: 'approved' } })).status).toBe(200);
    expect((await api(t.baseUrl, 'POST', `/v1/documents/${rejected}/lifecycle`, { key: buyer.owner, body: { status: 'rejected', reasonCode: 'REF', reason: 'Purchase order reference unknown' } })).status).toBe(200);

    const answerFor = (number: string) => eventually(async () => b.host.statusUpdates.find((u) => u.invoice?.number === number), 20_000, `the Invoice Response for ${number} at B`);
    expect(await answerFor('IR-B2A-AP')).toMatchObject({
      status: 'answered', invoice: { sellerPeppolId: '0088:5790000000011', issueDate: '2026-03-01' }, lifecycle: { status: 'approved' },
      evidence: { responseCode: 'AP', from: 'POP000001', buyer: buyer.company.peppolId },
    });
    expect(await answerFor('IR-B2A-RE')).toMatchObject({
      lifecycle: { status: 'rejected', reasonCode: 'REF', reason: 'Purchase order reference unknown' }, reasons: [{ code: 'REF', description: 'Purchase order reference unknown' }], evidence: { responseCode: 'RE' },
    });
    // A's history records the response on the step: sent over peppol-as4, with the network's message id.
    const history = await eventually(async () => {
      const view = (await api<LifecycleView>(t.baseUrl, 'GET', `/v1/documents/${rejected}/lifecycle`, { key: buyer.owner })).body;
      return view.history.at(-1)?.response ? view : undefined;
    }, 10_000, 'the response recorded on the step');
    expect(history.history.at(-1)).toMatchObject({ code: '210', response: { via: 'peppol-as4', status: 'sent', messageId: expect.stringMatching(/^ir-[0-9a-f]{32}@einv$/) } });
    // Received, not acknowledged: acknowledgeReceipt is off, so no AB went to B on arrival.
    expect(b.host.statusUpdates.filter((u) => u.invoice && u.lifecycle?.status === 'received')).toEqual([]);
  }, 60_000);

  it("B's buyer answers A's invoice: A's seller copy moves to approved, then paid (lifecycle.updated), and an answer out of order is kept as evidence only", async () => {
    const sender = await testSender('as4-ir-seller');
    expect((await api(t.baseUrl, 'POST', `/v1/companies/${sender.company.id}/register`, { key: sender.apiKey })).status).toBe(200);
    sml.register(sender.company.peppolId, `${t.baseUrl}/smp`);
    const sent = await sendInvoice(sender, '0088:5790000000011', 'AS4-IR-1');
    expect(await settled(sender.apiKey, sent.id)).toMatchObject({ deliveryStatus: 'delivered' });
    const respond = (code: string, status: 'approved' | 'paid' | 'under_review', extra: Record<string, string> = {}) => peppolAs4.respond!({
      responseId: `b-${sent.id}-${code}`, livemode: false, code, status, at: new Date().toISOString(), ...extra,
      document: {
        documentId: 'doc_at_b', type: 'invoice', number: 'AS4-IR-1', issueDate: '2026-03-01', evidence: null,
        sender: { peppolId: sender.company.peppolId, name: 'Acme SPRL' }, recipient: { peppolId: '0088:5790000000011', name: 'B One', organizationId: 'org_b', companyId: 'cmp_b1' },
      },
    }, b.host);
    expect(await respond('205', 'approved')).toMatchObject({ outcome: 'sent' });
    const lifecycle = async () => (await api<LifecycleView>(t.baseUrl, 'GET', `/v1/documents/${sent.id}/lifecycle`, { key: sender.apiKey })).body;
    expect(await lifecycle()).toMatchObject({ status: 'approved', currentCode: '205' });
    expect((await lifecycle()).history.at(-1)).toMatchObject({ code: '205', emittedBy: 'buyer', via: 'peppol-as4' });
    expect(await respond('211', 'paid', { paymentDate: '2026-11-20' })).toMatchObject({ outcome: 'sent' });
    expect(await lifecycle()).toMatchObject({ status: 'paid', currentCode: '211' });
    // "In process" after payment does not follow the lifecycle: the copy stays paid.
    expect(await respond('204', 'under_review')).toMatchObject({ outcome: 'sent' });
    expect(await lifecycle()).toMatchObject({ status: 'paid', currentCode: '211' });
    const events = await api<{ data: Array<{ type: string; data: { documentId: string; currentStatus: string } }> }>(t.baseUrl, 'GET', '/v1/events?limit=50', { key: sender.apiKey });
    expect(events.body.data.filter((e) => e.type === 'lifecycle.updated' && e.data.documentId === sent.id).map((e) => e.data.currentStatus).sort()).toEqual(['205', '211']);
    expect((await evidenceOf(sender.apiKey, sent.id)).details).toMatchObject({ 'response.responseCode': 'IP', 'response.from': 'POP000002' });
  }, 60_000);

  it('a seller the network does not know (or whose SMP lists no Invoice Responses): the answer is unsupported, nothing is sent', async () => {
    const res = await peppolAs4.respond!({
      responseId: 'no-ir', livemode: false, code: '205', status: 'approved', at: new Date().toISOString(),
      document: { documentId: 'd', type: 'invoice', number: 'X-1', issueDate: null, evidence: null, sender: { peppolId: '0088:5790000000097', name: 'Nobody' }, recipient: { peppolId: '0088:5790000000011', name: 'B One', organizationId: 'org_b', companyId: 'cmp_b1' } },
    }, b.host);
    expect(res).toMatchObject({ outcome: 'unsupported', reason: expect.stringContaining('0088:5790000000097') });
  });
});

describe('Peppol Reporting over the network', () => {
  afterAll(() => { for (const k of ['EINV_PEPPOL_SEAT_ID', 'EINV_PEPPOL_REPORTING_MODE', 'EINV_PEPPOL_REPORTING_URL']) delete process.env[k]; });

  it("EINV_PEPPOL_REPORTING_URL=peppol: files the month's TSR and EUSR with OpenPeppol's participant over AS4, from A's SPID, once", async () => {
    Object.assign(process.env, { EINV_PEPPOL_SEAT_ID: 'POP000001', EINV_PEPPOL_REPORTING_MODE: 'test', EINV_PEPPOL_REPORTING_URL: 'peppol:' });
    const month = new Date().toISOString().slice(0, 7);
    const first = await call(t.app.broker, submitReports, { month });
    expect(first.results.filter((r) => r.month === month)).toEqual([{ month, report: 'tsr', outcome: 'submitted' }, { month, report: 'eusr', outcome: 'submitted' }]);
    expect(b.reports.map((r) => r.header.documentType.value)).toEqual([TSR_DOCUMENT_TYPE_ID, EUSR_DOCUMENT_TYPE_ID]);
    // COUNTRY_C1 of a report is A itself: no countryC1 option here, so the C= of A's certificate.
    expect(pki.ap1.certificate.subject).toMatch(/^C=NO$/m);
    for (const r of b.reports) {
      expect(r).toMatchObject({ from: 'POP000001', header: { sender: { value: '0242:000001' }, receiver: { value: '9925:be0848934496' }, process: { value: REPORTING_PROCESS_ID }, countryC1: 'NO' } });
    }
    expect(readTransactionStatisticsReport(b.reports[0]!.document)).toMatchObject({ reporterId: 'POP000001' });
    expect(readEndUserStatisticsReport(b.reports[1]!.document)).toMatchObject({ reporterId: 'POP000001' });
    // The same month again is already filed: nothing new travels.
    const again = await call(t.app.broker, submitReports, { month });
    expect(again.results.filter((r) => r.month === month).map((r) => r.outcome)).toEqual(['already_submitted', 'already_submitted']);
    expect(b.reports).toHaveLength(2);
  }, 60_000);
});

it('100 sends in parallel all arrive, with bounded memory', async () => {
  const sender = await testSender('as4-many');
  const heapBefore = process.memoryUsage().heapUsed;
  const docs = await Promise.all(Array.from({ length: 100 }, (_, i) => sendInvoice(sender, '0088:5790000000011', `AS4-MANY-${i}`)));
  const settledDocs = await Promise.all(docs.map((d) => settled(sender.apiKey, d.id, 90_000)));
  expect(settledDocs.every((d) => d.deliveryStatus === 'delivered')).toBe(true);
  const ids = new Set(docs.map((d) => `${d.id}@einv`));
  expect(b.host.inboxed.filter((d) => ids.has(d.messageId))).toHaveLength(100);
  expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(400 * 1024 * 1024);
}, 120_000);
