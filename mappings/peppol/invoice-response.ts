/**
 * Peppol BIS Invoice Response 3 (transaction T111): the UBL ApplicationResponse a buyer sends the
 * seller about one invoice or credit note, written and read as a pure mapping.
 *
 * One lifecycle model in the API, this is one of its wire forms (French-reform documents use CDAR):
 * the buyer's lifecycle moves map to the T111 status codes (UNCL 4343 subset) — AB message
 * acknowledgement, IP in process, UQ under query, CA conditionally accepted, RE rejected, AP
 * accepted, PD paid — and back. The sender party is the buyer, the receiver party the seller, each by
 * its Peppol electronic address; the document reference is the invoice number (BT-1), with its issue
 * date and UNCL 1001 type code.
 *
 * The builder refuses input that would break a T111 rule (R001: CA, UQ and RE carry a clarification
 * code; R004/R005: PPD only with PD, and with a reason; R006/R007: codes of the OPStatusAction and
 * OPStatusReason lists), so what it writes validates clean. A free-text reason whose code is not one
 * of the list's is sent as OTH with the text (R002), which is what the specification asks.
 */
import type { Element } from 'libxmljs2';
import { MappingError } from '../errors.ts';
import { childElements, parseXmlHardened } from '../xml/parse.ts';
import { XmlWriter } from '../xml/writer.ts';
import { CAC_NS, CBC_NS } from '../ubl-2.1/namespaces.ts';
import { DOCUMENT_SCHEME } from '../identifiers/peppol-network.ts';
import { APPLICATION_RESPONSE_NS } from './mls.ts';

export const INVOICE_RESPONSE_CUSTOMIZATION_ID = 'urn:fdc:peppol.eu:poacc:trns:invoice_response:3';
export const INVOICE_RESPONSE_PROFILE_ID = 'urn:fdc:peppol.eu:poacc:bis:invoice_response:3';
/** Document type identifier (scheme busdox-docid-qns) under which a participant receives Invoice Responses. */
export const INVOICE_RESPONSE_DOCUMENT_TYPE_ID = `${APPLICATION_RESPONSE_NS}::ApplicationResponse##${INVOICE_RESPONSE_CUSTOMIZATION_ID}::2.1`;
export const INVOICE_RESPONSE_DOCUMENT_TYPE = { scheme: DOCUMENT_SCHEME, value: INVOICE_RESPONSE_DOCUMENT_TYPE_ID } as const;
export const INVOICE_RESPONSE_PROCESS = { scheme: 'cenbii-procid-ubl', value: INVOICE_RESPONSE_PROFILE_ID } as const;

export const INVOICE_RESPONSE_CODES = ['AB', 'IP', 'UQ', 'CA', 'RE', 'AP', 'PD'] as const;
export type InvoiceResponseCode = (typeof INVOICE_RESPONSE_CODES)[number];
/** OPStatusReason: what is wrong (or NON, nothing). */
export const STATUS_REASON_CODES = ['NON', 'REF', 'LEG', 'REC', 'QUA', 'DEL', 'PRI', 'QTY', 'ITM', 'PAY', 'UNR', 'FIN', 'PPD', 'OTH'] as const;
/** OPStatusAction: what the buyer asks the seller to do. */
export const STATUS_ACTION_CODES = ['NOA', 'PIN', 'NIN', 'CNF', 'CNP', 'CNA', 'OTH'] as const;
/** Statuses that need a clarification code (PEPPOL-T111-R001). */
const NEEDS_CLARIFICATION: ReadonlySet<InvoiceResponseCode> = new Set(['CA', 'UQ', 'RE']);

/** The API lifecycle status each response code stands for (one lifecycle model, two wire forms). */
export const LIFECYCLE_STATUS_OF_RESPONSE: Readonly<Record<InvoiceResponseCode, 'received' | 'under_review' | 'disputed' | 'approved' | 'rejected' | 'paid'>> = {
  AB: 'received', IP: 'under_review', UQ: 'disputed', CA: 'approved', RE: 'rejected', AP: 'approved', PD: 'paid',
};

/** One clarification: a reason (OPStatusReason) or an action (OPStatusAction), with its text. */
export interface Clarification {
  list: 'reason' | 'action';
  code: string;
  text?: string;
}

/** A participant as an Invoice Response names it: `<scheme>:<value>` (`0088:5790000000011`) and a name. */
export interface ResponseParty {
  endpoint: string;
  name: string;
}

export interface InvoiceResponseInput {
  id: string;
  responseCode: InvoiceResponseCode;
  /** YYYY-MM-DD of the response. */
  issueDate: string;
  /** The buyer, who answers. */
  sender: ResponseParty;
  /** The seller, who is answered. */
  receiver: ResponseParty;
  /** The document answered: its number (BT-1), issue date and UNCL 1001 code (380 invoice, 381 credit note). */
  document: { id: string; issueDate?: string; typeCode?: string };
  /** When the status took effect (PD: the payment date). */
  effectiveDate?: string;
  clarifications?: Clarification[];
  note?: string;
}

export interface InvoiceResponse extends InvoiceResponseInput {
  customizationId: string;
  profileId: string;
}

const DATE = /^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$/;
const PARTICIPANT = /^([0-9]{4}):(\S.{0,199})$/;

function invalid(field: string, message: string, rule = 'PEPPOL-T111'): never {
  throw new MappingError('INVALID_REQUEST', message, [{ field, rule, message }]);
}

function endpointOf(party: ResponseParty, field: string): { scheme: string; value: string } {
  const m = PARTICIPANT.exec(party.endpoint ?? '');
  if (!m) return invalid(`${field}.endpoint`, `${field}.endpoint "${party.endpoint}" is not a Peppol participant id (<4-digit scheme>:<value>)`, 'PEPPOL-T111-B00202');
  return { scheme: m[1]!, value: m[2]!.trim() };
}

function nonEmpty(value: string | undefined, field: string, rule: string): string {
  if (value === undefined || value.trim() === '') return invalid(field, `${field} is required`, rule);
  return value.trim();
}

function date(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (!DATE.test(value)) invalid(field, `${field} "${value}" is not a YYYY-MM-DD date`, 'PEPPOL-COMMON-R030');
  return value;
}

/** The clarifications checked against the code lists and the status (R001, R004–R007). */
function clarificationsOf(input: InvoiceResponseInput): Clarification[] {
  const list = input.clarifications ?? [];
  list.forEach((c, i) => {
    const codes: readonly string[] = c.list === 'action' ? STATUS_ACTION_CODES : STATUS_REASON_CODES;
    if (!codes.includes(c.code)) invalid(`clarifications[${i}].code`, `"${c.code}" is not an OPStatus${c.list === 'action' ? 'Action' : 'Reason'} code (${codes.join(' ')})`, c.list === 'action' ? 'PEPPOL-T111-R006' : 'PEPPOL-T111-R007');
    if (c.code === 'PPD' && input.responseCode !== 'PD') invalid(`clarifications[${i}].code`, 'PPD (partially paid) goes with status PD only', 'PEPPOL-T111-R005');
    if (c.code === 'PPD' && !c.text?.trim()) invalid(`clarifications[${i}].text`, 'PPD (partially paid) needs a text saying what was paid', 'PEPPOL-T111-R004');
  });
  if (NEEDS_CLARIFICATION.has(input.responseCode) && list.length === 0) {
    invalid('clarifications', `Status ${input.responseCode} needs a clarification code (OPStatusReason or OPStatusAction)`, 'PEPPOL-T111-R001');
  }
  return list;
}

/** The Invoice Response for `input`; throws MappingError (INVALID_REQUEST, the rule in details[0].rule) for what would not validate. */
export function buildInvoiceResponse(input: InvoiceResponseInput): string {
  if (!(INVOICE_RESPONSE_CODES as readonly string[]).includes(input.responseCode)) {
    invalid('responseCode', `responseCode "${String(input.responseCode)}" is not one of ${INVOICE_RESPONSE_CODES.join(', ')}`, 'PEPPOL-T111-B00301');
  }
  const id = nonEmpty(input.id, 'id', 'PEPPOL-T111-B00103');
  const issueDate = date(nonEmpty(input.issueDate, 'issueDate', 'PEPPOL-T111-B00104'), 'issueDate')!;
  const sender = endpointOf(input.sender, 'sender');
  const receiver = endpointOf(input.receiver, 'receiver');
  const senderName = nonEmpty(input.sender.name, 'sender.name', 'PEPPOL-T111-B00205');
  const receiverName = nonEmpty(input.receiver.name, 'receiver.name', 'PEPPOL-T111-B00305');
  const reference = nonEmpty(input.document?.id, 'document.id', 'PEPPOL-T111-B00401');
  const referenceDate = date(input.document.issueDate, 'document.issueDate');
  const effectiveDate = date(input.effectiveDate, 'effectiveDate');
  const clarifications = clarificationsOf(input);

  const w = new XmlWriter();
  w.open('ApplicationResponse', { xmlns: APPLICATION_RESPONSE_NS, 'xmlns:cac': CAC_NS, 'xmlns:cbc': CBC_NS });
  w.leaf('cbc:CustomizationID', INVOICE_RESPONSE_CUSTOMIZATION_ID);
  w.leaf('cbc:ProfileID', INVOICE_RESPONSE_PROFILE_ID);
  w.leaf('cbc:ID', id);
  w.leaf('cbc:IssueDate', issueDate);
  w.leaf('cbc:Note', input.note?.trim() || undefined);
  const party = (tag: string, endpoint: { scheme: string; value: string }, name: string) => w.el(tag, () => {
    w.leaf('cbc:EndpointID', endpoint.value, { schemeID: endpoint.scheme });
    w.el('cac:PartyLegalEntity', () => w.leaf('cbc:RegistrationName', name));
  });
  party('cac:SenderParty', sender, senderName);
  party('cac:ReceiverParty', receiver, receiverName);
  w.el('cac:DocumentResponse', () => {
    w.el('cac:Response', () => {
      w.leaf('cbc:ResponseCode', input.responseCode);
      w.leaf('cbc:EffectiveDate', effectiveDate);
      for (const c of clarifications) {
        w.el('cac:Status', () => {
          w.leaf('cbc:StatusReasonCode', c.code, { listID: c.list === 'action' ? 'OPStatusAction' : 'OPStatusReason' });
          w.leaf('cbc:StatusReason', c.text?.trim() || undefined);
        });
      }
    });
    w.el('cac:DocumentReference', () => {
      w.leaf('cbc:ID', reference);
      w.leaf('cbc:IssueDate', referenceDate);
      w.leaf('cbc:DocumentTypeCode', input.document.typeCode);
    });
  });
  w.close('ApplicationResponse');
  return w.toString();
}

// ---------------------------------------------------------------------------------------------
// Reader

const XML_SPACE = /^[ \t\r\n]+|[ \t\r\n]+$/g;
const textOf = (el: Element | undefined): string | undefined => (el === undefined ? undefined : el.text().replace(XML_SPACE, ''));

function first(el: Element | undefined, ...path: Array<[string, string]>): Element | undefined {
  let cur = el;
  for (const [ns, name] of path) cur = cur ? childElements(cur, name, ns)[0] : undefined;
  return cur;
}
const cac = (name: string): [string, string] => [CAC_NS, name];
const cbc = (name: string): [string, string] => [CBC_NS, name];

function partyOf(root: Element, tag: string, field: string): ResponseParty {
  const party = first(root, cac(tag));
  const endpoint = first(party, cbc('EndpointID'));
  const value = textOf(endpoint);
  if (!value) return invalid(`${field}/EndpointID`, `The Invoice Response has no ${field}/EndpointID`, 'PEPPOL-T111-B00202');
  const scheme = endpoint!.attr('schemeID')?.value().replace(XML_SPACE, '');
  return { endpoint: scheme ? `${scheme}:${value}` : value, name: textOf(first(party, cac('PartyLegalEntity'), cbc('RegistrationName'))) ?? '' };
}

/**
 * Whether an ApplicationResponse is an Invoice Response (its CustomizationID), read cheaply by the
 * caller that already holds the document type; a full read is readInvoiceResponse.
 */
export function isInvoiceResponseDocumentType(documentTypeId: string): boolean {
  return documentTypeId.startsWith(`${APPLICATION_RESPONSE_NS}::ApplicationResponse##${INVOICE_RESPONSE_CUSTOMIZATION_ID}`);
}

/**
 * Reads an Invoice Response; throws MappingError (INVALID_REQUEST, or PAYLOAD_TOO_LARGE past the XML
 * caps) for what is not XML, has a DOCTYPE, is not a T111 ApplicationResponse, or lacks what the
 * answer needs (ID, the parties' endpoints, one DocumentResponse with a known status code and a
 * document reference). Clarifications are read as given; checking the rules is the builder's side.
 */
export function readInvoiceResponse(xml: string | Buffer): InvoiceResponse {
  if (typeof xml === 'string' && xml.includes('\u0000')) invalid('xml', 'The Invoice Response contains a NUL character', 'well-formed');
  const doc = parseXmlHardened(xml, 'Invoice Response');
  if (doc.getDtd()) invalid('xml', 'The Invoice Response has a DOCTYPE; DTDs and entity declarations are not accepted', 'no-doctype');
  if (doc.errors[0]) invalid('xml', `The Invoice Response is not namespace-well-formed: ${doc.errors[0].message.trim()}`, 'well-formed');
  const root = doc.root();
  if (!root || root.name() !== 'ApplicationResponse' || root.namespace()?.href() !== APPLICATION_RESPONSE_NS) {
    return invalid('xml', `The root element must be {${APPLICATION_RESPONSE_NS}}ApplicationResponse`, 'root-element');
  }
  const customizationId = textOf(first(root, cbc('CustomizationID'))) ?? '';
  if (!customizationId.startsWith(INVOICE_RESPONSE_CUSTOMIZATION_ID)) {
    invalid('CustomizationID', `CustomizationID "${customizationId}" is not an Invoice Response one (${INVOICE_RESPONSE_CUSTOMIZATION_ID})`, 'PEPPOL-T111-R003');
  }
  const responses = childElements(root, 'DocumentResponse', CAC_NS);
  if (responses.length !== 1) invalid('DocumentResponse', `An Invoice Response answers exactly one document, found ${responses.length} DocumentResponse`, 'PEPPOL-T111-B00107');
  const response = first(responses[0], cac('Response'));
  const code = textOf(first(response, cbc('ResponseCode'))) ?? '';
  if (!(INVOICE_RESPONSE_CODES as readonly string[]).includes(code)) invalid('DocumentResponse/Response/ResponseCode', `Response code "${code}" is not one of ${INVOICE_RESPONSE_CODES.join(', ')}`, 'PEPPOL-T111-B00301');
  const reference = first(responses[0], cac('DocumentReference'));
  const required = (el: Element | undefined, field: string, rule: string) => textOf(el) || invalid(field, `The Invoice Response has no ${field}`, rule);
  const out: InvoiceResponse = {
    customizationId,
    profileId: textOf(first(root, cbc('ProfileID'))) ?? '',
    id: required(first(root, cbc('ID')), 'ID', 'PEPPOL-T111-B00103'),
    issueDate: required(first(root, cbc('IssueDate')), 'IssueDate', 'PEPPOL-T111-B00104'),
    responseCode: code as InvoiceResponseCode,
    sender: partyOf(root, 'SenderParty', 'SenderParty'),
    receiver: partyOf(root, 'ReceiverParty', 'ReceiverParty'),
    document: { id: required(first(reference, cbc('ID')), 'DocumentResponse/DocumentReference/ID', 'PEPPOL-T111-B00401') },
    clarifications: childElements(response!, 'Status', CAC_NS).flatMap((status) => {
      const codeEl = first(status, cbc('StatusReasonCode'));
      const value = textOf(codeEl);
      if (!value) return [];
      const text = textOf(first(status, cbc('StatusReason')));
      return [{ list: codeEl!.attr('listID')?.value() === 'OPStatusAction' ? 'action' as const : 'reason' as const, code: value, ...(text ? { text } : {}) }];
    }),
  };
  const referenceDate = textOf(first(reference, cbc('IssueDate')));
  if (referenceDate) out.document.issueDate = referenceDate;
  const typeCode = textOf(first(reference, cbc('DocumentTypeCode')));
  if (typeCode) out.document.typeCode = typeCode;
  const effective = textOf(first(response, cbc('EffectiveDate')));
  if (effective) out.effectiveDate = effective;
  const note = textOf(first(root, cbc('Note')));
  if (note) out.note = note;
  return out;
}

// ---------------------------------------------------------------------------------------------
// The lifecycle model and the wire form

/** A buyer's lifecycle move as the platform records it (the French code the API's lifecycle uses underneath). */
export interface LifecycleMove {
  code: string;
  reason?: string;
  reasonCode?: string;
  note?: string;
  paymentDate?: string;
  partial?: boolean;
  /** Amount blocks (RAP: what remains to pay). */
  amounts?: Record<string, string>;
}

/** Buyer's codes of the platform's lifecycle → T111 status: 203 made available (AB), 204 (IP), 205 (AP), 206 (CA), 207 and 208 (UQ), 210 (RE), 211 (PD). */
const RESPONSE_OF_CODE: Readonly<Record<string, InvoiceResponseCode>> = { 203: 'AB', 204: 'IP', 205: 'AP', 206: 'CA', 207: 'UQ', 208: 'UQ', 210: 'RE', 211: 'PD' };

/** The T111 status a lifecycle code is sent as; undefined when it has no Invoice Response form (a seller's or platform's step). */
export function responseCodeOf(code: string): InvoiceResponseCode | undefined {
  return RESPONSE_OF_CODE[code];
}

/**
 * The status and clarifications a lifecycle move is sent as. A reason code of the move that is an
 * OPStatusReason code is kept; any other reason (a free text, a code of another list) goes as OTH
 * with the text. A payment with an amount left to pay says PPD.
 */
export function responseOfMove(move: LifecycleMove): { responseCode: InvoiceResponseCode; clarifications: Clarification[]; effectiveDate?: string; note?: string } | undefined {
  const responseCode = responseCodeOf(move.code);
  if (!responseCode) return undefined;
  const text = [move.reason, move.note].filter((s): s is string => !!s?.trim()).join(' — ') || undefined;
  const clarifications: Clarification[] = [];
  if (responseCode === 'PD') {
    const left = move.amounts?.RAP;
    if (move.partial || (left !== undefined && Number(left) > 0)) clarifications.push({ list: 'reason', code: 'PPD', text: text ?? `Partially paid${left ? `; ${left} remains to be paid` : ''}` });
  } else if (NEEDS_CLARIFICATION.has(responseCode) || move.reasonCode || text) {
    const known = move.reasonCode && (STATUS_REASON_CODES as readonly string[]).includes(move.reasonCode) && move.reasonCode !== 'PPD';
    const code = known ? move.reasonCode! : NEEDS_CLARIFICATION.has(responseCode) || text ? 'OTH' : undefined;
    const said = text ?? (code === 'OTH' ? (move.reasonCode ? `Reason ${move.reasonCode}` : 'No reason given') : undefined);
    if (code) clarifications.push({ list: 'reason', code, ...(said ? { text: said } : {}) });
  }
  return {
    responseCode, clarifications,
    ...(responseCode === 'PD' && move.paymentDate && DATE.test(move.paymentDate) ? { effectiveDate: move.paymentDate } : {}),
  };
}
