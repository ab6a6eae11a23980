/**
 * Peppol discovery, golden vectors: the SML's U-NAPTR and legacy CNAME names (the worked vectors of
 * peppol-transport.md §3.3, from phax/peppol-commons), the NAPTR record's SMP URL, and the SMP
 * signature check on the corpus's real signed service metadata (shared/corpus/peppol-transport/
 * peppol-commons/smp: two valid, one invalid upstream) plus a tampered copy, our own SMP's
 * documents, an untrusted signer and an expired one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { naptrName, legacyCnameName, smpUrlOfNaptr, wildcardCandidates, SML_ZONES, BILLING_DOCUMENT_TYPES } from '../../../mappings/identifiers/peppol-network.ts';
import { verifySignedServiceMetadata, parseServiceMetadata, isActive } from '../../../adapters/peppol-kit/discovery.ts';
import { signedServiceMetadataXml } from '../../../services/smp/smp-documents.ts';
import { smpKeys } from '../../../services/smp/smp-keys.ts';
import { CORPUS_DIR, corpusAvailable, CORPUS_MISSING } from '../../support/corpus.ts';

if (!corpusAvailable()) throw new Error(CORPUS_MISSING);
const SMP_DIR = join(CORPUS_DIR, 'peppol-transport/peppol-commons/smp');
const sample = (name: string) => readFileSync(join(SMP_DIR, name), 'utf8');

/** The certificate a sample is signed with, and a moment inside its validity (the samples are years old). */
function signerOf(xml: string): { cert: X509Certificate; during: Date } {
  const b64 = /<(?:\w+:)?X509Certificate>([^<]+)</.exec(xml)![1]!.replace(/\s+/g, '');
  const cert = new X509Certificate(Buffer.from(b64, 'base64'));
  return { cert, during: new Date(Date.parse(cert.validFrom) + 86_400_000) };
}

describe('SML names', () => {
  it.each([
    ['0088:123ABC', 'y7dzfxaf3d4cjz4kcgrxtec6twvcga4ky7zwa5boif6mswd4tdrq', 'B-f5e78500450d37de5aabe6648ac3bb70'],
    ['9915:test', 'eh5boavaktmbgzyh2a63dz4qov33fvp5nsdvqklucfraayoodw6a', 'B-85008b8279e07ab0392da75fa55856a2'],
    ['0088:1234567890123', 'sjsyvccmqyjxk3weuapffq4x3umcrf4qryherj4vovhmonh7gccq', 'B-382fe691db401c7c4fa3cba634b225c0'],
    ['0010:5798000000001', 'xukhfqabqziki3ykvr2fhr4snfa3pf5vpq6k4tonv3lmvsy5arvq', 'B-e49b223851f6e97cbfce4f72c3402aac'],
  ])('%s → %s', (participant, label, cname) => {
    expect(naptrName(participant, SML_ZONES.production)).toBe(`${label}.iso6523-actorid-upis.participant.sml.prod.tech.peppol.org`);
    expect(legacyCnameName(participant, SML_ZONES.test)).toBe(`${cname}.iso6523-actorid-upis.participant.sml.test.tech.peppol.org`);
  });

  it('reads the SMP URL of a Meta:SMP U-NAPTR record only', () => {
    expect(smpUrlOfNaptr({ flags: 'U', service: 'Meta:SMP', regexp: '!^.*$!https://smp.example.com/!' })).toBe('https://smp.example.com');
    expect(smpUrlOfNaptr({ flags: 'u', service: 'meta:smp', regexp: '#^.*$#http://127.0.0.1:8080/smp#' })).toBe('http://127.0.0.1:8080/smp');
    expect(smpUrlOfNaptr({ flags: 'U', service: 'Meta:LOC', regexp: '!^.*$!https://smp.example.com!' })).toBeUndefined();
    expect(smpUrlOfNaptr({ flags: 'S', service: 'Meta:SMP', regexp: '!^.*$!https://smp.example.com!' })).toBeUndefined();
    expect(smpUrlOfNaptr({ flags: 'U', service: 'Meta:SMP', regexp: '!^a.*$!https://smp.example.com!' })).toBeUndefined();
    expect(smpUrlOfNaptr({ flags: 'U', service: 'Meta:SMP', regexp: '!^.*$!javascript:alert(1)!' })).toBeUndefined();
  });
});

describe('PINT wildcard document types', () => {
  it('are tried most specific first, and only for PINT', () => {
    const jp = 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:peppol:pint:billing-1@jp-1::2.1';
    expect(wildcardCandidates(jp)).toEqual([
      'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:peppol:pint:billing-1@jp-1*::2.1',
      'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:peppol:pint:billing-1*::2.1',
    ]);
    expect(wildcardCandidates('urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:peppol:pint:billing-1::2.1'))
      .toEqual(['urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:peppol:pint:billing-1*::2.1']);
    expect(wildcardCandidates(BILLING_DOCUMENT_TYPES.invoice)).toEqual([]);
  });
});

describe('SMP signatures on the corpus', () => {
  it.each(['signed-service-metadata2.xml', 'signed-service-metadata3-c14n-inclusive.xml'])('%s verifies and its endpoints are read from the signed content', (name) => {
    const xml = sample(name);
    const { cert, during } = signerOf(xml);
    const check = verifySignedServiceMetadata(xml, [cert], during);
    expect(check).toMatchObject({ valid: true });
    const meta = parseServiceMetadata(check.signed!);
    expect(meta.kind).toBe('endpoints');
    if (meta.kind !== 'endpoints') return;
    expect(meta.endpoints.length).toBeGreaterThan(0);
    for (const e of meta.endpoints) {
      expect(e.url).toMatch(/^https?:\/\//);
      expect(e.transportProfile).not.toBe('');
      expect(e.certificateSubject).toMatch(/CN=/);
    }
    if (name.includes('metadata3')) expect(meta.endpoints.map((e) => e.transportProfile)).toContain('peppol-transport-as4-v2_0');
  });

  it('the sample upstream marks invalid fails (digest mismatch)', () => {
    const xml = sample('signed-service-metadata1-INVALID-SIGNATURE.xml');
    const { cert, during } = signerOf(xml);
    const check = verifySignedServiceMetadata(xml, [cert], during);
    expect(check.valid).toBe(false);
    expect(check.reason).toMatch(/does not verify/);
  });

  it('a tampered copy of a valid sample fails: another endpoint address', () => {
    const xml = sample('signed-service-metadata2.xml');
    const tampered = xml.replace(/(<(?:\w+:)?Address>)https?:\/\/[^<]+/, '$1https://attacker.example/as4');
    expect(tampered).not.toBe(xml);
    const { cert, during } = signerOf(xml);
    expect(verifySignedServiceMetadata(tampered, [cert], during)).toMatchObject({ valid: false, reason: expect.stringMatching(/does not verify/) });
  });

  it('a valid signature by a signer outside the trust store is refused, and so is an expired one', () => {
    const xml = sample('signed-service-metadata2.xml');
    const { cert, during } = signerOf(xml);
    expect(verifySignedServiceMetadata(xml, [], during)).toMatchObject({ valid: false, reason: expect.stringMatching(/not trusted/) });
    expect(verifySignedServiceMetadata(xml, [cert], new Date(Date.parse(cert.validTo) + 86_400_000))).toMatchObject({ valid: false, reason: expect.stringMatching(/not valid now/) });
  });
});

describe('our own SMP documents', () => {
  const keys = smpKeys();
  const signer = new X509Certificate(keys.certificatePem);
  const xml = signedServiceMetadataXml('0208:0403170701', BILLING_DOCUMENT_TYPES.invoice, { address: 'https://ap.example/as4', serviceDescription: 'test AP', technicalContactUrl: 'mailto:ops@example.org' }, keys);

  it('verify against the SMP certificate and give the endpoint we published', () => {
    const check = verifySignedServiceMetadata(xml, [signer], new Date());
    expect(check.valid).toBe(true);
    const meta = parseServiceMetadata(check.signed!);
    expect(meta).toMatchObject({ kind: 'endpoints', endpoints: [{ url: 'https://ap.example/as4', transportProfile: 'peppol-transport-as4-v2_0', serviceDescription: 'test AP' }] });
  });

  it('a second signature, or one not on the root, is refused (signature wrapping)', () => {
    const sig = /<ds:Signature[\s\S]*<\/ds:Signature>/.exec(xml)![0];
    const twice = xml.replace('</smp:SignedServiceMetadata>', `${sig}</smp:SignedServiceMetadata>`);
    expect(verifySignedServiceMetadata(twice, [signer], new Date())).toMatchObject({ valid: false, reason: expect.stringMatching(/exactly one signature/) });
  });

  it('honours the activation window', () => {
    const e = { transportProfile: 'x', url: 'https://a', certificate: '', certificateSubject: null, certificateNotAfter: null, serviceDescription: null, technicalContactUrl: null };
    const now = new Date('2026-11-25T00:00:00Z');
    expect(isActive({ ...e, activationDate: '2026-12-01T00:00:00Z', expirationDate: null }, now)).toBe(false);
    expect(isActive({ ...e, activationDate: null, expirationDate: '2026-11-01T00:00:00Z' }, now)).toBe(false);
    expect(isActive({ ...e, activationDate: '2026-01-01T00:00:00Z', expirationDate: '2027-01-01T00:00:00Z' }, now)).toBe(true);
  });
});
