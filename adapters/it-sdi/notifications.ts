/**
 * The SDI's notifications to the transmitter (MessaggiTypes v1.0) and what each one means for the
 * document this platform sent, as a `NetworkStatus` correlated by messageId = IdentificativoSdI:
 *
 * | notification | status | also |
 * |---|---|---|
 * | RC ricevuta di consegna | accepted | compliance reported to SDI |
 * | NS notifica di scarto | rejected, reasons = the SDI error codes (00200 …) | compliance failed with the first code |
 * | MC mancata consegna | accepted (issued; waiting in the buyer's tax drawer), reason MC | compliance reported |
 * | NE notifica esito, EC01 | answered | lifecycle approved |
 * | NE notifica esito, EC02 | answered | lifecycle rejected, reasonCode EC02 and the buyer's reason |
 * | DT decorrenza termini | acknowledged, reason DT | (the deadline passed with no answer: no lifecycle move) |
 * | AT attestazione di trasmissione | accepted, reason AT | (B2G: could not be delivered, proof of transmission) |
 */
import type { NetworkStatus } from '../sdk/index.ts';
import { XmlWriter } from '../../mappings/xml/writer.ts';
import { at, kid, kids, txt, type XEl } from '../../mappings/xml/tree.ts';
import { SDI_MESSAGES_NS, SdiProtocolError } from './soap.ts';

export type NotificationKind = 'RC' | 'NS' | 'MC' | 'NE' | 'DT' | 'AT';

/** Root element of each notification file. */
export const NOTIFICATION_ROOTS: Readonly<Record<NotificationKind, string>> = {
  RC: 'RicevutaConsegna',
  NS: 'NotificaScarto',
  MC: 'NotificaMancataConsegna',
  NE: 'NotificaEsito',
  DT: 'NotificaDecorrenzaTermini',
  AT: 'AttestazioneTrasmissioneFattura',
};

export interface SdiNotification {
  kind: NotificationKind;
  identificativoSdI: string;
  nomeFile: string;
  /** The notification's own id. */
  messageId?: string;
  dataOraRicezione?: string;
  dataOraConsegna?: string;
  destinatario?: { codice: string; descrizione?: string };
  /** NS: ListaErrori. */
  errori?: Array<{ codice: string; descrizione?: string; suggerimento?: string }>;
  /** NE: the buyer's answer. */
  esito?: { esito: string; descrizione?: string; numeroFattura?: string; annoFattura?: string; messageIdCommittente?: string };
  /** MC, DT: what happened. */
  descrizione?: string;
  note?: string;
}

/** The notification's SDI file name: `<invoice file name without .xml>_<kind>_<n>.xml`. */
export function notificationFileName(invoiceFileName: string, kind: NotificationKind, n = 1): string {
  return `${invoiceFileName.replace(/\.(xml|p7m)$/i, '').replace(/\.xml$/i, '')}_${kind}_${String(n).padStart(3, '0')}.xml`;
}

/** The notification file as the SDI writes it (the simulator's; the connector only reads it). */
export function notificationXml(n: SdiNotification): string {
  const w = new XmlWriter();
  const root = `types:${NOTIFICATION_ROOTS[n.kind]}`;
  w.open(root, { 'xmlns:types': SDI_MESSAGES_NS, versione: '1.0' });
  w.leaf('IdentificativoSdI', n.identificativoSdI);
  w.leaf('NomeFile', n.nomeFile);
  w.leaf('DataOraRicezione', n.dataOraRicezione);
  w.leaf('DataOraConsegna', n.dataOraConsegna);
  if (n.destinatario) w.el('Destinatario', () => { w.leaf('Codice', n.destinatario!.codice); w.leaf('Descrizione', n.destinatario!.descrizione); });
  if (n.errori?.length) {
    w.el('ListaErrori', () => {
      for (const e of n.errori!) w.el('Errore', () => { w.leaf('Codice', e.codice); w.leaf('Descrizione', e.descrizione); w.leaf('Suggerimento', e.suggerimento); });
    });
  }
  if (n.esito) {
    w.el('EsitoCommittente', () => {
      w.leaf('IdentificativoSdI', n.identificativoSdI);
      if (n.esito!.numeroFattura) w.el('RiferimentoFattura', () => { w.leaf('NumeroFattura', n.esito!.numeroFattura); w.leaf('AnnoFattura', n.esito!.annoFattura); });
      w.leaf('Esito', n.esito!.esito);
      w.leaf('Descrizione', n.esito!.descrizione);
      w.leaf('MessageIdCommittente', n.esito!.messageIdCommittente);
    });
  }
  w.leaf('Descrizione', n.descrizione);
  w.leaf('MessageId', n.messageId);
  w.leaf('Note', n.note);
  w.close(root);
  return w.toString();
}

/** Reads a notification file; `expected` is the operation it came through, which must name the same kind. */
export function readNotification(root: XEl, expected?: string): SdiNotification {
  const kind = (Object.entries(NOTIFICATION_ROOTS) as Array<[NotificationKind, string]>).find(([, name]) => name === root.name)?.[0];
  if (!kind || root.ns !== SDI_MESSAGES_NS) throw new SdiProtocolError(`{${root.ns}}${root.name} is not an SDI notification`);
  if (expected !== undefined && expected !== root.name) throw new SdiProtocolError(`a ${root.name} came through the ${expected} operation`);
  const identificativoSdI = txt(root, 'IdentificativoSdI');
  if (!identificativoSdI) throw new SdiProtocolError(`the ${root.name} has no IdentificativoSdI`);
  const esito = kid(root, 'EsitoCommittente');
  if (kind === 'NE' && !txt(esito, 'Esito')) throw new SdiProtocolError('the NotificaEsito has no EsitoCommittente/Esito');
  const destinatario = kid(root, 'Destinatario');
  return {
    kind,
    identificativoSdI,
    nomeFile: txt(root, 'NomeFile') ?? '',
    ...(txt(root, 'MessageId') ? { messageId: txt(root, 'MessageId') } : {}),
    ...(txt(root, 'DataOraRicezione') ? { dataOraRicezione: txt(root, 'DataOraRicezione') } : {}),
    ...(txt(root, 'DataOraConsegna') ? { dataOraConsegna: txt(root, 'DataOraConsegna') } : {}),
    ...(destinatario && txt(destinatario, 'Codice') ? { destinatario: { codice: txt(destinatario, 'Codice')!, ...(txt(destinatario, 'Descrizione') ? { descrizione: txt(destinatario, 'Descrizione') } : {}) } } : {}),
    ...(kind === 'NS' ? {
      errori: kids(kid(root, 'ListaErrori'), 'Errore').map((e) => ({
        codice: txt(e, 'Codice') ?? '',
        ...(txt(e, 'Descrizione') ? { descrizione: txt(e, 'Descrizione') } : {}),
        ...(txt(e, 'Suggerimento') ? { suggerimento: txt(e, 'Suggerimento') } : {}),
      })),
    } : {}),
    ...(esito ? {
      esito: {
        esito: txt(esito, 'Esito')!,
        ...(txt(esito, 'Descrizione') ? { descrizione: txt(esito, 'Descrizione') } : {}),
        ...(txt(at(esito, 'RiferimentoFattura'), 'NumeroFattura') ? { numeroFattura: txt(at(esito, 'RiferimentoFattura'), 'NumeroFattura') } : {}),
        ...(txt(at(esito, 'RiferimentoFattura'), 'AnnoFattura') ? { annoFattura: txt(at(esito, 'RiferimentoFattura'), 'AnnoFattura') } : {}),
        ...(txt(esito, 'MessageIdCommittente') ? { messageIdCommittente: txt(esito, 'MessageIdCommittente') } : {}),
      },
    } : {}),
    ...(txt(root, 'Descrizione') ? { descrizione: txt(root, 'Descrizione') } : {}),
    ...(txt(root, 'Note') ? { note: txt(root, 'Note') } : {}),
  };
}

/** The platform's reading of a notification (table above). */
export function networkStatusOf(n: SdiNotification): NetworkStatus {
  const evidence: Record<string, string> = { notification: n.kind, identificativoSdI: n.identificativoSdI };
  if (n.nomeFile) evidence.nomeFile = n.nomeFile.slice(0, 4096);
  if (n.messageId) evidence.notificationMessageId = n.messageId.slice(0, 4096);
  if (n.dataOraRicezione) evidence.dataOraRicezione = n.dataOraRicezione.slice(0, 4096);
  if (n.dataOraConsegna) evidence.dataOraConsegna = n.dataOraConsegna.slice(0, 4096);
  if (n.destinatario) evidence.destinatario = n.destinatario.codice.slice(0, 4096);
  const base = { messageId: n.identificativoSdI, evidence };
  const text = (s: string | undefined) => (s === undefined ? {} : { description: s.slice(0, 4096) });
  switch (n.kind) {
    case 'RC':
      return { ...base, status: 'accepted', reasons: [], compliance: { reportedTo: 'SDI', status: 'reported' } };
    case 'NS': {
      const errori = n.errori?.length ? n.errori : [{ codice: 'NS', descrizione: n.note ?? 'rejected by the SDI with no error listed' }];
      const first = errori[0]!;
      return {
        ...base,
        status: 'rejected',
        reasons: errori.slice(0, 1000).map((e) => ({ code: e.codice.slice(0, 64), ...text(e.suggerimento ? `${e.descrizione ?? ''} (${e.suggerimento})`.trim() : e.descrizione) })),
        compliance: { reportedTo: 'SDI', status: 'failed', code: first.codice.slice(0, 64), ...(first.descrizione ? { message: first.descrizione.slice(0, 4096) } : {}) },
      };
    }
    case 'MC':
      return { ...base, status: 'accepted', reasons: [{ code: 'MC', ...text(n.descrizione ?? 'not delivered to the buyer\'s channel: the invoice is issued and waits in the buyer\'s reserved area') }], compliance: { reportedTo: 'SDI', status: 'reported' } };
    case 'NE': {
      const e = n.esito!;
      evidence.esito = e.esito;
      if (e.messageIdCommittente) evidence.messageIdCommittente = e.messageIdCommittente.slice(0, 4096);
      const accepted = e.esito === 'EC01';
      return {
        ...base,
        status: 'answered',
        reasons: [{ code: e.esito.slice(0, 64), ...text(e.descrizione) }],
        lifecycle: accepted
          ? { status: 'approved', reasonCode: 'EC01', ...(e.descrizione ? { note: e.descrizione.slice(0, 4096) } : {}) }
          : { status: 'rejected', reasonCode: e.esito.slice(0, 64), reason: (e.descrizione ?? 'refused by the buyer (esito committente EC02)').slice(0, 4096) },
      };
    }
    case 'DT':
      return { ...base, status: 'acknowledged', reasons: [{ code: 'DT', ...text(n.descrizione ?? 'the buyer gave no answer within the deadline') }] };
    case 'AT':
      return { ...base, status: 'accepted', reasons: [{ code: 'AT', ...text(n.descrizione ?? n.note ?? 'transmitted, but could not be delivered to the public administration') }] };
  }
}
