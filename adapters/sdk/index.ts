/**
 * The connector SDK: what a network or country connector implements. A connector is a manifest
 * plus four verbs (`check`, `send`, `status`, `receive`) working against a small host interface
 * (directory, inbox, clock) that the platform provides. Nothing here imports Moleculer, the ORM or
 * the network: a connector is plain TypeScript, tested by the contract suite in `contract-suite.ts`.
 */

/** Version of this interface; a connector states the one it was written against. */
export const CONNECTOR_API_VERSION = '1.0';

export interface ConnectorManifest {
  /** kebab-case; national connectors start with the ISO country code (`fr-ppf`). */
  id: string;
  apiVersion: string;
  name: string;
  description: string;
  /** ISO 3166-1 alpha-2 countries it reaches, or `*`. */
  countries: readonly string[];
  /** API document types it carries (`invoice`, `credit-note`, …). */
  documentTypes: readonly string[];
  /** `test`: sandbox credentials only; `live`: production only; `both`. */
  mode: 'test' | 'live' | 'both';
  capabilities: { check: boolean; send: boolean; status: boolean; receive: boolean };
}

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
  type: string;
  number: string | null;
  sender: Party;
  recipient: Participant;
  payload: Payload;
  /** 1 for the first attempt. */
  attempt: number;
}

export type SendResult =
  /** The recipient's access point confirmed final delivery (`localDocumentId`: the recipient's copy when it is on this platform). */
  | { outcome: 'delivered'; messageId: string; localDocumentId?: string }
  /** Handed over; final delivery is confirmed later through `status`. */
  | { outcome: 'accepted'; messageId: string; checkAfterMs: number }
  /** Permanent failure: AP_REJECTED (payload refused) or SBDH_ERROR (malformed header). */
  | { outcome: 'rejected'; errorCode: 'AP_REJECTED' | 'SBDH_ERROR'; errorMessage: string }
  /** Temporary transport failure: the platform re-sends (TRANSPORT_FAILURE after the last try). */
  | { outcome: 'transient'; errorMessage: string };

export type StatusResult =
  | { outcome: 'delivered' }
  | { outcome: 'pending'; checkAfterMs: number }
  | { outcome: 'rejected'; errorCode: 'AP_REJECTED' | 'SBDH_ERROR'; errorMessage: string };

/** A document arriving for a local participant, handed to the platform's inbox. */
export interface InboundDocument {
  /** Id of the message on the network (the sender's document id on the sandbox network). */
  messageId: string;
  type: string;
  number: string | null;
  sender: { peppolId: string | null; name: string | null; organizationId?: string; companyId?: string };
  recipient: { peppolId: string | null; organizationId: string; companyId: string; name: string | null };
  payload: Payload;
}

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

/** What the platform gives a connector: no database, no broker. */
export interface ConnectorHost {
  directory: {
    /** Looks a participant up among the platform's own companies (same mode as the connector). */
    lookup(participant: Participant): Promise<DirectoryEntry | null>;
  };
  inbox: {
    /** Persists an incoming document for a local participant; idempotent on `messageId`. */
    deliver(doc: InboundDocument): Promise<{ documentId: string }>;
  };
  now(): Date;
}

export interface Connector {
  manifest: ConnectorManifest;
  check(req: CheckRequest, host: ConnectorHost): Promise<CheckResult>;
  send(msg: OutboundMessage, host: ConnectorHost): Promise<SendResult>;
  status(messageId: string, host: ConnectorHost): Promise<StatusResult>;
  /** Accepts a message from the network for a local participant and hands it to the inbox. */
  receive(msg: OutboundMessage, host: ConnectorHost): Promise<{ documentId: string }>;
}

/** Checks a manifest's shape; the contract suite and the platform's registry both call it. */
export function validateManifest(m: ConnectorManifest): string[] {
  const problems: string[] = [];
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(m.id)) problems.push('id must be kebab-case');
  if (m.apiVersion.split('.')[0] !== CONNECTOR_API_VERSION.split('.')[0]) problems.push(`apiVersion ${m.apiVersion} is not compatible with ${CONNECTOR_API_VERSION}`);
  if (!m.name) problems.push('name is required');
  if (!m.countries.length) problems.push('countries must list ISO codes or *');
  if (m.countries.some((c) => c !== '*' && !/^[A-Z]{2}$/.test(c))) problems.push('countries must be ISO 3166-1 alpha-2 or *');
  if (!m.documentTypes.length) problems.push('documentTypes must not be empty');
  if (!['test', 'live', 'both'].includes(m.mode)) problems.push('mode must be test, live or both');
  return problems;
}
