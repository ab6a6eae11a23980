/**
 * Peppol AS4 message security, golden vectors first (peppol-transport.md §8, §10 levels 1.2 and 4):
 * the corpus's real receipts from Holodeck (Governikus, Dataport) and phase4 verify and the
 * tampered one fails; phase4's UserMessage (`dump-raw.as4out`) reads as the profile says, its
 * SignedInfo and XML references verify, and it cannot be opened by anyone but its receiver
 * (EBMS:0102); the Domibus key references other than BST are refused (EBMS:0103); the unknown
 * algorithm vectors are refused. Then our own messages: their shape matches phase4's element by
 * element, xmlsec1 (libxmlsec1) and libxml2's C14N with OpenSSL verify what we sign, and a pack →
 * unpack → receipt → check round trip holds while every tampering fails with its code.
 */
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, createPrivateKey, verify as rsaVerify, X509Certificate } from 'node:crypto';
import { XmlDocument } from 'libxml2-wasm';
import { children, descendants, parseStrictXml, text, type DomElement } from '../../../adapters/peppol-kit/dom.ts';
import { As4Error, NS } from '../../../adapters/peppol-kit/as4/ebms.ts';
import { canonicalise, verifySignature } from '../../../adapters/peppol-kit/as4/wss.ts';
import { readUserMessage, receiptXml, errorXml, type UserMessageHeader } from '../../../adapters/peppol-kit/as4/messages.ts';
import { checkAnswer, packUserMessage, unpackUserMessage } from '../../../adapters/peppol-kit/as4/exchange.ts';
import { parseMultipartRelated, buildMultipartRelated } from '../../../adapters/peppol-kit/as4/mime.ts';
import { gzipPayload, gunzipPayload } from '../../../adapters/peppol-kit/as4/payload.ts';
import { selfSignedCertificate } from '../../support/certificates.ts';
import { corpusAvailable, CORPUS_MISSING, corpusPath } from '../../support/corpus.ts';
import { splitDump } from '../../support/as4-dumps.ts';

if (!corpusAvailable()) throw new Error(CORPUS_MISSING);
const transport = (...p: string[]) => corpusPath('peppol-transport', ...p);

function ebmsError(fn: () => unknown): As4Error {
  try { fn(); } catch (err) {
    if (err instanceof As4Error) return err;
    throw err;
  }
  throw new Error('expected an As4Error');
}

const receiptBody = (file: string) => {
  const raw = readFileSync(transport('phase4/receipts', file), 'utf8');
  return raw.slice(raw.search(/\r?\n\r?\n/)).trim();
};

describe('golden receipts (phase4/receipts)', () => {
  it.each([
    ['governikus-holodeck.as4in', 'POP000260'],
    ['dataport-holodeck.as4in', 'PDE000357'],
    ['helger-phase4.as4in', 'POP000306'],
  ])('%s verifies (2/2 references, signer %s)', (file, cn) => {
    const check = verifySignature(parseStrictXml(receiptBody(file)));
    expect(check.references).toHaveLength(2);
    expect(check.signer.subject).toContain(`CN=${cn}`);
  });

  it('dataport-holodeck-TAMPERED.as4in fails on the Messaging digest (EBMS:0101)', () => {
    const err = ebmsError(() => verifySignature(parseStrictXml(receiptBody('dataport-holodeck-TAMPERED.as4in'))));
    expect(err.code).toBe('EBMS:0101');
    expect(err.message).toMatch(/digest/);
  });

  it('canonicalises namespace declarations in code-point order (the xml-crypto sort bug, §9 P1)', () => {
    const doc = parseStrictXml(`<S12:E xmlns:S12="${NS.S12}"><eb:M xmlns:eb="${NS.EB}" xmlns:wsu="${NS.WSU}" S12:mustUnderstand="true" wsu:Id="m"/></S12:E>`);
    const m = children(doc.documentElement!, [[NS.EB, 'M']])[0]!;
    const ours = canonicalise(m, ['S12']);
    expect(ours.indexOf('xmlns:S12')).toBeLessThan(ours.indexOf('xmlns:eb'));
    const libxml = XmlDocument.fromString(`<S12:E xmlns:S12="${NS.S12}"><eb:M xmlns:eb="${NS.EB}" xmlns:wsu="${NS.WSU}" S12:mustUnderstand="true" wsu:Id="m"/></S12:E>`);
    try {
      expect(ours).toBe(libxml.get('//*[local-name()="M"]')!.canonicalizeToString({ mode: 1, inclusiveNamespacePrefixes: ['S12'] }));
    } finally { libxml.dispose(); }
  });
});

describe("phase4's UserMessage (user-message/dump-raw.as4out)", () => {
  const { contentType, body } = splitDump(readFileSync(transport('phase4/user-message/dump-raw.as4out')));
  const { root, attachments } = parseMultipartRelated(contentType, body);
  const doc = parseStrictXml(root.body.toString('utf8'));

  it('reads as the Peppol profile says', () => {
    const { header } = readUserMessage(doc);
    expect(header).toMatchObject({
      messageId: '17a7c374-efe3-41e2-ac0d-8a8f47529e47@phase4',
      timestamp: '2026-01-29T15:39:03.805Z',
      fromParty: 'POP000306', toParty: 'POP000306',
      process: { scheme: 'cenbii-procid-ubl', value: 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0' },
      documentType: { scheme: 'busdox-docid-qns', value: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1' },
      originalSender: { scheme: 'iso6523-actorid-upis', value: '9915:phase4-test-sender' },
      finalRecipient: { scheme: 'iso6523-actorid-upis', value: '9915:helger' },
      part: { contentId: attachments[0]!.contentId, mimeType: 'application/xml', compressionType: 'application/gzip' },
    });
  });

  it('its SignedInfo and both XML references verify (the attachment is for another key)', () => {
    const security = children(doc.documentElement!, [[NS.S12, 'Header'], [NS.WSSE, 'Security']])[0]!;
    const signature = children(security, [[NS.DS, 'Signature']])[0]!;
    const signedInfo = children(signature, [[NS.DS, 'SignedInfo']])[0]!;
    const refs = children(signedInfo, [[NS.DS, 'Reference']]);
    expect(refs.map((r) => r.getAttribute('URI')!.slice(0, 4))).toEqual(['#pha', '#id-', 'cid:']);
    for (const ref of refs.slice(0, 2)) {
      const id = ref.getAttribute('URI')!.slice(1);
      const el = [...descendants(doc.documentElement!)].find((e) => e.getAttributeNS(NS.WSU, 'Id') === id)!;
      const prefixes = (children(ref, [[NS.DS, 'Transforms'], [NS.DS, 'Transform'], [NS.EC, 'InclusiveNamespaces']])[0]?.getAttribute('PrefixList') ?? '').split(' ').filter(Boolean);
      expect(createHash('sha256').update(canonicalise(el, prefixes)).digest('base64')).toBe(text(children(ref, [[NS.DS, 'DigestValue']])[0]));
    }
    const token = children(security, [[NS.WSSE, 'BinarySecurityToken']]).find((t) => `#${t.getAttributeNS(NS.WSU, 'Id')}` === children(signature, [[NS.DS, 'KeyInfo'], [NS.WSSE, 'SecurityTokenReference'], [NS.WSSE, 'Reference']])[0]!.getAttribute('URI'))!;
    const signer = new X509Certificate(Buffer.from(text(token), 'base64'));
    expect(signer.subject).toContain('CN=POP000306');
    const value = Buffer.from(text(children(signature, [[NS.DS, 'SignatureValue']])[0]), 'base64');
    expect(rsaVerify('sha256', Buffer.from(canonicalise(signedInfo, ['S12'])), signer.publicKey, value)).toBe(true);
  });

  it('cannot be opened by us: encrypted for another certificate (EBMS:0102)', () => {
    const err = ebmsError(() => unpackUserMessage(contentType, body, ownKey('POP000009')));
    expect(err.code).toBe('EBMS:0102');
  });
});

describe('foreign key references and algorithms', () => {
  it.each([
    ['domibus/bst_X509PKIPathv1_incoming_message.xml', 'EBMS:0103'],
    ['domibus/ski_incoming_message.xml', 'EBMS:0103'],
    ['domibus/is_incoming_message.xml', 'EBMS:0103'],
    ['domibus/bst_x509v3_incoming_message.xml', 'EBMS:0101'], // a BST, but pretty-printed after signing
    ['phase4/negative/WrongSigningAlgorithm.xml', 'EBMS:0103'],
    ['phase4/negative/WrongSigningDigestAlgorithm.xml', 'EBMS:0103'],
  ])('%s → %s', (file, code) => {
    const err = ebmsError(() => verifySignature(parseStrictXml(readFileSync(transport(file), 'utf8')), new Map([['x', Buffer.alloc(0)]])));
    expect(err.code).toBe(code);
  });

  it('WrongCompression.mime is refused for its CompressionType (EBMS:0303)', () => {
    const { contentType, body } = splitDump(readFileSync(transport('phase4/negative/WrongCompression.mime')));
    expect(ebmsError(() => unpackUserMessage(contentType, body, ownKey('POP000009'))).code).toBe('EBMS:0303');
  });

  it('a malformed envelope is EBMS:0009, never a crash', () => {
    const xml = readFileSync(transport('phase4/negative/UserMessageWithCompressedPayload12-malformed.xml'));
    const mime = buildMultipartRelated(xml, [{ contentId: 'a@b', contentType: 'application/octet-stream', body: Buffer.from('x') }]);
    expect(ebmsError(() => unpackUserMessage(mime.contentType, mime.body, ownKey('POP000009'))).code).toBe('EBMS:0009');
  });
});

// ---------------------------------------------------------------------------------------------

const keys = new Map<string, ReturnType<typeof makeKey>>();
function makeKey(seat: string) {
  const { certPem, keyPem } = selfSignedCertificate(seat);
  return { certificate: new X509Certificate(certPem), privateKey: createPrivateKey(keyPem), certPem };
}
function ownKey(seat: string) {
  if (!keys.has(seat)) keys.set(seat, makeKey(seat));
  return keys.get(seat)!;
}

const INVOICE = {
  process: { scheme: 'cenbii-procid-ubl', value: 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0' },
  documentType: { scheme: 'busdox-docid-qns', value: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1' },
};
function headerOf(over: Partial<UserMessageHeader> = {}): Omit<UserMessageHeader, 'part'> {
  return {
    messageId: `m-${Math.random().toString(36).slice(2)}@einv`, timestamp: new Date().toISOString(), conversationId: 'conv-1',
    fromParty: 'POP000001', toParty: 'POP000002', ...INVOICE,
    originalSender: { scheme: 'iso6523-actorid-upis', value: '0088:5798000000001' }, finalRecipient: { scheme: 'iso6523-actorid-upis', value: '0088:5798000000002' },
    ...over,
  };
}
const SBD = readFileSync(transport('phase4/sbdh/base-sbdh.xml'));

describe('our UserMessage', () => {
  const a = ownKey('POP000001');
  const b = ownKey('POP000002');
  const packed = packUserMessage({ header: headerOf(), sbd: SBD, key: a, receiverCertificate: b.certificate });
  const soapOf = (p: { contentType: string; body: Buffer }) => parseMultipartRelated(p.contentType, p.body).root.body.toString('utf8');

  it("has phase4's shape element by element (dump-raw.as4out)", () => {
    const { contentType, body } = splitDump(readFileSync(transport('phase4/user-message/dump-raw.as4out')));
    const shape = (xml: string) => {
      const doc = parseStrictXml(xml);
      const header = children(doc.documentElement!, [[NS.S12, 'Header']])[0]!;
      const walk = (el: DomElement): string[] => [
        `${el.namespaceURI}|${el.localName}[${Array.from(el.attributes).filter((x) => x.prefix !== 'xmlns' && x.name !== 'xmlns').map((x) => `${x.namespaceURI ?? ''}|${x.localName}`).sort().join(',')}]`,
        ...Array.from(el.childNodes).filter((c): c is DomElement => c.nodeType === 1).flatMap((c) => walk(c).map((s) => `  ${s}`)),
      ];
      return walk(header);
    };
    const theirs = shape(parseMultipartRelated(contentType, body).root.body.toString('utf8'));
    const ours = shape(soapOf(packed));
    // phase4 gives its STR a wsu:Id and its KeyInfo an Id; neither is required (WSS 1.1, §1.5).
    const optional = (lines: string[]) => lines.map((l) => l.replace(/\|Id(?=[,\]])/g, '|').replace(/\[(.*?)\]/, (_m, attrs: string) => `[${attrs.split(',').filter((x: string) => !x.endsWith('|')).join(',')}]`));
    expect(optional(ours)).toEqual(optional(theirs));
  });

  it('verifies with xmlsec1 (its XML references) and with libxml2 C14N + OpenSSL (SignedInfo)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'as4-'));
    const soap = soapOf(packed);
    writeFileSync(join(dir, 'um.xml'), soap);
    writeFileSync(join(dir, 'a.pem'), a.certPem);
    let out = '';
    try {
      execFileSync('xmlsec1', ['--verify', '--pubkey-cert-pem', join(dir, 'a.pem'), '--id-attr:Id', 'Messaging', '--id-attr:Id', 'Body', join(dir, 'um.xml')], { stdio: 'pipe' });
    } catch (err) { out = String((err as { stderr: Buffer }).stderr); }
    // xmlsec1 cannot dereference cid: (SwA transform): the two XML references pass, the attachment is ours to check.
    expect(out).toContain('SignedInfo References (ok/all): 2/3');
    const libxml = XmlDocument.fromString(soap);
    try {
      const signedInfo = libxml.get('//*[local-name()="SignedInfo"]')!;
      const c14n = signedInfo.canonicalizeToString({ mode: 1, inclusiveNamespacePrefixes: ['S12'] });
      const value = Buffer.from(/<ds:SignatureValue>([^<]+)</.exec(soap)![1]!, 'base64');
      expect(rsaVerify('sha256', Buffer.from(c14n), a.certificate.publicKey, value)).toBe(true);
      const cidDigest = /<ds:Reference URI="cid:[^"]+">.*?<ds:DigestValue>([^<]+)</.exec(soap)?.[1];
      expect(cidDigest).toBe(createHash('sha256').update(gzipPayload(SBD)).digest('base64'));
    } finally { libxml.dispose(); }
  });

  it('unpacks at the receiver, whose signed receipt the sender accepts (xmlsec1 verifies it too)', () => {
    const received = unpackUserMessage(packed.contentType, packed.body, b);
    expect(gunzipPayload(received.compressedSbd, 1 << 20).equals(SBD)).toBe(true);
    expect(received.signer.fingerprint256).toBe(a.certificate.fingerprint256);
    expect(received.header.messageId).toBe(packed.messageId);
    const receipt = receiptXml({ refToMessageId: received.header.messageId, references: received.references, key: b, now: new Date() });
    const answer = checkAnswer(receipt.xml, packed);
    expect(answer).toMatchObject({ kind: 'receipt', receiptMessageId: receipt.messageId });
    const dir = mkdtempSync(join(tmpdir(), 'as4-'));
    writeFileSync(join(dir, 'r.xml'), receipt.xml);
    writeFileSync(join(dir, 'b.pem'), b.certPem);
    execFileSync('xmlsec1', ['--verify', '--pubkey-cert-pem', join(dir, 'b.pem'), '--id-attr:Id', 'Messaging', '--id-attr:Id', 'Body', join(dir, 'r.xml')], { stdio: 'pipe' });
  });

  it('refuses a receipt for other digests, another message, or one changed in transit (EBMS:0302)', () => {
    const received = unpackUserMessage(packed.contentType, packed.body, b);
    const other = packUserMessage({ header: headerOf(), sbd: SBD, key: a, receiverCertificate: b.certificate });
    const receipt = receiptXml({ refToMessageId: packed.messageId, references: received.references, key: b, now: new Date() }).xml;
    expect(ebmsError(() => checkAnswer(receipt, { ...other, messageId: packed.messageId })).code).toBe('EBMS:0302');
    expect(ebmsError(() => checkAnswer(receipt, other)).code).toBe('EBMS:0302');
    expect(ebmsError(() => checkAnswer(receipt.replace('<eb:Timestamp>', '<eb:Timestamp>1'), packed)).code).toBe('EBMS:0302');
    expect(ebmsError(() => checkAnswer('not xml', packed)).code).toBe('EBMS:0302');
  });

  it('reads an error signal as such', () => {
    const answer = checkAnswer(errorXml({ refToMessageId: packed.messageId, code: 'EBMS:0004', description: 'not served', detail: 'PEPPOL:NOT_SERVICED', now: new Date() }), packed);
    expect(answer).toEqual({ kind: 'error', code: 'EBMS:0004', detail: 'PEPPOL:NOT_SERVICED', description: 'not served' });
  });

  describe('what a receiver refuses', () => {
    const mime = (soap: string, attachment: Buffer, contentId: string) => buildMultipartRelated(soap, [{ contentId, contentType: 'application/octet-stream', body: attachment }]);
    const parts = parseMultipartRelated(packed.contentType, packed.body);
    const soap = parts.root.body.toString('utf8');
    const att = parts.attachments[0]!;

    it.each([
      { what: 'the header changed after signing', build: () => mime(soap.replace('conv-1', 'conv-2'), att.body, att.contentId!), code: 'EBMS:0101' },
      { what: 'the attachment changed after signing (GCM tag)', build: () => { const t = Buffer.from(att.body); t[40] = t[40]! ^ 1; return mime(soap, t, att.contentId!); }, code: 'EBMS:0102' },
      { what: 'no signature', build: () => mime(soap.replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, ''), att.body, att.contentId!), code: 'EBMS:0101' },
      { what: 'no encryption', build: () => mime(soap.replace(/<xenc:EncryptedData[\s\S]*<\/xenc:EncryptedData>/, ''), att.body, att.contentId!), code: 'EBMS:0102' },
      { what: 'a SubjectKeyIdentifier instead of the BST', build: () => mime(soap.replace(/(<ds:Signature[\s\S]*?<wsse:SecurityTokenReference>)<wsse:Reference [^>]*\/>/, '$1<wsse:KeyIdentifier ValueType="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509SubjectKeyIdentifier">AAAA</wsse:KeyIdentifier>'), att.body, att.contentId!), code: 'EBMS:0103' },
      { what: 'RSA-SHA1', build: () => mime(soap.replace('xmldsig-more#rsa-sha256', 'xmldsig#rsa-sha1'), att.body, att.contentId!), code: 'EBMS:0103' },
      { what: 'not mustUnderstand', build: () => mime(soap.replace(/(<eb:Messaging[^>]*S12:mustUnderstand=")true/, '$1false'), att.body, att.contentId!), code: 'EBMS:0009' },
      { what: 'a second, unsigned Messaging', build: () => mime(soap.replace('</S12:Header>', `<eb:Messaging xmlns:eb="${NS.EB}"/></S12:Header>`), att.body, att.contentId!), code: 'EBMS:0009' },
    ])('$what → $code', ({ build, code }) => {
      const m = build();
      expect(ebmsError(() => unpackUserMessage(m.contentType, m.body, b)).code).toBe(code);
    });

    it('a message encrypted to another certificate → EBMS:0102', () => {
      const m = packUserMessage({ header: headerOf(), sbd: SBD, key: a, receiverCertificate: ownKey('POP000003').certificate });
      expect(ebmsError(() => unpackUserMessage(m.contentType, m.body, b)).code).toBe('EBMS:0102');
    });

    it('a wrong or missing CompressionType → EBMS:0303', () => {
      for (const compressionType of ['application/rar', null]) {
        const m = packUserMessage({ header: { ...headerOf(), part: { compressionType } }, sbd: SBD, key: a, receiverCertificate: b.certificate });
        expect(ebmsError(() => unpackUserMessage(m.contentType, m.body, b)).code).toBe('EBMS:0303');
      }
    });

    it('header rules: PartyId type, AgreementRef, the participants’ type (EBMS:0010 / 0009)', () => {
      const bad = [
        [soap.replace(/type="urn:fdc:peppol.eu:2017:identifiers:ap"/, 'type="other"'), 'EBMS:0010'],
        [soap.replace('urn:fdc:peppol.eu:2017:agreements:tia:ap_provider<', 'urn:other<'), 'EBMS:0010'],
        [soap.replace('name="originalSender" type="iso6523-actorid-upis"', 'name="originalSender"'), 'EBMS:0009'],
        [soap.replace('>POP000001<', '>APP_1000000101<'), 'EBMS:0010'],
      ] as const;
      for (const [xml, code] of bad) {
        expect(ebmsError(() => readUserMessage(parseStrictXml(xml))).code).toBe(code);
      }
    });
  });
});
