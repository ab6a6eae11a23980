/**
 * An ISO 20022 pain.001.001.09 (CustomerCreditTransferInitiationV09) message as the EPC SEPA Credit
 * Transfer implementation guidelines (EPC132-08) use it: one payment information block per debtor
 * account, service level `SEPA`, charges shared (`SLEV`), amounts in EUR with two decimals,
 * remittance as unstructured text of at most 140 characters, every text in the EPC Latin set at
 * its field's length (sepa-text.ts). Pure: the caller resolves documents and bank accounts.
 */
import { create } from 'xmlbuilder2';
import { Decimal } from 'decimal.js';
import { sepaId, sepaText } from './sepa-text.ts';

export const PAIN_001_NS = 'urn:iso:std:iso:20022:tech:xsd:pain.001.001.09';
export const PAIN_001_FORMAT = 'pain.001.001.09';

export interface SepaAccount {
  /** Account holder's name. */
  name: string;
  iban: string;
  /** BICFI; without one the agent is `NOTPROVIDED` (IBAN-only, allowed for SEPA since 2016). */
  bic: string | null;
}

export interface CreditTransfer {
  /** Our id of the transfer (InstrId). */
  instructionId: string;
  /** Travels to the creditor unchanged (EndToEndId): the invoice number. */
  endToEndId: string;
  /** Two decimals, positive. */
  amount: string;
  creditor: SepaAccount;
  /** Unstructured remittance (Ustrd). */
  remittance: string;
}

export interface CreditTransferBatch {
  debtor: SepaAccount;
  transfers: CreditTransfer[];
}

export interface CreditTransferMessage {
  messageId: string;
  createdAt: Date;
  initiatingParty: string;
  /** `YYYY-MM-DD`. */
  executionDate: string;
  currency: 'EUR';
  batches: CreditTransferBatch[];
}

/** Sum with two decimals, as CtrlSum and the export's totalAmount give it. */
export function controlSum(amounts: readonly string[]): string {
  return amounts.reduce((sum, a) => sum.plus(a), new Decimal(0)).toFixed(2);
}

function agent(parent: ReturnType<typeof create>, name: string, bic: string | null): void {
  const fin = parent.ele(name).ele('FinInstnId');
  if (bic) fin.ele('BICFI').txt(bic);
  else fin.ele('Othr').ele('Id').txt('NOTPROVIDED');
}

function party(parent: ReturnType<typeof create>, name: string, account: SepaAccount): void {
  parent.ele(name).ele('Nm').txt(sepaText(account.name, 70) || 'NOTPROVIDED');
}

function accountOf(parent: ReturnType<typeof create>, name: string, account: SepaAccount): void {
  parent.ele(name).ele('Id').ele('IBAN').txt(account.iban);
}

/** The message as XML (UTF-8, every text already in the EPC set). */
export function buildPain001(message: CreditTransferMessage): string {
  const all = message.batches.flatMap((b) => b.transfers.map((t) => t.amount));
  const doc = create({ version: '1.0', encoding: 'UTF-8' }).ele(PAIN_001_NS, 'Document');
  const root = doc.ele('CstmrCdtTrfInitn');
  const header = root.ele('GrpHdr');
  header.ele('MsgId').txt(sepaId(message.messageId));
  header.ele('CreDtTm').txt(message.createdAt.toISOString().slice(0, 19));
  header.ele('NbOfTxs').txt(String(all.length));
  header.ele('CtrlSum').txt(controlSum(all));
  header.ele('InitgPty').ele('Nm').txt(sepaText(message.initiatingParty, 70) || 'NOTPROVIDED');
  message.batches.forEach((batch, index) => {
    const info = root.ele('PmtInf');
    info.ele('PmtInfId').txt(sepaId(`${message.messageId}-${index + 1}`));
    info.ele('PmtMtd').txt('TRF');
    info.ele('BtchBookg').txt('true');
    info.ele('NbOfTxs').txt(String(batch.transfers.length));
    info.ele('CtrlSum').txt(controlSum(batch.transfers.map((t) => t.amount)));
    info.ele('PmtTpInf').ele('SvcLvl').ele('Cd').txt('SEPA');
    info.ele('ReqdExctnDt').ele('Dt').txt(message.executionDate);
    party(info, 'Dbtr', batch.debtor);
    accountOf(info, 'DbtrAcct', batch.debtor);
    agent(info, 'DbtrAgt', batch.debtor.bic);
    info.ele('ChrgBr').txt('SLEV');
    for (const t of batch.transfers) {
      const tx = info.ele('CdtTrfTxInf');
      const id = tx.ele('PmtId');
      id.ele('InstrId').txt(sepaId(t.instructionId));
      id.ele('EndToEndId').txt(sepaId(t.endToEndId) || 'NOTPROVIDED');
      tx.ele('Amt').ele('InstdAmt').att('Ccy', message.currency).txt(t.amount);
      if (t.creditor.bic) agent(tx, 'CdtrAgt', t.creditor.bic);
      party(tx, 'Cdtr', t.creditor);
      accountOf(tx, 'CdtrAcct', t.creditor);
      const remittance = sepaText(t.remittance, 140);
      if (remittance) tx.ele('RmtInf').ele('Ustrd').txt(remittance);
    }
  });
  return doc.end({ prettyPrint: true });
}
