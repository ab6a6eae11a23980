/**
 * The pl-ksef connector against the KSeF 2.0 simulator on 127.0.0.1, through the platform's own HTTP
 * client (services/connectors/http-client.ts): token authentication (the simulator decrypts the token
 * with its private key), an encrypted interactive session, the status while KSeF processes, the KSeF
 * number, UPO and KOD I once cleared; a correction naming its original by KSeF number; KSeF's rejections (450 not schema-valid, 410 another NIP's
 * invoice, 440 duplicate), a refused token, XAdES authentication with a company seal (and a seal of another NIP), throttling (429 → transient, or pending after Retry-After),
 * an expired access token (refreshed), the pending bound (KSEF_TIMEOUT); batch submission (TarGz); and the inbox poller fetching
 * the invoices addressed to our NIP page by page, accepted once each.
 */
import { createHash } from 'node:crypto';
import plKsef from '../../adapters/pl-ksef/pl-ksef.connector.ts';
import { memoryHost, sampleMessage, type MemoryHost } from '../../adapters/sdk/contract-suite.ts';
import type { OutboundMessage, StatusResult } from '../../adapters/sdk/index.ts';
import { canonicalToFa3, fa3ToCanonical } from '../../mappings/index.ts';
import { createHttpClient, type HttpClient } from '../../services/connectors/http-client.ts';
import { companySeal, isValidKsefNumber, startKsefSimulator, type KsefSimulator } from '../support/ksef-simulator.ts';
import { BUYER_NIP, INBOX_NIP, OTHER_NIP, SELLER_NIP, polishInvoice } from '../support/polish-invoice.ts';

const TOKEN = 'ksef-token-of-the-seller-20261120';
let ksef: KsefSimulator;
let http: HttpClient;

beforeAll(async () => {
  ksef = await startKsefSimulator({ processingDelayMs: 150 });
  ksef.tokens.set(TOKEN, SELLER_NIP);
  http = createHttpClient();
});
afterAll(async () => {
  await http.close();
  await ksef.close();
});

const directory = [{ organizationId: 'org_pl', companyId: 'comp_pl', peppolId: `9945:PL${SELLER_NIP}`, name: 'Sprzedawca Sp. z o.o.', country: 'PL', documentTypes: ['invoice', 'credit-note'] }];

function hostFor(config: Record<string, string | number> = {}, token = TOKEN): MemoryHost {
  const h = memoryHost(directory, {
    config: { baseUrl: ksef.url, environment: 'test', nip: SELLER_NIP, publicKey: ksef.certPem, statusPollMs: 100, authPollMs: 20, inboxPageSize: 10, ...config },
    secrets: { ksefToken: token },
  });
  return { ...h, http };
}

let seq = 0;
function messageOf(invoice = polishInvoice({ number: `FV/INT/${++seq}` })): OutboundMessage {
  return { ...sampleMessage({ peppolId: `9945:PL${BUYER_NIP}` }, invoice.kind), number: invoice.number, payload: { content: '', contentType: 'application/json', normalized: invoice as unknown as Record<string, unknown> } };
}

/** Follows a submission the way the platform does: status after each checkAfterMs, bounded. */
async function settle(host: MemoryHost, messageId: string): Promise<{ result: StatusResult; pendings: number }> {
  for (let pendings = 0; pendings < 100; pendings++) {
    const result = await plKsef.status({ messageId, livemode: false }, host);
    if (result.outcome !== 'pending') return { result, pendings };
    await new Promise((r) => setTimeout(r, Math.min(result.checkAfterMs, 200)));
  }
  throw new Error('still pending after 100 reads');
}

describe('pl-ksef ↔ KSeF simulator: clearance', () => {
  let host: MemoryHost;
  beforeAll(() => { host = hostFor(); });

  it('authenticates with the token, sends the invoice encrypted, and reports the KSeF number, UPO and KOD I once processed', async () => {
    const msg = messageOf();
    const sent = await plKsef.send(msg, host);
    expect(sent).toMatchObject({ outcome: 'accepted', checkAfterMs: 100 });
    const messageId = (sent as { messageId: string }).messageId;

    // What KSeF received: the FA(3) our mapping writes, decrypted with the session key it unwrapped.
    const [sessionRef, invoiceRef] = messageId.split('/');
    const inv = ksef.invoices.get(invoiceRef!)!;
    expect(inv.xml).toContain('<P_2>FV/INT/1</P_2>');
    expect(createHash('sha256').update(inv.xml!).digest('base64')).toBe(inv.invoiceHash);
    expect(ksef.sessions.get(sessionRef!)).toMatchObject({ nip: SELLER_NIP, closed: true });

    const { result, pendings } = await settle(host, messageId);
    expect(pendings).toBeGreaterThan(0); // 150 while the simulator's processing delay runs
    expect(result).toMatchObject({ outcome: 'delivered', clearance: { status: 'cleared', authorityId: expect.stringMatching(new RegExp(`^${SELLER_NIP}-\\d{8}-[0-9A-F]{12}-[0-9A-F]{2}$`)) } });
    const clearance = (result as { clearance: NonNullable<Extract<StatusResult, { outcome: 'delivered' }>['clearance']> }).clearance;
    expect(isValidKsefNumber(clearance.authorityId)).toBe(true);
    expect(clearance.authorityId).toBe(inv.ksefNumber);
    const upo = Buffer.from(clearance.receipt!.content, 'base64').toString('utf8');
    expect(clearance.receipt).toMatchObject({ contentType: 'application/xml', filename: `UPO_${clearance.authorityId}.xml` });
    expect(upo).toContain(`<NumerKSeFDokumentu>${clearance.authorityId}</NumerKSeFDokumentu>`);
    expect(upo).toContain(`<SkrotDokumentu>${inv.invoiceHash}</SkrotDokumentu>`);
    const hash64url = Buffer.from(inv.invoiceHash, 'base64').toString('base64url');
    expect(clearance.qr).toBe(`https://qr-test.ksef.mf.gov.pl/invoice/${SELLER_NIP}/20-11-2026/${hash64url}`);
    expect(clearance.details).toMatchObject({ sessionReferenceNumber: sessionRef, invoiceReferenceNumber: invoiceRef, invoiceHash: inv.invoiceHash });
    expect(host.logged.join('\n')).not.toContain(TOKEN);
  });

  it('reuses its access token for the next invoice, and refreshes it when KSeF says it expired', async () => {
    const before = ksef.authentications;
    const a = await plKsef.send(messageOf(), host);
    expect(a.outcome).toBe('accepted');
    expect(ksef.authentications).toBe(before);
    ksef.expireAccessTokens();
    const refreshes = ksef.refreshes;
    const b = await plKsef.send(messageOf(), host);
    expect(b.outcome).toBe('accepted');
    expect(ksef.refreshes).toBe(refreshes + 1);
    expect(ksef.authentications).toBe(before);
    expect((await settle(host, (b as { messageId: string }).messageId)).result.outcome).toBe('delivered');
  });

  it('450: an invoice KSeF finds invalid against FA(3) is rejected with its code and the schema errors', async () => {
    // A file our mapping would never write (a form variant FA(3) does not have), sent as is to see KSeF's own verdict.
    const invoice = polishInvoice({ number: `FV/INT/${++seq}` });
    const sent = await sendRaw(canonicalToFa3(invoice, { createdAt: '2026-11-20T10:00:00Z' }).replace('<WariantFormularza>3</WariantFormularza>', '<WariantFormularza>2</WariantFormularza>'));
    const { result } = await settle(host, sent);
    expect(result).toMatchObject({ outcome: 'rejected', errorCode: 'KSEF:450', errorMessage: expect.stringContaining('WariantFormularza') });
  });

  it('410: an invoice of another seller than the authenticated NIP is rejected with KSeF\'s code', async () => {
    const other = polishInvoice({ number: `FV/INT/${++seq}`, seller: { ...polishInvoice().seller, vatId: `PL${OTHER_NIP}` } });
    const sent = await plKsef.send(messageOf(other), host);
    const { result } = await settle(host, (sent as { messageId: string }).messageId);
    expect(result).toMatchObject({ outcome: 'rejected', errorCode: 'KSEF:410', errorMessage: expect.stringContaining(OTHER_NIP) });
  });

  it('a re-send (attempt 2) of an invoice KSeF already took is delivered with its KSeF number, not sent again; a re-send of a new one is sent', async () => {
    const invoice = polishInvoice({ number: `FV/INT/${++seq}` });
    const first = await settle(host, ((await plKsef.send(messageOf(invoice), host)) as { messageId: string }).messageId);
    const ksefNumber = (first.result as { clearance: { authorityId: string } }).clearance.authorityId;
    const sessions = ksef.sessions.size;
    const again = await plKsef.send({ ...messageOf(invoice), attempt: 2 }, host);
    expect(again).toMatchObject({ outcome: 'delivered', messageId: ksefNumber, clearance: { status: 'cleared', authorityId: ksefNumber, qr: expect.stringContaining(`/invoice/${SELLER_NIP}/20-11-2026/`), details: { foundOnResend: 'true' } } });
    expect(ksef.sessions.size).toBe(sessions);
    const fresh = await plKsef.send({ ...messageOf(), attempt: 2 }, host);
    expect(fresh.outcome).toBe('accepted');
    expect(ksef.sessions.size).toBe(sessions + 1);
  });

  it('440: the same seller number cleared twice is a duplicate, naming the first KSeF number', async () => {
    const invoice = polishInvoice({ number: `FV/INT/${++seq}` });
    const first = await settle(host, ((await plKsef.send(messageOf(invoice), host)) as { messageId: string }).messageId);
    expect(first.result.outcome).toBe('delivered');
    const again = await settle(host, ((await plKsef.send(messageOf(invoice), host)) as { messageId: string }).messageId);
    const ksefNumber = (first.result as { clearance: { authorityId: string } }).clearance.authorityId;
    expect(again.result).toMatchObject({ outcome: 'rejected', errorCode: 'KSEF:440', errorMessage: expect.stringContaining(ksefNumber) });
  });

  it('a correction names the corrected invoice by the KSeF number KSeF gave it, and clears', async () => {
    const original = polishInvoice({ number: `FV/INT/${++seq}` });
    const cleared = await settle(host, ((await plKsef.send(messageOf(original), host)) as { messageId: string }).messageId);
    const ksefNumber = (cleared.result as { clearance: { authorityId: string } }).clearance.authorityId;
    const correction = polishInvoice({
      kind: 'credit-note', typeCode: '381', number: `KOR/INT/${seq}`, notes: [{ text: 'Rabat posprzedażowy' }],
      precedingInvoices: [{ number: original.number, issueDate: original.issueDate }, { number: 'FV/PAPER/1', issueDate: '2026-01-05' }],
    });
    const sent = await plKsef.send(messageOf(correction), host);
    const inv = ksef.invoices.get((sent as { messageId: string }).messageId.split('/')[1]!)!;
    expect(inv.xml).toContain(`<NrFaKorygowanej>${original.number}</NrFaKorygowanej><NrKSeF>1</NrKSeF><NrKSeFFaKorygowanej>${ksefNumber}</NrKSeFFaKorygowanej>`);
    expect(inv.xml).toContain('<NrFaKorygowanej>FV/PAPER/1</NrFaKorygowanej><NrKSeFN>1</NrKSeFN>');
    const { result } = await settle(host, (sent as { messageId: string }).messageId);
    expect(result).toMatchObject({ outcome: 'delivered', clearance: { status: 'cleared' } });
    expect(ksef.repository.find((r) => r.invoiceNumber === correction.number)?.invoiceType).toBe('Kor');
  });

  it('429 with Retry-After: a send is transient (the platform re-sends), a status read stays pending for Retry-After', async () => {
    ksef.throttleNext(1, 7, '/sessions/online');
    await expect(plKsef.send(messageOf(), host)).rejects.toMatchObject({ kind: 'transient', code: 'KSEF_THROTTLED', message: expect.stringContaining('retry after 7 s') });
    const sent = await plKsef.send(messageOf(), host);
    ksef.throttleNext(1, 3, '/sessions/');
    expect(await plKsef.status({ messageId: (sent as { messageId: string }).messageId, livemode: false }, host)).toEqual({ outcome: 'pending', checkAfterMs: 3000 });
  });

  it('an invoice still unprocessed after maxPendingMs is rejected with KSEF_TIMEOUT', async () => {
    const slow = hostFor({ maxPendingMs: 50 });
    ksef.processingDelayMs = 60_000;
    try {
      const sent = await plKsef.send(messageOf(), slow);
      await new Promise((r) => setTimeout(r, 80));
      expect(await plKsef.status({ messageId: (sent as { messageId: string }).messageId, livemode: false }, slow)).toMatchObject({ outcome: 'rejected', errorCode: 'KSEF_TIMEOUT' });
    } finally {
      ksef.processingDelayMs = 150;
    }
  });

  it('a token KSeF refuses (450 at authentication) is transient KSEF_AUTH_FAILED, the token never in the answer; the Ministry key can also be read from KSeF', async () => {
    const wrong = hostFor({}, 'not-the-token');
    const err = await plKsef.send(messageOf(), wrong).catch((e: unknown) => e as Error & { code: string; kind: string });
    expect(err).toMatchObject({ kind: 'transient', code: 'KSEF_AUTH_FAILED', message: expect.stringContaining('450') });
    expect(JSON.stringify(err) + (err as Error).message).not.toContain('not-the-token');

    const fetchedKey = hostFor({ publicKey: '' });
    expect((await plKsef.send(messageOf(), fetchedKey)).outcome).toBe('accepted');
    expect(ksef.requests.some((r) => r.path === '/security/public-key-certificates' && r.status === 200)).toBe(true);
  });

  it('XAdES authentication: the AuthTokenRequest signed with the company seal (verified by xmlsec1 in the simulator) opens the session; a seal of another NIP is refused', async () => {
    const seal = companySeal(SELLER_NIP, 'Sprzedawca Sp. z o.o.');
    const xades = { ...memoryHost(directory, { config: { baseUrl: ksef.url, environment: 'test', nip: SELLER_NIP, publicKey: ksef.certPem, authMethod: 'xades', certificate: seal.certPem, statusPollMs: 100, authPollMs: 20 }, secrets: { signingKey: seal.keyPem } }), http };
    await plKsef.start(xades);
    const before = ksef.signedAuthRequests.length;
    const sent = await plKsef.send(messageOf(), xades);
    expect(sent.outcome).toBe('accepted');
    expect(ksef.signedAuthRequests.length).toBe(before + 1);
    expect(ksef.signedAuthRequests.at(-1)).toContain(`<ContextIdentifier><Nip>${SELLER_NIP}</Nip></ContextIdentifier>`);
    expect((await settle(xades, (sent as { messageId: string }).messageId)).result.outcome).toBe('delivered');
    expect(xades.logged.join('\n')).not.toContain(seal.keyPem.slice(40, 100));

    const foreign = companySeal(OTHER_NIP, 'Dostawca');
    const wrong = { ...memoryHost(directory, { config: { baseUrl: ksef.url, environment: 'test', nip: SELLER_NIP, publicKey: ksef.certPem, authMethod: 'xades', certificate: foreign.certPem, authPollMs: 20 }, secrets: { signingKey: foreign.keyPem } }), http };
    await expect(plKsef.send(messageOf(), wrong)).rejects.toMatchObject({ kind: 'transient', code: 'KSEF_AUTH_FAILED', message: expect.stringContaining(`Certyfikat nie wskazuje NIP ${SELLER_NIP}`) });
    // A signature made with another key than the certificate's fails xmlsec1's verification.
    const mismatched = { ...memoryHost(directory, { config: { baseUrl: ksef.url, environment: 'test', nip: SELLER_NIP, authMethod: 'xades', certificate: seal.certPem, authPollMs: 20 }, secrets: { signingKey: foreign.keyPem } }), http };
    await expect(plKsef.send(messageOf(), mismatched)).rejects.toMatchObject({ code: 'KSEF_AUTH_FAILED', message: expect.stringContaining('Nieprawidłowy podpis') });
  });

  it('batch: invoices sent within the window travel in one TarGz batch session (unpacked by GNU tar), each followed by its file name; KSeF judges each alone', async () => {
    const batching = hostFor({ batchWindowMs: 150, batchMaxInvoices: 3 });
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const invoices = [polishInvoice({ number: `FV/B/${++seq}` }), polishInvoice({ number: `FV/B/${++seq}` }), polishInvoice({ number: `FV/B/${++seq}`, issueDate: tomorrow })];
    const batchesBefore = ksef.batches.size;
    const sent = await Promise.all(invoices.map((i) => plKsef.send(messageOf(i), batching)));
    expect(sent.map((r) => r.outcome)).toEqual(['accepted', 'accepted', 'accepted']);
    const ids = sent.map((r) => (r as { messageId: string }).messageId);
    expect(new Set(ids.map((id) => id.split('/')[0])).size).toBe(1);
    expect(ids.every((id) => id.split('/')[1]!.startsWith('file:'))).toBe(true);
    expect(ksef.batches.size).toBe(batchesBefore + 1);
    const batch = [...ksef.batches.values()].at(-1)!;
    expect(batch).toMatchObject({ closed: true, count: 3, file: { compressionType: 'TarGz' } });

    const results = await Promise.all(ids.map((id) => settle(batching, id)));
    expect(results[0]!.result).toMatchObject({ outcome: 'delivered', clearance: { status: 'cleared', details: { batchFileName: expect.stringMatching(/\.xml$/) } } });
    expect(results[1]!.result).toMatchObject({ outcome: 'delivered' });
    const numbers = results.slice(0, 2).map((r) => (r.result as { clearance: { authorityId: string } }).clearance.authorityId);
    expect(new Set(numbers).size).toBe(2);
    expect(results[2]!.result).toMatchObject({ outcome: 'rejected', errorCode: 'KSEF:450', errorMessage: expect.stringContaining('P_1') });

    // A lone invoice goes when the window ends.
    const lone = await plKsef.send(messageOf(), batching);
    expect((await settle(batching, (lone as { messageId: string }).messageId)).result.outcome).toBe('delivered');
    expect(ksef.batches.size).toBe(batchesBefore + 2);
  });

  /** Sends an FA(3) file as is (to see KSeF's own verdict on a file our mapping would not write). */
  async function sendRaw(xml: string): Promise<string> {
    const { authorised } = await import('../../adapters/pl-ksef/client.ts');
    const { encryptInvoice, newSessionKey, rsaOaepEncrypt, sha256Base64, ministryKeyOf } = await import('../../adapters/pl-ksef/crypto.ts');
    const session = newSessionKey();
    const key = ministryKeyOf(ksef.certPem);
    const open = await authorised(host, 'POST', '/sessions/online', { json: { formCode: { systemCode: 'FA (3)', schemaVersion: '1-0E', value: 'FA' }, encryption: { encryptedSymmetricKey: rsaOaepEncrypt(key, session.key).toString('base64'), initializationVector: session.iv.toString('base64') } } });
    const sessionRef = JSON.parse(open.text()).referenceNumber as string;
    const plain = Buffer.from(xml);
    const enc = encryptInvoice(session, plain);
    const res = await authorised(host, 'POST', `/sessions/online/${sessionRef}/invoices`, { json: { invoiceHash: sha256Base64(plain), invoiceSize: plain.length, encryptedInvoiceHash: sha256Base64(enc), encryptedInvoiceSize: enc.length, encryptedInvoiceContent: enc.toString('base64') } });
    return `${sessionRef}/${JSON.parse(res.text()).referenceNumber}/2026-11-20/${Date.now()}`;
  }
});

describe('pl-ksef ↔ KSeF simulator: the inbox', () => {
  it('fetches the invoices addressed to our NIP page by page, each accepted once with its FA(3) original, canonical and UBL forms', async () => {
    // Our company is the buyer here: the poller runs for the buyer's NIP and token.
    ksef.tokens.set('buyer-token', INBOX_NIP);
    const buyerDirectory = [{ organizationId: 'org_buyer', companyId: 'comp_buyer', peppolId: `9945:PL${INBOX_NIP}`, name: 'Nabywca S.A.', country: 'PL', documentTypes: ['invoice'] }];
    const h = { ...memoryHost(buyerDirectory, { config: { baseUrl: ksef.url, environment: 'test', nip: INBOX_NIP, publicKey: ksef.certPem, authPollMs: 20, inboxPageSize: 10, inboxMaxPages: 2 }, secrets: { ksefToken: 'buyer-token' } }), http };
    const buyer = { ...polishInvoice().buyer, vatId: `PL${INBOX_NIP}` };
    const incoming = Array.from({ length: 23 }, (_, i) => ksef.addIncoming(canonicalToFa3(polishInvoice({ number: `IN/${i + 1}`, buyer, seller: { ...polishInvoice().seller, vatId: `PL${OTHER_NIP}`, name: 'Dostawca Sp. z o.o.' } }), { createdAt: '2026-11-20T10:00:00Z' })));
    // An invoice for another buyer is not ours to fetch.
    ksef.addIncoming(canonicalToFa3(polishInvoice({ number: 'NOT/OURS', buyer: { name: 'Ktoś', vatId: `PL${SELLER_NIP}` } }), { createdAt: '2026-11-20T10:00:00Z' }));
    const queriesBefore = ksef.requests.filter((r) => r.path === '/invoices/query/metadata').length;

    await plKsef.start(h);
    expect(h.timerCount()).toBe(1);
    await h.runTimers(); // two pages of ten at most per poll
    expect(h.inboxed.map((d) => d.number)).toEqual(incoming.slice(0, 20).map((s) => s.invoiceNumber));
    expect(ksef.requests.filter((r) => r.path === '/invoices/query/metadata').length - queriesBefore).toBe(2);
    await h.runTimers(); // the rest; the mark is inclusive, so the last one is seen again but not accepted twice
    expect(h.inboxed.map((d) => d.number)).toEqual(incoming.map((s) => s.invoiceNumber));
    await h.runTimers();
    expect(h.inboxed).toHaveLength(23);
    expect(new Set(h.acceptCalls.map((d) => d.messageId)).size).toBe(h.acceptCalls.length);

    const first = h.inboxed[0]!;
    expect(first).toMatchObject({
      messageId: incoming[0]!.ksefNumber, livemode: false, type: 'invoice', number: 'IN/1',
      sender: { peppolId: `9945:PL${OTHER_NIP}`, name: 'Dostawca Sp. z o.o.' },
      recipient: { companyId: 'comp_buyer', organizationId: 'org_buyer', peppolId: `9945:PL${INBOX_NIP}` },
      payload: { contentType: 'application/xml', filename: `${incoming[0]!.ksefNumber}.xml`, syntax: 'ubl-2.1' },
      evidence: { messageId: incoming[0]!.ksefNumber, details: { ksefNumber: incoming[0]!.ksefNumber, authority: 'KSeF' } },
    });
    expect(Buffer.from(first.payload.content, 'base64').toString('utf8')).toBe(incoming[0]!.xml);
    expect(first.payload.normalized).toEqual(fa3ToCanonical(incoming[0]!.xml).canonical);
    expect(first.payload.xml).toContain('<cbc:ID>IN/1</cbc:ID>');
    await plKsef.stop(h);
  });

  it('a download whose bytes do not match KSeF\'s hash is not accepted, and the poll stops there', async () => {
    ksef.tokens.set('third-token', OTHER_NIP);
    const dir = [{ organizationId: 'org_3', companyId: 'comp_3', peppolId: `9945:PL${OTHER_NIP}`, name: 'Dostawca', country: 'PL', documentTypes: ['invoice'] }];
    const h = { ...memoryHost(dir, { config: { baseUrl: ksef.url, environment: 'test', nip: OTHER_NIP, publicKey: ksef.certPem, authPollMs: 20 }, secrets: { ksefToken: 'third-token' } }), http };
    const stored = ksef.addIncoming(canonicalToFa3(polishInvoice({ number: 'TAMPERED/1', buyer: { name: 'Dostawca', vatId: `PL${OTHER_NIP}` } }), { createdAt: '2026-11-20T10:00:00Z' }));
    stored.xml = stored.xml.replace('TAMPERED/1', 'TAMPERED/2');
    await plKsef.start(h);
    await h.runTimers();
    expect(h.acceptCalls).toHaveLength(0);
    expect(h.logged.join('\n')).toContain('does not match its KSeF hash');
  });
});
