/**
 * it-sdi against the SDI simulator on 127.0.0.1, over mutual TLS both ways it matters: the
 * connector's RiceviFile call carries its client certificate to a server that requires one, and
 * the simulator posts its notifications to the connector's TrasmissioneFatture route behind a
 * server of its own. The host is the SDK's with the platform's real HTTP client; what the platform
 * is told (`statusReceived`) is recorded and correlated with the documents sent, by
 * IdentificativoSdI.
 *
 * RC → accepted and reported; NS 00200 (not valid against the schema) and NS 00306 (unknown
 * recipient code) → rejected with the SDI code and compliance failed; NE EC01 / EC02 → the buyer's
 * answer as a lifecycle move; MC, DT, AT; EI02 → transient; the same document sent again is the
 * SDI's duplicate (00002), never a second invoice; no client certificate → no transmission.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { memoryHost, type MemoryHost } from '../../adapters/sdk/contract-suite.ts';
import type { NetworkStatus, OutboundMessage } from '../../adapters/sdk/index.ts';
import itSdi from '../../adapters/it-sdi/it-sdi.connector.ts';
import { createHttpClient, type HttpClient } from '../../services/connectors/http-client.ts';
import { jsonToCanonical, type CanonicalInvoice } from '../../mappings/index.ts';
import { selfSignedCertificate } from '../support/certificates.ts';
import { startSdiSimulator, type SdiSimulator } from '../support/sdi-simulator.ts';
import { fatturaPaXsdErrors } from '../support/fatturapa-xsd.ts';
import { eventually } from '../support/webhook-receiver.ts';
import { corpusDir } from '../support/corpus.ts';

let sim: SdiSimulator;
let host: MemoryHost;
let http: HttpClient;
let routeServer: Server;
let files: { dir: string; clientCert: string; serverCa: string };
/** What the platform would hold: the document each IdentificativoSdI belongs to. */
const sentDocuments = new Map<string, string>();

const seller = { name: 'Alpha SRL', vatNumber: 'IT01234567890', address: { street: 'Viale Roma 543', city: 'Sassari', postalCode: '07100', country: 'IT' } };

function invoice(buyer: Record<string, unknown>, number: string): CanonicalInvoice {
  return jsonToCanonical({
    type: 'invoice',
    document: {
      number, issueDate: '2026-03-01', dueDate: '2026-04-01', currency: 'EUR', seller, buyer,
      payment: { means: 'credit_transfer', iban: 'IT60X0542811101000000123456' },
      lines: [{ description: 'Consulenza', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 22 }],
    },
  });
}

function message(documentId: string, c: CanonicalInvoice | null, peppolId: string, xml?: string): OutboundMessage {
  return {
    documentId, livemode: false, type: 'invoice', number: c?.number ?? null,
    sender: { peppolId: '0211:IT01234567890', name: 'Alpha SRL', organizationId: 'org_it', companyId: 'cmp_it' },
    recipient: { peppolId },
    payload: {
      content: Buffer.from(xml ?? '{}').toString('base64'), contentType: xml ? 'application/xml' : 'application/json',
      ...(xml ? { xml, syntax: 'fatturapa-1.2' } : {}),
      ...(c ? { normalized: c as unknown as Record<string, unknown> } : {}),
    },
    attempt: 1,
  };
}

async function send(documentId: string, c: CanonicalInvoice | null, peppolId: string, xml?: string) {
  const r = await itSdi.send(message(documentId, c, peppolId, xml), host);
  if (r.outcome === 'accepted') sentDocuments.set(r.messageId, documentId);
  return r;
}

const updatesFor = (id: string): NetworkStatus[] => host.statusUpdates.filter((u) => u.messageId === id);
const update = (id: string, status: NetworkStatus['status']) => eventually(async () => updatesFor(id).find((u) => u.status === status), 10_000, `${status} for ${id}`);

const readBody = (req: IncomingMessage): Promise<Buffer> => new Promise((resolve, reject) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
});

beforeAll(async () => {
  const server = selfSignedCertificate('sdi-simulator', { ip: '127.0.0.1' });
  const client = selfSignedCertificate('einv-sdi-channel');
  const dir = mkdtempSync(join(tmpdir(), 'einv-it-sdi-'));
  files = { dir, clientCert: join(dir, 'client.pem'), serverCa: join(dir, 'sdi-ca.pem') };
  writeFileSync(files.clientCert, client.certPem);
  writeFileSync(files.serverCa, server.certPem);
  sim = await startSdiSimulator({ knownCodes: ['ABC1234', 'UFY9MH'], tls: { certPem: server.certPem, keyPem: server.keyPem, clientCaPem: client.certPem } });
  host = memoryHost([], { config: { endpoint: sim.url, certificateFile: files.clientCert, caFile: files.serverCa, statusCheckMs: 1000 }, secrets: { privateKey: client.keyPem } });
  http = createHttpClient();
  (host as { http: MemoryHost['http'] }).http = http;
  host.outbound.statusReceived = async (status) => {
    host.statusUpdates.push(status);
    const documentId = status.messageId ? sentDocuments.get(status.messageId) : undefined;
    return documentId ? { documentId } : null;
  };
  const route = itSdi.routes[0]!;
  routeServer = createServer((req, res) => {
    void (async () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
      const answer = await route.handle({ method: 'POST', path: '/trasmissione-fatture', headers, query: {}, body: await readBody(req) }, host);
      res.writeHead(answer.status, answer.headers ?? {}).end(answer.body);
    })().catch((err: Error) => { if (!res.headersSent) res.writeHead(500).end(err.message); });
  });
  await new Promise<void>((resolve) => routeServer.listen(0, '127.0.0.1', resolve));
  sim.notifyUrl = `http://127.0.0.1:${(routeServer.address() as AddressInfo).port}/connectors/it-sdi/trasmissione-fatture`;
}, 60_000);

afterAll(async () => {
  await http?.close();
  await sim?.stop();
  await new Promise((resolve) => routeServer?.close(resolve));
});

describe('it-sdi ↔ SDI simulator', () => {
  it('B2B: FPR12 over mutual TLS → accepted with the IdentificativoSdI; RC → accepted and reported; NE EC01 → lifecycle approved', async () => {
    const r = await send('doc_b2b', invoice({ name: 'Beta SpA', vatNumber: 'IT09876543217', address: { street: 'Via Torino 38', city: 'Roma', postalCode: '00145', country: 'IT' } }, 'FT-2026/1'), '0205:ABC1234');
    expect(r).toEqual({ outcome: 'accepted', messageId: expect.stringMatching(/^\d+$/), checkAfterMs: 1000 });
    const id = (r as { messageId: string }).messageId;
    const file = sim.received.find((f) => f.identificativoSdI === id)!;
    expect(file.nomeFile).toMatch(/^IT01234567890_[0-9A-Z]{5}\.xml$/);
    expect(fatturaPaXsdErrors(file.xml)).toEqual([]);
    expect(file.xml).toContain('versione="FPR12"');
    expect(file.codiceDestinatario).toBe('ABC1234');

    const rc = await update(id, 'accepted');
    expect(rc).toMatchObject({ messageId: id, reasons: [], compliance: { reportedTo: 'SDI', status: 'reported' }, evidence: { notification: 'RC', identificativoSdI: id, destinatario: 'ABC1234' } });
    expect(sim.posted.find((p) => p.identificativoSdI === id && p.kind === 'RC')?.status).toBe(200);
    expect(await itSdi.status({ messageId: id, livemode: false }, host)).toEqual({ outcome: 'delivered' });

    const ne = await sim.esito(id, 'EC01');
    expect(ne.status).toBe(200);
    expect(await update(id, 'answered')).toMatchObject({ messageId: id, lifecycle: { status: 'approved' } });
  });

  it('B2G: FPA12 to the office code; NE EC02 → lifecycle rejected with the buyer\'s reason and EC02', async () => {
    const r = await send('doc_b2g', invoice({ name: 'Comune di Roma', peppolId: '0201:UFY9MH', legalRegistration: { value: '02438750586', scheme: '0210' }, address: { street: 'Via del Campidoglio 1', city: 'Roma', postalCode: '00186', country: 'IT' } }, 'FT-2026/2'), '0201:UFY9MH');
    const id = (r as { messageId: string }).messageId;
    expect(sim.received.find((f) => f.identificativoSdI === id)!.xml).toContain('<FormatoTrasmissione>FPA12</FormatoTrasmissione>');
    await update(id, 'accepted');
    await sim.esito(id, 'EC02', 'Importo non corrispondente all\'ordine');
    expect(await update(id, 'answered')).toMatchObject({ lifecycle: { status: 'rejected', reasonCode: 'EC02', reason: 'Importo non corrispondente all\'ordine' } });
  });

  it('NS 00306: a recipient code the SDI does not know → rejected, compliance failed with 00306; status rejects', async () => {
    const r = await send('doc_unknown_code', invoice({ name: 'Gamma SRL', vatNumber: 'IT09876543217', address: { street: 'Via Po 1', city: 'Torino', postalCode: '10121', country: 'IT' } }, 'FT-2026/3'), '0205:ZZZ9999');
    const id = (r as { messageId: string }).messageId;
    const ns = await update(id, 'rejected');
    expect(ns).toMatchObject({ reasons: [{ code: '00306', description: expect.stringContaining('ZZZ9999') }], compliance: { reportedTo: 'SDI', status: 'failed', code: '00306', message: expect.stringContaining('ZZZ9999') } });
    expect(await itSdi.status({ messageId: id, livemode: false }, host)).toMatchObject({ outcome: 'rejected', errorCode: 'SDI:00306' });
  });

  it('NS 00200: a FatturaPA not valid against the schema (the caller\'s own file, sent as it is) → rejected with 00200', async () => {
    const bad = readFileSync(join(corpusDir(), 'ph-fatturapa/src/test/resources/external/examples/122/bad/IT01234567890_FPA01.xml'), 'utf8');
    const r = await send('doc_bad_xml', null, '0201:AAAAAA', bad);
    const id = (r as { messageId: string }).messageId;
    expect(sim.received.find((f) => f.identificativoSdI === id)!.xml).toBe(bad);
    const ns = await update(id, 'rejected');
    expect(ns.reasons[0]).toMatchObject({ code: '00200', description: expect.stringContaining('FatturaElettronicaBody') });
    expect(ns.compliance).toMatchObject({ reportedTo: 'SDI', status: 'failed', code: '00200' });
  });

  it('MC, DT and AT reach the platform as accepted (MC reported), acknowledged and accepted', async () => {
    const r = await send('doc_mc', invoice({ name: 'Delta SpA', vatNumber: 'IT09876543217', address: { street: 'Via Roma 1', city: 'Milano', postalCode: '20121', country: 'IT' } }, 'FT-2026/4'), '0205:ABC1234');
    const id = (r as { messageId: string }).messageId;
    await update(id, 'accepted');
    await sim.mancataConsegna(id);
    await sim.decorrenzaTermini(id);
    await sim.attestazione(id);
    const kinds = updatesFor(id).map((u) => [u.status, u.reasons[0]?.code ?? null, u.compliance?.status ?? null]);
    expect(kinds).toEqual([['accepted', null, 'reported'], ['accepted', 'MC', 'reported'], ['acknowledged', 'DT', null], ['accepted', 'AT', null]]);
  });

  it('the same document sent again is the same file: the SDI answers its duplicate (00002), not a second invoice', async () => {
    const c = invoice({ name: 'Epsilon SRL', vatNumber: 'IT09876543217', address: { street: 'Via Roma 2', city: 'Napoli', postalCode: '80100', country: 'IT' } }, 'FT-2026/5');
    const first = (await send('doc_twice', c, '0205:ABC1234')) as { messageId: string };
    const again = (await send('doc_twice', c, '0205:ABC1234')) as { messageId: string };
    const names = sim.received.filter((f) => [first.messageId, again.messageId].includes(f.identificativoSdI)).map((f) => f.nomeFile);
    expect(names[0]).toBe(names[1]);
    expect((await update(again.messageId, 'rejected')).reasons[0]!.code).toBe('00002');
  });

  it('EI02 (service unavailable) is transient; what cannot become a FatturaPA is rejected before anything is sent', async () => {
    sim.unavailable = true;
    try {
      expect(await send('doc_ei02', invoice({ name: 'Zeta', vatNumber: 'IT09876543217', address: { street: 'Via Roma 3', city: 'Bari', postalCode: '70121', country: 'IT' } }, 'FT-2026/6'), '0205:ABC1234'))
        .toMatchObject({ outcome: 'transient', errorCode: 'SDI:EI02' });
    } finally {
      sim.unavailable = false;
    }
    const count = sim.received.length;
    const noVat = invoice({ name: 'Eta', vatNumber: 'IT09876543217', address: { street: 'Via Roma 4', city: 'Bari', postalCode: '70121', country: 'IT' } }, 'FT-2026/7');
    const r = await send('doc_no_vat', { ...noVat, seller: { ...noVat.seller, vatId: undefined } }, '0205:ABC1234');
    expect(r).toMatchObject({ outcome: 'rejected', errorCode: 'MISSING_FIELD', errorMessage: expect.stringContaining('seller.vatId') });
    expect(sim.received.length).toBe(count);
  });

  it('without the channel\'s client certificate the SDI does not take the file: a transient failure', async () => {
    const anonymous = memoryHost([], { config: { endpoint: sim.url, caFile: files.serverCa } });
    const client = createHttpClient();
    (anonymous as { http: MemoryHost['http'] }).http = client;
    try {
      const count = sim.received.length;
      await expect(itSdi.send(message('doc_no_cert', invoice({ name: 'Theta', vatNumber: 'IT09876543217', address: { street: 'Via Roma 5', city: 'Bari', postalCode: '70121', country: 'IT' } }, 'FT-2026/8'), '0205:ABC1234'), anonymous))
        .rejects.toMatchObject({ kind: 'transient', message: expect.stringMatching(/certificate|handshake|socket|ECONNRESET|closed|alert/i) });
      expect(sim.received.length).toBe(count);
    } finally {
      await client.close();
    }
  });
});
