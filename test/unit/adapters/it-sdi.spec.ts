/**
 * it-sdi on its own, under the SDK's in-memory host: the contract suite; which recipients it
 * reaches; each SDI notification read and turned into the NetworkStatus the platform records (RC,
 * NS, MC, NE EC01/EC02, DT, AT); the notification route refusing what is not SDICoop (malformed,
 * DOCTYPE, oversized, unknown operation, a file naming another id) with a SOAP Fault before anything
 * is recorded, answering a Fault (so the SDI retries) when the platform cannot record it, and
 * reading an MTOM request; a document with nothing to build a FatturaPA from is rejected.
 */
import { describeConnectorContract, memoryHost, sampleMessage } from '../../../adapters/sdk/contract-suite.ts';
import itSdi from '../../../adapters/it-sdi/it-sdi.connector.ts';
import { networkStatusOf, notificationXml, readNotification, type SdiNotification } from '../../../adapters/it-sdi/notifications.ts';
import { fileSdIRequest, readRiceviFileAnswer, readSdiXml, riceviFileAnswer } from '../../../adapters/it-sdi/soap.ts';
import { progressivoOf } from '../../../adapters/it-sdi/outbound.ts';
import { buildMultipartRelated } from '../../../adapters/peppol-kit/as4/mime.ts';

const config = { endpoint: 'http://127.0.0.1:9/SdIRiceviFile' };

describeConnectorContract(itSdi, {
  known: { peppolId: '0205:ABC1234' },
  unknown: { peppolId: '0088:5790000000011' },
  directory: [],
  documentType: 'invoice',
  config,
  secrets: { privateKey: '-----BEGIN PRIVATE KEY-----\nsecret-key-material\n-----END PRIVATE KEY-----' },
});

const route = itSdi.routes[0]!;

function post(body: string | Buffer, headers: Record<string, string> = { 'content-type': 'text/xml; charset=utf-8' }) {
  return { method: 'POST', path: '/trasmissione-fatture', headers, query: {}, body: Buffer.isBuffer(body) ? body : Buffer.from(body) };
}

const rc: SdiNotification = { kind: 'RC', identificativoSdI: '7000001', nomeFile: 'IT01234567890_00ABC.xml', messageId: '901', dataOraRicezione: '2026-03-01T10:00:00+01:00', dataOraConsegna: '2026-03-01T10:05:00+01:00', destinatario: { codice: 'ABC1234' } };

function notificationRequest(n: SdiNotification): string {
  const operation = { RC: 'RicevutaConsegna', NS: 'NotificaScarto', MC: 'NotificaMancataConsegna', NE: 'NotificaEsito', DT: 'NotificaDecorrenzaTermini', AT: 'AttestazioneTrasmissioneFattura' }[n.kind];
  return fileSdIRequest({ operation, identificativoSdI: n.identificativoSdI, nomeFile: `x_${n.kind}_001.xml`, file: Buffer.from(notificationXml(n)) });
}

describe('check: the recipients the SDI reaches', () => {
  it.each(['0201:UFY9MH', '0205:ABC1234', '0211:IT01234567890', '0210:RSSMRA80A01H501U'])('%s is Italian: known, takes invoices and credit notes', async (peppolId) => {
    expect(await itSdi.check({ recipient: { peppolId }, documentType: 'credit-note', livemode: false })).toMatchObject({ known: true, canReceive: true, country: 'IT', peppolId });
  });
  it('a recipient with an Italian country is known; a Peppol one elsewhere is not', async () => {
    expect((await itSdi.check({ recipient: { companyId: 'cmp_1', country: 'IT' }, documentType: 'invoice', livemode: true })).known).toBe(true);
    expect((await itSdi.check({ recipient: { peppolId: '0208:0123456749' }, documentType: 'invoice', livemode: true })).known).toBe(false);
  });
});

describe('notifications → NetworkStatus', () => {
  const read = (n: SdiNotification) => networkStatusOf(readNotification(readSdiXml(notificationXml(n), 1e6, 'test')));

  it('RC: accepted, reported to the SDI, with its evidence', () => {
    expect(read(rc)).toEqual({
      messageId: '7000001', status: 'accepted', reasons: [], compliance: { reportedTo: 'SDI', status: 'reported' },
      evidence: { notification: 'RC', identificativoSdI: '7000001', nomeFile: rc.nomeFile, notificationMessageId: '901', dataOraRicezione: rc.dataOraRicezione, dataOraConsegna: rc.dataOraConsegna, destinatario: 'ABC1234' },
    });
  });

  it('NS: rejected with every SDI error code; compliance failed with the first', () => {
    const s = read({ kind: 'NS', identificativoSdI: '7000002', nomeFile: 'f.xml', errori: [{ codice: '00200', descrizione: 'File non conforme al formato' }, { codice: '00306', descrizione: 'CodiceDestinatario sconosciuto', suggerimento: 'Verificare il codice' }] });
    expect(s).toMatchObject({
      messageId: '7000002', status: 'rejected',
      reasons: [{ code: '00200', description: 'File non conforme al formato' }, { code: '00306', description: 'CodiceDestinatario sconosciuto (Verificare il codice)' }],
      compliance: { reportedTo: 'SDI', status: 'failed', code: '00200', message: 'File non conforme al formato' },
    });
  });

  it('MC: accepted (issued, in the buyer\'s tax drawer) with reason MC, reported', () => {
    expect(read({ kind: 'MC', identificativoSdI: '7', nomeFile: 'f.xml', descrizione: 'canale non raggiungibile' })).toMatchObject({ status: 'accepted', reasons: [{ code: 'MC', description: 'canale non raggiungibile' }], compliance: { reportedTo: 'SDI', status: 'reported' } });
  });

  it('NE EC01: answered, lifecycle approved; EC02: answered, lifecycle rejected with the buyer\'s reason and EC02', () => {
    const ec01 = read({ kind: 'NE', identificativoSdI: '7', nomeFile: 'f.xml', esito: { esito: 'EC01', numeroFattura: 'FT-1', annoFattura: '2026' } });
    expect(ec01).toMatchObject({ messageId: '7', status: 'answered', lifecycle: { status: 'approved' } });
    expect(ec01.compliance).toBeUndefined();
    const ec02 = read({ kind: 'NE', identificativoSdI: '7', nomeFile: 'f.xml', esito: { esito: 'EC02', descrizione: 'Importo errato' } });
    expect(ec02).toMatchObject({ status: 'answered', lifecycle: { status: 'rejected', reason: 'Importo errato', reasonCode: 'EC02' }, evidence: { esito: 'EC02' } });
  });

  it('DT: acknowledged with reason DT and no lifecycle move; AT: accepted with reason AT', () => {
    const dt = read({ kind: 'DT', identificativoSdI: '7', nomeFile: 'f.xml' });
    expect(dt).toMatchObject({ status: 'acknowledged', reasons: [{ code: 'DT' }] });
    expect(dt.lifecycle).toBeUndefined();
    expect(read({ kind: 'AT', identificativoSdI: '7', nomeFile: 'f.xml' })).toMatchObject({ status: 'accepted', reasons: [{ code: 'AT' }] });
  });
});

describe('the TrasmissioneFatture route', () => {
  const host = () => memoryHost([], { config: { ...config, maxMessageBytes: 64 * 1024 } });

  it('records a notification, then acknowledges it; status answers from it', async () => {
    const h = host();
    const r = await route.handle(post(notificationRequest(rc)), h);
    expect(r.status).toBe(200);
    expect(String(r.body)).toContain('Envelope');
    expect(h.statusUpdates).toEqual([expect.objectContaining({ messageId: '7000001', status: 'accepted' })]);
    expect(await itSdi.status({ messageId: '7000001', livemode: false }, h)).toEqual({ outcome: 'delivered' });
    expect(await itSdi.status({ messageId: '7000999', livemode: false }, h)).toEqual({ outcome: 'pending', checkAfterMs: 3_600_000 });
    await route.handle(post(notificationRequest({ kind: 'NS', identificativoSdI: '7000002', nomeFile: 'f.xml', errori: [{ codice: '00200', descrizione: 'formato' }] })), h);
    expect(await itSdi.status({ messageId: '7000002', livemode: false }, h)).toEqual({ outcome: 'rejected', errorCode: 'SDI:00200', errorMessage: 'formato' });
  });

  it('reads an MTOM request whose File is an XOP reference to a MIME part', async () => {
    const h = host();
    const soap = `<?xml version="1.0"?><S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body><t:ricevutaConsegna xmlns:t="http://www.fatturapa.gov.it/sdi/ws/trasmissione/v1.0/types"><IdentificativoSdI>7000001</IdentificativoSdI><NomeFile>x_RC_001.xml</NomeFile><File><xop:Include xmlns:xop="http://www.w3.org/2004/08/xop/include" href="cid:rc-file"/></File></t:ricevutaConsegna></S:Body></S:Envelope>`;
    const mime = buildMultipartRelated(soap, [{ contentId: 'rc-file', contentType: 'application/octet-stream', body: Buffer.from(notificationXml(rc)) }]);
    const r = await route.handle(post(mime.body, { 'content-type': mime.contentType }), h);
    expect(r.status).toBe(200);
    expect(h.statusUpdates[0]).toMatchObject({ messageId: '7000001', status: 'accepted' });
  });

  it.each<[string, string | Buffer]>([
    ['not XML', 'this is not xml'],
    ['a DOCTYPE', `<!DOCTYPE x [<!ENTITY e "e">]>${notificationRequest(rc)}`],
    ['over the size cap', `${notificationRequest(rc)}${' '.repeat(70 * 1024)}`],
    ['an unknown operation', notificationRequest(rc).replaceAll('ricevutaConsegna', 'riceviFatture')],
    ['a notification file naming another IdentificativoSdI', fileSdIRequest({ operation: 'RicevutaConsegna', identificativoSdI: '1', nomeFile: 'x.xml', file: Buffer.from(notificationXml(rc)) })],
    ['a file that is not a notification', fileSdIRequest({ operation: 'RicevutaConsegna', identificativoSdI: '7000001', nomeFile: 'x.xml', file: Buffer.from('<Invoice/>') })],
    ['a notification through the wrong operation', fileSdIRequest({ operation: 'NotificaScarto', identificativoSdI: '7000001', nomeFile: 'x.xml', file: Buffer.from(notificationXml(rc)) })],
  ])('refuses %s with a SOAP Client Fault and records nothing', async (_name, body) => {
    const h = host();
    const r = await route.handle(post(body), h);
    expect(r.status).toBe(400);
    expect(String(r.body)).toContain('soapenv:Client');
    expect(h.statusUpdates).toEqual([]);
  });

  it('answers a Server Fault when the platform cannot record the notification (the SDI sends it again)', async () => {
    const h = host();
    h.outbound.statusReceived = async () => { throw new Error('database down'); };
    const r = await route.handle(post(notificationRequest(rc)), h);
    expect(r.status).toBe(500);
    expect(String(r.body)).toContain('soapenv:Server');
    expect(await itSdi.status({ messageId: '7000001', livemode: false }, h)).toMatchObject({ outcome: 'pending' });
  });

  it('with sdiCertificateSubject set, refuses a client certificate that is not the SDI\'s', async () => {
    const h = memoryHost([], { config: { ...config, sdiCertificateSubject: 'CN=SDI' } });
    const forged = { ...post(notificationRequest(rc)), clientCertificate: { subject: 'CN=someone else', fingerprint256: 'AA' } };
    expect((await route.handle(forged, h)).status).toBe(403);
    const genuine = { ...post(notificationRequest(rc)), clientCertificate: { subject: 'C=IT, O=Agenzia delle Entrate, CN=SDI', fingerprint256: 'BB' } };
    expect((await route.handle(genuine, h)).status).toBe(200);
    expect(h.statusUpdates).toHaveLength(1);
  });
});

describe('health', () => {
  it('ok with its endpoint; failed, saying why, when the client certificate file cannot be read', async () => {
    expect(await itSdi.health(memoryHost([], { config }))).toEqual({ status: 'ok', message: expect.stringContaining('http://127.0.0.1:9/SdIRiceviFile') });
    const broken = await itSdi.health(memoryHost([], { config: { ...config, certificateFile: '/nonexistent/sdi-client.pem' } }));
    expect(broken).toEqual({ status: 'failed', message: expect.stringContaining('/nonexistent/sdi-client.pem') });
  });
});

describe('send', () => {
  it('a document with neither a FatturaPA original nor a canonical invoice is rejected before anything is sent', async () => {
    const r = await itSdi.send(sampleMessage({ peppolId: '0205:ABC1234' }, 'invoice'), memoryHost([], { config }));
    expect(r).toMatchObject({ outcome: 'rejected', errorCode: 'SDI_NO_INVOICE' });
  });

  it('the progressivo is 5 letters and digits, the same on every attempt, different across documents', () => {
    expect(progressivoOf('doc_1')).toMatch(/^[0-9A-Z]{5}$/);
    expect(progressivoOf('doc_1')).toBe(progressivoOf('doc_1'));
    expect(new Set(Array.from({ length: 200 }, (_, i) => progressivoOf(`doc_${i}`))).size).toBe(200);
  });

  it('reads the SDI\'s RiceviFile answers: an id with its reception time, or an Errore', () => {
    expect(readRiceviFileAnswer(Buffer.from(riceviFileAnswer({ identificativoSdI: '123', dataOraRicezione: '2026-03-01T10:00:00Z' })), 'text/xml', 1e6)).toEqual({ identificativoSdI: '123', dataOraRicezione: '2026-03-01T10:00:00Z' });
    expect(readRiceviFileAnswer(Buffer.from(riceviFileAnswer({ errore: 'EI01' })), 'text/xml', 1e6)).toEqual({ errore: 'EI01' });
    expect(() => readRiceviFileAnswer(Buffer.from('<S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body><S:Fault><faultstring>boom</faultstring></S:Fault></S:Body></S:Envelope>'), 'text/xml', 1e6)).toThrow(/SOAP Fault: boom/);
  });
});
