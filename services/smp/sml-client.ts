/**
 * The SML registration client (SML 1.3 ManageBusinessIdentifierService, SOAP 1.1 over mutual TLS
 * with the SMP's certificate): registering a participant is what makes the SML publish its DNS
 * record pointing at our SMP; deleting removes it; PrepareToMigrate / Migrate move a participant
 * between SMPs with a migration key. Messages built with xmlbuilder2, answers read with libxmljs2,
 * HTTPS through undici with the client certificate.
 */
import { Agent, request } from 'undici';
import { create } from 'xmlbuilder2';
import libxml from 'libxmljs2';
import { PARTICIPANT_SCHEME } from '../../mappings/identifiers/peppol-network.ts';

const SOAP_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
const LOCATOR_NS = 'http://busdox.org/serviceMetadata/locator/1.0/';
const IDS_NS = 'http://busdox.org/transport/identifiers/1.0/';
/** The WSDL's soapAction, with the nine blanks the CEF SML implements. */
const ACTION_BASE = 'http://busdox.org/serviceMetadata/ManageBusinessIdentifierService/1.0/         :';

export type SmlFaultKind = 'BadRequest' | 'NotFound' | 'Unauthorized' | 'InternalError';

/** A fault the SML answered (`kind`), or no answer at all (`unreachable`). */
export class SmlError extends Error {
  override name = 'SmlError';
  readonly kind: SmlFaultKind | 'unreachable';
  constructor(kind: SmlFaultKind | 'unreachable', message: string) { super(message); this.kind = kind; }
  /** Worth trying again later: the SML was down or failed internally. */
  get transient(): boolean { return this.kind === 'unreachable' || this.kind === 'InternalError'; }
}

export interface SmlSettings {
  /** Management API base, e.g. https://api.sml.prod.tech.peppol.org/edelivery-sml */
  url: string;
  /** Our ServiceMetadataPublisherID at the SML. */
  smpId: string;
  /** PEM client certificate and key (the SMP's Peppol certificate). */
  certificatePem: string;
  keyPem: string;
  /** PEM CAs to trust for the SML's TLS certificate (the system's when absent). */
  caPem?: string;
  timeoutMs: number;
}

type Operation = 'create' | 'delete' | 'prepareMigrate' | 'migrate';
const BODY: Record<Operation, string> = {
  create: 'CreateParticipantIdentifier', delete: 'DeleteParticipantIdentifier',
  prepareMigrate: 'PrepareMigrationRecord', migrate: 'CompleteMigrationRecord',
};

/** The SOAP 1.1 envelope of one operation. */
export function smlEnvelope(op: Operation, smpId: string, participantId: string, migrationKey?: string): string {
  const body = create({ version: '1.0', encoding: 'UTF-8' })
    .ele(SOAP_NS, 'soap:Envelope').ele(SOAP_NS, 'soap:Body')
    .ele(LOCATOR_NS, `lrs:${BODY[op]}`).att('xmlns:ids', IDS_NS);
  body.ele(LOCATOR_NS, 'lrs:ServiceMetadataPublisherID').txt(smpId);
  body.ele(IDS_NS, 'ids:ParticipantIdentifier').att('scheme', PARTICIPANT_SCHEME).txt(participantId);
  if (migrationKey !== undefined) body.ele(LOCATOR_NS, 'lrs:MigrationKey').txt(migrationKey);
  return body.doc().end({ prettyPrint: false });
}

/** The fault in an SML answer, if any: its kind and message. */
export function smlFaultOf(xml: string): { kind: SmlFaultKind; message: string } | undefined {
  let doc: libxml.Document;
  try { doc = libxml.parseXml(xml, { nonet: true }); } catch { return { kind: 'InternalError', message: 'the SML answered something that is not XML' }; }
  const fault = doc.get('//soap:Fault', { soap: SOAP_NS }) as libxml.Element | null;
  if (!fault) return undefined;
  const detail = doc.get('//lrs:*[substring(local-name(), string-length(local-name()) - 4) = "Fault"]', { lrs: LOCATOR_NS }) as libxml.Element | null;
  const kind = (detail?.name().replace(/Fault$/, '') ?? 'InternalError') as SmlFaultKind;
  const textOf = (n: libxml.Node | null | undefined) => (n as libxml.Element | null | undefined)?.text();
  const message = (textOf(detail?.get('lrs:FaultMessage', { lrs: LOCATOR_NS })) ?? textOf(fault.get('faultstring')) ?? 'SML fault').trim();
  return { kind: ['BadRequest', 'NotFound', 'Unauthorized', 'InternalError'].includes(kind) ? kind : 'InternalError', message };
}

export class SmlClient {
  private readonly settings: SmlSettings;
  private readonly agent: Agent;
  constructor(settings: SmlSettings) {
    this.settings = settings;
    this.agent = new Agent({ connect: { cert: settings.certificatePem, key: settings.keyPem, ...(settings.caPem ? { ca: settings.caPem } : {}) } });
  }

  createParticipant(participantId: string): Promise<void> { return this.call('create', participantId); }
  deleteParticipant(participantId: string): Promise<void> { return this.call('delete', participantId); }
  /** Tells the SML a participant of ours may move to the SMP that presents `migrationKey`. */
  prepareToMigrate(participantId: string, migrationKey: string): Promise<void> { return this.call('prepareMigrate', participantId, migrationKey); }
  /** Takes over a participant from its previous SMP with the key that SMP prepared. */
  migrate(participantId: string, migrationKey: string): Promise<void> { return this.call('migrate', participantId, migrationKey); }

  async close(): Promise<void> { await this.agent.close(); }

  private async call(op: Operation, participantId: string, migrationKey?: string): Promise<void> {
    const action = op === 'prepareMigrate' ? 'prepareMigrateIn' : `${op}In`;
    let status: number; let text: string;
    try {
      const res = await request(`${this.settings.url.replace(/\/+$/, '')}/manageparticipantidentifier`, {
        method: 'POST', dispatcher: this.agent,
        headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${ACTION_BASE}${action}"` },
        body: smlEnvelope(op, this.settings.smpId, participantId, migrationKey),
        headersTimeout: this.settings.timeoutMs, bodyTimeout: this.settings.timeoutMs,
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      throw new SmlError('unreachable', `the SML did not answer: ${(err as Error).message}`);
    }
    const fault = smlFaultOf(text);
    if (fault) throw new SmlError(fault.kind, fault.message);
    if (status >= 400) throw new SmlError(status >= 500 ? 'InternalError' : 'BadRequest', `the SML answered HTTP ${status}`);
  }
}
