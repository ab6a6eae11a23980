/**
 * The AS4 messages of the Peppol profile as XML: the UserMessage header (eb:Messaging) we write
 * and the rules we hold a received one to (peppol-transport.md §1.3, phase4's
 * PeppolCompatibilityValidator), and the two signals that answer it: the signed receipt with
 * non-repudiation information (§1.8) and the error (§1.9). Pure text in, text out.
 */
import { randomUUID } from 'node:crypto';
import { child, children, elementChildren, text, type DomDocument, type DomElement } from '../dom.ts';
import { As4Error, EBMS_ERRORS, NS, PEPPOL, isEbmsCode, type EbmsCode } from './ebms.ts';
import { binarySecurityTokenXml, escapeAttr, escapeText, referenceOf, referenceXml, securityHeader, signEnvelope, SIGNATURE_SLOT, type SignedReference, type SigningKey } from './wss.ts';

export interface PeppolId { scheme: string; value: string }

/** What eb:Messaging/eb:UserMessage says, read or to write. */
export interface UserMessageHeader {
  messageId: string;
  timestamp: string;
  conversationId: string;
  /** Seat ids (the CN of each access point's certificate), e.g. POP000306. */
  fromParty: string;
  toParty: string;
  /** The Peppol process (Service/@type and value). */
  process: PeppolId;
  /** The Peppol document type (Action = scheme::value). */
  documentType: PeppolId;
  originalSender: PeppolId;
  finalRecipient: PeppolId;
  /** The one payload part: its content id (no `cid:`), its type before compression and the compression. */
  part: { contentId: string; mimeType: string; compressionType: string | null };
}

export const newMessageId = (): string => `${randomUUID()}@einv`;
export const newContentId = (): string => `einv-att-${randomUUID()}@cid`;

const property = (name: string, value: string, type?: string) =>
  `<eb:Property name="${escapeAttr(name)}"${type ? ` type="${escapeAttr(type)}"` : ''}>${escapeText(value)}</eb:Property>`;

/** eb:Messaging for a Peppol UserMessage, laid out as phase4 writes it (`dump-raw.as4out`). */
export function userMessageXml(header: UserMessageHeader, messagingId: string): string {
  const party = (role: string, seat: string) => `<eb:PartyId type="${PEPPOL.PARTY_TYPE}">${escapeText(seat)}</eb:PartyId><eb:Role>${role}</eb:Role>`;
  return `<eb:Messaging xmlns:eb="${NS.EB}" xmlns:wsu="${NS.WSU}" S12:mustUnderstand="true" wsu:Id="${escapeAttr(messagingId)}"><eb:UserMessage>`
    + `<eb:MessageInfo><eb:Timestamp>${escapeText(header.timestamp)}</eb:Timestamp><eb:MessageId>${escapeText(header.messageId)}</eb:MessageId></eb:MessageInfo>`
    + `<eb:PartyInfo><eb:From>${party(PEPPOL.INITIATOR, header.fromParty)}</eb:From><eb:To>${party(PEPPOL.RESPONDER, header.toParty)}</eb:To></eb:PartyInfo>`
    + `<eb:CollaborationInfo><eb:AgreementRef>${PEPPOL.AGREEMENT}</eb:AgreementRef>`
    + `<eb:Service type="${escapeAttr(header.process.scheme)}">${escapeText(header.process.value)}</eb:Service>`
    + `<eb:Action>${escapeText(`${header.documentType.scheme}::${header.documentType.value}`)}</eb:Action>`
    + `<eb:ConversationId>${escapeText(header.conversationId)}</eb:ConversationId></eb:CollaborationInfo>`
    + `<eb:MessageProperties>${property('originalSender', header.originalSender.value, header.originalSender.scheme)}${property('finalRecipient', header.finalRecipient.value, header.finalRecipient.scheme)}</eb:MessageProperties>`
    + `<eb:PayloadInfo><eb:PartInfo href="cid:${escapeAttr(header.part.contentId)}"><eb:PartProperties>${property('MimeType', header.part.mimeType)}`
    + (header.part.compressionType ? property('CompressionType', header.part.compressionType) : '')
    + '</eb:PartProperties></eb:PartInfo></eb:PayloadInfo></eb:UserMessage></eb:Messaging>';
}

/** A SOAP 1.2 envelope: wsse:Security (given, with SIGNATURE_SLOT) and eb:Messaging in the header, an empty signed Body. */
export function envelopeXml(security: string, messaging: string, bodyId: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><S12:Envelope xmlns:S12="${NS.S12}"><S12:Header>${security}${messaging}</S12:Header>`
    + `<S12:Body xmlns:wsu="${NS.WSU}" wsu:Id="${escapeAttr(bodyId)}"/></S12:Envelope>`;
}

export const securityXml = (inner: string): string =>
  `<wsse:Security xmlns:wsse="${NS.WSSE}" xmlns:wsu="${NS.WSU}" S12:mustUnderstand="true">${inner}</wsse:Security>`;

/** True when the element says mustUnderstand true/1 in the SOAP 1.2 namespace, whatever its prefix. */
const mustUnderstand = (el: DomElement): boolean => ['true', '1'].includes(el.getAttributeNS(NS.S12, 'mustUnderstand') ?? '');

/** eb:Messaging of a SOAP 1.2 envelope; EBMS:0009 when the envelope is not one. */
export function messagingOf(doc: DomDocument): DomElement {
  const root = doc.documentElement!;
  if (root.namespaceURI !== NS.S12 || root.localName !== 'Envelope') throw new As4Error('EBMS:0009', 'not a SOAP 1.2 envelope');
  const messaging = children(root, [[NS.S12, 'Header'], [NS.EB, 'Messaging']]);
  if (messaging.length !== 1) throw new As4Error('EBMS:0009', 'the SOAP header must carry exactly one eb:Messaging');
  return messaging[0]!;
}

const splitId = (raw: string): PeppolId => {
  const at = raw.indexOf('::');
  return at < 0 ? { scheme: '', value: raw } : { scheme: raw.slice(0, at), value: raw.slice(at + 2) };
};

/**
 * Reads a received UserMessage header and holds it to the Peppol profile; a violation throws the
 * ebMS error the sender gets back (§1.3, §9 P9).
 */
export function readUserMessage(doc: DomDocument): { header: UserMessageHeader; messaging: DomElement; body: DomElement } {
  const messaging = messagingOf(doc);
  if (!mustUnderstand(messaging)) throw new As4Error('EBMS:0009', 'eb:Messaging must be mustUnderstand="true"');
  const security = securityHeader(doc);
  if (security && !mustUnderstand(security)) throw new As4Error('EBMS:0009', 'wsse:Security must be mustUnderstand="true"');
  const userMessages = children(messaging, [[NS.EB, 'UserMessage']]);
  if (userMessages.length !== 1) throw new As4Error('EBMS:0009', 'eb:Messaging must carry exactly one eb:UserMessage');
  const um = userMessages[0]!;
  const get = (...path: Array<[string, string]>) => children(um, path);
  const messageId = text(get([NS.EB, 'MessageInfo'], [NS.EB, 'MessageId'])[0]);
  if (!messageId) throw new As4Error('EBMS:0009', 'eb:MessageId is missing');
  if (get([NS.EB, 'MessageInfo'], [NS.EB, 'RefToMessageId']).length) throw new As4Error('EBMS:0010', 'a Peppol UserMessage is one-way: RefToMessageId is not used');
  const partyOf = (side: 'From' | 'To', role: string): string => {
    const ids = get([NS.EB, 'PartyInfo'], [NS.EB, side], [NS.EB, 'PartyId']);
    if (ids.length !== 1) throw new As4Error('EBMS:0010', `eb:${side} must carry exactly one PartyId`);
    if (ids[0]!.getAttribute('type') !== PEPPOL.PARTY_TYPE) throw new As4Error('EBMS:0010', `eb:${side}/PartyId must be of type ${PEPPOL.PARTY_TYPE}`);
    const seat = text(ids[0]);
    if (!PEPPOL.SEAT_ID.test(seat)) throw new As4Error('EBMS:0010', `eb:${side}/PartyId ${seat} is not a Peppol seat id`);
    const givenRole = text(get([NS.EB, 'PartyInfo'], [NS.EB, side], [NS.EB, 'Role'])[0]);
    if (givenRole !== role) throw new As4Error('EBMS:0010', `eb:${side}/Role must be ${role}`);
    return seat;
  };
  const fromParty = partyOf('From', PEPPOL.INITIATOR);
  const toParty = partyOf('To', PEPPOL.RESPONDER);
  const agreement = get([NS.EB, 'CollaborationInfo'], [NS.EB, 'AgreementRef'])[0];
  if (text(agreement) !== PEPPOL.AGREEMENT || agreement!.hasAttribute('type') || agreement!.hasAttribute('pmode')) {
    throw new As4Error('EBMS:0010', `eb:AgreementRef must be ${PEPPOL.AGREEMENT}, without type or pmode`);
  }
  const service = get([NS.EB, 'CollaborationInfo'], [NS.EB, 'Service'])[0];
  const processScheme = service?.getAttribute('type') ?? '';
  if (!service || !text(service) || !processScheme) throw new As4Error('EBMS:0009', 'eb:Service and its type (the Peppol process) are required');
  const action = splitId(text(get([NS.EB, 'CollaborationInfo'], [NS.EB, 'Action'])[0]));
  if (!action.scheme || !action.value) throw new As4Error('EBMS:0009', 'eb:Action must be the document type id with its scheme (busdox-docid-qns::…)');
  const props = new Map<string, DomElement>();
  for (const p of get([NS.EB, 'MessageProperties'], [NS.EB, 'Property'])) props.set(p.getAttribute('name') ?? '', p);
  const participant = (name: string): PeppolId => {
    const p = props.get(name);
    const scheme = p?.getAttribute('type') ?? '';
    if (!p || !text(p) || !scheme) throw new As4Error('EBMS:0009', `the ${name} message property with its type is required`);
    return { scheme, value: text(p) };
  };
  const parts = get([NS.EB, 'PayloadInfo'], [NS.EB, 'PartInfo']);
  if (parts.length !== 1) throw new As4Error('EBMS:0009', 'a Peppol UserMessage carries exactly one payload part');
  const href = parts[0]!.getAttribute('href') ?? '';
  if (!href.startsWith('cid:')) throw new As4Error('EBMS:0009', 'the payload must be a MIME attachment (cid:)');
  const partProps = new Map(children(parts[0]!, [[NS.EB, 'PartProperties'], [NS.EB, 'Property']]).map((p) => [p.getAttribute('name') ?? '', text(p)]));
  const body = children(doc.documentElement!, [[NS.S12, 'Body']])[0];
  if (!body) throw new As4Error('EBMS:0009', 'the SOAP body is missing');
  if (elementChildren(body).length) throw new As4Error('EBMS:0009', 'Peppol payloads go as attachments: the SOAP body must be empty');
  return {
    messaging,
    body,
    header: {
      messageId,
      timestamp: text(get([NS.EB, 'MessageInfo'], [NS.EB, 'Timestamp'])[0]),
      conversationId: text(get([NS.EB, 'CollaborationInfo'], [NS.EB, 'ConversationId'])[0]),
      fromParty, toParty,
      process: { scheme: processScheme, value: text(service) },
      documentType: action,
      originalSender: participant('originalSender'),
      finalRecipient: participant('finalRecipient'),
      part: { contentId: href.slice(4), mimeType: partProps.get('MimeType') ?? '', compressionType: partProps.get('CompressionType') ?? null },
    },
  };
}

/** The signed receipt for a UserMessage we accepted: NonRepudiationInformation copies its references. */
export function receiptXml(input: { refToMessageId: string; references: SignedReference[]; key: SigningKey; now: Date }): { xml: string; messageId: string } {
  const messageId = newMessageId();
  const [messagingId, bodyId, tokenId] = [`_m-${randomUUID()}`, `_b-${randomUUID()}`, `_x-${randomUUID()}`];
  const nri = input.references.map((r) => `<ebbp:MessagePartNRInformation>${referenceXml(r)}</ebbp:MessagePartNRInformation>`).join('');
  const messaging = `<eb:Messaging xmlns:eb="${NS.EB}" xmlns:ebbp="${NS.EBBP}" xmlns:ds="${NS.DS}" xmlns:wsu="${NS.WSU}" S12:mustUnderstand="true" wsu:Id="${messagingId}"><eb:SignalMessage>`
    + `<eb:MessageInfo><eb:Timestamp>${input.now.toISOString()}</eb:Timestamp><eb:MessageId>${messageId}</eb:MessageId><eb:RefToMessageId>${escapeText(input.refToMessageId)}</eb:RefToMessageId></eb:MessageInfo>`
    + `<eb:Receipt><ebbp:NonRepudiationInformation>${nri}</ebbp:NonRepudiationInformation></eb:Receipt></eb:SignalMessage></eb:Messaging>`;
  const envelope = envelopeXml(securityXml(binarySecurityTokenXml(tokenId, input.key.certificate) + SIGNATURE_SLOT), messaging, bodyId);
  return { xml: signEnvelope(envelope, { ids: [messagingId, bodyId], attachments: [], key: input.key, tokenId, signatureId: `_s-${randomUUID()}` }).xml, messageId };
}

/** An ebMS error signal (unsigned, as phase4 sends them). */
export function errorXml(input: { refToMessageId: string | null; code: EbmsCode; description: string; detail?: string; now: Date }): string {
  const { shortDescription, category } = EBMS_ERRORS[input.code];
  const ref = input.refToMessageId ? ` refToMessageInError="${escapeAttr(input.refToMessageId)}"` : '';
  return envelopeXml('', `<eb:Messaging xmlns:eb="${NS.EB}" S12:mustUnderstand="true"><eb:SignalMessage><eb:MessageInfo><eb:Timestamp>${input.now.toISOString()}</eb:Timestamp><eb:MessageId>${newMessageId()}</eb:MessageId>`
    + (input.refToMessageId ? `<eb:RefToMessageId>${escapeText(input.refToMessageId)}</eb:RefToMessageId>` : '') + '</eb:MessageInfo>'
    + `<eb:Error category="${category}" errorCode="${input.code}" severity="failure" shortDescription="${shortDescription}"${ref}>`
    + `<eb:Description xml:lang="en">${escapeText(input.description)}</eb:Description>`
    + (input.detail ? `<eb:ErrorDetail>${escapeText(input.detail)}</eb:ErrorDetail>` : '')
    + '</eb:Error></eb:SignalMessage></eb:Messaging>', `_b-${randomUUID()}`);
}

export type Signal =
  | { kind: 'receipt'; messageId: string; refToMessageId: string; nonRepudiation: SignedReference[]; messaging: DomElement }
  | { kind: 'error'; refToMessageId: string; errors: Array<{ code: EbmsCode | string; detail: string; description: string }> };

/** Reads the signal a receiver answered with (receipt or error); anything else is EBMS:0302. */
export function readSignal(doc: DomDocument): Signal {
  let messaging: DomElement;
  try { messaging = messagingOf(doc); } catch { throw new As4Error('EBMS:0302', 'the answer is not an AS4 signal'); }
  const signal = child(messaging, NS.EB, 'SignalMessage');
  if (!signal) throw new As4Error('EBMS:0302', 'the answer carries no eb:SignalMessage');
  const refToMessageId = text(children(signal, [[NS.EB, 'MessageInfo'], [NS.EB, 'RefToMessageId']])[0]);
  const errors = children(signal, [[NS.EB, 'Error']]);
  if (errors.length) {
    return {
      kind: 'error',
      refToMessageId: refToMessageId || (errors[0]!.getAttribute('refToMessageInError') ?? ''),
      errors: errors.map((e) => ({ code: e.getAttribute('errorCode') ?? '', detail: text(child(e, NS.EB, 'ErrorDetail')), description: text(child(e, NS.EB, 'Description')) || (e.getAttribute('shortDescription') ?? '') })),
    };
  }
  const receipt = child(signal, NS.EB, 'Receipt');
  if (!receipt) throw new As4Error('EBMS:0302', 'the signal is neither a receipt nor an error');
  const nonRepudiation = children(receipt, [[NS.EBBP, 'NonRepudiationInformation'], [NS.EBBP, 'MessagePartNRInformation'], [NS.DS, 'Reference']]).map(referenceOf);
  return { kind: 'receipt', messageId: text(children(signal, [[NS.EB, 'MessageInfo'], [NS.EB, 'MessageId']])[0]), refToMessageId, nonRepudiation, messaging };
}

/**
 * The receipt's non-repudiation information names exactly what we signed: the same URIs, digest
 * methods and digests (transforms are not compared: Holodeck drops InclusiveNamespaces).
 */
export function nonRepudiationMatches(sent: SignedReference[], received: SignedReference[]): boolean {
  const key = (r: SignedReference) => `${r.uri}\u0000${r.digestMethod}\u0000${r.digestValue}`;
  const a = new Set(sent.map(key));
  const b = new Set(received.map(key));
  return a.size === b.size && [...a].every((k) => b.has(k));
}

/** The ebMS code of an error signal's entry, or EBMS:0004 for a code we do not know. */
export const ebmsCodeOf = (code: string): EbmsCode => (isEbmsCode(code) ? code : 'EBMS:0004');
