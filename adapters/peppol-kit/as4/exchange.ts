/**
 * One Peppol AS4 exchange end to end, as bytes: the sender's packing of an SBD into a signed and
 * encrypted UserMessage (peppol-transport.md §1.7, sender steps 3–8) and the receiver's unpacking
 * of one (receiver steps 1–7), then the receipt check the sender makes (§1.8). Trust in the
 * certificates, duplicates and storage belong to the caller; every failure here is an As4Error
 * carrying the ebMS code the other side gets.
 */
import { randomUUID, type X509Certificate } from 'node:crypto';
import { children, parseStrictXml, text, XmlSyntaxError, type DomDocument, type DomElement } from '../dom.ts';
import { ALG, As4Error, NS } from './ebms.ts';
import { buildMultipartRelated, parseMultipartRelated, type MimeLimits } from './mime.ts';
import { decryptPayload, encryptPayload, gzipPayload, unwrapKey, wrapKey } from './payload.ts';
import { envelopeXml, nonRepudiationMatches, readSignal, readUserMessage, securityXml, userMessageXml, type UserMessageHeader } from './messages.ts';
import { binarySecurityTokenXml, escapeAttr, securityHeader, signEnvelope, SIGNATURE_SLOT, tokenCertificate, verifySignature, type SignedReference, type SigningKey } from './wss.ts';

export const GZIP = 'application/gzip';

export interface PackedMessage {
  messageId: string;
  contentType: string;
  body: Buffer;
  /** What we signed: the receipt must give these back. */
  references: SignedReference[];
}

/**
 * Packs an SBD for the receiver: gzip, sign (Messaging, Body, the gzip bytes), encrypt the gzip
 * with AES-128-GCM under a fresh key wrapped for the receiver's certificate, MIME. The wsse layout
 * is phase4's: receiver BST → EncryptedKey → EncryptedData → sender BST → Signature.
 */
export function packUserMessage(input: { header: Omit<UserMessageHeader, 'part'> & { part?: Partial<UserMessageHeader['part']> }; key: SigningKey; receiverCertificate: X509Certificate } & ({ sbd: Buffer } | { compressedSbd: Buffer })): PackedMessage {
  const contentId = input.header.part?.contentId ?? `einv-att-${randomUUID()}@cid`;
  // The part's properties may be given (a test's malicious sender does); the payload is gzip regardless.
  const header: UserMessageHeader = { ...input.header, part: { contentId, mimeType: 'application/xml', compressionType: GZIP, ...input.header.part } };
  // A large SBD is compressed beforehand, off the event loop (gzipPayload in a worker).
  const compressed = 'compressedSbd' in input ? input.compressedSbd : gzipPayload(input.sbd);
  const { key, cipherBytes } = encryptPayload(compressed);
  const ids = { messaging: `_m-${randomUUID()}`, body: `_b-${randomUUID()}`, receiverToken: `_r-${randomUUID()}`, senderToken: `_x-${randomUUID()}`, encryptedKey: `EK-${randomUUID()}`, encryptedData: `ED-${randomUUID()}` };
  const encryptedKey = `<xenc:EncryptedKey xmlns:xenc="${NS.XENC}" Id="${ids.encryptedKey}">`
    + `<xenc:EncryptionMethod Algorithm="${ALG.RSA_OAEP}"><ds:DigestMethod xmlns:ds="${NS.DS}" Algorithm="${ALG.SHA256}"/><xenc11:MGF xmlns:xenc11="${NS.XENC11}" Algorithm="${ALG.MGF1_SHA256}"/></xenc:EncryptionMethod>`
    + `<ds:KeyInfo xmlns:ds="${NS.DS}"><wsse:SecurityTokenReference><wsse:Reference URI="#${ids.receiverToken}" ValueType="${ALG.X509V3}"/></wsse:SecurityTokenReference></ds:KeyInfo>`
    + `<xenc:CipherData><xenc:CipherValue>${wrapKey(key, input.receiverCertificate).toString('base64')}</xenc:CipherValue></xenc:CipherData>`
    + `<xenc:ReferenceList><xenc:DataReference URI="#${ids.encryptedData}"/></xenc:ReferenceList></xenc:EncryptedKey>`;
  const encryptedData = `<xenc:EncryptedData xmlns:xenc="${NS.XENC}" Id="${ids.encryptedData}" MimeType="${GZIP}" Type="${ALG.ATTACHMENT_CONTENT_ONLY}">`
    + `<xenc:EncryptionMethod Algorithm="${ALG.AES128_GCM}"/>`
    + `<ds:KeyInfo xmlns:ds="${NS.DS}"><wsse:SecurityTokenReference xmlns:wsse11="${NS.WSSE11}" wsse11:TokenType="${ALG.ENCRYPTED_KEY_TOKEN}"><wsse:Reference URI="#${ids.encryptedKey}"/></wsse:SecurityTokenReference></ds:KeyInfo>`
    + `<xenc:CipherData><xenc:CipherReference URI="cid:${escapeAttr(contentId)}"><xenc:Transforms><ds:Transform xmlns:ds="${NS.DS}" Algorithm="${ALG.ATTACHMENT_CIPHERTEXT}"/></xenc:Transforms></xenc:CipherReference></xenc:CipherData></xenc:EncryptedData>`;
  const security = securityXml(binarySecurityTokenXml(ids.receiverToken, input.receiverCertificate) + encryptedKey + encryptedData
    + binarySecurityTokenXml(ids.senderToken, input.key.certificate) + SIGNATURE_SLOT);
  const envelope = envelopeXml(security, userMessageXml(header, ids.messaging), ids.body);
  const signed = signEnvelope(envelope, { ids: [ids.messaging, ids.body], attachments: [{ contentId, bytes: compressed }], key: input.key, tokenId: ids.senderToken, signatureId: `_s-${randomUUID()}` });
  const mime = buildMultipartRelated(signed.xml, [{ contentId, contentType: 'application/octet-stream', body: cipherBytes }]);
  return { messageId: header.messageId, contentType: mime.contentType, body: mime.body, references: signed.references };
}

export interface UnpackedMessage {
  header: UserMessageHeader;
  /** The Standard Business Document, decrypted, still compressed: gunzipPayload it (in a worker when large). */
  compressedSbd: Buffer;
  signer: X509Certificate;
  /** The references the sender signed: our receipt repeats them. */
  references: SignedReference[];
}


/** Reads the envelope text of a MIME root part: XML 1.0 in UTF-8, well formed, no DTD. */
function envelopeOf(bytes: Buffer): DomDocument {
  try {
    return parseStrictXml(bytes.toString('utf8'));
  } catch (err) {
    throw new As4Error('EBMS:0009', `the SOAP envelope is not well-formed XML: ${err instanceof XmlSyntaxError ? err.message : 'unreadable'}`);
  }
}

/**
 * Unpacks a received UserMessage for us (`key` is our AP key): MIME, the profile's header rules,
 * decryption of the payload (it must be encrypted, for our certificate) and the signature over
 * Messaging, Body and the payload (it must be signed). The payload stays compressed (gzip is the
 * only CompressionType accepted): its decompression, under a cap, is the caller's.
 */
export function unpackUserMessage(contentType: string, body: Buffer, key: SigningKey, limits: Partial<MimeLimits> = {}): UnpackedMessage {
  const { root, attachments } = parseMultipartRelated(contentType, body, limits);
  const doc = envelopeOf(root.body);
  // A compression we cannot undo is refused before anything else is read (phase4 does the same).
  const compressions = Array.from(doc.documentElement!.getElementsByTagNameNS(NS.EB, 'Property'))
    .filter((p) => p.getAttribute('name') === 'CompressionType').map((p) => text(p));
  const unsupported = compressions.find((c) => c !== GZIP);
  if (unsupported !== undefined) throw new As4Error('EBMS:0303', `CompressionType ${unsupported} is not supported: only ${GZIP}`);
  const { header, messaging, body: soapBody } = readUserMessage(doc);
  const security = securityHeader(doc);
  if (!security || !children(security, [[NS.DS, 'Signature']]).length) throw new As4Error('EBMS:0101', 'the message is not signed');
  if (attachments.length !== 1) throw new As4Error('EBMS:0007', `a Peppol message carries exactly one attachment (got ${attachments.length})`);
  const attachment = attachments[0]!;
  if (attachment.contentId !== header.part.contentId) throw new As4Error('EBMS:0007', `the attachment's Content-ID ${attachment.contentId} is not the PartInfo's ${header.part.contentId}`);

  const compressed = decryptAttachment(doc, security, header.part.contentId, attachment.body, key);
  const check = verifySignature(doc, new Map([[header.part.contentId, compressed]]));
  if (!check.signedElements.has(messaging) || !check.signedElements.has(soapBody) || !check.signedAttachments.has(header.part.contentId)) {
    throw new As4Error('EBMS:0101', 'the signature must cover eb:Messaging, the SOAP body and the payload');
  }
  if (header.part.compressionType !== GZIP) throw new As4Error('EBMS:0303', `CompressionType must be ${GZIP} (got ${header.part.compressionType ?? 'none'})`);
  return { header, compressedSbd: compressed, signer: check.signer, references: check.references };
}

/** Finds the EncryptedData for the attachment and its EncryptedKey, checks the algorithms, decrypts. */
function decryptAttachment(doc: DomDocument, security: DomElement, contentId: string, cipherBytes: Buffer, key: SigningKey): Buffer {
  const encryptedData = children(security, [[NS.XENC, 'EncryptedData']]).find((ed) =>
    children(ed, [[NS.XENC, 'CipherData'], [NS.XENC, 'CipherReference']])[0]?.getAttribute('URI') === `cid:${contentId}`);
  if (!encryptedData) throw new As4Error('EBMS:0102', 'the payload is not encrypted');
  const dataMethod = children(encryptedData, [[NS.XENC, 'EncryptionMethod']])[0]?.getAttribute('Algorithm');
  if (dataMethod !== ALG.AES128_GCM) throw new As4Error('EBMS:0103', `payload encryption ${dataMethod} is not AES-128-GCM`);
  const edId = encryptedData.getAttribute('Id');
  const encryptedKey = children(security, [[NS.XENC, 'EncryptedKey']]).find((ek) =>
    children(ek, [[NS.XENC, 'ReferenceList'], [NS.XENC, 'DataReference']]).some((r) => r.getAttribute('URI') === `#${edId}`));
  if (!encryptedKey) throw new As4Error('EBMS:0102', 'no EncryptedKey names the payload');
  const keyMethod = children(encryptedKey, [[NS.XENC, 'EncryptionMethod']])[0];
  const digest = children(keyMethod ?? encryptedKey, [[NS.DS, 'DigestMethod']])[0]?.getAttribute('Algorithm');
  const mgf = children(keyMethod ?? encryptedKey, [[NS.XENC11, 'MGF']])[0]?.getAttribute('Algorithm');
  if (keyMethod?.getAttribute('Algorithm') !== ALG.RSA_OAEP || digest !== ALG.SHA256 || mgf !== ALG.MGF1_SHA256) {
    throw new As4Error('EBMS:0103', 'key transport must be RSA-OAEP with SHA-256 and MGF1-SHA-256');
  }
  // phase4 (since 4.2.6) insists the key names our certificate through a BinarySecurityToken.
  const { certificate } = tokenCertificate(doc, children(encryptedKey, [[NS.DS, 'KeyInfo'], [NS.WSSE, 'SecurityTokenReference']])[0], 'encryption');
  if (certificate.fingerprint256 !== key.certificate.fingerprint256) throw new As4Error('EBMS:0102', `the payload is encrypted for ${certificate.subject.replace(/\n/g, ', ')}, not for us`);
  const wrapped = Buffer.from(text(children(encryptedKey, [[NS.XENC, 'CipherData'], [NS.XENC, 'CipherValue']])[0]).replace(/\s+/g, ''), 'base64');
  return decryptPayload(cipherBytes, unwrapKey(wrapped, key.privateKey));
}

export type ReceiptCheck =
  | { kind: 'receipt'; receiptMessageId: string; signer: X509Certificate; receiptXml: string }
  | { kind: 'error'; code: string; detail: string; description: string };

/**
 * What the receiver answered: a receipt is accepted only when it verifies, names our message and
 * gives back exactly the digests we signed (EBMS:0302 otherwise); an error signal is returned as
 * such. Trust in the receipt's signer is the caller's.
 */
export function checkAnswer(answer: string, sent: { messageId: string; references: SignedReference[] }): ReceiptCheck {
  let doc: DomDocument;
  try { doc = parseStrictXml(answer); } catch { throw new As4Error('EBMS:0302', 'the answer is not XML'); }
  const signal = readSignal(doc);
  if (signal.kind === 'error') {
    const first = signal.errors[0];
    return { kind: 'error', code: first?.code ?? 'EBMS:0004', detail: first?.detail ?? '', description: first?.description ?? '' };
  }
  if (signal.refToMessageId !== sent.messageId) throw new As4Error('EBMS:0302', `the receipt answers ${signal.refToMessageId}, not ${sent.messageId}`);
  let signer: X509Certificate;
  try {
    const check = verifySignature(doc);
    if (!check.signedElements.has(signal.messaging)) throw new As4Error('EBMS:0302', 'the receipt signature does not cover its eb:Messaging');
    signer = check.signer;
  } catch (err) {
    throw new As4Error('EBMS:0302', `the receipt's signature does not verify: ${(err as Error).message}`);
  }
  if (!nonRepudiationMatches(sent.references, signal.nonRepudiation)) throw new As4Error('EBMS:0302', 'the receipt does not give back the digests we signed');
  return { kind: 'receipt', receiptMessageId: signal.messageId, signer, receiptXml: answer };
}

