/**
 * The Peppol envelope (Business Message Envelope 2.0: a UN/CEFACT Standard Business Document
 * Header in front of the business document), read, checked and written as a pure mapping.
 *
 * The rules are the envelope specification's, in the error classes of peppol-commons'
 * EPeppolSBDHDataError (one code per class, so a rejection names what is wrong), checked in the
 * order the header is written: header version, sender, receiver, business scope, business message,
 * document identification. The first broken rule throws.
 *
 * Choices that are ours:
 * - An unusable MLS_TO (absent value or scheme, not a participant identifier) is a warning, not a
 *   rejection: the MLS specification sends the MLS "to the general SPID of C2" when MLS_TO is "not
 *   present or invalid", so the business document is still deliverable (peppol-commons ≥ 12.3.9
 *   warns too). The builder, which writes our own envelopes, refuses it.
 * - A DOCTYPE is refused outright (no Peppol envelope has one, and it is how entity attacks arrive).
 * - For XML payloads the DOCUMENTID must name the payload's root (`<ns>::<local name>##…`), which is
 *   what an AP and the AS4 Action (P10) route on.
 */
import { randomUUID } from 'node:crypto';
import type { Document, Element } from 'libxmljs2';
import { create } from 'xmlbuilder2';
import { MappingError } from '../errors.ts';
import { childElements, parseXmlHardened } from '../xml/parse.ts';
import { BILLING_PROCESS, DOCUMENT_SCHEME, PARTICIPANT_SCHEME, WILDCARD_DOCUMENT_SCHEME } from '../identifiers/peppol-network.ts';

export const SBDH_NS = 'http://www.unece.org/cefact/namespaces/StandardBusinessDocumentHeader';
/** Non-XML payloads travel as `BinaryContent` / `TextContent` in this namespace. */
export const NON_XML_PAYLOAD_NS = 'http://peppol.eu/xsd/ticc/envelope/1.0';
export const SBDH_HEADER_VERSION = '1.0';
/** Scheme of a PROCESSID scope without an `Identifier`. */
export const PROCESS_SCHEME = BILLING_PROCESS.scheme;

export interface PeppolIdentifier { scheme: string; value: string }

export interface SbdhHeader {
  /** C1, the original sender: `{scheme:'iso6523-actorid-upis', value:'0088:7315458756324'}`. */
  sender: PeppolIdentifier;
  /** C4, the final recipient. */
  receiver: PeppolIdentifier;
  /** DOCUMENTID scope (scheme `busdox-docid-qns` when the scope has no Identifier). */
  documentType: PeppolIdentifier;
  /** PROCESSID scope (scheme `cenbii-procid-ubl` when the scope has no Identifier). */
  process: PeppolIdentifier;
  /** COUNTRY_C1 scope: ISO 3166-1 alpha-2 country of the sender. */
  countryC1: string;
  /** DocumentIdentification: the payload's root namespace, its syntax version, its root local name. */
  standard: string;
  typeVersion: string;
  type: string;
  instanceIdentifier: string;
  /** xs:dateTime with a timezone. */
  creationDateAndTime: string;
  /** MLS_TO scope: where the MLS goes. Absent (or dropped with a warning when unusable). */
  mlsTo?: PeppolIdentifier;
  /** MLS_TYPE scope. Absent means FAILURE_ONLY; left absent here so a read header rebuilds the same envelope. */
  mlsType?: 'ALWAYS_SEND' | 'FAILURE_ONLY';
}

export type SbdhErrorCode =
  /** Not well-formed, a NUL character, a DOCTYPE, an undeclared prefix. */
  | 'NOT_XML'
  /** Not a StandardBusinessDocument, or its first child is not the StandardBusinessDocumentHeader. */
  | 'MISSING_SBDH'
  | 'INVALID_HEADER_VERSION'
  | 'INVALID_SENDER_COUNT'
  | 'INVALID_SENDER_AUTHORITY'
  | 'INVALID_SENDER_VALUE'
  | 'INVALID_RECEIVER_COUNT'
  | 'INVALID_RECEIVER_AUTHORITY'
  | 'INVALID_RECEIVER_VALUE'
  | 'MISSING_BUSINESS_SCOPE'
  /** Fewer than the three mandatory scopes, or more than one BusinessScope. */
  | 'INVALID_SCOPE_COUNT'
  | 'MISSING_DOCUMENT_TYPE'
  /** Empty, malformed, repeated, or not naming the payload's root element. */
  | 'INVALID_DOCUMENT_TYPE'
  | 'MISSING_PROCESS'
  | 'INVALID_PROCESS'
  | 'MISSING_COUNTRY_C1'
  | 'INVALID_COUNTRY_C1'
  /** Only from the builder and sbdhFor; the reader warns (see the module comment). */
  | 'INVALID_MLS_TO'
  | 'INVALID_MLS_TYPE'
  | 'INVALID_STANDARD'
  | 'INVALID_TYPE_VERSION'
  | 'INVALID_TYPE'
  | 'INVALID_INSTANCE_IDENTIFIER'
  | 'INVALID_CREATION_DATE_TIME'
  /** No element after the header, more than one, text beside it, or one that cannot be a payload. */
  | 'INVALID_BUSINESS_MESSAGE';

export class SbdhError extends Error {
  override readonly name = 'SbdhError';
  readonly code: SbdhErrorCode;
  /** Where in the envelope, e.g. `StandardBusinessDocumentHeader/Sender/Identifier/@Authority`. */
  readonly field: string;

  constructor(code: SbdhErrorCode, message: string, field = '') {
    super(message);
    this.code = code;
    this.field = field;
  }
}

// ---------------------------------------------------------------------------------------------
// Value rules (Policy for use of identifiers 4.4, envelope specification 2.0), shared by the reader
// and the builder so that whatever we write we also accept.

/** ICD (4 digits) `:` identifier, at most 135 characters, no whitespace or control characters. */
const PARTICIPANT_VALUE = /^[0-9]{4}:[^\s\p{Cc}]{1,130}$/u;
/** Identifier schemes are short tokens (PFUOI: at most 25 characters). */
const SCHEME = /^[^\s\p{Cc}]{1,25}$/u;
const DOCUMENT_TYPE_VALUE = /^[^\s\p{Cc}]{1,500}$/u;
const PROCESS_VALUE = /^[^\s\p{Cc}]{1,200}$/u;
const COUNTRY = /^[A-Z]{2}$/;
/** Free text values: not empty, no surrounding whitespace (the reader trims), no control characters. */
const TRIMMED_TEXT = /^[^\s\p{Cc}](?:[^\p{Cc}]*[^\s\p{Cc}])?$/u;
const MLS_TYPES: ReadonlySet<string> = new Set(['ALWAYS_SEND', 'FAILURE_ONLY']);
const DATE_TIME = /^(-?[0-9]{4,})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?(Z|[+-]([0-9]{2}):([0-9]{2}))$/;

const HEADER = 'StandardBusinessDocumentHeader';
const SCOPE = `${HEADER}/BusinessScope/Scope`;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** xs:dateTime that carries a timezone (the envelope specification requires one). */
export function isDateTimeWithTimezone(value: string): boolean {
  const m = DATE_TIME.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
  const midnight = hour === 24 && minute === 0 && second === 0 && !/[1-9]/.test(m[7] ?? '');
  if ((hour > 23 && !midnight) || minute > 59 || second > 59) return false;
  if (m[8] !== 'Z') {
    const tzHour = Number(m[9]), tzMinute = Number(m[10]);
    if (tzMinute > 59 || tzHour > 14 || (tzHour === 14 && tzMinute !== 0)) return false;
  }
  return true;
}

/** Participant identifiers are case-insensitive (PFUOI 4.4); P10 compares Sender/Receiver with originalSender/finalRecipient this way. */
export function sameParticipant(a: PeppolIdentifier, b: PeppolIdentifier): boolean {
  return a.scheme.toLowerCase() === b.scheme.toLowerCase() && a.value.toLowerCase() === b.value.toLowerCase();
}

function checkParticipant(id: PeppolIdentifier, role: 'Sender' | 'Receiver'): void {
  const upper = role === 'Sender' ? 'SENDER' : 'RECEIVER';
  const field = `${HEADER}/${role}/Identifier`;
  if (id.scheme !== PARTICIPANT_SCHEME) {
    throw new SbdhError(`INVALID_${upper}_AUTHORITY` as const, `${role}/Identifier/@Authority is "${id.scheme}"; it must be ${PARTICIPANT_SCHEME}`, `${field}/@Authority`);
  }
  if (!PARTICIPANT_VALUE.test(id.value)) {
    throw new SbdhError(`INVALID_${upper}_VALUE` as const, `${role}/Identifier "${id.value}" is not a participant identifier (4-digit ICD, ':', at most 130 characters)`, field);
  }
}

function checkDocumentType(id: PeppolIdentifier): void {
  if (!SCHEME.test(id.scheme) || !DOCUMENT_TYPE_VALUE.test(id.value)) {
    throw new SbdhError('INVALID_DOCUMENT_TYPE', `DOCUMENTID "${id.scheme}::${id.value}" is not a document type identifier`, `${SCOPE}[DOCUMENTID]`);
  }
}

function checkProcess(id: PeppolIdentifier): void {
  if (!SCHEME.test(id.scheme) || !PROCESS_VALUE.test(id.value)) {
    throw new SbdhError('INVALID_PROCESS', `PROCESSID "${id.scheme}::${id.value}" is not a process identifier`, `${SCOPE}[PROCESSID]`);
  }
}

function checkCountryC1(country: string): void {
  if (!COUNTRY.test(country)) {
    throw new SbdhError('INVALID_COUNTRY_C1', `COUNTRY_C1 "${country}" is not an ISO 3166-1 alpha-2 code (two upper-case letters)`, `${SCOPE}[COUNTRY_C1]`);
  }
}

/** Why an MLS_TO cannot be used, or undefined when it can. */
function mlsToProblem(scheme: string | undefined, value: string | undefined): string | undefined {
  if (!value) return 'MLS_TO has no InstanceIdentifier';
  if (!scheme) return `MLS_TO "${value}" has no Identifier (participant identifier scheme)`;
  if (scheme !== PARTICIPANT_SCHEME) return `MLS_TO scheme "${scheme}" is not ${PARTICIPANT_SCHEME}`;
  if (!PARTICIPANT_VALUE.test(value)) return `MLS_TO "${value}" is not a participant identifier`;
  return undefined;
}

function checkMlsType(type: string): void {
  if (!MLS_TYPES.has(type)) {
    throw new SbdhError('INVALID_MLS_TYPE', `MLS_TYPE "${type}" is neither ALWAYS_SEND nor FAILURE_ONLY`, `${SCOPE}[MLS_TYPE]`);
  }
}

/** What the envelope says about the element it carries. */
interface Payload {
  namespace: string;
  localName: string;
  /** BinaryContent / TextContent: Standard, Type and TypeVersion describe the wrapped format, not this element. */
  nonXml: boolean;
}

/** DocumentIdentification against the payload and the DOCUMENTID, then the identification's own values. */
function checkDocumentIdentification(header: SbdhHeader, payload: Payload): void {
  const field = `${HEADER}/DocumentIdentification`;
  const docId = header.documentType.value;
  if (!TRIMMED_TEXT.test(header.standard) || (!payload.nonXml && header.standard !== payload.namespace)) {
    throw new SbdhError('INVALID_STANDARD', `Standard "${header.standard}" must be the business message's namespace "${payload.namespace}"`, `${field}/Standard`);
  }
  if (!TRIMMED_TEXT.test(header.typeVersion) || header.typeVersion.includes(':') || (!payload.nonXml && !docId.endsWith(`::${header.typeVersion}`))) {
    throw new SbdhError('INVALID_TYPE_VERSION', `TypeVersion "${header.typeVersion}" must be the version that ends the document type identifier "${docId}"`, `${field}/TypeVersion`);
  }
  if (!TRIMMED_TEXT.test(header.type) || (!payload.nonXml && header.type !== payload.localName)) {
    throw new SbdhError('INVALID_TYPE', `Type "${header.type}" must be the business message's root element name "${payload.localName}"`, `${field}/Type`);
  }
  const qualified = header.documentType.scheme === DOCUMENT_SCHEME || header.documentType.scheme === WILDCARD_DOCUMENT_SCHEME;
  if (!payload.nonXml && qualified && !docId.startsWith(`${payload.namespace}::${payload.localName}##`)) {
    throw new SbdhError('INVALID_DOCUMENT_TYPE', `DOCUMENTID "${docId}" is not for a {${payload.namespace}}${payload.localName} document`, `${SCOPE}[DOCUMENTID]`);
  }
  if (!TRIMMED_TEXT.test(header.instanceIdentifier)) {
    throw new SbdhError('INVALID_INSTANCE_IDENTIFIER', `InstanceIdentifier "${header.instanceIdentifier}" is empty or malformed`, `${field}/InstanceIdentifier`);
  }
  if (!isDateTimeWithTimezone(header.creationDateAndTime)) {
    throw new SbdhError('INVALID_CREATION_DATE_TIME', `CreationDateAndTime "${header.creationDateAndTime}" is not an xs:dateTime with a timezone`, `${field}/CreationDateAndTime`);
  }
}

/** Every rule a header must meet to be written (the builder's and sbdhFor's gate). */
function checkHeader(header: SbdhHeader, payload: Payload): void {
  checkParticipant(header.sender, 'Sender');
  checkParticipant(header.receiver, 'Receiver');
  checkDocumentType(header.documentType);
  checkProcess(header.process);
  checkCountryC1(header.countryC1);
  if (header.mlsTo) {
    const problem = mlsToProblem(header.mlsTo.scheme, header.mlsTo.value);
    if (problem) throw new SbdhError('INVALID_MLS_TO', problem, `${SCOPE}[MLS_TO]`);
  }
  if (header.mlsType !== undefined) checkMlsType(header.mlsType);
  checkDocumentIdentification(header, payload);
}

// ---------------------------------------------------------------------------------------------
// XML access

/** Parses through the hardened parser; anything short of a clean, DTD-free, namespace-correct tree is `code`. */
function parseStrict(xml: string | Buffer, what: string, code: SbdhErrorCode): Document {
  // libxmljs2 hands a string to libxml2 as a C string: a NUL would silently end the document there.
  if (typeof xml === 'string' && xml.includes('\u0000')) throw new SbdhError(code, `${what} contains a NUL character`);
  let doc: Document;
  try {
    doc = parseXmlHardened(xml, what);
  } catch (err) {
    // Size caps stay MappingError PAYLOAD_TOO_LARGE: a different answer (413) from a bad envelope.
    if (err instanceof MappingError && err.code === 'PAYLOAD_TOO_LARGE') throw err;
    throw new SbdhError(code, (err as Error).message);
  }
  if (doc.getDtd()) throw new SbdhError(code, `${what} has a DOCTYPE; entity declarations are not accepted`);
  // libxml2 reports undeclared prefixes as errors but still returns a tree.
  const first = doc.errors[0];
  if (first) throw new SbdhError(code, `${what} is not namespace-well-formed: ${first.message.trim()}`);
  return doc;
}

function namespaceOf(el: Element): string {
  return el.namespace()?.href() ?? '';
}

const XML_SPACE = /^[ \t\r\n]+|[ \t\r\n]+$/g;

function textOf(el: Element | undefined): string | undefined {
  return el === undefined ? undefined : el.text().replace(XML_SPACE, '');
}

/** The one child `name` (SBDH namespace), undefined when absent; a repeated one is `code`. */
function onlyChild(parent: Element, name: string, code: SbdhErrorCode, field: string): Element | undefined {
  const found = childElements(parent, name, SBDH_NS);
  if (found.length > 1) throw new SbdhError(code, `${field} appears ${found.length} times`, field);
  return found[0];
}

function readPartner(sbdh: Element, role: 'Sender' | 'Receiver'): PeppolIdentifier {
  const upper = role === 'Sender' ? 'SENDER' : 'RECEIVER';
  const partners = childElements(sbdh, role, SBDH_NS);
  if (partners.length !== 1) {
    throw new SbdhError(`INVALID_${upper}_COUNT` as const, `Exactly one ${role} is required, found ${partners.length}`, `${HEADER}/${role}`);
  }
  const field = `${HEADER}/${role}/Identifier`;
  const identifier = onlyChild(partners[0]!, 'Identifier', `INVALID_${upper}_VALUE` as const, field);
  if (!identifier) throw new SbdhError(`INVALID_${upper}_VALUE` as const, `${role} has no Identifier`, field);
  const id = { scheme: identifier.attr('Authority')?.value() ?? '', value: textOf(identifier) ?? '' };
  checkParticipant(id, role);
  return id;
}

interface RawScope { type: string; instanceIdentifier?: string; identifier?: string }

function readScopes(sbdh: Element): RawScope[] {
  const businessScope = onlyChild(sbdh, 'BusinessScope', 'INVALID_SCOPE_COUNT', `${HEADER}/BusinessScope`);
  if (!businessScope) throw new SbdhError('MISSING_BUSINESS_SCOPE', 'The BusinessScope is missing', `${HEADER}/BusinessScope`);
  return childElements(businessScope, 'Scope', SBDH_NS).map((scope) => {
    const raw: RawScope = { type: textOf(childElements(scope, 'Type', SBDH_NS)[0]) ?? '' };
    const instanceIdentifier = textOf(childElements(scope, 'InstanceIdentifier', SBDH_NS)[0]);
    const identifier = textOf(childElements(scope, 'Identifier', SBDH_NS)[0]);
    if (instanceIdentifier !== undefined) raw.instanceIdentifier = instanceIdentifier;
    if (identifier !== undefined) raw.identifier = identifier;
    return raw;
  });
}

const MANDATORY_SCOPES = ['DOCUMENTID', 'PROCESSID', 'COUNTRY_C1'] as const;

/** The one scope of a mandatory type: absent is `missing`, repeated is `invalid`. */
function mandatoryScope(scopes: RawScope[], type: string, missing: SbdhErrorCode, invalid: SbdhErrorCode): RawScope {
  const found = scopes.filter((s) => s.type === type);
  if (found.length === 0) throw new SbdhError(missing, `The ${type} scope is missing`, `${SCOPE}[${type}]`);
  if (found.length > 1) throw new SbdhError(invalid, `The ${type} scope appears ${found.length} times`, `${SCOPE}[${type}]`);
  return found[0]!;
}

/** The payload: the one element after the header, with nothing but whitespace and comments beside it. */
function businessMessageOf(root: Element, sbdh: Element): Element {
  for (const node of root.childNodes()) {
    const type: string = node.type(); // 'cdata' is returned at runtime though absent from the typings
    if ((type === 'text' || type === 'cdata') && (node as unknown as { text(): string }).text().replace(XML_SPACE, '') !== '') {
      throw new SbdhError('INVALID_BUSINESS_MESSAGE', 'Text where the business message belongs; it must be an element');
    }
  }
  const after = childElements(root).filter((el) => el !== sbdh);
  if (after.length !== 1) {
    throw new SbdhError('INVALID_BUSINESS_MESSAGE', `Exactly one business message element must follow the header, found ${after.length}`);
  }
  return after[0]!;
}

function payloadOf(el: Element, code: SbdhErrorCode): Payload {
  const namespace = namespaceOf(el);
  const localName = el.name();
  if (namespace === '' || namespace === SBDH_NS) {
    throw new SbdhError(code, `The business message {${namespace}}${localName} must be in its own namespace`);
  }
  const nonXml = namespace === NON_XML_PAYLOAD_NS && (localName === 'BinaryContent' || localName === 'TextContent');
  if (nonXml && !TRIMMED_TEXT.test(el.attr('mimeType')?.value() ?? '')) {
    throw new SbdhError(code, `${localName} has no mimeType`);
  }
  return { namespace, localName, nonXml };
}

/**
 * The payload as a document of its own: the namespace declarations in scope from the envelope are
 * declared on its root (inclusively, as XML canonicalization does for an apex), so every QName
 * in it, attribute values included, keeps its meaning. The envelope's own namespace is the
 * exception: it is declared only when the payload has elements or attributes in it, so a document
 * we wrapped comes back as it went in.
 */
function standalone(el: Element): string {
  const local = new Set(el.namespaces(true).map((ns) => ns.prefix() ?? ''));
  // libxmljs2's get() answers undefined, not the null of its typings, when nothing matches. No
  // union: libxml2 merges the two sides of `a | b` with a duplicate check quadratic in the nodes
  // (22 s on a 10 MB invoice); the one predicate below is linear.
  const usesEnvelopeNamespace = Boolean(el.get(`descendant-or-self::*[namespace-uri() = '${SBDH_NS}' or @*[namespace-uri() = '${SBDH_NS}']]`));
  for (const ns of el.namespaces()) {
    const prefix = ns.prefix() ?? '';
    if (local.has(prefix) || prefix === 'xml' || (ns.href() === SBDH_NS && !usesEnvelopeNamespace)) continue;
    if (prefix === '') { if (ns.href()) el.defineNamespace(ns.href()); } else el.defineNamespace(prefix, ns.href());
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n${el.toString(false)}`;
}

// ---------------------------------------------------------------------------------------------
// The API

/**
 * Parse and check a Standard Business Document; throws SbdhError (or MappingError
 * PAYLOAD_TOO_LARGE past the XML shape caps). Returns the header, the business document as its
 * own XML text (namespace declarations it inherits made explicit, so it stands alone), and
 * warnings (an unusable MLS_TO, which is then left out of the header).
 */
export function readSbd(xml: string | Buffer): { header: SbdhHeader; document: string; warnings: string[] } {
  const root = parseStrict(xml, 'Standard Business Document', 'NOT_XML').root();
  if (!root || root.name() !== 'StandardBusinessDocument' || namespaceOf(root) !== SBDH_NS) {
    throw new SbdhError('MISSING_SBDH', `The root element must be {${SBDH_NS}}StandardBusinessDocument`);
  }
  const sbdh = childElements(root)[0];
  if (!sbdh || sbdh.name() !== HEADER || namespaceOf(sbdh) !== SBDH_NS) {
    throw new SbdhError('MISSING_SBDH', `The ${HEADER} must be the first element of the StandardBusinessDocument`, HEADER);
  }
  const warnings: string[] = [];

  const version = textOf(onlyChild(sbdh, 'HeaderVersion', 'INVALID_HEADER_VERSION', `${HEADER}/HeaderVersion`));
  if (version !== SBDH_HEADER_VERSION) {
    throw new SbdhError('INVALID_HEADER_VERSION', `HeaderVersion is "${version ?? ''}"; it must be ${SBDH_HEADER_VERSION}`, `${HEADER}/HeaderVersion`);
  }
  const sender = readPartner(sbdh, 'Sender');
  const receiver = readPartner(sbdh, 'Receiver');

  const scopes = readScopes(sbdh);
  if (scopes.length < MANDATORY_SCOPES.length) {
    const missing = MANDATORY_SCOPES.filter((t) => !scopes.some((s) => s.type === t));
    throw new SbdhError('INVALID_SCOPE_COUNT', `At least ${MANDATORY_SCOPES.length} Scope elements are required, found ${scopes.length}`
      + (missing.length ? ` (missing ${missing.join(', ')})` : ''), `${HEADER}/BusinessScope`);
  }
  const docScope = mandatoryScope(scopes, 'DOCUMENTID', 'MISSING_DOCUMENT_TYPE', 'INVALID_DOCUMENT_TYPE');
  const documentType = { scheme: docScope.identifier ?? DOCUMENT_SCHEME, value: docScope.instanceIdentifier ?? '' };
  checkDocumentType(documentType);
  const processScope = mandatoryScope(scopes, 'PROCESSID', 'MISSING_PROCESS', 'INVALID_PROCESS');
  const process = { scheme: processScope.identifier ?? PROCESS_SCHEME, value: processScope.instanceIdentifier ?? '' };
  checkProcess(process);
  const countryC1 = mandatoryScope(scopes, 'COUNTRY_C1', 'MISSING_COUNTRY_C1', 'INVALID_COUNTRY_C1').instanceIdentifier ?? '';
  checkCountryC1(countryC1);

  const mlsToScopes = scopes.filter((s) => s.type === 'MLS_TO');
  let mlsTo: PeppolIdentifier | undefined;
  if (mlsToScopes.length > 1) {
    warnings.push(`INVALID_MLS_TO: MLS_TO appears ${mlsToScopes.length} times; ignored, the MLS goes to C2's SPID`);
  } else if (mlsToScopes[0]) {
    const { identifier, instanceIdentifier } = mlsToScopes[0];
    const problem = mlsToProblem(identifier, instanceIdentifier);
    if (problem) warnings.push(`INVALID_MLS_TO: ${problem}; ignored, the MLS goes to C2's SPID`);
    else mlsTo = { scheme: identifier!, value: instanceIdentifier! };
  }
  const mlsTypeScopes = scopes.filter((s) => s.type === 'MLS_TYPE');
  if (mlsTypeScopes.length > 1) throw new SbdhError('INVALID_MLS_TYPE', `MLS_TYPE appears ${mlsTypeScopes.length} times`, `${SCOPE}[MLS_TYPE]`);
  const mlsType = mlsTypeScopes[0] ? mlsTypeScopes[0].instanceIdentifier ?? '' : undefined;
  if (mlsType !== undefined) checkMlsType(mlsType);

  const message = businessMessageOf(root, sbdh);
  const payload = payloadOf(message, 'INVALID_BUSINESS_MESSAGE');

  const identification = onlyChild(sbdh, 'DocumentIdentification', 'INVALID_STANDARD', `${HEADER}/DocumentIdentification`);
  const field = (name: string, code: SbdhErrorCode): string =>
    (identification ? textOf(onlyChild(identification, name, code, `${HEADER}/DocumentIdentification/${name}`)) : undefined) ?? '';
  const header: SbdhHeader = {
    sender, receiver, documentType, process, countryC1,
    standard: field('Standard', 'INVALID_STANDARD'),
    typeVersion: field('TypeVersion', 'INVALID_TYPE_VERSION'),
    type: field('Type', 'INVALID_TYPE'),
    instanceIdentifier: field('InstanceIdentifier', 'INVALID_INSTANCE_IDENTIFIER'),
    creationDateAndTime: field('CreationDateAndTime', 'INVALID_CREATION_DATE_TIME'),
  };
  if (mlsTo) header.mlsTo = mlsTo;
  if (mlsType !== undefined) header.mlsType = mlsType as 'ALWAYS_SEND' | 'FAILURE_ONLY';
  checkDocumentIdentification(header, payload);

  return { header, document: standalone(message), warnings };
}

/** The text without a BOM, XML declaration or surrounding whitespace: what goes inside the envelope. */
function bodyOf(documentXml: string): string {
  return documentXml.replace(/^\uFEFF/, '').replace(/^<\?xml\s[^?]*\?>/, '').trim();
}

function businessRootOf(documentXml: string): Element {
  const root = parseStrict(documentXml, 'Business document', 'INVALID_BUSINESS_MESSAGE').root();
  if (!root) throw new SbdhError('INVALID_BUSINESS_MESSAGE', 'The business document has no root element');
  return root;
}

const SH = 'sh';
/** xmlbuilder2 does not export its node type from the package root. */
type XMLBuilder = ReturnType<typeof create>;

function scope(parent: XMLBuilder, type: string, instanceIdentifier: string, identifier?: string): void {
  const s = parent.ele(SBDH_NS, `${SH}:Scope`);
  s.ele(SBDH_NS, `${SH}:Type`).txt(type);
  s.ele(SBDH_NS, `${SH}:InstanceIdentifier`).txt(instanceIdentifier);
  if (identifier !== undefined) s.ele(SBDH_NS, `${SH}:Identifier`).txt(identifier);
}

/**
 * Wrap a business document (XML text, with or without XML declaration) in an SBD with this header;
 * throws SbdhError when the header breaks a rule or does not describe the document. The document's
 * text goes in as written (it is the legal record); the envelope uses the `sh` prefix, so no
 * default namespace of ours leaks into it. Output passes readSbd.
 */
export function buildSbd(header: SbdhHeader, documentXml: string): string {
  const body = bodyOf(documentXml);
  checkHeader(header, payloadOf(businessRootOf(body), 'INVALID_BUSINESS_MESSAGE'));

  const sbd = create({ version: '1.0', encoding: 'UTF-8' }).ele(SBDH_NS, `${SH}:StandardBusinessDocument`);
  const h = sbd.ele(SBDH_NS, `${SH}:${HEADER}`);
  h.ele(SBDH_NS, `${SH}:HeaderVersion`).txt(SBDH_HEADER_VERSION);
  for (const [role, id] of [['Sender', header.sender], ['Receiver', header.receiver]] as const) {
    h.ele(SBDH_NS, `${SH}:${role}`).ele(SBDH_NS, `${SH}:Identifier`).att('Authority', id.scheme).txt(id.value);
  }
  // XSD order: Standard, TypeVersion, InstanceIdentifier, Type, (MultipleType), CreationDateAndTime.
  const di = h.ele(SBDH_NS, `${SH}:DocumentIdentification`);
  di.ele(SBDH_NS, `${SH}:Standard`).txt(header.standard);
  di.ele(SBDH_NS, `${SH}:TypeVersion`).txt(header.typeVersion);
  di.ele(SBDH_NS, `${SH}:InstanceIdentifier`).txt(header.instanceIdentifier);
  di.ele(SBDH_NS, `${SH}:Type`).txt(header.type);
  di.ele(SBDH_NS, `${SH}:CreationDateAndTime`).txt(header.creationDateAndTime);
  const bs = h.ele(SBDH_NS, `${SH}:BusinessScope`);
  scope(bs, 'DOCUMENTID', header.documentType.value, header.documentType.scheme);
  scope(bs, 'PROCESSID', header.process.value, header.process.scheme);
  scope(bs, 'COUNTRY_C1', header.countryC1);
  if (header.mlsTo) scope(bs, 'MLS_TO', header.mlsTo.value, header.mlsTo.scheme);
  if (header.mlsType !== undefined) scope(bs, 'MLS_TYPE', header.mlsType);

  // The envelope is closed by us, so its end tag is known: the document goes right before it.
  const xml = sbd.doc().end({ prettyPrint: false });
  const close = `</${SH}:StandardBusinessDocument>`;
  if (!xml.endsWith(close)) throw new Error(`xmlbuilder2 did not end the envelope with ${close}`);
  return `${xml.slice(0, -close.length)}${body}${close}`;
}

/** `iso6523-actorid-upis::0088:123` and `0088:123` alike: the scheme prefix is optional in our inputs. */
function identifierOf(text: string, scheme: string): PeppolIdentifier {
  const prefix = `${scheme}::`;
  return { scheme, value: text.toLowerCase().startsWith(prefix) ? text.slice(prefix.length) : text };
}

const UBL_CBC_NS = 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2';
const CII_RSM_NS = 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100';
const CII_RAM_NS = 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100';

/** BT-24, the specification identifier the document declares (UBL CustomizationID, CII guideline ID). */
function customizationOf(root: Element): string | undefined {
  const ubl = childElements(root, 'CustomizationID', UBL_CBC_NS)[0];
  if (ubl) return textOf(ubl);
  if (namespaceOf(root) !== CII_RSM_NS) return undefined;
  const context = childElements(root, 'ExchangedDocumentContext', CII_RSM_NS)[0];
  const guideline = context && childElements(context, 'GuidelineSpecifiedDocumentContextParameter', CII_RAM_NS)[0];
  return textOf(guideline && childElements(guideline, 'ID', CII_RAM_NS)[0]);
}

/** `now` as xs:dateTime in UTC, to the second. */
function dateTimeOf(now: Date): string {
  if (Number.isNaN(now.getTime())) throw new SbdhError('INVALID_CREATION_DATE_TIME', 'The creation time is not a valid date');
  return now.toISOString().replace(/\.[0-9]{3}Z$/, 'Z');
}

/**
 * The header a Peppol BIS Billing document implies: Standard/Type from the root element,
 * TypeVersion from the document type identifier's `::version` once that identifier is checked to
 * name this root and the document's own CustomizationID, a fresh UUID InstanceIdentifier, now as
 * CreationDateAndTime. Throws SbdhError for any rule the header would break.
 */
export function sbdhFor(input: {
  documentXml: string; sender: string; receiver: string; documentTypeId: string; processId: string; countryC1: string;
  now?: Date; instanceIdentifier?: string;
}): SbdhHeader {
  const root = businessRootOf(bodyOf(input.documentXml));
  const payload = payloadOf(root, 'INVALID_BUSINESS_MESSAGE');
  const documentType = identifierOf(input.documentTypeId, DOCUMENT_SCHEME);
  const docId = documentType.value;
  const rootPart = `${payload.namespace}::${payload.localName}##`;
  const versionAt = docId.lastIndexOf('::');
  if (!docId.startsWith(rootPart) || versionAt < rootPart.length) {
    throw new SbdhError('INVALID_DOCUMENT_TYPE', `Document type "${docId}" is not <${payload.namespace}>::<${payload.localName}>##<customization>::<version>`, `${SCOPE}[DOCUMENTID]`);
  }
  const customization = customizationOf(root);
  const declared = docId.slice(rootPart.length, versionAt);
  if (customization !== undefined && customization !== declared) {
    throw new SbdhError('INVALID_DOCUMENT_TYPE', `Document type "${docId}" names customization "${declared}" but the document declares "${customization}"`, `${SCOPE}[DOCUMENTID]`);
  }
  const header: SbdhHeader = {
    sender: identifierOf(input.sender, PARTICIPANT_SCHEME),
    receiver: identifierOf(input.receiver, PARTICIPANT_SCHEME),
    documentType,
    process: identifierOf(input.processId, PROCESS_SCHEME),
    countryC1: input.countryC1,
    standard: payload.namespace,
    typeVersion: docId.slice(versionAt + 2),
    type: payload.localName,
    instanceIdentifier: input.instanceIdentifier ?? randomUUID(),
    creationDateAndTime: dateTimeOf(input.now ?? new Date()),
  };
  checkHeader(header, payload);
  return header;
}
