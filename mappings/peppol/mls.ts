/**
 * Peppol Message Level Status (MLS 1.0/1.1): the UBL ApplicationResponse an access point (C3)
 * returns to the sending access point (C2) about one received message, written and read as a pure
 * mapping.
 *
 * The layout is the specification's (and its examples'): CustomizationID `urn:peppol:edec:mls:1.0`,
 * ProfileID `urn:peppol:edec:mls`, ID, IssueDate (no timezone), IssueTime (with one), the two
 * service providers as `EndpointID schemeID="0242"` (the SPID `0242:123456` is written as scheme
 * `0242` and value `123456`), one DocumentResponse: the response code (AP accepted and confirmed,
 * AB accepted blind, RE rejected), a description (mandatory when RE), the SBDH InstanceIdentifier
 * of the message as DocumentReference/ID, and one LineResponse per issue: where (an XPath, or `NA`),
 * what (a description) and the status reason (BV business rule fatal, BW business rule warning,
 * FD failure of delivery, SV syntax violation).
 *
 * The builder refuses input that would break an MLS rule (SCH-MLS-01 … 31, pack
 * schematrons/peppol-mls), so whatever it writes validates clean; the reader refuses what is not
 * an MLS (a DOCTYPE, another document, a response code outside AP/AB/RE) and otherwise reads what
 * is there: checking the rules is validateMls's job (services/validation/engine/mls.ts).
 */
import type { Document, Element } from 'libxmljs2';
import { MappingError } from '../errors.ts';
import { childElements, parseXmlHardened } from '../xml/parse.ts';
import { XmlWriter } from '../xml/writer.ts';
import { CAC_NS, CBC_NS } from '../ubl-2.1/namespaces.ts';
import { DOCUMENT_SCHEME } from '../identifiers/peppol-network.ts';

export const APPLICATION_RESPONSE_NS = 'urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2';
export const MLS_CUSTOMIZATION_ID = 'urn:peppol:edec:mls:1.0';
export const MLS_PROFILE_ID = 'urn:peppol:edec:mls';
/** Document type identifier (scheme busdox-docid-qns) under which an SPID receives MLS. */
export const MLS_DOCUMENT_TYPE_ID = `${APPLICATION_RESPONSE_NS}::ApplicationResponse##${MLS_CUSTOMIZATION_ID}::2.1`;
/** Process identifier (scheme cenbii-procid-ubl) of the MLS exchange. */
export const MLS_PROCESS_ID = 'urn:peppol:edec:mls';
/** The same two, with their schemes, as an SBDH or SMP registration names them. */
export const MLS_DOCUMENT_TYPE = { scheme: DOCUMENT_SCHEME, value: MLS_DOCUMENT_TYPE_ID } as const;
export const MLS_PROCESS = { scheme: 'cenbii-procid-ubl', value: MLS_PROCESS_ID } as const;
/** Participant identifier scheme (ICD) of Peppol service provider ids (SPIS). */
export const SPIS_SCHEME = '0242';

/** A service provider's id (SPIS) from its seat id: 0242 and the seat's six digits (POP000306 → 0242:000306). */
export const spidOfSeat = (seatId: string): string => `${SPIS_SCHEME}:${seatId.slice(3)}`;

export const MLS_RESPONSE_CODES = ['AP', 'AB', 'RE'] as const;
export type MlsResponseCode = (typeof MLS_RESPONSE_CODES)[number];
export const MLS_STATUS_REASON_CODES = ['BV', 'BW', 'FD', 'SV'] as const;
export type MlsStatusReasonCode = (typeof MLS_STATUS_REASON_CODES)[number];
/** Reasons that make an MLS negative: a positive MLS (AP, AB) may carry BW lines only, a negative one needs one of these. */
export const MLS_FAILURE_REASON_CODES: readonly MlsStatusReasonCode[] = ['BV', 'FD', 'SV'];

/** The issue location when there is none (the specification's constant). */
export const MLS_NO_LOCATION = 'NA';

/** One issue (a LineResponse). */
export interface MlsLine {
  /** BV, BW, FD or SV (what the document says, when read) */
  reasonCode: string;
  /** what is wrong; the builder writes a standard text per reason code when absent */
  description?: string;
  /** an XPath into the message, or `NA` (the builder's default) */
  location?: string;
}

export interface MlsInput {
  responseCode: MlsResponseCode;
  /** the MLS's own identifier (a UUID, for example) */
  id: string;
  /** YYYY-MM-DD, no timezone; with issueTime, or both absent (then from `now`, in UTC) */
  issueDate?: string;
  /** hh:mm:ss[.s] with a timezone (Z or ±hh:mm) */
  issueTime?: string;
  /** the clock's current time, for an absent issueDate/issueTime (default: the system clock) */
  now?: Date;
  /** `0242:xxxxxx`, the SPID of the access point sending the MLS (C3) */
  senderSpid: string;
  /** `0242:xxxxxx`, the SPID of the access point that sent the message (C2) */
  receiverSpid: string;
  referencedMessage: {
    /** the SBDH InstanceIdentifier of the message this status is about */
    instanceIdentifier: string;
  };
  /** the overall human-readable text; mandatory in an RE, where a summary of the lines is written when absent */
  description?: string;
  /** issues: required (with at least one BV, FD or SV) for RE; BW only for AP and AB */
  lines?: MlsLine[];
}

/** An MLS as read. */
export interface Mls {
  responseCode: MlsResponseCode;
  id: string;
  issueDate: string;
  /** absent when the document has none (SCH-MLS-05) */
  issueTime?: string;
  /** `<schemeID>:<value>`, e.g. `0242:123456` (the bare value when schemeID is absent) */
  senderSpid: string;
  receiverSpid: string;
  referencedInstanceIdentifier: string;
  description?: string;
  /** one per LineResponse/Response, in document order */
  lines: MlsLine[];
}

// ---------------------------------------------------------------------------------------------
// Value rules, shared with the MLS pack's semantics

/** SPIS value: the seat id's six digits, optionally `-name` (3-12) and `.qualifier` (3-24); letters in either case. */
const SPIS_VALUE = /^[0-9]{6}(-[0-9A-Za-z_]{3,12}(\.[0-9A-Za-z._~-]{3,24})?)?$/;
const SPID = /^0242:(.+)$/;
/** Identifiers: not empty, no surrounding whitespace, no control characters. */
const TRIMMED_TEXT = /^[^\s\p{Cc}](?:[^\p{Cc}]*[^\s\p{Cc}])?$/u;
/** Descriptions may also hold tabs and line feeds inside. */
const DESCRIPTION_TEXT = /^[^\s\p{Cc}](?:(?:[^\p{Cc}]|[\t\n])*[^\s\p{Cc}])?$/u;
const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
const TIME = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?(Z|[+-]([0-9]{2}):([0-9]{2}))$/;

const REASON_TEXT: Record<MlsStatusReasonCode, string> = {
  BV: 'Business rule violation (fatal)',
  BW: 'Business rule violation (warning)',
  FD: 'Failure of delivery to the receiver',
  SV: 'Syntax violation',
};

function invalid(field: string, message: string, rule = 'MLS'): never {
  throw new MappingError('INVALID_REQUEST', message, [{ field, rule, message }]);
}

function isDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const year = Number(m[1]), month = Number(m[2]), day = Number(m[3]);
  const days = month === 2 ? ((year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  return month >= 1 && month <= 12 && day >= 1 && day <= days;
}

function isTimeWithTimezone(value: string): boolean {
  const m = TIME.exec(value);
  if (!m) return false;
  const [hour, minute, second] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (hour > 23 || minute > 59 || second > 59) return false;
  return m[5] === 'Z' || (Number(m[6]) <= 14 && Number(m[7]) <= 59);
}

/** The SPIS value of `0242:xxxxxx`; refuses anything else. */
function spisValueOf(spid: string, field: string): string {
  const value = SPID.exec(spid)?.[1];
  if (value === undefined || !SPIS_VALUE.test(value)) {
    return invalid(field, `${field} "${spid}" is not a Peppol service provider id (0242: and the six digits of the seat id)`, 'SCH-MLS-09');
  }
  return value;
}

function text(value: string | undefined, field: string, rule: string, pattern = TRIMMED_TEXT): string {
  if (value === undefined || !pattern.test(value)) {
    return invalid(field, `${field} must be a non-empty text without surrounding whitespace or control characters`, rule);
  }
  return value;
}

/** IssueDate and IssueTime: both given, or both from `now` in UTC. */
function issueOf(input: MlsInput): { date: string; time: string } {
  if ((input.issueDate === undefined) !== (input.issueTime === undefined)) {
    invalid(input.issueDate === undefined ? 'issueDate' : 'issueTime', 'Give issueDate and issueTime together, or neither (then the current time is used)');
  }
  if (input.issueDate !== undefined && input.issueTime !== undefined) {
    if (!isDate(input.issueDate)) invalid('issueDate', `issueDate "${input.issueDate}" is not a YYYY-MM-DD date without timezone`, 'SCH-MLS-04');
    if (!isTimeWithTimezone(input.issueTime)) invalid('issueTime', `issueTime "${input.issueTime}" is not a time with a timezone (12:00:00Z, 12:00:00+01:00)`, 'SCH-MLS-06');
    return { date: input.issueDate, time: input.issueTime };
  }
  const iso = (input.now ?? new Date()).toISOString();
  return { date: iso.slice(0, 10), time: `${iso.slice(11, 19)}Z` };
}

// ---------------------------------------------------------------------------------------------
// Builder

/**
 * The MLS ApplicationResponse for `input`; throws MappingError (INVALID_REQUEST, the broken rule in
 * `details[0].rule`) when the input would not make a valid MLS. Output passes readMls and the MLS rules.
 */
export function buildMls(input: MlsInput): string {
  if (!(MLS_RESPONSE_CODES as readonly string[]).includes(input.responseCode)) {
    invalid('responseCode', `responseCode "${String(input.responseCode)}" is not one of ${MLS_RESPONSE_CODES.join(', ')}`, 'SCH-MLS-19');
  }
  const id = text(input.id, 'id', 'SCH-MLS-03');
  const issue = issueOf(input);
  const sender = spisValueOf(input.senderSpid, 'senderSpid');
  const receiver = spisValueOf(input.receiverSpid, 'receiverSpid');
  const reference = text(input.referencedMessage?.instanceIdentifier, 'referencedMessage.instanceIdentifier', 'SCH-MLS-26');

  const lines = (input.lines ?? []).map((l, i) => {
    const field = `lines[${i}]`;
    if (!(MLS_STATUS_REASON_CODES as readonly string[]).includes(l.reasonCode)) {
      invalid(`${field}.reasonCode`, `${field}.reasonCode "${l.reasonCode}" is not one of ${MLS_STATUS_REASON_CODES.join(', ')}`, 'SCH-MLS-31');
    }
    const code = l.reasonCode as MlsStatusReasonCode;
    return {
      reasonCode: code,
      description: l.description === undefined ? REASON_TEXT[code] : text(l.description, `${field}.description`, 'SCH-MLS-29', DESCRIPTION_TEXT),
      location: l.location === undefined ? MLS_NO_LOCATION : text(l.location, `${field}.location`, 'SCH-MLS-27'),
    };
  });
  const failures = lines.filter((l) => MLS_FAILURE_REASON_CODES.includes(l.reasonCode));
  if (input.responseCode === 'RE' && failures.length === 0) {
    invalid('lines', 'A rejection (RE) needs at least one line with reason BV, FD or SV', lines.length === 0 ? 'SCH-MLS-23' : 'SCH-MLS-24');
  }
  if (input.responseCode !== 'RE' && failures.length > 0) {
    invalid('lines', `A positive MLS (${input.responseCode}) may carry BW lines only; send RE for BV, FD or SV`, 'SCH-MLS-25');
  }
  let description: string | undefined;
  if (input.description !== undefined) description = text(input.description, 'description', 'SCH-MLS-21', DESCRIPTION_TEXT);
  else if (input.responseCode === 'RE') {
    const codes = [...new Set(failures.map((l) => l.reasonCode))].join(', ');
    description = `Rejected: ${failures.length} ${failures.length === 1 ? 'failure' : 'failures'} (${codes})`;
  }

  const w = new XmlWriter();
  w.open('ApplicationResponse', { xmlns: APPLICATION_RESPONSE_NS, 'xmlns:cac': CAC_NS, 'xmlns:cbc': CBC_NS });
  w.leaf('cbc:CustomizationID', MLS_CUSTOMIZATION_ID);
  w.leaf('cbc:ProfileID', MLS_PROFILE_ID);
  w.leaf('cbc:ID', id);
  w.leaf('cbc:IssueDate', issue.date);
  w.leaf('cbc:IssueTime', issue.time);
  w.el('cac:SenderParty', () => w.leaf('cbc:EndpointID', sender, { schemeID: SPIS_SCHEME }));
  w.el('cac:ReceiverParty', () => w.leaf('cbc:EndpointID', receiver, { schemeID: SPIS_SCHEME }));
  w.el('cac:DocumentResponse', () => {
    // UBL order: Response, DocumentReference, (IssuerParty, RecipientParty), LineResponse*.
    w.el('cac:Response', () => {
      w.leaf('cbc:ResponseCode', input.responseCode);
      w.leaf('cbc:Description', description);
    });
    w.el('cac:DocumentReference', () => w.leaf('cbc:ID', reference));
    for (const l of lines) {
      w.el('cac:LineResponse', () => {
        w.el('cac:LineReference', () => w.leaf('cbc:LineID', l.location));
        w.el('cac:Response', () => {
          w.leaf('cbc:Description', l.description);
          w.el('cac:Status', () => w.leaf('cbc:StatusReasonCode', l.reasonCode));
        });
      });
    }
  });
  w.close('ApplicationResponse');
  return w.toString();
}

// ---------------------------------------------------------------------------------------------
// Reader

const XML_SPACE = /^[ \t\r\n]+|[ \t\r\n]+$/g;

function textOf(el: Element | undefined): string | undefined {
  return el === undefined ? undefined : el.text().replace(XML_SPACE, '');
}

/** The first child element `name` in `ns`, following `path` (local names, alternately cac/cbc as given). */
function first(el: Element | undefined, ...path: [string, string][]): Element | undefined {
  let cur = el;
  for (const [ns, name] of path) {
    if (!cur) return undefined;
    cur = childElements(cur, name, ns)[0];
  }
  return cur;
}

const cac = (name: string): [string, string] => [CAC_NS, name];
const cbc = (name: string): [string, string] => [CBC_NS, name];

function parseMls(xml: string | Buffer): Document {
  if (typeof xml === 'string' && xml.includes('\u0000')) invalid('xml', 'The MLS contains a NUL character', 'well-formed');
  const doc = parseXmlHardened(xml, 'MLS');
  if (doc.getDtd()) invalid('xml', 'The MLS has a DOCTYPE; DTDs and entity declarations are not accepted', 'no-doctype');
  const problem = doc.errors[0];
  if (problem) invalid('xml', `The MLS is not namespace-well-formed: ${problem.message.trim()}`, 'well-formed');
  return doc;
}

function spidOf(party: Element | undefined, field: string): string {
  const endpoint = first(party, cbc('EndpointID'));
  const value = textOf(endpoint);
  if (value === undefined || value === '') return invalid(field, `The MLS has no ${field}`, field === 'SenderParty/EndpointID' ? 'SCH-MLS-07' : 'SCH-MLS-12');
  const scheme = endpoint!.attr('schemeID')?.value().replace(XML_SPACE, '');
  return scheme ? `${scheme}:${value}` : value;
}

/**
 * Reads an MLS; throws MappingError (INVALID_REQUEST, or PAYLOAD_TOO_LARGE past the XML shape caps)
 * for input that is not XML, has a DOCTYPE, is not an MLS ApplicationResponse (root, customization
 * id), or lacks what the result needs (ID, IssueDate, the parties' endpoints, one DocumentResponse
 * with a response code AP/AB/RE and a document reference). Text values are read trimmed.
 */
export function readMls(xml: string | Buffer): Mls {
  const root = parseMls(xml).root();
  if (!root || root.name() !== 'ApplicationResponse' || root.namespace()?.href() !== APPLICATION_RESPONSE_NS) {
    return invalid('xml', `The root element must be {${APPLICATION_RESPONSE_NS}}ApplicationResponse`, 'root-element');
  }
  const customization = textOf(first(root, cbc('CustomizationID'))) ?? '';
  // urn:peppol:edec:mls:1.0 (and later 1.x); anything else is another ApplicationResponse (Invoice Response …)
  if (!customization.startsWith(`${MLS_PROFILE_ID}:`)) {
    invalid('CustomizationID', `CustomizationID "${customization}" is not an MLS one (${MLS_CUSTOMIZATION_ID})`, 'SCH-MLS-01');
  }
  const required = (el: Element | undefined, field: string, rule: string): string => {
    const v = textOf(el);
    return v ? v : invalid(field, `The MLS has no ${field}`, rule);
  };
  const responses = childElements(root, 'DocumentResponse', CAC_NS);
  if (responses.length !== 1) invalid('DocumentResponse', `An MLS has exactly one DocumentResponse, found ${responses.length}`, 'SCH-MLS-17');
  const response = responses[0]!;
  const code = required(first(response, cac('Response'), cbc('ResponseCode')), 'DocumentResponse/Response/ResponseCode', 'SCH-MLS-18');
  if (!(MLS_RESPONSE_CODES as readonly string[]).includes(code)) {
    invalid('DocumentResponse/Response/ResponseCode', `Response code "${code}" is not one of ${MLS_RESPONSE_CODES.join(', ')}`, 'SCH-MLS-19');
  }

  const mls: Mls = {
    responseCode: code as MlsResponseCode,
    id: required(first(root, cbc('ID')), 'ID', 'SCH-MLS-03'),
    issueDate: required(first(root, cbc('IssueDate')), 'IssueDate', 'SCH-MLS-04'),
    senderSpid: spidOf(first(root, cac('SenderParty')), 'SenderParty/EndpointID'),
    receiverSpid: spidOf(first(root, cac('ReceiverParty')), 'ReceiverParty/EndpointID'),
    referencedInstanceIdentifier: required(first(response, cac('DocumentReference'), cbc('ID')), 'DocumentResponse/DocumentReference/ID', 'SCH-MLS-26'),
    lines: [],
  };
  const issueTime = textOf(first(root, cbc('IssueTime')));
  if (issueTime) mls.issueTime = issueTime;
  const description = textOf(first(response, cac('Response'), cbc('Description')));
  if (description) mls.description = description;
  for (const lineResponse of childElements(response, 'LineResponse', CAC_NS)) {
    const location = textOf(first(lineResponse, cac('LineReference'), cbc('LineID')));
    for (const r of childElements(lineResponse, 'Response', CAC_NS)) {
      const line: MlsLine = { reasonCode: textOf(first(r, cac('Status'), cbc('StatusReasonCode'))) ?? '' };
      const d = textOf(first(r, cbc('Description')));
      if (d !== undefined) line.description = d;
      if (location !== undefined) line.location = location;
      mls.lines.push(line);
    }
  }
  return mls;
}
