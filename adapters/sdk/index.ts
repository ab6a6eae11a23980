/**
 * The connector SDK (API 2): what a network or country connector implements, and the ports the
 * platform gives it. A connector is a manifest plus a few verbs working against a `ConnectorHost`
 * (configuration and secrets, HTTP client, logger, clock, translators, directory, scheduler, a
 * durable inbound hand-off and, since 2.5, durable state). Nothing here imports Moleculer, the ORM or the platform's services:
 * a connector is plain TypeScript in one folder, tested by the contract suite (`contract-suite.ts`).
 * README.md is the guide a partner follows.
 */
import type * as Translators from '../../mappings/index.ts';

/** Version of this interface; a connector states the one it was written against (same major). */
export const CONNECTOR_API_VERSION = '2.5';

export type ConnectorMode = 'live' | 'test';

export interface ConnectorCapabilities {
  /** Outbound delivery (`send`). */
  send: boolean;
  /** The network calls us: the connector declares `routes`, mounted under `/connectors/<id>/`. */
  pushReceive: boolean;
  /** The connector fetches inbound documents itself on a timer (`host.scheduler`). */
  pollReceive: boolean;
  /** Delivery confirmed later (`status`). */
  status: boolean;
  /** Tax-authority reporting (e-reporting, `report`). */
  report: boolean;
  /** Recipient discovery (`check`): whether a participant is reachable and what it accepts. */
  discover: boolean;
  /** Company registry (`lookupCompany`): whether a VAT number is registered and active, and who it is (since 2.1). */
  registry?: boolean;
  /** Reachability self-test (`probe`, since 2.3): a test message through discovery and the network back to a participant of this platform. */
  probe?: boolean;
  /** Lifecycle answers (`respond`, since 2.4): the buyer's moves on a received document passed back to its sender (a Peppol Invoice Response). */
  respond?: boolean;
  /**
   * Clearance (since 2.4): `send` submits the document to a tax authority that clears it (or takes
   * its real-time report); a delivery carries the authority's `clearance`, a rejection is the
   * authority's (`compliance.reported` failed with its code) and leaves the document correctable:
   * its number is free again for the corrected send.
   */
  clearance?: boolean;
}

/** One configuration entry a connector reads; the platform validates the configuration against these. */
export interface ConnectorOption {
  type: 'string' | 'number' | 'boolean';
  description: string;
  required?: boolean;
  default?: string | number | boolean;
  /** A secret: read through `host.secrets` only, never logged, returned or put in `host.config`. */
  secret?: boolean;
}

export interface ConnectorManifest {
  /** kebab-case; national connectors start with the ISO country code (`fr-ppf`). Also the folder name. */
  id: string;
  /** The connector's own version (semver). */
  version: string;
  /** SDK version it was written against (`CONNECTOR_API_VERSION`). */
  apiVersion: string;
  name: string;
  description: string;
  /** Which credentials it serves: test keys, live keys or both (each message says which: `livemode`). */
  modes: readonly ConnectorMode[];
  /** ISO 3166-1 alpha-2 countries it reaches, or `*`. */
  countries: readonly string[];
  /** API document types it carries (`invoice`, `credit-note`, …). */
  documentTypes: readonly string[];
  capabilities: ConnectorCapabilities;
  /** With capability `clearance` (API 2.4): the tax authority, as `compliance.reported` names it (`KSeF`, `ANAF`, `ZATCA`). */
  authority?: string;
  /**
   * The network whose rules apply to every document it carries, whatever the document's
   * CustomizationID says: `peppol` (a Peppol access point) makes a send routed through it pass the
   * Peppol BIS rules too.
   */
  network?: 'peppol';
  /** What it reads from the configuration (`EINV_CONNECTOR_<ID>_<NAME>` or the connectors file). */
  options?: Readonly<Record<string, ConnectorOption>>;
}

// ---------------------------------------------------------------------------------------------
// messages

/** A participant as a sender names it. */
export interface Participant {
  peppolId?: string;
  companyId?: string;
  /** French reception point: SIRET or SIREN, and an optional routing suffix. */
  addressingIdentifier?: string;
  addressingSuffix?: string;
  country?: string;
}

export interface CheckRequest {
  recipient: Participant;
  documentType: string;
  livemode: boolean;
}

export interface CheckResult {
  /** The participant is registered on the network. */
  known: boolean;
  /** It accepts `documentType`. */
  canReceive: boolean;
  documentTypes: string[];
  peppolId?: string;
  name?: string;
  /** Recipient country when the network knows it (selects national rule packs). */
  country?: string;
  /** Where the network delivers it, when discovery tells (API 2.2): the endpoint and its certificate. */
  endpoint?: EndpointFacts;
}

export interface EndpointFacts {
  url: string;
  transportProfile: string;
  /** Subject of the receiving access point's certificate, and when it expires (ISO 8601). */
  certificateSubject: string | null;
  certificateNotAfter: string | null;
}

export interface Party {
  peppolId: string | null;
  name: string | null;
  organizationId: string;
  companyId: string;
}

/** What travels: the original artefact and, when there is one, its structured forms. */
export interface Payload {
  /** base64 of the bytes sent on the wire (the legal record). */
  content: string;
  contentType: string;
  filename?: string;
  /** Structured XML (UBL or CII) and its syntax. */
  xml?: string;
  syntax?: string;
  /** Normalised JSON (canonical EN 16931 model or the structured body). */
  normalized?: Record<string, unknown>;
  /** The original is a PDF (hybrid invoice). */
  pdf?: boolean;
}

export interface OutboundMessage {
  documentId: string;
  /** Sent with a live key (production network) or a test key (the network's test environment). */
  livemode: boolean;
  type: string;
  number: string | null;
  sender: Party;
  recipient: Participant;
  payload: Payload;
  /** 1 for the first attempt. */
  attempt: number;
}

export interface StatusRequest {
  messageId: string;
  livemode: boolean;
}

/** A network's own error, as the network names it (EBMS:0004, PPF codes, SDI codes, …). */
export interface NetworkError {
  /** The network's code; it becomes the document's `errorCode` when the failure is permanent. */
  code: string;
  message: string;
}

/**
 * What proves a network exchange (API 2.3), kept with the document: the platform stores it as
 * given and later messages (a Peppol MLS, an Invoice Response, the monthly reporting) refer to it.
 * Values are strings; binary evidence (a signed receipt) goes base64.
 */
export interface ExchangeEvidence {
  /** The network's id of the message (AS4 eb:MessageId). */
  messageId: string;
  /** The business envelope's id (SBDH InstanceIdentifier). */
  instanceIdentifier?: string;
  /** When the exchange completed (ISO 8601). */
  exchangedAt: string;
  /** SHA-256 (hex) of the business document as it travelled. */
  payloadSha256?: string;
  /** The other access point: its seat id, certificate (base64 DER) and, outbound, its endpoint URL. */
  counterpartAccessPoint?: string;
  counterpartCertificate?: string;
  endpointUrl?: string;
  /** The signed receipt (base64 of the XML as received or sent), and its own message id. */
  receipt?: string;
  receiptMessageId?: string;
  /** Network-specific facts (document type and process ids, the C1 country, …). */
  details?: Record<string, string>;
}

/**
 * API 2.4: what a tax authority's clearance (or real-time reporting) gave a document: its id for
 * the invoice, when, its receipt, the text of the QR code the law requires on the visual
 * representation, and — where the authority's signed version is the legal original (ANAF's signed
 * archive, ZATCA's cleared XML) — that version. Binary parts go base64.
 */
export interface Clearance {
  /** `cleared`: the authority validated and registered it before delivery; `reported`: it took the report (B2C, within its deadline). */
  status: 'cleared' | 'reported';
  /** The authority's id of the invoice (KSeF number, ANAF upload / download index, ZATCA clearance UUID …). */
  authorityId: string;
  /** When the authority registered it (ISO 8601). */
  at: string;
  receipt?: { content: string; contentType: string; filename?: string };
  /** The QR code's content, as the law defines it (a verification URL, a TLV in base64 …). */
  qr?: string;
  legalOriginal?: { content: string; contentType: string; filename?: string };
  /** Other facts the authority gives (the session or batch reference, the hash the next invoice chains to …). */
  details?: Record<string, string>;
}

export type SendResult =
  /** The recipient's access point confirmed final delivery (`localDocumentId`: the recipient's copy when it is on this platform). */
  | { outcome: 'delivered'; messageId: string; localDocumentId?: string; evidence?: ExchangeEvidence; clearance?: Clearance }
  /** Handed over; final delivery is confirmed later through `status`. */
  | { outcome: 'accepted'; messageId: string; checkAfterMs: number }
  /** Permanent failure (`document.failed` with this code and message). */
  | ({ outcome: 'rejected' } & ErrorFields)
  /** Temporary transport failure: the platform re-sends (TRANSPORT_FAILURE after the last try). */
  | { outcome: 'transient'; errorMessage: string; errorCode?: string };

export interface ErrorFields {
  /** `AP_REJECTED`, `SBDH_ERROR` or the network's own code (`EBMS:0004`, `SDI:00404`, …). */
  errorCode: string;
  errorMessage: string;
}

export type StatusResult =
  | { outcome: 'delivered'; clearance?: Clearance }
  | { outcome: 'pending'; checkAfterMs: number }
  | ({ outcome: 'rejected' } & ErrorFields);

/**
 * A filing with a tax authority (e-reporting): transaction data of invoices that travel outside
 * the authority's own platform, payment data, or a lifecycle status the law says to report.
 * The platform builds the report in the authority's format; the connector files it.
 */
export interface ReportMessage {
  /**
   * The platform's id of the report. The same id again is the same report: the connector answers
   * the first filing's outcome and never files it twice.
   */
  reportId: string;
  livemode: boolean;
  /** `network-statistics` (API 2.4): a network's own statistics of this service provider (Peppol Reporting's TSR and EUSR). */
  kind: 'transaction' | 'payment' | 'lifecycle' | 'network-statistics';
  /** ISO 3166-1 alpha-2 country of the authority; `*` for a network's own statistics. */
  country: string;
  /** API 2.4: the network participant the report goes to, where the network says (Peppol Reporting: OpenPeppol's `9925:be0848934496`). */
  recipient?: string;
  /** The company that reports. */
  reporter: Party;
  /** The period the data belongs to, where the authority groups by period (`2026-11`, `2026-11-01/2026-11-10`). */
  period?: string;
  /** The platform's documents the report covers. */
  documentIds: string[];
  /** The report itself, in the authority's format. */
  payload: Payload;
}

export type ReportResult =
  /** Filed; `networkReportId` is the authority's reference for it. */
  | { outcome: 'accepted'; reportId: string; networkReportId: string }
  /** Refused by the authority (its own code). */
  | ({ outcome: 'rejected' } & ErrorFields)
  /** Not filed this time: the platform files it again later. */
  | { outcome: 'transient'; errorMessage: string; errorCode?: string };

/** A company registry question: is this VAT number registered, and who is it? */
export interface RegistryRequest {
  /** Country prefix and number, uppercase, no spaces (`BE0403170701`). */
  vatNumber: string;
  livemode: boolean;
}

export interface RegisteredCompany {
  /** Legal name as the registry holds it. */
  name: string;
  address?: { street?: string; streetLine2?: string; city?: string; postalCode?: string; country?: string };
  /** National company number, when the registry gives one. */
  registrationNumber?: string;
}

export type RegistryResult =
  | ({ status: 'active' } & RegisteredCompany)
  /** Registered once, no longer active (ceased, struck off, VAT deregistered). */
  | { status: 'inactive'; name?: string }
  | { status: 'not_found' };

/**
 * A typed failure a connector throws from any verb. `transient`: the platform tries again later
 * (a send is re-sent on its retry schedule); `permanent`: the document fails with `code` and
 * `message` as its `errorCode` / `errorMessage`. Anything else thrown counts as transient.
 */
export class ConnectorError extends Error implements NetworkError {
  readonly kind: 'transient' | 'permanent';
  readonly code: string;
  constructor(kind: 'transient' | 'permanent', code: string, message: string) {
    super(message);
    this.name = 'ConnectorError';
    this.kind = kind;
    this.code = code;
  }
  static transient(code: string, message: string): ConnectorError { return new ConnectorError('transient', code, message); }
  static permanent(code: string, message: string): ConnectorError { return new ConnectorError('permanent', code, message); }
}

/** A document arriving from the network for a participant of this platform. */
export interface InboundDocument {
  /** The network's id of the message: a second hand-off with the same id is the same document. */
  messageId: string;
  livemode: boolean;
  type: string;
  number: string | null;
  sender: { peppolId: string | null; name: string | null; organizationId?: string; companyId?: string };
  recipient: { peppolId: string | null; organizationId: string; companyId: string; name: string | null };
  payload: Payload;
  /** What proves the exchange (API 2.3): the sender's message id, the receipt we answer with … */
  evidence?: ExchangeEvidence;
}

export interface AcceptResult {
  documentId: string;
  /**
   * The message id was handed over before: nothing new was stored. (A new message repeating a
   * business document already received is stored, `duplicate: false`, and marked by the platform.)
   */
  duplicate: boolean;
  /**
   * API 2.3: the platform's verdict on the document it stored (the rules its CustomizationID and the
   * network select; the first findings), when it could validate it — what a Peppol access point's
   * MLS reports back to the sender.
   */
  validation?: { valid: boolean; findings: Array<{ rule: string; severity: string; message: string; location: string }> };
}

/** A later word from the network on a document this platform sent (API 2.3): a Peppol MLS, for one. */
export interface NetworkStatus {
  /** Which document: the id the network was given for it (our SBDH InstanceIdentifier is the document id) … */
  documentId?: string;
  /** … or the network message id it travelled under … */
  messageId?: string;
  /**
   * … or (API 2.4) the business document it answers, as a buyer's response names it (a Peppol
   * Invoice Response refers to the invoice number and issue date, sent to the seller's participant id).
   */
  invoice?: { number: string; issueDate?: string; sellerPeppolId: string };
  /**
   * `accepted`: the receiving side took it in (MLS AP, SDI RC); `acknowledged`: received, its checks
   * pending (MLS AB); `rejected`: refused (MLS RE, SDI NS). `answered` (API 2.4): no word on delivery,
   * only the buyer's `lifecycle` answer.
   */
  status: 'accepted' | 'acknowledged' | 'rejected' | 'answered';
  /** The network's reasons (MLS reason codes BV, BW, FD, SV …, SDI error codes 00200 …), with a description and where, when given. */
  reasons: Array<{ code: string; description?: string; location?: string }>;
  /** What proves it (the status message's id, who sent it), kept with the document's evidence. */
  evidence: Record<string, string>;
  /**
   * API 2.4: the buyer's answer on the document (a Peppol Invoice Response, an SDI esito committente),
   * moving its lifecycle as if the buyer had posted it (`lifecycle.updated`).
   */
  lifecycle?: LifecycleAnswer;
  /**
   * API 2.4: the tax platform's verdict on the document this status carries (SDI RC / NS):
   * `compliance.reported`, `failed` with the platform's code.
   */
  compliance?: { reportedTo: string; status: 'reported' | 'failed'; code?: string; message?: string };
}

/** The API lifecycle statuses a buyer's answer takes (one lifecycle model, whatever the wire form). */
export type LifecycleAnswerStatus = 'received' | 'under_review' | 'approved' | 'disputed' | 'rejected' | 'paid';

export interface LifecycleAnswer {
  status: LifecycleAnswerStatus;
  /** The platform's lifecycle code, when the wire form carries one (a French CDAR: 204 … 212), more precise than `status`. */
  code?: string;
  /** When the buyer gave it (ISO 8601). */
  at?: string;
  reason?: string;
  /** A code of the wire form's own list (UNCL 4343 / IR reason codes, SDI esito codes). */
  reasonCode?: string;
  note?: string;
}

/**
 * API 2.4: a buyer's lifecycle move on a document this connector delivered to the platform, to pass
 * back to its sender (a Peppol Invoice Response). The same `responseId` again is the same response:
 * the connector never sends it twice.
 */
export interface LifecycleResponse extends LifecycleAnswer {
  responseId: string;
  livemode: boolean;
  /** The platform's lifecycle code of the move (the French 200–213 model the API uses). */
  code: string;
  at: string;
  /** A payment (`paid`): when, and the amount blocks (RAP: what remains to pay). */
  paymentDate?: string;
  amounts?: Record<string, string>;
  /** A partial payment: more is to come. */
  partial?: boolean;
  /**
   * The document's own status message for this move, when its framework defines one (a
   * French-reform invoice: the CDAR D22B the platform built). Send it instead of the network's own
   * answer form (a Peppol Invoice Response).
   */
  statusMessage?: { syntax: 'cdar-d22b'; xml: string };
  /** The received document it answers. */
  document: {
    documentId: string;
    type: string;
    number: string | null;
    /** BT-2, the invoice's issue date (YYYY-MM-DD). */
    issueDate: string | null;
    /** The sender (the seller) and us (the buyer) as the document travelled. */
    sender: { peppolId: string | null; name: string | null };
    recipient: { peppolId: string | null; name: string | null; organizationId: string; companyId: string };
    /** How it arrived (the network message id, SBDH instance id …). */
    evidence: ExchangeEvidence | null;
  };
}

export type RespondResult =
  /** Sent; `messageId` is the network's id of the response. */
  | { outcome: 'sent'; messageId: string; evidence?: ExchangeEvidence }
  /** Nothing to send: the sender does not take this kind of response, or this status has no wire form. */
  | { outcome: 'unsupported'; reason: string }
  | ({ outcome: 'rejected' } & ErrorFields)
  | { outcome: 'transient'; errorMessage: string; errorCode?: string };

/** A participant the platform's directory knows. */
export interface DirectoryEntry {
  organizationId: string;
  companyId: string;
  peppolId: string | null;
  name: string;
  country: string;
  /** Document types it accepts. */
  documentTypes: string[];
}

// ---------------------------------------------------------------------------------------------
// push-receive routes

export interface InboundRequest {
  method: string;
  /** Path below `/connectors/<id>`, e.g. `/as4`. */
  path: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  body: Buffer;
  /** The verified client certificate (mutual TLS terminated by a trusted proxy), when there is one. */
  clientCertificate?: { subject: string; fingerprint256: string; pem?: string };
}

export interface InboundResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface ConnectorRoute {
  method: 'GET' | 'POST' | 'PUT';
  /** Below `/connectors/<id>`; starts with `/`. */
  path: string;
  /**
   * How the caller proves who it is; routes are outside the API's key auth. `mtls`: the request
   * must carry a verified client certificate; `signature`: `verify` must accept the request;
   * `message` (API 2.3): the message carries its own signature, which `handle` verifies and answers
   * in the network's own error format (an AS4 access point answers an ebMS error, not a 401).
   */
  auth: 'mtls' | 'signature' | 'message';
  /** For `signature` (and optionally `mtls`): true when the request is authentic. */
  verify?(req: InboundRequest, host: ConnectorHost): Promise<boolean>;
  /** Acknowledge only after `host.inbound.accept` has resolved: the document is then stored. */
  handle(req: InboundRequest, host: ConnectorHost): Promise<InboundResponse>;
}

// ---------------------------------------------------------------------------------------------
// the host

/** A secret value: printing, logging or serialising it shows `[secret]`; `reveal()` gives the value. */
export interface Secret {
  reveal(): string;
  toString(): string;
  toJSON(): string;
}

export interface HttpRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Whole exchange, in ms (default 30 s). */
  timeoutMs?: number;
  /** Mutual TLS: client certificate and key (PEM) and the CAs to trust. */
  tls?: { cert?: string | Secret; key?: string | Secret; ca?: string; passphrase?: Secret; rejectUnauthorized?: boolean };
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  text(): string;
}

export interface Logger {
  debug(message: string, extra?: Record<string, unknown>): void;
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
  error(message: string, extra?: Record<string, unknown>): void;
}

export interface Timer { cancel(): void }

/** API 2.5: a value of the state port and the version it was written as (1 on creation, +1 per write). */
export interface StateEntry<T = unknown> {
  value: T;
  version: number;
}

/** Largest value the state port keeps, as UTF-8 JSON: state is a head or a record, never a document store. */
export const STATE_VALUE_MAX_BYTES = 1024 * 1024;
/** Keys: 1 to 200 printable ASCII characters (`zatca/egs-1/head`). */
const STATE_KEY = /^[\x21-\x7e]{1,200}$/;

/**
 * API 2.5: durable state of this connector, kept by the platform in its database and shared by every
 * replica of the connector (a namespace per connector id: no connector sees another's keys). Values
 * are JSON. Writes are compare-and-set, so a sequence (a counter, a hash chain) stays sound when two
 * replicas write at once: read with `get`, compute, `compareAndSet` with the version read, and on
 * `false` (another writer won) read again and retry. Keep what differs by mode under different keys
 * (the key carries `livemode` if your state depends on it). Never hold a value "locked" across a
 * network call: write what you are about to send first, then send.
 */
export interface ConnectorState {
  /** The value of `key` and its version, or null when there is none. */
  get<T = unknown>(key: string): Promise<StateEntry<T> | null>;
  /**
   * Writes `value` when the key is still at `expectedVersion` (`null`: only when it does not exist).
   * Resolves false, writing nothing, when another writer got there first. A value larger than
   * `STATE_VALUE_MAX_BYTES` as JSON throws a permanent `ConnectorError` `STATE_VALUE_TOO_LARGE`.
   */
  compareAndSet(key: string, expectedVersion: number | null, value: unknown): Promise<boolean>;
  /** Removes the key when it is still at `expectedVersion`; false when it changed or is gone. */
  delete(key: string, expectedVersion: number): Promise<boolean>;
}

/**
 * The checks every state port applies before it writes (host and test host alike): a key of the
 * allowed form, a JSON value, at most `STATE_VALUE_MAX_BYTES`. Answers the value's JSON text.
 */
export function stateValueJson(key: string, value: unknown): string {
  checkStateKey(key);
  if (value === undefined) throw ConnectorError.permanent('STATE_VALUE_INVALID', `state key "${key}": the value must be JSON (use delete to remove a key)`);
  const json = JSON.stringify(value);
  const bytes = Buffer.byteLength(json);
  if (bytes > STATE_VALUE_MAX_BYTES) throw ConnectorError.permanent('STATE_VALUE_TOO_LARGE', `state key "${key}": the value is ${bytes} bytes of JSON, more than the ${STATE_VALUE_MAX_BYTES} the state port keeps`);
  return json;
}

/** Throws when `key` is not 1 to 200 printable ASCII characters. */
export function checkStateKey(key: string): void {
  if (typeof key !== 'string' || !STATE_KEY.test(key)) throw ConnectorError.permanent('STATE_KEY_INVALID', `state key ${JSON.stringify(key)} must be 1 to 200 printable ASCII characters without spaces`);
}

/** What the platform gives a connector: no database, no broker. */
export interface ConnectorHost {
  /** Non-secret options, validated against the manifest's `options` (defaults applied). */
  config: Readonly<Record<string, string | number | boolean | undefined>>;
  secrets: {
    /** The secret option `name` (throws when it is not configured). */
    get(name: string): Secret;
    has(name: string): boolean;
  };
  /** HTTP(S) client with timeouts and mutual-TLS options. A timeout throws a transient ConnectorError. */
  http: { request(url: string, options?: HttpRequestOptions): Promise<HttpResponse> };
  log: Logger;
  clock: { now(): Date };
  /** The pure translators of `mappings/` (detect, UBL/CII to canonical, canonical to UBL, …). */
  translators: typeof Translators;
  directory: {
    /** Looks a participant up among the platform's own companies of that mode. */
    lookup(participant: Participant, livemode: boolean): Promise<DirectoryEntry | null>;
  };
  scheduler: {
    /** Runs `task` every `intervalMs` (never two runs at once) until the connector stops. */
    every(intervalMs: number, task: () => Promise<void>): Timer;
    /** Runs `task` once after `delayMs`. */
    after(delayMs: number, task: () => Promise<void>): Timer;
  };
  /**
   * API 2.3: runs `fn`, a pure function exported by one of the connector's own modules
   * (`new URL('./x.ts', import.meta.url).href`), off the event loop in the platform's document
   * workers — inline when `sizeBytes` is small. Arguments and the result cross as structured clones
   * (a Buffer comes back as a Uint8Array); return failures as values, since only a message survives
   * a throw. For parsing, compressing or translating large documents.
   */
  workers: { run<T>(moduleUrl: string, fn: string, args: unknown[], sizeBytes: number): Promise<T> };
  outbound: {
    /**
     * API 2.3: records what the network later says of a document this platform sent (a rejection
     * moves it to failed, `AP_REJECTED`, with the reasons). Resolves with the document it found, or
     * null when none of this connector's sent documents matches.
     */
    statusReceived(status: NetworkStatus): Promise<{ documentId: string } | null>;
  };
  /** API 2.5: durable key-value state of this connector, shared by its replicas (compare-and-set). */
  state: ConnectorState;
  inbound: {
    /**
     * Durably stores a document for a local participant and resolves once it is committed:
     * acknowledge to the network only then. The same `messageId` again resolves to the first
     * document with `duplicate: true` (acknowledge it again; nothing new is stored).
     */
    accept(doc: InboundDocument): Promise<AcceptResult>;
  };
}

/**
 * A reachability self-test (API 2.3): the platform asks the connector to reach one of its own
 * participants the way a customer's access point would, and to say how far it got.
 */
export interface ProbeRequest {
  /** The platform's own participant to reach (`<scheme>:<identifier>`). */
  participantId: string;
  /** The API document type the test is for (`invoice`, `credit-note`, …). */
  documentType: string;
  livemode: boolean;
  /** The participant's country (ISO 3166-1 alpha-2), for envelopes that name one. */
  country?: string;
}

export type ProbeHopName = 'sml' | 'smp' | 'certificate' | 'endpoint' | 'receipt' | 'inbound';

export interface ProbeHop {
  hop: ProbeHopName;
  ok: boolean;
  /** What was asked and what came back, precisely enough for a person to fix it (names, URLs, statuses, reasons). */
  detail: string;
  /** Time the hop took. */
  ms: number;
}

export interface ProbeReport {
  /**
   * The hops tried, in order; the probe stops at the first that fails (the last one, `ok: false`).
   * Empty: the participant's network in this mode is not this connector's (the platform asks another).
   */
  hops: ProbeHop[];
}

/** What a connector says of itself when the platform checks its health (API 2.3). */
export interface ConnectorHealth {
  /** `failed`: it cannot work (its key does not load); `warning`: it works, but needs attention soon. */
  status: 'ok' | 'warning' | 'failed';
  message: string;
}

export interface Connector {
  manifest: ConnectorManifest;
  /**
   * API 2.3: its own health (a key that loads, a certificate far from expiry). `failed` makes the
   * platform's readiness degraded; `warning` shows in `/health/contracts`. Cheap: no network call.
   */
  health?(host: ConnectorHost): Promise<ConnectorHealth>;
  /** Called once when the `adapter.<id>` service starts (start pollers here). */
  start?(host: ConnectorHost): Promise<void>;
  /** Called once when it stops (timers of `host.scheduler` are cancelled by the platform). */
  stop?(host: ConnectorHost): Promise<void>;
  /** Capability `discover`. */
  check?(req: CheckRequest, host: ConnectorHost): Promise<CheckResult>;
  /** Capability `send`. */
  send?(msg: OutboundMessage, host: ConnectorHost): Promise<SendResult>;
  /** Capability `status`. */
  status?(req: StatusRequest, host: ConnectorHost): Promise<StatusResult>;
  /** Capability `registry`: looks a VAT number up. Throw a transient ConnectorError when the registry cannot answer. */
  lookupCompany?(req: RegistryRequest, host: ConnectorHost): Promise<RegistryResult>;
  /** Capability `report`: files one report with the tax authority (idempotent by `reportId`). */
  report?(msg: ReportMessage, host: ConnectorHost): Promise<ReportResult>;
  /**
   * Capability `probe` (API 2.3): the reachability self-test. Reports each hop instead of throwing:
   * a broken hop is an answer (`ok: false` with the reason), not an error.
   */
  probe?(req: ProbeRequest, host: ConnectorHost): Promise<ProbeReport>;
  /** Capability `respond` (API 2.4): passes a buyer's lifecycle move back to the document's sender (idempotent by `responseId`). */
  respond?(res: LifecycleResponse, host: ConnectorHost): Promise<RespondResult>;
  /** Capability `pushReceive`: HTTP routes the network calls. */
  routes?: readonly ConnectorRoute[];
}

const CAPABILITY_VERBS: Array<[keyof ConnectorCapabilities, keyof Connector]> = [['send', 'send'], ['status', 'status'], ['discover', 'check'], ['report', 'report'], ['registry', 'lookupCompany'], ['probe', 'probe'], ['respond', 'respond'], ['pushReceive', 'routes'], ['pollReceive', 'start']];

/** Checks a manifest's shape (and, given the connector, that each capability has its verb). */
export function validateManifest(m: ConnectorManifest, connector?: Connector): string[] {
  const problems: string[] = [];
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(m.id)) problems.push('id must be kebab-case');
  if (!/^\d+\.\d+\.\d+/.test(m.version ?? '')) problems.push('version must be semver (1.0.0)');
  if (String(m.apiVersion).split('.')[0] !== CONNECTOR_API_VERSION.split('.')[0]) problems.push(`apiVersion ${m.apiVersion} is not compatible with ${CONNECTOR_API_VERSION}`);
  if (!m.name) problems.push('name is required');
  if (!m.countries?.length) problems.push('countries must list ISO codes or *');
  if (m.countries?.some((c) => c !== '*' && !/^[A-Z]{2}$/.test(c))) problems.push('countries must be ISO 3166-1 alpha-2 or *');
  if (!m.documentTypes?.length) problems.push('documentTypes must not be empty');
  if (!m.modes?.length || m.modes.some((x) => x !== 'live' && x !== 'test')) problems.push('modes must list live, test or both');
  if (m.network !== undefined && m.network !== 'peppol') problems.push(`network ${String(m.network)} is not one the platform knows (peppol)`);
  if (m.capabilities?.clearance && !m.capabilities.send) problems.push('capability clearance needs send (the submission is the send)');
  if (m.capabilities?.clearance && !m.authority) problems.push('capability clearance needs the authority\'s name (manifest.authority)');
  if (!m.capabilities) problems.push('capabilities are required');
  else if (connector) {
    for (const [cap, verb] of CAPABILITY_VERBS) {
      if (m.capabilities[cap] && !connector[verb]) problems.push(`capability ${cap} needs ${verb}`);
    }
  }
  for (const [name, o] of Object.entries(m.options ?? {})) {
    if (!/^[a-z][A-Za-z0-9]*$/.test(name)) problems.push(`option ${name} must be camelCase`);
    if (!['string', 'number', 'boolean'].includes(o.type)) problems.push(`option ${name}: type must be string, number or boolean`);
  }
  return problems;
}

/** True when an error a connector threw is its permanent, coded failure. */
export function isPermanent(err: unknown): err is ConnectorError {
  return err instanceof ConnectorError ? err.kind === 'permanent' : (err as { kind?: string })?.kind === 'permanent' && typeof (err as { code?: unknown }).code === 'string';
}
