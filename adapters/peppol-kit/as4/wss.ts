/**
 * WS-Security 1.1.1 signatures as the Peppol AS4 profile uses them (peppol-transport.md §1.5):
 * RSA-SHA256 over exclusive-canonical eb:Messaging and S12:Body plus each attachment's bytes
 * (SwA Attachment-Content-Signature-Transform), the signer's certificate in a BinarySecurityToken.
 *
 * xml-crypto's SignedXml cannot resolve `cid:` references, so the layer is assembled here from
 * its canonicaliser; only the namespace order is corrected (§9 P1: xml-crypto sorts namespace
 * declarations with localeCompare, C14N wants code-point order, and phase4's `S12` next to `eb`
 * then breaks every digest). Verification reads the original bytes; nothing is re-serialised.
 */
import { createHash, sign as rsaSign, timingSafeEqual, verify as rsaVerify, X509Certificate, type KeyObject } from 'node:crypto';
import { ExclusiveCanonicalization } from 'xml-crypto';
import { ancestorNamespaces, child, children, descendants, parseStrictXml, text, type DomDocument, type DomElement } from '../dom.ts';
import { ALG, As4Error, NS } from './ebms.ts';

/** Exclusive C14N with namespace declarations in code-point order of their prefixes. */
class CodePointExclusiveC14n extends ExclusiveCanonicalization {
  override nsCompare(a: { prefix: string }, b: { prefix: string }): number {
    return a.prefix < b.prefix ? -1 : a.prefix > b.prefix ? 1 : 0;
  }
}
const canonicaliser = new CodePointExclusiveC14n();

/** The exclusive canonical form of `el` in its document (InclusiveNamespaces prefixes honoured). */
export function canonicalise(el: DomElement, inclusivePrefixes: string[] = []): string {
  const options = { inclusiveNamespacesPrefixList: inclusivePrefixes, ancestorNamespaces: ancestorNamespaces(el) };
  return canonicaliser.process(el as unknown as Parameters<ExclusiveCanonicalization['process']>[0], options);
}

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('base64');

/** One ds:Reference as signed: what a receipt's NonRepudiationInformation copies back. */
export interface SignedReference { uri: string; transforms: string[]; digestMethod: string; digestValue: string; inclusivePrefixes: string[] }

/** The ds:Reference element for one signed reference (the receipt repeats these). */
export function referenceXml(ref: SignedReference): string {
  const transforms = ref.transforms.map((t) => (t === ALG.EXC_C14N && ref.inclusivePrefixes.length
    ? `<ds:Transform Algorithm="${t}"><ec:InclusiveNamespaces xmlns:ec="${NS.EC}" PrefixList="${ref.inclusivePrefixes.join(' ')}"/></ds:Transform>`
    : `<ds:Transform Algorithm="${t}"/>`)).join('');
  return `<ds:Reference URI="${escapeAttr(ref.uri)}"><ds:Transforms>${transforms}</ds:Transforms><ds:DigestMethod Algorithm="${ref.digestMethod}"/><ds:DigestValue>${ref.digestValue}</ds:DigestValue></ds:Reference>`;
}

export const escapeAttr = (v: string): string => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
export const escapeText = (v: string): string => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The element of the document whose wsu:Id (or plain Id) is `id`; a repeated id is a wrapping attempt. */
function elementById(doc: DomDocument, id: string): DomElement {
  const found: DomElement[] = [];
  for (const el of descendants(doc.documentElement!)) {
    if (el.getAttributeNS(NS.WSU, 'Id') === id || el.getAttribute('Id') === id) found.push(el);
  }
  if (found.length !== 1) throw new As4Error('EBMS:0101', found.length ? `the id ${id} appears ${found.length} times` : `the signed element #${id} is missing`);
  return found[0]!;
}

/** A ds:Reference element as read: URI, transforms (with InclusiveNamespaces), digest method and value. */
export function referenceOf(el: DomElement): SignedReference {
  const transforms = children(el, [[NS.DS, 'Transforms'], [NS.DS, 'Transform']]);
  const inclusive = transforms.flatMap((t) => children(t, [[NS.EC, 'InclusiveNamespaces']]));
  return {
    uri: el.getAttribute('URI') ?? '',
    transforms: transforms.map((t) => t.getAttribute('Algorithm') ?? ''),
    digestMethod: child(el, NS.DS, 'DigestMethod')?.getAttribute('Algorithm') ?? '',
    digestValue: text(child(el, NS.DS, 'DigestValue')).replace(/\s+/g, ''),
    inclusivePrefixes: (inclusive[0]?.getAttribute('PrefixList') ?? '').split(/\s+/).filter(Boolean),
  };
}

/** The wsse:Security header of a SOAP 1.2 envelope, or undefined. */
export function securityHeader(doc: DomDocument): DomElement | undefined {
  const root = doc.documentElement!;
  return children(root, [[NS.S12, 'Header'], [NS.WSSE, 'Security']])[0];
}

/** The certificate a wsse:SecurityTokenReference points at, which must be an X509v3 BinarySecurityToken. */
export function tokenCertificate(doc: DomDocument, str: DomElement | undefined, what: string): { certificate: X509Certificate; tokenId: string } {
  const ref = str && child(str, NS.WSSE, 'Reference');
  const uri = ref?.getAttribute('URI') ?? '';
  if (!ref || !uri.startsWith('#')) throw new As4Error('EBMS:0103', `the ${what} key must be referenced through a BinarySecurityToken`);
  const token = elementById(doc, uri.slice(1));
  if (token.namespaceURI !== NS.WSSE || token.localName !== 'BinarySecurityToken') throw new As4Error('EBMS:0103', `the ${what} key reference does not point at a BinarySecurityToken`);
  if (token.getAttribute('ValueType') !== ALG.X509V3) throw new As4Error('EBMS:0103', `the ${what} BinarySecurityToken must be of type X509v3 (got ${token.getAttribute('ValueType')})`);
  try {
    return { certificate: new X509Certificate(Buffer.from(text(token).replace(/\s+/g, ''), 'base64')), tokenId: uri.slice(1) };
  } catch {
    throw new As4Error('EBMS:0101', `the ${what} BinarySecurityToken is not a certificate`);
  }
}

export interface SignatureCheck {
  signer: X509Certificate;
  references: SignedReference[];
  /** The elements the signature covers (by identity), to check that what matters is among them. */
  signedElements: Set<DomElement>;
  signedAttachments: Set<string>;
}

/**
 * Verifies the one ds:Signature in wsse:Security: algorithms as the profile fixes them (anything
 * else EBMS:0103), every reference's digest (attachments by content id, already decrypted), then
 * SignedInfo with the BinarySecurityToken's key (EBMS:0101). Trust in the signer is the caller's.
 */
export function verifySignature(doc: DomDocument, attachments: ReadonlyMap<string, Buffer> = new Map()): SignatureCheck {
  const security = securityHeader(doc);
  const signatures = security ? children(security, [[NS.DS, 'Signature']]) : [];
  if (signatures.length === 0) throw new As4Error('EBMS:0101', 'the message is not signed');
  if (signatures.length > 1) throw new As4Error('EBMS:0101', 'the message carries more than one signature');
  const signature = signatures[0]!;
  const signedInfo = child(signature, NS.DS, 'SignedInfo');
  if (!signedInfo) throw new As4Error('EBMS:0101', 'the signature has no SignedInfo');
  const c14nMethod = child(signedInfo, NS.DS, 'CanonicalizationMethod');
  if (c14nMethod?.getAttribute('Algorithm') !== ALG.EXC_C14N) throw new As4Error('EBMS:0103', `canonicalization ${c14nMethod?.getAttribute('Algorithm')} is not exclusive C14N`);
  const signatureMethod = child(signedInfo, NS.DS, 'SignatureMethod')?.getAttribute('Algorithm');
  if (signatureMethod !== ALG.RSA_SHA256) throw new As4Error('EBMS:0103', `signature method ${signatureMethod} is not RSA-SHA256`);
  const { certificate } = tokenCertificate(doc, children(signature, [[NS.DS, 'KeyInfo'], [NS.WSSE, 'SecurityTokenReference']])[0], 'signing');

  const references = children(signedInfo, [[NS.DS, 'Reference']]).map(referenceOf);
  if (references.length === 0) throw new As4Error('EBMS:0101', 'the signature covers nothing');
  if (new Set(references.map((r) => r.uri)).size !== references.length) throw new As4Error('EBMS:0101', 'a reference is signed twice');
  const signedElements = new Set<DomElement>();
  const signedAttachments = new Set<string>();
  for (const ref of references) {
    if (ref.digestMethod !== ALG.SHA256) throw new As4Error('EBMS:0103', `digest method ${ref.digestMethod} is not SHA-256`);
    let actual: string;
    if (ref.uri.startsWith('#')) {
      if (ref.transforms.length !== 1 || ref.transforms[0] !== ALG.EXC_C14N) throw new As4Error('EBMS:0103', `reference ${ref.uri} must be transformed by exclusive C14N only`);
      const el = elementById(doc, ref.uri.slice(1));
      signedElements.add(el);
      actual = sha256(canonicalise(el, ref.inclusivePrefixes));
    } else if (ref.uri.startsWith('cid:')) {
      if (ref.transforms.length !== 1 || ref.transforms[0] !== ALG.ATTACHMENT_CONTENT_SIGNATURE) throw new As4Error('EBMS:0103', `attachment ${ref.uri} must be signed with the Attachment-Content-Signature-Transform`);
      const id = ref.uri.slice(4);
      const bytes = attachments.get(id);
      if (!bytes) throw new As4Error('EBMS:0101', `the signed attachment ${ref.uri} is missing`);
      signedAttachments.add(id);
      actual = sha256(bytes);
    } else {
      throw new As4Error('EBMS:0103', `reference ${ref.uri} is neither a local id nor an attachment`);
    }
    if (!equalDigests(actual, ref.digestValue)) throw new As4Error('EBMS:0101', `the digest of ${ref.uri} does not match: the message was changed after signing`);
  }
  const inclusive = (children(c14nMethod, [[NS.EC, 'InclusiveNamespaces']])[0]?.getAttribute('PrefixList') ?? '').split(/\s+/).filter(Boolean);
  const signatureValue = Buffer.from(text(child(signature, NS.DS, 'SignatureValue')).replace(/\s+/g, ''), 'base64');
  const ok = rsaVerify('sha256', Buffer.from(canonicalise(signedInfo, inclusive)), certificate.publicKey, signatureValue);
  if (!ok) throw new As4Error('EBMS:0101', 'the signature value does not verify with the signing certificate');
  return { signer: certificate, references, signedElements, signedAttachments };
}

const equalDigests = (a: string, b: string): boolean => {
  const x = Buffer.from(a, 'base64');
  const y = Buffer.from(b, 'base64');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
};

/** Where signEnvelope puts the ds:Signature: this comment, once, inside wsse:Security. */
export const SIGNATURE_SLOT = '<!--ds:Signature-->';

export interface SigningKey { certificate: X509Certificate; privateKey: KeyObject }

/**
 * Signs an envelope written with SIGNATURE_SLOT inside its wsse:Security, which already holds the
 * signer's BinarySecurityToken `tokenId`: the elements `ids` (eb:Messaging, S12:Body) and the
 * attachments (their bytes as sent before encryption, i.e. the gzip). Returns the signed envelope
 * text, which is what goes on the wire, and the references (kept to check the receipt's copy).
 */
export function signEnvelope(envelope: string, input: { ids: string[]; attachments: Array<{ contentId: string; bytes: Buffer }>; key: SigningKey; tokenId: string; signatureId: string }): { xml: string; references: SignedReference[] } {
  const slots = envelope.split(SIGNATURE_SLOT).length - 1;
  if (slots !== 1) throw new Error(`the envelope must hold exactly one signature slot (found ${slots})`);
  const unsigned = parseStrictXml(envelope);
  const references: SignedReference[] = [
    ...input.ids.map((id) => {
      const el = elementById(unsigned, id);
      // phase4 includes S12 on eb:Messaging, whose mustUnderstand uses it; harmless elsewhere.
      const inclusivePrefixes = el.localName === 'Messaging' ? ['S12'] : [];
      return { uri: `#${id}`, transforms: [ALG.EXC_C14N], digestMethod: ALG.SHA256, digestValue: sha256(canonicalise(el, inclusivePrefixes)), inclusivePrefixes };
    }),
    ...input.attachments.map((a) => ({ uri: `cid:${a.contentId}`, transforms: [ALG.ATTACHMENT_CONTENT_SIGNATURE], digestMethod: ALG.SHA256, digestValue: sha256(a.bytes), inclusivePrefixes: [] })),
  ];
  const signedInfo = `<ds:SignedInfo><ds:CanonicalizationMethod Algorithm="${ALG.EXC_C14N}"><ec:InclusiveNamespaces xmlns:ec="${NS.EC}" PrefixList="S12"/></ds:CanonicalizationMethod>`
    + `<ds:SignatureMethod Algorithm="${ALG.RSA_SHA256}"/>${references.map(referenceXml).join('')}</ds:SignedInfo>`;
  const VALUE_SLOT = '<!--ds:SignatureValue-->';
  const withSignedInfo = envelope.replace(SIGNATURE_SLOT, `<ds:Signature xmlns:ds="${NS.DS}" Id="${escapeAttr(input.signatureId)}">${signedInfo}<ds:SignatureValue>${VALUE_SLOT}</ds:SignatureValue>`
    + `<ds:KeyInfo><wsse:SecurityTokenReference><wsse:Reference URI="#${escapeAttr(input.tokenId)}" ValueType="${ALG.X509V3}"/></wsse:SecurityTokenReference></ds:KeyInfo></ds:Signature>`);
  const doc = parseStrictXml(withSignedInfo);
  const signedInfoEl = children(securityHeader(doc)!, [[NS.DS, 'Signature'], [NS.DS, 'SignedInfo']])[0]!;
  const value = rsaSign('sha256', Buffer.from(canonicalise(signedInfoEl, ['S12'])), input.key.privateKey).toString('base64');
  return { xml: withSignedInfo.replace(VALUE_SLOT, value), references };
}

/** A BinarySecurityToken element carrying `certificate`. */
export function binarySecurityTokenXml(id: string, certificate: X509Certificate): string {
  return `<wsse:BinarySecurityToken EncodingType="${ALG.BASE64_BINARY}" ValueType="${ALG.X509V3}" wsu:Id="${escapeAttr(id)}">${certificate.raw.toString('base64')}</wsse:BinarySecurityToken>`;
}
