/**
 * Peppol PKI (peppol-transport.md §4, §9 P13/P15/P16, §10 levels 1.6 and 2).
 *
 * Corpus (shared/corpus/peppol-transport/): the G2 test AP keystore
 * `phase4/certs/peppol-expired-ap-cert-pw-peppol.p12` (RC2-40, password `peppol`, CN=POP000306),
 * the G2 anchors `peppol-commons/pki/trustedca/2018/*.cer`, the expired G2 AP certificate
 * `peppol-commons/pki/peppol-ap-cert-expired.pem`, and the G3 test signer of
 * `phase4/user-message/dump-raw.as4out` (the BinarySecurityToken ds:Signature's KeyInfo refers to).
 * Checks at fixed clocks (P13).
 *
 * Generated: our own Peppol-shaped test PKI (test/support/peppol-pki.ts) with its loopback OCSP
 * responder and CRL server.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { X509Certificate, createSign, createVerify } from 'node:crypto';
import forge from 'node-forge';
import {
  PkiError, RevocationChecker, checkApCertificate, loadApIdentity, peppolTrustStore, trustStoreOf, type ApIdentity, type TrustStore,
} from '../../../adapters/peppol-kit/pki.ts';
import { createPeppolTestPki, loopbackFetch, startRevocationServer, type PeppolTestPki, type RevocationServer, type TestPkiEntity } from '../../support/peppol-pki.ts';
import { CORPUS_DIR, corpusAvailable, CORPUS_MISSING } from '../../support/corpus.ts';

if (!corpusAvailable()) throw new Error(CORPUS_MISSING);
const TRANSPORT = join(CORPUS_DIR, 'peppol-transport');
const G2_P12 = join(TRANSPORT, 'phase4/certs/peppol-expired-ap-cert-pw-peppol.p12');
const G2_DIR = join(TRANSPORT, 'peppol-commons/pki/trustedca/2018');

function g2Store(): TrustStore {
  return trustStoreOf(readdirSync(G2_DIR).filter((f) => f.endsWith('.cer')).map((f) => readFileSync(join(G2_DIR, f))));
}

/** The signer of dump-raw.as4out: the BinarySecurityToken whose wsu:Id ds:Signature's KeyInfo refers to. */
function dumpRawSigner(): X509Certificate {
  const mime = readFileSync(join(TRANSPORT, 'phase4/user-message/dump-raw.as4out'), 'latin1');
  const signature = mime.slice(mime.indexOf('<ds:Signature '));
  const keyInfo = /<ds:KeyInfo\b[\s\S]*?<\/ds:KeyInfo>/.exec(signature)![0];
  const id = /<wsse:Reference URI="#([^"]+)"/.exec(keyInfo)![1]!;
  const bst = new RegExp(`<wsse:BinarySecurityToken\\b[^>]*wsu:Id="${id}"[^>]*>([^<]+)</wsse:BinarySecurityToken>`).exec(mime)![1]!;
  return new X509Certificate(Buffer.from(bst.replace(/\s+/g, ''), 'base64'));
}

const NOW = () => new Date();

describe('the corpus (level 1.6)', () => {
  let g2p12: ApIdentity;
  beforeAll(() => { g2p12 = loadApIdentity({ pkcs12: readFileSync(G2_P12), passphrase: 'peppol' }); });

  it('opens the G2 PKCS#12 (legacy RC2-40) with password "peppol": key, certificate POP000306 and its chain', () => {
    expect(g2p12.seatId).toBe('POP000306');
    expect(g2p12.certificate.subject).toContain('OU=PEPPOL TEST AP');
    expect(g2p12.certificate.checkPrivateKey(g2p12.privateKey)).toBe(true);
    expect(g2p12.certificatePem).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(g2p12.chain.map((c) => c.subject.split('\n').at(-1))).toEqual(['CN=PEPPOL ACCESS POINT TEST CA - G2', 'CN=PEPPOL Root TEST CA - G2']);
  });

  it('the G2 chain validates against the G2 anchors in 2020, is expired now, and is untrusted by G3', async () => {
    const g2 = g2Store();
    expect(g2.roots).toHaveLength(2);
    expect(g2.intermediates).toHaveLength(4);
    expect(await checkApCertificate(g2p12.certificate, { trust: g2, now: new Date('2020-06-01T00:00:00Z') }))
      .toEqual({ ok: true, seatId: 'POP000306', notAfter: new Date(g2p12.certificate.validTo) });
    expect(await checkApCertificate(g2p12.certificate, { trust: g2, now: new Date('2020-06-01T00:00:00Z'), expectedSeatId: 'POP000306' })).toMatchObject({ ok: true });
    // The chain that came in the keystore is enough too.
    expect(await checkApCertificate(g2p12.certificate, { trust: trustStoreOf(g2p12.chain.map((c) => c.toString())), now: new Date('2020-06-01T00:00:00Z') })).toMatchObject({ ok: true });
    expect(await checkApCertificate(g2p12.certificate, { trust: g2, now: NOW() })).toMatchObject({ ok: false, problem: 'expired', seatId: 'POP000306' });
    expect(await checkApCertificate(g2p12.certificate, { trust: peppolTrustStore('test'), now: new Date('2020-06-01T00:00:00Z') })).toMatchObject({ ok: false, problem: 'untrusted' });
    expect(await checkApCertificate(g2p12.certificate, { trust: peppolTrustStore('test'), now: NOW() })).toMatchObject({ ok: false, problem: 'untrusted' });
  });

  it('peppol-ap-cert-expired.pem is rejected as expired (and its CN PP_C3 is no seat id while it was valid)', async () => {
    const cert = new X509Certificate(readFileSync(join(TRANSPORT, 'peppol-commons/pki/peppol-ap-cert-expired.pem')));
    expect(await checkApCertificate(cert, { trust: g2Store(), now: NOW() })).toMatchObject({ ok: false, problem: 'expired', seatId: 'PP_C3' });
    expect(await checkApCertificate(cert, { trust: g2Store(), now: new Date('2023-06-01T00:00:00Z') })).toMatchObject({ ok: false, problem: 'bad-seat-id' });
  });

  it("dump-raw.as4out's signer (G3 test, POP000306) chains to the G3 test anchors, not to production", async () => {
    const signer = dumpRawSigner();
    expect(signer.subject).toContain('CN=POP000306');
    const at = new Date('2026-06-01T00:00:00Z');
    expect(await checkApCertificate(signer, { trust: peppolTrustStore('test'), now: at, expectedSeatId: 'POP000306' }))
      .toEqual({ ok: true, seatId: 'POP000306', notAfter: new Date(signer.validTo) });
    expect(await checkApCertificate(signer, { trust: peppolTrustStore('production'), now: at })).toMatchObject({ ok: false, problem: 'untrusted' });
    expect(await checkApCertificate(signer, { trust: g2Store(), now: at })).toMatchObject({ ok: false, problem: 'untrusted' });
    expect(await checkApCertificate(signer, { trust: peppolTrustStore('test'), now: at, expectedSeatId: 'POP000001' })).toMatchObject({ ok: false, problem: 'party-mismatch' });
  });
});

describe('the shipped G3 trust stores', () => {
  it('hold one root and the AP and SMP CAs each, test and production apart', () => {
    const test = peppolTrustStore('test');
    const prod = peppolTrustStore('production');
    expect(test.roots.map((c) => c.subject)).toEqual(['C=BE\nO=OpenPEPPOL AISBL\nOU=FOR TEST ONLY\nCN=PEPPOL Root TEST CA - G3']);
    expect(prod.roots.map((c) => c.subject)).toEqual(['C=BE\nO=OpenPEPPOL AISBL\nCN=PEPPOL Root CA - G3']);
    expect(test.intermediates.map((c) => c.subject.split('\n').at(-1)).sort()).toEqual(['CN=PEPPOL ACCESS POINT TEST CA - G3', 'CN=PEPPOL SERVICE METADATA PUBLISHER TEST CA - G3']);
    expect(prod.intermediates.map((c) => c.subject.split('\n').at(-1)).sort()).toEqual(['CN=PEPPOL ACCESS POINT CA - G3', 'CN=PEPPOL SERVICE METADATA PUBLISHER CA - G3']);
    const testPrints = new Set([...test.roots, ...test.intermediates].map((c) => c.fingerprint256));
    expect([...prod.roots, ...prod.intermediates].some((c) => testPrints.has(c.fingerprint256))).toBe(false);
    expect([...prod.roots, ...prod.intermediates].some((c) => /TEST/.test(c.subject))).toBe(false);
  });

  it('refuses an unknown kind', () => {
    expect(() => peppolTrustStore('acceptance' as never)).toThrow(expect.objectContaining({ code: 'UNKNOWN_TRUST_STORE' }));
  });

  it('trustStoreOf takes concatenated PEM and DER, and sorts roots from intermediates', () => {
    const test = peppolTrustStore('test');
    const store = trustStoreOf([`${test.roots[0]!.toString()}\n${test.intermediates[0]!.toString()}`, test.intermediates[1]!.raw, test.roots[0]!.raw]);
    expect(store.roots).toHaveLength(1);
    expect(store.intermediates).toHaveLength(2);
    expect(() => trustStoreOf(['not a certificate'])).toThrow(expect.objectContaining({ code: 'CERTIFICATE_UNREADABLE' }));
  });
});

describe('our generated Peppol test PKI (level 2)', () => {
  let server: RevocationServer;
  let pki: PeppolTestPki;
  const checker = (extra: Partial<ConstructorParameters<typeof RevocationChecker>[0]> = {}) => new RevocationChecker({ fetch: loopbackFetch, softFail: false, ...extra });
  const check = (entity: TestPkiEntity, options: { trust?: TrustStore; revocation?: RevocationChecker; expectedSeatId?: string; now?: Date } = {}) =>
    checkApCertificate(entity.certificate, { trust: options.trust ?? pki.trust, now: options.now ?? NOW(), ...options });

  beforeAll(async () => {
    server = await startRevocationServer();
    pki = createPeppolTestPki(server.url);
    server.serve(pki);
  });
  afterAll(() => server?.close());
  beforeEach(() => { server.outage.ocsp = false; server.outage.crl = false; server.ocspSigner = undefined; });

  it('is shaped like Peppol G3: names, key usages, AIA OCSP and CRL on loopback', () => {
    expect(pki.root.certificate.subject).toBe('C=BE\nO=OpenPEPPOL AISBL\nOU=FOR TEST ONLY\nCN=PEPPOL Root TEST CA - G3');
    expect(pki.apCa.certificate.subject).toContain('CN=PEPPOL ACCESS POINT TEST CA - G3');
    expect(pki.smpCa.certificate.subject).toContain('CN=PEPPOL SERVICE METADATA PUBLISHER TEST CA - G3');
    const ap = pki.ap1.certificate;
    expect(ap.subject).toMatch(/^C=NO\nO=.+\nOU=PEPPOL TEST AP\nCN=POP000001$/);
    expect(ap.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']); // EKU clientAuth
    expect(ap.infoAccess).toContain(`OCSP - URI:${server.url}/ocsp`);
    const text = forge.pki.certificateFromPem(pki.ap1.certificatePem);
    expect(text.getExtension('keyUsage')).toMatchObject({ critical: true, digitalSignature: true, keyEncipherment: true, dataEncipherment: true, keyCertSign: false });
    expect(text.getExtension('cRLDistributionPoints')).toBeTruthy();
    expect(pki.trust.roots).toHaveLength(1);
    expect(pki.trust.intermediates).toHaveLength(2);
  });

  it('a good AP passes, its OCSP answer cached', async () => {
    const revocation = checker();
    const before = server.requests.ocsp;
    expect(await check(pki.ap1, { revocation })).toEqual({ ok: true, seatId: 'POP000001', notAfter: new Date(pki.ap1.certificate.validTo) });
    expect(await check(pki.ap1, { revocation, expectedSeatId: 'pop000001' })).toMatchObject({ ok: true });
    expect(await check(pki.ap2, { revocation })).toMatchObject({ ok: true, seatId: 'POP000002' });
    expect(server.requests.ocsp - before).toBe(2);
  });

  it('the cache expires with its ttl', async () => {
    let clock = Date.now();
    const revocation = checker({ cacheTtlMs: 1000, now: () => new Date(clock) });
    const before = server.requests.ocsp;
    await revocation.check(pki.ap1.certificate, pki.apCa.certificate);
    await revocation.check(pki.ap1.certificate, pki.apCa.certificate);
    clock += 1001;
    expect(await revocation.check(pki.ap1.certificate, pki.apCa.certificate)).toBe('good');
    expect(server.requests.ocsp - before).toBe(2);
  });

  it('a revoked AP is revoked through OCSP', async () => {
    const crls = server.requests.crl;
    expect(await check(pki.revokedAp, { revocation: checker() })).toMatchObject({ ok: false, problem: 'revoked', seatId: 'POP000003' });
    expect(server.requests.crl).toBe(crls);
  });

  it('with the OCSP responder down, the CRL still says revoked (and good for the others)', async () => {
    server.outage.ocsp = true;
    const revocation = checker();
    const crls = server.requests.crl;
    expect(await check(pki.revokedAp, { revocation })).toMatchObject({ ok: false, problem: 'revoked' });
    expect(await check(pki.ap2, { revocation })).toMatchObject({ ok: true });
    expect(server.requests.crl - crls).toBe(1); // one download, then the cached CRL
  });

  it('with both down: revocation-unknown, unless soft-fail', async () => {
    server.outage.ocsp = true;
    server.outage.crl = true;
    expect(await check(pki.ap1, { revocation: checker() })).toMatchObject({ ok: false, problem: 'revocation-unknown', seatId: 'POP000001' });
    expect(await check(pki.ap1, { revocation: checker({ softFail: true }) })).toMatchObject({ ok: true, seatId: 'POP000001' });
    // A revoked certificate still fails once the network is back (unknown is not cached).
    const revocation = checker({ softFail: true });
    expect(await check(pki.revokedAp, { revocation })).toMatchObject({ ok: true });
    server.outage.ocsp = false;
    expect(await check(pki.revokedAp, { revocation })).toMatchObject({ ok: false, problem: 'revoked' });
  });

  it('configured OCSP and CRL URLs override the certificate\'s', async () => {
    const revocation = checker({ ocspUrl: `${server.url}/no-responder-here`, crlUrl: `${server.url}/crl/${pki.apCa.slug}.crl` });
    expect(await revocation.check(pki.revokedAp.certificate, pki.apCa.certificate)).toBe('revoked');
    expect(await revocation.check(pki.ap1.certificate, pki.apCa.certificate)).toBe('good');
  });

  it('does not believe an OCSP answer about another certificate, nor one signed by another CA', async () => {
    const recorded: Buffer[] = [];
    await checker({ fetch: async (url, req) => { const r = await loopbackFetch(url, req); recorded.push(r.body); return r; } })
      .check(pki.ap1.certificate, pki.apCa.certificate);
    const replay = checker({ fetch: async (url, req) => (req ? { status: 200, body: recorded[0]! } : loopbackFetch(url, req)) });
    // ap1's "good" (another certificate, another nonce) replayed for the revoked one: ignored, the CRL decides.
    expect(await replay.check(pki.revokedAp.certificate, pki.apCa.certificate)).toBe('revoked');
    // An answer about the right certificate, signed by the impostor CA of the same name, is refused; so is its CRL.
    server.ocspSigner = pki.foreignApCa;
    try {
      expect(await checker({ crlUrl: `${server.url}/crl/${pki.foreignApCa.slug}.crl` }).check(pki.revokedAp.certificate, pki.apCa.certificate)).toBe('unknown');
      expect(await checker().check(pki.revokedAp.certificate, pki.apCa.certificate)).toBe('revoked'); // through our CRL
    } finally {
      server.ocspSigner = undefined;
    }
  });

  it('an expired AP is expired; before its validity, not yet valid', async () => {
    expect(await check(pki.expiredAp)).toMatchObject({ ok: false, problem: 'expired', seatId: 'POP000004' });
    expect(await check(pki.ap1, { now: new Date(Date.now() - 10 * 86_400_000) })).toMatchObject({ ok: false, problem: 'not-yet-valid' });
  });

  it('an AP of an impostor CA with the very same names is untrusted', async () => {
    expect(pki.foreignAp.certificate.issuer).toBe(pki.ap1.certificate.issuer);
    expect(await check(pki.foreignAp)).toMatchObject({ ok: false, problem: 'untrusted', seatId: 'POP000005' });
  });

  it('test and production are never mixed', async () => {
    expect(await check(pki.productionAp)).toMatchObject({ ok: false, problem: 'untrusted' });
    expect(await check(pki.productionAp, { trust: pki.productionTrust, revocation: checker() })).toMatchObject({ ok: true, seatId: 'POP000006' });
    expect(await check(pki.ap1, { trust: pki.productionTrust })).toMatchObject({ ok: false, problem: 'untrusted' });
    expect(await check(pki.ap1, { trust: peppolTrustStore('test') })).toMatchObject({ ok: false, problem: 'untrusted' });
  });

  it('an SMP certificate is not an AP certificate, nor is a CA', async () => {
    expect(await check(pki.smp, { revocation: checker() })).toMatchObject({ ok: false, problem: 'not-an-ap-certificate', seatId: 'PXX000001' });
    expect(await check(pki.apCa)).toMatchObject({ ok: false, problem: 'not-an-ap-certificate' });
  });

  it('another seat than the expected one is a party mismatch', async () => {
    expect(await check(pki.ap2, { expectedSeatId: 'POP000001' })).toMatchObject({ ok: false, problem: 'party-mismatch', seatId: 'POP000002' });
  });

  it('a chain missing its AP CA is untrusted', async () => {
    expect(await check(pki.ap1, { trust: trustStoreOf([pki.root.certificatePem]) })).toMatchObject({ ok: false, problem: 'untrusted' });
  });
});

describe('our identity', () => {
  let pki: PeppolTestPki;
  beforeAll(() => { pki = createPeppolTestPki('http://127.0.0.1:9'); });

  function sign(identity: ApIdentity): boolean {
    const signature = createSign('sha256').update('AS4').sign(identity.privateKey);
    return createVerify('sha256').update('AS4').verify(identity.certificate.publicKey, signature);
  }

  it('loads from PEM, the chain issuer first', () => {
    const identity = loadApIdentity({ certificatePem: pki.ap1.certificatePem, privateKeyPem: pki.ap1.privateKeyPem, chainPem: pki.root.certificatePem + pki.apCa.certificatePem });
    expect(identity.seatId).toBe('POP000001');
    expect(identity.certificate.fingerprint256).toBe(pki.ap1.certificate.fingerprint256);
    expect(identity.chain.map((c) => c.fingerprint256)).toEqual([pki.apCa.certificate.fingerprint256, pki.root.certificate.fingerprint256]);
    expect(sign(identity)).toBe(true);
  });

  it('loads from a PKCS#12 written by node-forge; a wrong passphrase is KEY_UNREADABLE', () => {
    const p12 = forge.pkcs12.toPkcs12Asn1(
      forge.pki.privateKeyFromPem(pki.ap2.privateKeyPem),
      [forge.pki.certificateFromPem(pki.ap2.certificatePem), forge.pki.certificateFromPem(pki.apCa.certificatePem)],
      's3cret', { algorithm: '3des', friendlyName: 'ap' },
    );
    const der = Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary');
    const identity = loadApIdentity({ pkcs12: der, passphrase: 's3cret' });
    expect(identity.seatId).toBe('POP000002');
    expect(identity.certificate.fingerprint256).toBe(pki.ap2.certificate.fingerprint256);
    expect(identity.chain.map((c) => c.fingerprint256)).toEqual([pki.apCa.certificate.fingerprint256]);
    expect(sign(identity)).toBe(true);
    const wrong = () => loadApIdentity({ pkcs12: der, passphrase: 'wrong' });
    expect(wrong).toThrow(PkiError);
    expect(wrong).toThrow(expect.objectContaining({ name: 'PkiError', code: 'KEY_UNREADABLE', message: expect.stringMatching(/wrong passphrase/) }));
    expect(() => loadApIdentity({ pkcs12: Buffer.from('not a keystore'), passphrase: 's3cret' })).toThrow(expect.objectContaining({ code: 'KEY_UNREADABLE' }));
  });

  it('refuses an unreadable key and a key of another certificate', () => {
    expect(() => loadApIdentity({ certificatePem: pki.ap1.certificatePem, privateKeyPem: 'garbage' }))
      .toThrow(expect.objectContaining({ code: 'KEY_UNREADABLE' }));
    expect(() => loadApIdentity({ certificatePem: pki.ap1.certificatePem, privateKeyPem: pki.ap2.privateKeyPem }))
      .toThrow(expect.objectContaining({ code: 'KEY_MISMATCH' }));
  });
});
