/**
 * The pl-ksef connector against the SDK's contract suite (in-memory host, no network: a send is a
 * rejection before any call or a transient outcome), what it refuses before the network, the
 * KOD I link and cryptography checked with node:crypto as the other side, and the XAdES-signed
 * AuthTokenRequest verified by xmlsec1.
 */
import { X509Certificate, constants, createDecipheriv, createHash, generateKeyPairSync, privateDecrypt } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeConnectorContract, memoryHost, sampleMessage } from '../../../adapters/sdk/contract-suite.ts';
import plKsef from '../../../adapters/pl-ksef/pl-ksef.connector.ts';
import { encryptInvoice, encryptKsefToken, kodIUrl, ministryKeyOf, newSessionKey, rsaOaepEncrypt } from '../../../adapters/pl-ksef/crypto.ts';
import { authTokenRequest, signXades } from '../../../adapters/pl-ksef/xades.ts';
import { companySeal } from '../../support/ksef-simulator.ts';
import { SELLER_NIP, polishInvoice } from '../../support/polish-invoice.ts';

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
const config = { baseUrl: 'http://127.0.0.1:9/v2', environment: 'test', nip: SELLER_NIP, publicKey: publicPem, inboxPollMs: 60000 };
const secrets = { ksefToken: 'contract-ksef-token-value' };
const directory = [{ organizationId: 'org_pl', companyId: 'comp_pl', peppolId: `9945:PL${SELLER_NIP}`, name: 'Sprzedawca', country: 'PL', documentTypes: ['invoice'] }];

describeConnectorContract(plKsef, { known: { peppolId: '9945:PL7740001454' }, unknown: { peppolId: '9945:PL7740001454' }, directory, documentType: 'invoice', config, secrets });

const polishMessage = (overrides: Record<string, unknown> = {}) => ({
  ...sampleMessage({ peppolId: '9945:PL7740001454' }, 'invoice'),
  number: 'FV/2026/11/001',
  payload: { content: '', contentType: 'application/xml', normalized: polishInvoice() as unknown as Record<string, unknown> },
  ...overrides,
});

describe('pl-ksef before the network', () => {
  const host = (extra: Record<string, string | number> = {}) => memoryHost(directory, { config: { ...config, ...extra }, secrets });

  it('refuses what KSeF cannot clear, with the paths of what FA(3) cannot hold', async () => {
    expect(await plKsef.send(polishMessage({ type: 'purchase-order' }), host())).toMatchObject({ outcome: 'rejected', errorCode: 'KSEF_UNSUPPORTED_TYPE' });
    expect(await plKsef.send(sampleMessage({ peppolId: '9945:PL7740001454' }, 'invoice'), host())).toMatchObject({ outcome: 'rejected', errorCode: 'KSEF_NOT_STRUCTURED' });
    const foreign = polishInvoice({ seller: { name: 'Vendeur', vatId: 'FR40303265045', address: { city: 'Paris', country: 'FR' } } });
    const r = await plKsef.send(polishMessage({ payload: { content: '', contentType: 'application/xml', normalized: foreign } }), host());
    expect(r).toMatchObject({ outcome: 'rejected', errorCode: 'KSEF_MAPPING', errorMessage: expect.stringContaining('seller.vatId: KSeF takes invoices of Polish taxpayers only') });
  });

  it('never sends a test invoice to production nor a live one to the test environment', async () => {
    expect(await plKsef.send(polishMessage({ livemode: true }), host())).toMatchObject({ outcome: 'rejected', errorCode: 'KSEF_WRONG_ENVIRONMENT' });
    expect(await plKsef.send(polishMessage({ livemode: false }), host({ environment: 'prod' }))).toMatchObject({ outcome: 'rejected', errorCode: 'KSEF_WRONG_ENVIRONMENT' });
  });

  it('a valid invoice it cannot deliver (no network) is transient; a message id that is not its own is rejected', async () => {
    await expect(plKsef.send(polishMessage(), host())).rejects.toMatchObject({ kind: 'transient', code: 'HTTP_NETWORK_ERROR' });
    expect(await plKsef.status({ messageId: 'not-ours', livemode: false }, host())).toMatchObject({ outcome: 'rejected', errorCode: 'KSEF_UNKNOWN_MESSAGE' });
  });

  it('start refuses a configuration without a 10-digit NIP, or without what its authentication method needs', async () => {
    await expect(plKsef.start(host({ nip: '123' }))).rejects.toMatchObject({ code: 'KSEF_CONFIG' });
    await expect(plKsef.start(host({ authMethod: 'xades' }))).rejects.toMatchObject({ code: 'KSEF_CONFIG', message: expect.stringContaining('signingKey') });
    await expect(plKsef.start(host({ authMethod: 'password' }))).rejects.toMatchObject({ code: 'KSEF_CONFIG' });
    await expect(plKsef.start(memoryHost(directory, { config, secrets: {} }))).rejects.toMatchObject({ code: 'KSEF_CONFIG', message: expect.stringContaining('ksefToken') });
  });
});

describe('pl-ksef health (no network)', () => {
  it('ok with a loadable key; warning near the certificate\'s end; failed for a key that does not load, an expired certificate, a signing key not the certificate\'s, a certificate of another NIP', async () => {
    expect(await plKsef.health(memoryHost(directory, { config, secrets }))).toMatchObject({ status: 'ok', message: expect.stringContaining('token authentication') });
    expect(await plKsef.health(memoryHost(directory, { config: { ...config, publicKey: '-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----' }, secrets }))).toMatchObject({ status: 'failed' });
    const seal = companySeal(SELLER_NIP, 'Sprzedawca');
    const other = companySeal('7740001454', 'Nabywca');
    const xades = (certificate: string, signingKey: string, inDays = 0) => memoryHost(directory, { config: { ...config, authMethod: 'xades', certificate }, secrets: { signingKey }, now: () => new Date(Date.now() + inDays * 86_400_000) });
    expect(await plKsef.health(xades(seal.certPem, seal.keyPem))).toMatchObject({ status: 'ok', message: expect.stringContaining('XAdES certificate valid until') });
    expect(await plKsef.health(xades(seal.certPem, seal.keyPem, 350))).toMatchObject({ status: 'warning', message: expect.stringContaining('renew it') });
    expect(await plKsef.health(xades(seal.certPem, seal.keyPem, 400))).toMatchObject({ status: 'failed', message: expect.stringContaining('expired') });
    expect(await plKsef.health(xades(seal.certPem, other.keyPem))).toMatchObject({ status: 'failed', message: expect.stringContaining('not the certificate') });
    expect(await plKsef.health(xades(other.certPem, other.keyPem))).toMatchObject({ status: 'failed', message: expect.stringContaining(`does not name NIP ${SELLER_NIP}`) });
  });
});

describe('pl-ksef cryptography, checked by node:crypto as KSeF would', () => {
  it('the token travels as RSA-OAEP(SHA-256) of token|timestampMs; the session key likewise; the invoice is AES-256-CBC under it', () => {
    const key = ministryKeyOf(publicPem);
    const token = privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, Buffer.from(encryptKsefToken(key, 'tok-1', 1764150000123), 'base64'));
    expect(token.toString()).toBe('tok-1|1764150000123');
    const session = newSessionKey();
    expect([session.key.length, session.iv.length]).toEqual([32, 16]);
    const wrapped = rsaOaepEncrypt(key, session.key);
    expect(privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, wrapped).equals(session.key)).toBe(true);
    const plain = Buffer.from('<Faktura/>'.repeat(7));
    const enc = encryptInvoice(session, plain);
    expect(enc.length % 16).toBe(0);
    const d = createDecipheriv('aes-256-cbc', session.key, session.iv);
    expect(Buffer.concat([d.update(enc), d.final()]).equals(plain)).toBe(true);
  });

  it('KOD I is <qr>/invoice/{NIP}/{DD-MM-YYYY}/{SHA-256 base64url}, as kody-qr.md shows', () => {
    // kody-qr.md's own example: 01-02-2026, NIP 1111111111, hash UtQp9Gpc51y-u3xApZjIjgkpZ01js-J8KflSPW8WzIE.
    const hash = Buffer.from('UtQp9Gpc51y-u3xApZjIjgkpZ01js-J8KflSPW8WzIE', 'base64url').toString('base64');
    expect(kodIUrl('https://qr-test.ksef.mf.gov.pl/', '1111111111', '2026-02-01', hash)).toBe('https://qr-test.ksef.mf.gov.pl/invoice/1111111111/01-02-2026/UtQp9Gpc51y-u3xApZjIjgkpZ01js-J8KflSPW8WzIE');
  });
});

describe('pl-ksef XAdES authentication request, verified by xmlsec1', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pl-ksef-xades-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const seal = companySeal(SELLER_NIP, 'Sprzedawca Sp. z o.o.');
  const verify = (xml: string) => {
    writeFileSync(join(dir, 'req.xml'), xml);
    writeFileSync(join(dir, 'cert.pem'), seal.certPem);
    try {
      execFileSync('xmlsec1', ['--verify', '--pubkey-cert-pem', join(dir, 'cert.pem'), '--id-attr:Id', 'SignedProperties', join(dir, 'req.xml')], { stdio: 'pipe' });
      return true;
    } catch {
      return false;
    }
  };

  it('the AuthTokenRequest is signed enveloped XAdES-BES: xmlsec1 verifies both references; SigningCertificate is the certificate\'s SHA-256', () => {
    const signed = signXades(authTokenRequest('20250604-CR-461EA5B000-537A6BA15D-D7', SELLER_NIP), seal.keyPem, seal.certPem, new Date('2026-11-20T10:00:00Z'));
    expect(verify(signed)).toBe(true);
    expect(signed).toContain(`<AuthTokenRequest xmlns="http://ksef.mf.gov.pl/auth/token/2.0"><Challenge>20250604-CR-461EA5B000-537A6BA15D-D7</Challenge><ContextIdentifier><Nip>${SELLER_NIP}</Nip></ContextIdentifier><SubjectIdentifierType>certificateSubject</SubjectIdentifierType>`);
    expect(signed).toContain('<ds:Reference URI="#SignedProperties" Type="http://uri.etsi.org/01903#SignedProperties">');
    expect(signed).toContain('<xades:SigningTime>2026-11-20T10:00:00Z</xades:SigningTime>');
    const der = Buffer.from(new X509Certificate(seal.certPem).raw);
    expect(signed).toContain(`>${createHash('sha256').update(der).digest('base64')}</ds:DigestValue></xades:CertDigest>`);
    // Changing the signed content, or the signed properties, breaks it.
    expect(verify(signed.replace(`<Nip>${SELLER_NIP}</Nip>`, '<Nip>7740001454</Nip>'))).toBe(false);
    expect(verify(signed.replace('2026-11-20T10:00:00Z</xades:SigningTime>', '2026-11-21T10:00:00Z</xades:SigningTime>'))).toBe(false);
  });
});
