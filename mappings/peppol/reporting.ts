/**
 * Peppol Reporting: the two monthly reports every service provider running a production access
 * point sends to OpenPeppol (participant 9925:be0848934496, between day 1 and 15 of the next
 * month, even when every count is zero), built from our per-exchange evidence and read back, as a
 * pure mapping.
 *
 * - **TSR 1.0** (Transaction Statistics Report): the exchanges of the month, Incoming (we were C3)
 *   and Outgoing (we were C2), in total and in subtotals per transport protocol (PerTP), per other
 *   access point, document type and process (PerSP-DT-PR), both mandatory when anything is counted,
 *   and, for incoming exchanges only, also per sender (C1) and receiver (C4) country
 *   (PerSP-DT-PR-CC, Outgoing always 0: the sending access point does not know C4's country; ZZ
 *   when a country is unknown).
 * - **EUSR 1.1** (End User Statistics Report): the distinct end users we served, sending (C1 of our
 *   outgoing exchanges) and receiving (C4 of our incoming ones), in the full set and in subsets per
 *   document type and process (PerDT-PR), per document type, process and end user country
 *   (PerDT-PR-EUC), per document type and country (PerDT-EUC) and per country (PerEUC). An end user
 *   is a participant id, compared case-insensitively; its country is C1's for a sender, C4's for a
 *   receiver.
 *
 * What counts (both reports): an exchange of the month (00:00:00 on day 1 to 23:59:59 on the last
 * day, UTC) that got a positive AS4 receipt (`receipt !== false`), and is not itself a TSR or EUSR.
 *
 * The builders refuse input that would break a rule of the pack schematrons/peppol-reporting
 * (SCH-TSR-NN, SCH-EUSR-NN), so what they write validates clean; the readers refuse what is not a
 * report (a DOCTYPE, another root) and otherwise read what is there: checking the rules is
 * validateReport's job (services/validation/engine/reporting.ts).
 */
import type { Document, Element } from 'libxmljs2';
import { MappingError } from '../errors.ts';
import { childElements, parseXmlHardened } from '../xml/parse.ts';
import { XmlWriter } from '../xml/writer.ts';
import { DOCUMENT_SCHEME, PARTICIPANT_SCHEME, WILDCARD_DOCUMENT_SCHEME } from '../identifiers/peppol-network.ts';

export const REPORTING_PROFILE_ID = 'urn:fdc:peppol.eu:edec:bis:reporting:1.0';
/** Process identifier (scheme cenbii-procid-ubl) of both reports. */
export const REPORTING_PROCESS_ID = REPORTING_PROFILE_ID;
export const PROCESS_SCHEME = 'cenbii-procid-ubl';

export const TSR_NS = 'urn:fdc:peppol:transaction-statistics-report:1.0';
export const TSR_CUSTOMIZATION_ID = 'urn:fdc:peppol.eu:edec:trns:transaction-statistics-reporting:1.0';
/** Document type identifier (scheme busdox-docid-qns) of the TSR 1.0. */
export const TSR_DOCUMENT_TYPE_ID = `${TSR_NS}::TransactionStatisticsReport##${TSR_CUSTOMIZATION_ID}::1.0`;

export const EUSR_NS = 'urn:fdc:peppol:end-user-statistics-report:1.1';
export const EUSR_CUSTOMIZATION_ID = 'urn:fdc:peppol.eu:edec:trns:end-user-statistics-report:1.1';
/** Document type identifier (scheme busdox-docid-qns) of the EUSR 1.1. */
export const EUSR_DOCUMENT_TYPE_ID = `${EUSR_NS}::EndUserStatisticsReport##${EUSR_CUSTOMIZATION_ID}::1.1`;

export const TSR_DOCUMENT_TYPE = { scheme: DOCUMENT_SCHEME, value: TSR_DOCUMENT_TYPE_ID } as const;
export const EUSR_DOCUMENT_TYPE = { scheme: DOCUMENT_SCHEME, value: EUSR_DOCUMENT_TYPE_ID } as const;
export const REPORTING_PROCESS = { scheme: PROCESS_SCHEME, value: REPORTING_PROCESS_ID } as const;
/** Where the reports go: OpenPeppol's participant. */
export const REPORTING_RECEIVER = `${PARTICIPANT_SCHEME}::9925:be0848934496`;

/** The transport protocol of Peppol AS4 (the TP key of the TSR). */
export const PEPPOL_AS4_V2 = 'peppol-transport-as4-v2_0';
/** Service provider id scheme of the reports: the seat id, as the CN of the access point certificate. */
export const SP_SCHEME = 'CertSubjectCN';
/** Country code of the TSR for an unknown country. */
export const UNKNOWN_COUNTRY = 'ZZ';

export type TsrSubtotalType = 'PerTP' | 'PerSP-DT-PR' | 'PerSP-DT-PR-CC';
export type EusrSubsetType = 'PerDT-PR' | 'PerDT-PR-EUC' | 'PerDT-EUC' | 'PerEUC';

/** One exchange, as our per-exchange evidence holds it (ExchangeEvidence + the message's direction). */
export interface ReportingExchange {
  direction: 'sent' | 'received';
  /** when the exchange completed, ISO 8601 with a timezone (Z or ±hh:mm) */
  exchangedAt: string;
  /** the document type id (`busdox-docid-qns::` or `peppol-doctype-wildcard::` may prefix it) */
  documentTypeId: string;
  /** the process id (`cenbii-procid-ubl::` may prefix it) */
  processId: string;
  /** the SBDH COUNTRY_C1 (ISO 3166-1 alpha-2) */
  countryC1?: string;
  /** the final recipient's country (known to C3, i.e. on received exchanges) */
  countryC4?: string;
  /** C1 and C4 participant ids (`0088:…`, `iso6523-actorid-upis::` may prefix them; compared case-insensitively) */
  senderParticipant: string;
  receiverParticipant: string;
  /** the other access point's seat id (the CN of its certificate), e.g. POP000123 */
  otherAccessPoint: string;
  transportProtocol: typeof PEPPOL_AS4_V2 | (string & {});
  /** false when the exchange got no positive AS4 receipt: it is not counted. Absent: it did. */
  receipt?: boolean;
}

export interface ReportingInput {
  /** the reported month, YYYY-MM */
  month: string;
  /** our access point's seat id (the CN of its Peppol certificate), e.g. POP000306 — not the 0242 SPID, which lacks the letters */
  reporterId: string;
  /** any exchanges: those outside the month, without receipt, or of the reports themselves are left out */
  exchanges: readonly ReportingExchange[];
}

export interface ReportKey {
  metaSchemeID: string;
  schemeID: string;
  value: string;
}

export interface TransactionStatisticsReport {
  customizationId: string;
  profileId: string;
  period: { start: string; end: string };
  reporterId: string;
  reporterScheme: string;
  total: { incoming: number; outgoing: number };
  subtotals: { type: string; keys: ReportKey[]; incoming: number; outgoing: number }[];
}

export interface EndUserCounts {
  sending: number;
  receiving: number;
  sendingOrReceiving: number;
}

export interface EndUserStatisticsReport {
  customizationId: string;
  profileId: string;
  period: { start: string; end: string };
  reporterId: string;
  reporterScheme: string;
  fullSet: EndUserCounts;
  subsets: ({ type: string; keys: ReportKey[] } & EndUserCounts)[];
}

// ---------------------------------------------------------------------------------------------
// Value rules, shared with the pack's semantics

const SEAT_ID = /^P[A-Z]{2}[0-9]{6}$/;
const MONTH = /^([0-9]{4})-(0[1-9]|1[0-2])$/;
const WITH_TIMEZONE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?(Z|[+-][0-9]{2}:[0-9]{2})$/i;
const TRIMMED_TEXT = /^[^\s\p{Cc}](?:[^\p{Cc}]*[^\s\p{Cc}])?$/u;
/** ISO 3166-1 alpha-2 plus EL (Greece), XK and 1A (Kosovo); the TSR also takes ZZ (unknown). */
const COUNTRIES = new Set(('1A AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ '
  + 'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH EL ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH '
  + 'GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC '
  + 'LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE '
  + 'PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK '
  + 'TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XI XK YE YT ZA ZM ZW').split(' '));

function invalid(field: string, message: string, rule = 'REPORTING'): never {
  throw new MappingError('INVALID_REQUEST', message, [{ field, rule, message }]);
}

/** The first and last day of the month, and its UTC bounds [from, to). */
function periodOf(month: string): { start: string; end: string; from: number; to: number } {
  const m = MONTH.exec(month ?? '');
  if (!m) return invalid('month', `month "${month}" is not a YYYY-MM month`, 'SCH-TSR-40');
  const y = Number(m[1]), mo = Number(m[2]);
  const from = Date.UTC(y, mo - 1, 1), to = Date.UTC(y, mo, 1);
  const last = new Date(to - 86_400_000).getUTCDate();
  return { start: `${m[1]}-${m[2]}-01`, end: `${m[1]}-${m[2]}-${String(last).padStart(2, '0')}`, from, to };
}

function seatId(value: string | undefined, field: string, rule: string): string {
  if (typeof value !== 'string' || !SEAT_ID.test(value)) {
    return invalid(field, `${field} "${String(value)}" is not a Peppol seat id (P, two letters, six digits, as in POP000123: the CN of the access point certificate)`, rule);
  }
  return value;
}

function text(value: string | undefined, field: string): string {
  if (typeof value !== 'string' || !TRIMMED_TEXT.test(value)) invalid(field, `${field} must be a non-empty text without surrounding whitespace or control characters`);
  return value;
}

/** `scheme::value` split on a known scheme prefix (document type ids hold `::` themselves). */
function schemed(value: string, schemes: string[], fallback: string): { scheme: string; value: string } {
  for (const s of schemes) if (value.startsWith(`${s}::`)) return { scheme: s, value: value.slice(s.length + 2) };
  return { scheme: fallback, value };
}

function country(value: string | undefined, field: string, allowUnknown: boolean, rule: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  const cc = value.trim().toUpperCase();
  if (!COUNTRIES.has(cc) && !(allowUnknown && cc === UNKNOWN_COUNTRY)) {
    invalid(field, `${field} "${value}" is not an ISO 3166-1 alpha-2 country code`, rule);
  }
  return cc;
}

function participant(value: string | undefined, field: string): string {
  const v = text(value, field);
  return (v.toLowerCase().startsWith(`${PARTICIPANT_SCHEME}::`) ? v.slice(PARTICIPANT_SCHEME.length + 2) : v).toLowerCase();
}

interface Counted {
  direction: 'sent' | 'received';
  dt: { scheme: string; value: string };
  pr: { scheme: string; value: string };
  c1: string | undefined;
  c4: string | undefined;
  sender: string;
  receiver: string;
  sp: string;
  tp: string;
}

/** The exchanges both reports count, checked. */
function countedExchanges(input: ReportingInput, allowUnknownCountry: boolean, rulePrefix: 'TSR' | 'EUSR'): Counted[] {
  const { from, to } = periodOf(input.month);
  if (!Array.isArray(input.exchanges)) invalid('exchanges', 'exchanges must be a list');
  const out: Counted[] = [];
  input.exchanges.forEach((e, i) => {
    const f = `exchanges[${i}]`;
    if (e.direction !== 'sent' && e.direction !== 'received') invalid(`${f}.direction`, `${f}.direction must be "sent" or "received"`);
    if (typeof e.exchangedAt !== 'string' || !WITH_TIMEZONE.test(e.exchangedAt) || Number.isNaN(Date.parse(e.exchangedAt))) {
      invalid(`${f}.exchangedAt`, `${f}.exchangedAt "${String(e.exchangedAt)}" is not an ISO 8601 date-time with a timezone`);
    }
    const at = Date.parse(e.exchangedAt);
    if (at < from || at >= to || e.receipt === false) return;
    const dt = schemed(text(e.documentTypeId, `${f}.documentTypeId`), [DOCUMENT_SCHEME, WILDCARD_DOCUMENT_SCHEME], DOCUMENT_SCHEME);
    // the reports themselves are not counted
    if (dt.value === TSR_DOCUMENT_TYPE_ID || dt.value === EUSR_DOCUMENT_TYPE_ID) return;
    const countryRule = rulePrefix === 'TSR' ? 'SCH-TSR-20' : 'SCH-EUSR-30';
    out.push({
      direction: e.direction,
      dt,
      pr: schemed(text(e.processId, `${f}.processId`), [PROCESS_SCHEME], PROCESS_SCHEME),
      c1: country(e.countryC1, `${f}.countryC1`, allowUnknownCountry, countryRule),
      c4: country(e.countryC4, `${f}.countryC4`, allowUnknownCountry, countryRule),
      sender: participant(e.senderParticipant, `${f}.senderParticipant`),
      receiver: participant(e.receiverParticipant, `${f}.receiverParticipant`),
      sp: seatId(e.otherAccessPoint, `${f}.otherAccessPoint`, 'SCH-TSR-19'),
      tp: text(e.transportProtocol, `${f}.transportProtocol`),
    });
  });
  return out;
}

const dtKey = (c: Counted): ReportKey => ({ metaSchemeID: 'DT', schemeID: c.dt.scheme, value: c.dt.value });
const prKey = (c: Counted): ReportKey => ({ metaSchemeID: 'PR', schemeID: c.pr.scheme, value: c.pr.value });

/** Groups by a list of keys, in a stable order (sorted by the keys). */
function groupBy<T>(items: T[], keysOf: (item: T) => ReportKey[] | null): { keys: ReportKey[]; items: T[] }[] {
  const groups = new Map<string, { keys: ReportKey[]; items: T[] }>();
  for (const item of items) {
    const keys = keysOf(item);
    if (!keys) continue;
    const id = keys.map((k) => `${k.metaSchemeID}\u0000${k.schemeID}\u0000${k.value}`).join('\u0001');
    let g = groups.get(id);
    if (!g) groups.set(id, g = { keys, items: [] });
    g.items.push(item);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, g]) => g);
}

function writeHeader(w: XmlWriter, customizationId: string, period: { start: string; end: string }, reporterId: string): void {
  w.leaf('CustomizationID', customizationId);
  w.leaf('ProfileID', REPORTING_PROFILE_ID);
  w.el('Header', () => {
    w.el('ReportPeriod', () => {
      w.leaf('StartDate', period.start);
      w.leaf('EndDate', period.end);
    });
    w.leaf('ReporterID', reporterId, { schemeID: SP_SCHEME });
  });
}

function writeKeys(w: XmlWriter, keys: ReportKey[]): void {
  for (const k of keys) w.leaf('Key', k.value, { metaSchemeID: k.metaSchemeID, schemeID: k.schemeID });
}

// ---------------------------------------------------------------------------------------------
// TSR

/**
 * The Transaction Statistics Report of `input.month`; throws MappingError (INVALID_REQUEST, the
 * rule in `details[0].rule`) for input that would not make a valid TSR. An incoming exchange
 * without C1 or C4 country is counted under ZZ.
 */
export function buildTransactionStatisticsReport(input: ReportingInput): string {
  const period = periodOf(input.month);
  const reporter = seatId(input.reporterId, 'reporterId', 'SCH-TSR-18');
  const counted = countedExchanges(input, true, 'TSR');
  const count = (items: Counted[]) => ({
    incoming: items.filter((c) => c.direction === 'received').length,
    outgoing: items.filter((c) => c.direction === 'sent').length,
  });
  const subtotals: { type: TsrSubtotalType; keys: ReportKey[]; incoming: number; outgoing: number }[] = [
    ...groupBy(counted, (c) => [{ metaSchemeID: 'TP', schemeID: 'Peppol', value: c.tp }])
      .map((g) => ({ type: 'PerTP' as const, keys: g.keys, ...count(g.items) })),
    ...groupBy(counted, (c) => [{ metaSchemeID: 'SP', schemeID: SP_SCHEME, value: c.sp }, dtKey(c), prKey(c)])
      .map((g) => ({ type: 'PerSP-DT-PR' as const, keys: g.keys, ...count(g.items) })),
    // incoming only: the sending access point does not know C4's country (SCH-TSR-43)
    ...groupBy(counted, (c) => (c.direction !== 'received' ? null : [
      { metaSchemeID: 'SP', schemeID: SP_SCHEME, value: c.sp }, dtKey(c), prKey(c),
      { metaSchemeID: 'CC', schemeID: 'SenderCountry', value: c.c1 ?? UNKNOWN_COUNTRY },
      { metaSchemeID: 'CC', schemeID: 'ReceiverCountry', value: c.c4 ?? UNKNOWN_COUNTRY },
    ])).map((g) => ({ type: 'PerSP-DT-PR-CC' as const, keys: g.keys, incoming: g.items.length, outgoing: 0 })),
  ];
  const total = count(counted);

  const w = new XmlWriter();
  w.open('TransactionStatisticsReport', { xmlns: TSR_NS });
  writeHeader(w, TSR_CUSTOMIZATION_ID, period, reporter);
  w.el('Total', () => {
    w.leaf('Incoming', String(total.incoming));
    w.leaf('Outgoing', String(total.outgoing));
  });
  for (const s of subtotals) {
    w.el('Subtotal', () => {
      writeKeys(w, s.keys);
      w.leaf('Incoming', String(s.incoming));
      w.leaf('Outgoing', String(s.outgoing));
    }, { type: s.type });
  }
  w.close('TransactionStatisticsReport');
  return w.toString();
}

// ---------------------------------------------------------------------------------------------
// EUSR

/**
 * The End User Statistics Report of `input.month`; throws MappingError (INVALID_REQUEST) for input
 * that would not make a valid EUSR, among which a counted exchange without the country of our end
 * user (countryC1 when sent, countryC4 when received): the EUSR has no "unknown" country.
 */
export function buildEndUserStatisticsReport(input: ReportingInput): string {
  const period = periodOf(input.month);
  const reporter = seatId(input.reporterId, 'reporterId', 'SCH-EUSR-08');
  // one row per (exchange, our end user): C1 of what we sent, C4 of what we received
  const rows = countedExchanges(input, false, 'EUSR').map((c, i) => {
    const sending = c.direction === 'sent';
    const cc = sending ? c.c1 : c.c4;
    if (!cc) {
      invalid(`exchanges.${sending ? 'countryC1' : 'countryC4'}`,
        `A ${c.direction} exchange of ${sending ? c.sender : c.receiver} (counted exchange ${i + 1}) has no ${sending ? 'C1' : 'C4'} country: the EUSR counts our end users per country`, 'SCH-EUSR-30');
    }
    return { c, sending, user: sending ? c.sender : c.receiver, euc: { metaSchemeID: 'CC', schemeID: 'EndUserCountry', value: cc } as ReportKey };
  });
  type Row = (typeof rows)[number];
  const counts = (items: Row[]): EndUserCounts => ({
    sending: new Set(items.filter((r) => r.sending).map((r) => r.user)).size,
    receiving: new Set(items.filter((r) => !r.sending).map((r) => r.user)).size,
    sendingOrReceiving: new Set(items.map((r) => r.user)).size,
  });
  const subsets: ({ type: EusrSubsetType; keys: ReportKey[] } & EndUserCounts)[] = [
    ...groupBy(rows, (r) => [dtKey(r.c), prKey(r.c)]).map((g) => ({ type: 'PerDT-PR' as const, keys: g.keys, ...counts(g.items) })),
    ...groupBy(rows, (r) => [dtKey(r.c), prKey(r.c), r.euc]).map((g) => ({ type: 'PerDT-PR-EUC' as const, keys: g.keys, ...counts(g.items) })),
    ...groupBy(rows, (r) => [dtKey(r.c), r.euc]).map((g) => ({ type: 'PerDT-EUC' as const, keys: g.keys, ...counts(g.items) })),
    ...groupBy(rows, (r) => [r.euc]).map((g) => ({ type: 'PerEUC' as const, keys: g.keys, ...counts(g.items) })),
  ];
  const full = counts(rows);

  const w = new XmlWriter();
  const writeCounts = (n: EndUserCounts) => {
    w.leaf('SendingEndUsers', String(n.sending));
    w.leaf('ReceivingEndUsers', String(n.receiving));
    w.leaf('SendingOrReceivingEndUsers', String(n.sendingOrReceiving));
  };
  w.open('EndUserStatisticsReport', { xmlns: EUSR_NS });
  writeHeader(w, EUSR_CUSTOMIZATION_ID, period, reporter);
  w.el('FullSet', () => writeCounts(full));
  for (const s of subsets) {
    w.el('Subset', () => {
      writeKeys(w, s.keys);
      writeCounts(s);
    }, { type: s.type });
  }
  w.close('EndUserStatisticsReport');
  return w.toString();
}

// ---------------------------------------------------------------------------------------------
// Readers

const XML_SPACE = /^[ \t\r\n]+|[ \t\r\n]+$/g;

function textOf(el: Element | undefined): string | undefined {
  return el === undefined ? undefined : el.text().replace(XML_SPACE, '');
}

function parseReport(xml: string | Buffer, ns: string, rootName: string, what: string): Element {
  if (typeof xml === 'string' && xml.includes('\u0000')) invalid('xml', `The ${what} contains a NUL character`, 'well-formed');
  const doc: Document = parseXmlHardened(xml, what);
  if (doc.getDtd()) invalid('xml', `The ${what} has a DOCTYPE; DTDs and entity declarations are not accepted`, 'no-doctype');
  const problem = doc.errors[0];
  if (problem) invalid('xml', `The ${what} is not namespace-well-formed: ${problem.message.trim()}`, 'well-formed');
  const root = doc.root();
  if (!root || root.name() !== rootName || root.namespace()?.href() !== ns) {
    return invalid('xml', `The root element must be {${ns}}${rootName}`, 'root-element');
  }
  return root;
}

function child(el: Element | undefined, ns: string, ...path: string[]): Element | undefined {
  let cur = el;
  for (const name of path) {
    if (!cur) return undefined;
    cur = childElements(cur, name, ns)[0];
  }
  return cur;
}

/** A count: a non-negative integer, else a MappingError naming the element. */
function countOf(el: Element | undefined, ns: string, name: string, where: string): number {
  const v = textOf(child(el, ns, name));
  if (v === undefined || !/^[0-9]+$/.test(v)) return invalid(`${where}/${name}`, `${where}/${name} is ${v === undefined ? 'missing' : `"${v}", not a count`}`);
  return Number(v);
}

function headerOf(root: Element, ns: string) {
  const reporter = child(root, ns, 'Header', 'ReporterID');
  return {
    customizationId: textOf(child(root, ns, 'CustomizationID')) ?? '',
    profileId: textOf(child(root, ns, 'ProfileID')) ?? '',
    period: {
      start: textOf(child(root, ns, 'Header', 'ReportPeriod', 'StartDate')) ?? '',
      end: textOf(child(root, ns, 'Header', 'ReportPeriod', 'EndDate')) ?? '',
    },
    reporterId: textOf(reporter) ?? '',
    reporterScheme: reporter?.attr('schemeID')?.value().replace(XML_SPACE, '') ?? '',
  };
}

function keysOf(el: Element, ns: string): ReportKey[] {
  return childElements(el, 'Key', ns).map((k) => ({
    metaSchemeID: k.attr('metaSchemeID')?.value().replace(XML_SPACE, '') ?? '',
    schemeID: k.attr('schemeID')?.value().replace(XML_SPACE, '') ?? '',
    value: textOf(k) ?? '',
  }));
}

/**
 * Reads a TSR; throws MappingError (INVALID_REQUEST, or PAYLOAD_TOO_LARGE past the XML shape caps)
 * for input that is not XML, has a DOCTYPE, is not a TSR 1.0 root, or has a count that is missing
 * or not a non-negative integer. Text values are read trimmed.
 */
export function readTransactionStatisticsReport(xml: string | Buffer): TransactionStatisticsReport {
  const root = parseReport(xml, TSR_NS, 'TransactionStatisticsReport', 'TSR');
  const total = child(root, TSR_NS, 'Total');
  return {
    ...headerOf(root, TSR_NS),
    total: { incoming: countOf(total, TSR_NS, 'Incoming', 'Total'), outgoing: countOf(total, TSR_NS, 'Outgoing', 'Total') },
    subtotals: childElements(root, 'Subtotal', TSR_NS).map((s, i) => ({
      type: s.attr('type')?.value().replace(XML_SPACE, '') ?? '',
      keys: keysOf(s, TSR_NS),
      incoming: countOf(s, TSR_NS, 'Incoming', `Subtotal[${i + 1}]`),
      outgoing: countOf(s, TSR_NS, 'Outgoing', `Subtotal[${i + 1}]`),
    })),
  };
}

/** Reads an EUSR; the same refusals as readTransactionStatisticsReport, for an EUSR 1.1 root. */
export function readEndUserStatisticsReport(xml: string | Buffer): EndUserStatisticsReport {
  const root = parseReport(xml, EUSR_NS, 'EndUserStatisticsReport', 'EUSR');
  const countsOf = (el: Element | undefined, where: string): EndUserCounts => ({
    sending: countOf(el, EUSR_NS, 'SendingEndUsers', where),
    receiving: countOf(el, EUSR_NS, 'ReceivingEndUsers', where),
    sendingOrReceiving: countOf(el, EUSR_NS, 'SendingOrReceivingEndUsers', where),
  });
  return {
    ...headerOf(root, EUSR_NS),
    fullSet: countsOf(child(root, EUSR_NS, 'FullSet'), 'FullSet'),
    subsets: childElements(root, 'Subset', EUSR_NS).map((s, i) => ({
      type: s.attr('type')?.value().replace(XML_SPACE, '') ?? '',
      keys: keysOf(s, EUSR_NS),
      ...countsOf(s, `Subset[${i + 1}]`),
    })),
  };
}
