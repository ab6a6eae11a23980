/**
 * Canonical invoice + one French lifecycle move → the CDAR D22B "cycle de vie" message
 * (CrossDomainAcknowledgementAndResponse, XP Z12-012 / BR-FR-CDV v1.4.0), the message the platforms
 * exchange and copy to the PPF for the statuses the law reports (200, 210, 212, 213).
 *
 * Who is who (MDT-21/40/59) follows the phase of the status and who emits it, as the Annex B
 * examples do:
 * - transmission phase (MDT-77 = 305: 200–203, 213), emitted by a platform: sender and issuer are
 *   the platform (WK, no identifier); the seller (SE) is told, and for 202/203 the buyer (BY) too;
 * - processing phase (MDT-77 = 23: 204–212), emitted by the buyer or the supplier: the issuer is
 *   that company (BY or SE, with its SIREN), the other one is the recipient (with its electronic
 *   address, BR-FR-CDV-08);
 * - a status reported to the tax administration adds the PPF (0238 / 0000, role DFH) as a recipient.
 *
 * Every problem of the input is reported at once in one MappingError with dotted fields.
 */
import { IssueCollector } from '../errors.ts';
import { Dec, isDecimalText } from '../canonical/decimal.ts';
import type { CanonicalInvoice, Party, SchemedId } from '../canonical/model.ts';
import { XmlWriter } from '../xml/writer.ts';
import {
  CDV_BUSINESS_PROCESS, CDV_GUIDELINE, CDV_STATUSES, DEFAULT_REASON, FR_DOCUMENT_TYPES, PPF_PARTY, REASONS_BY_STATUS,
  STATUS_REASON_CODES, type CdvStatus,
} from './codes.ts';
import { CDAR_NS } from './namespaces.ts';

export type CdarEmitter = 'seller_platform' | 'buyer_platform' | 'buyer' | 'supplier' | 'platform';

export interface CdarInput {
  /** Our id for this status message (its ExchangedDocument ID), unique per report. */
  messageId: string;
  /** When the message is issued (ISO 8601). */
  issuedAt: string;
  /** The invoice the status is about (canonical EN 16931 model, mappings/canonical/model.ts). */
  invoice: CanonicalInvoice;
  /**
   * The move: `at` is when the status was set (MDT-78); `reasonCode` a motif of the official referential
   * (MDT-113) and `reason` its text (MDT-114); `note` and `paymentReference` go in the status detail's
   * notes; `amounts` are the status's amount blocks by MDT-207 code (decimal text); `paymentDate` dates
   * MPA/MEN. `partial` (a partial collection, 212 again) changes nothing in the message: its MEN is the
   * amount collected this time.
   */
  step: { code: string; emittedBy: CdarEmitter; at: string; reason?: string; reasonCode?: string; note?: string; amounts?: Record<string, string>; paymentDate?: string; paymentReference?: string; paymentCurrency?: string; partial?: boolean };
}

/** Longest free text we put in a message (reason, note, names): the PPF has no use for more. */
const MAX_TEXT = 1024;
const EMITTERS: readonly CdarEmitter[] = ['seller_platform', 'buyer_platform', 'buyer', 'supplier', 'platform'];
const PLATFORM_EMITTERS: readonly CdarEmitter[] = ['seller_platform', 'buyer_platform', 'platform'];

/** A company as the message names it: SIREN (scheme 0002) when one can be read, else its legal id. */
interface CdarParty { id: SchemedId; name: string; address: SchemedId }

const SIREN = /^\d{9}$/;

/**
 * The SIREN of a party: BT-30/BT-47 or an identifier with scheme 0002, the first nine digits of a
 * SIRET (0009), of a French electronic address (0225 / 0009 / 0002) or of a French VAT number.
 */
export function sirenOf(p: Party): string | undefined {
  const ids = [p.legalRegistration, ...(p.identifiers ?? []), p.electronicAddress].filter((x): x is SchemedId => !!x);
  for (const id of ids) if (id.scheme === '0002' && SIREN.test(id.value)) return id.value;
  for (const id of ids) {
    const m = /^(\d{9})(\d{5})?(?:_.*)?$/.exec(id.value);
    if (m && (id.scheme === '0009' || id.scheme === '0225' || id.scheme === '0002')) return m[1];
  }
  return /^FR[0-9A-Z]{2}(\d{9})$/.exec(p.vatId ?? '')?.[1];
}

function partyOf(p: Party | undefined, field: string, issues: IssueCollector): CdarParty | undefined {
  if (!p) {
    issues.add('MISSING_FIELD', field, 'required', `${field} is required to name the party of the status message`);
    return undefined;
  }
  const siren = sirenOf(p);
  const id: SchemedId | undefined = siren ? { scheme: '0002', value: siren } : p.legalRegistration?.value ? p.legalRegistration : undefined;
  if (!id) {
    issues.add('MISSING_FIELD', `${field}.legalRegistration`, 'MDT-38', `${field} has no SIREN (legal registration 0002, SIRET 0009, French VAT number or electronic address) to identify it in the status message`);
    return undefined;
  }
  // BR-FR-CDV-08: a company recipient needs its electronic address; its SIREN is the base address of the French directory.
  const address = p.electronicAddress?.value ? { scheme: p.electronicAddress.scheme ?? '0225', value: p.electronicAddress.value } : { scheme: '0225', value: id.value };
  return { id, name: (p.name ?? '').slice(0, MAX_TEXT) || id.value, address };
}

/** ISO 8601 instant → CDAR format 204 (CCYYMMDDHHMMSS, UTC). */
function dateTime204(value: string | undefined, field: string, issues: IssueCollector): string | undefined {
  const d = value && /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : undefined;
  if (!d || Number.isNaN(d.getTime())) {
    issues.add('INVALID_DATE', field, 'date-time', `${field} must be an ISO 8601 date-time, got ${value === undefined ? 'nothing' : JSON.stringify(value)}`);
    return undefined;
  }
  return d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** ISO date (or date-time) → format 102 (CCYYMMDD). */
function date102(value: string | undefined, field: string, issues: IssueCollector): string | undefined {
  const m = value ? /^(\d{4})-(\d{2})-(\d{2})/.exec(value) : null;
  if (!m || Number.isNaN(new Date(`${m[1]}-${m[2]}-${m[3]}T00:00:00Z`).getTime())) {
    issues.add('INVALID_DATE', field, 'date', `${field} must be a date YYYY-MM-DD, got ${value === undefined ? 'nothing' : JSON.stringify(value)}`);
    return undefined;
  }
  return `${m[1]}${m[2]}${m[3]}`;
}

/**
 * The motif (MDT-113) of the move: the caller's code, which must come from the referential, else the
 * status's default. `suspended` is the API's selector of 208, not a motif: 208 then takes its default.
 */
function reasonCodeOf(status: CdvStatus, step: CdarInput['step'], issues: IssueCollector): string | undefined {
  const given = step.reasonCode?.trim() || undefined;
  const code = given === undefined || (given === 'suspended' && status.code === '208') ? DEFAULT_REASON[status.code] : given;
  if (!code) {
    if (status.reasonRequired) issues.add('MISSING_FIELD', 'step.reasonCode', 'BR-FR-CDV-15', `status ${status.code} (${status.label}) needs a motif from the official status-motif referential`);
    return undefined;
  }
  const allowed = REASONS_BY_STATUS[status.code] ?? STATUS_REASON_CODES;
  if (!allowed.includes(code)) {
    issues.add('INVALID_ENUM', 'step.reasonCode', 'BR-FR-CDV-CL-09', `motif ${JSON.stringify(code)} is not one status ${status.code} admits (${allowed.join(', ')})`);
    return undefined;
  }
  return code;
}

interface AmountBlock { type: string; amount: string; percent?: string; date?: string }

/**
 * The amount blocks (MDG-43) of the move. A collection (212, MEN) carries the VAT rate (BR-FR-CDV-14):
 * with several rates on the invoice, the collected amount is split over them in proportion of each
 * rate's amount with VAT (taxable + VAT), the last rate taking the rounding remainder.
 */
function amountBlocks(status: CdvStatus, input: CdarInput, issues: IssueCollector): AmountBlock[] {
  const { step, invoice } = input;
  const blocks: AmountBlock[] = [];
  for (const [type, value] of Object.entries(step.amounts ?? {})) {
    if (!status.amounts.includes(type)) {
      issues.add('INVALID_ENUM', `step.amounts.${type}`, 'BR-FR-CDV-CL-11', `status ${status.code} carries ${status.amounts.length ? status.amounts.join(', ') : 'no amount block'}, not ${type}`);
    } else if (typeof value !== 'string' || !isDecimalText(value) || value.replace(/^-/, '').replace('.', '').length > 19) {
      issues.add('INVALID_REQUEST', `step.amounts.${type}`, 'decimal', `step.amounts.${type} must be a decimal amount written as text, got ${JSON.stringify(value)}`);
    } else {
      blocks.push({ type, amount: new Dec(value).toFixed(2) });
    }
  }
  if (status.code === '212' && !blocks.some((b) => b.type === 'MEN') && !step.amounts?.MEN) {
    issues.add('MISSING_FIELD', 'step.amounts.MEN', 'BR-FR-CDV-14', 'a collection (212) must carry the collected amount (MEN)');
  }
  const paymentDate = step.paymentDate ? date102(step.paymentDate, 'step.paymentDate', issues) : undefined;
  const out: AmountBlock[] = [];
  for (const b of blocks) {
    if (b.type !== 'MEN') { out.push({ ...b, ...(b.type === 'MPA' && paymentDate ? { date: paymentDate } : {}) }); continue; }
    out.push(...splitByVatRate(b.amount, invoice).map((part) => ({ ...part, ...(paymentDate ? { date: paymentDate } : {}) })));
  }
  return out;
}

function splitByVatRate(amount: string, invoice: CanonicalInvoice): AmountBlock[] {
  const byRate = new Map<string, InstanceType<typeof Dec>>();
  for (const b of invoice.vatBreakdown ?? []) {
    const rate = new Dec(b.rate && isDecimalText(b.rate) ? b.rate : '0').toFixed(2);
    const gross = new Dec(isDecimalText(b.taxableAmount) ? b.taxableAmount : '0').plus(isDecimalText(b.taxAmount) ? b.taxAmount : '0');
    byRate.set(rate, (byRate.get(rate) ?? new Dec(0)).plus(gross));
  }
  const rates = [...byRate.entries()];
  if (rates.length <= 1) return [{ type: 'MEN', amount, percent: rates[0]?.[0] ?? '0.00' }];
  const total = rates.reduce((s, [, g]) => s.plus(g), new Dec(0));
  const whole = new Dec(amount);
  let left = whole;
  return rates.map(([rate, gross], i) => {
    const part = i === rates.length - 1 ? left : total.isZero() ? new Dec(0) : whole.times(gross).dividedBy(total).toDecimalPlaces(2, Dec.ROUND_HALF_UP);
    left = left.minus(part);
    return { type: 'MEN', amount: part.toFixed(2), percent: rate };
  });
}

const text = (v: string | undefined) => (v === undefined ? undefined : v.slice(0, MAX_TEXT));

/** Builds the CDAR D22B message for one French lifecycle move (statuses 200–213). Throws MappingError. */
export function lifecycleToCdar(input: CdarInput): string {
  const issues = new IssueCollector();
  if (!input?.step || !input.invoice) {
    issues.add('MISSING_FIELD', !input?.invoice ? 'invoice' : 'step', 'required', 'a status message needs the invoice and the lifecycle step');
    issues.throwIfAny();
  }
  const { step, invoice } = input;
  const status = CDV_STATUSES[step.code];
  if (!status) issues.add('INVALID_ENUM', 'step.code', 'BR-FR-CDV-CL-06', `step.code must be a French lifecycle code 200–213, got ${JSON.stringify(step.code)}`);
  if (!EMITTERS.includes(step.emittedBy)) issues.add('INVALID_ENUM', 'step.emittedBy', 'enum', `step.emittedBy must be one of ${EMITTERS.join(', ')}`);
  else if (status) {
    const byPlatform = PLATFORM_EMITTERS.includes(step.emittedBy);
    // BR-FR-CDV-CL-02/03/07: the transmission phase is a platform's word, the processing phase a company's.
    if (status.phase === '305' && !byPlatform) issues.add('INVALID_ENUM', 'step.emittedBy', 'BR-FR-CDV-CL-03', `status ${status.code} (${status.label}) is set by a platform, not by the ${step.emittedBy}`);
    if (status.phase === '23' && byPlatform) issues.add('INVALID_ENUM', 'step.emittedBy', 'BR-FR-CDV-CL-03', `status ${status.code} (${status.label}) is set by the buyer or the supplier, not by a platform`);
  }
  if (typeof input.messageId !== 'string' || !input.messageId.trim() || input.messageId.length > 200) issues.add('MISSING_FIELD', 'messageId', 'BR-FR-CDV-03', 'messageId (the message id, MDT-4) is required, at most 200 characters');
  if (!invoice.number?.trim()) issues.add('MISSING_FIELD', 'invoice.number', 'BR-FR-CDV-10', 'the invoice number (BT-1, MDT-87) is required');
  const typeCode = invoice.typeCode ?? (invoice.kind === 'credit-note' ? '381' : '380');
  if (!FR_DOCUMENT_TYPES.includes(typeCode)) issues.add('INVALID_ENUM', 'invoice.typeCode', 'BR-FR-04', `invoice type code ${typeCode} is not one of the French CIUS (${FR_DOCUMENT_TYPES.join(', ')})`);
  const issued = dateTime204(input.issuedAt, 'issuedAt', issues);
  const at = dateTime204(step.at, 'step.at', issues);
  const invoiceDate = date102(invoice.issueDate, 'invoice.issueDate', issues);
  const seller = partyOf(invoice.seller, 'invoice.seller', issues);
  // The buyer is named only where it speaks or is spoken to (204–212, 202/203): a deposit (200) or a
  // rejection (213) goes to the seller, whoever the buyer is.
  const namesBuyer = step.emittedBy === 'buyer' || step.emittedBy === 'supplier' || step.emittedBy === 'buyer_platform';
  const buyer = namesBuyer ? partyOf(invoice.buyer, 'invoice.buyer', issues) : undefined;
  const reasonCode = status ? reasonCodeOf(status, step, issues) : undefined;
  const blocks = status ? amountBlocks(status, input, issues) : [];
  if (step.paymentCurrency !== undefined && !/^[A-Z]{3}$/.test(step.paymentCurrency)) issues.add('INVALID_CURRENCY', 'step.paymentCurrency', 'ISO 4217', `step.paymentCurrency must be an ISO 4217 code, got ${JSON.stringify(step.paymentCurrency)}`);
  issues.throwIfAny();

  const s = status!;
  const currency = step.paymentCurrency ?? invoice.currency;
  const w = new XmlWriter();
  w.open('rsm:CrossDomainAcknowledgementAndResponse', {
    'xmlns:rsm': CDAR_NS.rsm, 'xmlns:ram': CDAR_NS.ram, 'xmlns:udt': CDAR_NS.udt, 'xmlns:qdt': CDAR_NS.qdt,
  });
  w.el('rsm:ExchangedDocumentContext', () => {
    w.el('ram:BusinessProcessSpecifiedDocumentContextParameter', () => w.leaf('ram:ID', CDV_BUSINESS_PROCESS));
    w.el('ram:GuidelineSpecifiedDocumentContextParameter', () => w.leaf('ram:ID', CDV_GUIDELINE));
  });

  const party = (el: string, p: CdarParty | 'platform' | 'ppf', role: string, withAddress: boolean) => w.el(el, () => {
    if (p === 'ppf') {
      w.leaf('ram:GlobalID', PPF_PARTY.id, { schemeID: PPF_PARTY.scheme });
      w.leaf('ram:Name', PPF_PARTY.name);
    } else if (p !== 'platform') {
      w.leaf('ram:GlobalID', p.id.value, p.id.scheme ? { schemeID: p.id.scheme } : undefined);
      w.leaf('ram:Name', p.name);
    }
    w.leaf('ram:RoleCode', role);
    if (withAddress && p !== 'platform' && p !== 'ppf') w.el('ram:URIUniversalCommunication', () => w.leaf('ram:URIID', p.address.value, { schemeID: p.address.scheme }));
  });

  const recipients: Array<[CdarParty, string]> =
    step.emittedBy === 'buyer' ? [[seller!, 'SE']]
      : step.emittedBy === 'supplier' ? [[buyer!, 'BY']]
        : step.emittedBy === 'buyer_platform' ? [[seller!, 'SE'], [buyer!, 'BY']]
          : [[seller!, 'SE']];
  w.el('rsm:ExchangedDocument', () => {
    w.leaf('ram:ID', input.messageId);
    w.leaf('ram:Name', `${invoice.number}-CDV-${s.code}_${s.label}`.slice(0, MAX_TEXT));
    w.el('ram:IssueDateTime', () => w.leaf('udt:DateTimeString', issued, { format: '204' }));
    party('ram:SenderTradeParty', 'platform', 'WK', false);
    // A company issuer gives its electronic address too: where the other side and the PPF answer it.
    if (step.emittedBy === 'buyer') party('ram:IssuerTradeParty', buyer!, 'BY', true);
    else if (step.emittedBy === 'supplier') party('ram:IssuerTradeParty', seller!, 'SE', true);
    else party('ram:IssuerTradeParty', 'platform', 'WK', false);
    for (const [p, role] of recipients) party('ram:RecipientTradeParty', p, role, true);
    if (s.toPpf) party('ram:RecipientTradeParty', 'ppf', PPF_PARTY.role, false);
  });

  const hasStatusDetail = reasonCode !== undefined || !!step.reason?.trim() || step.note !== undefined || step.paymentReference !== undefined || blocks.length > 0;
  w.el('rsm:AcknowledgementDocument', () => {
    w.el('ram:MultipleReferencesIndicator', () => w.leaf('udt:Indicator', 'false'));
    w.leaf('ram:TypeCode', s.phase);
    w.el('ram:IssueDateTime', () => w.leaf('udt:DateTimeString', at, { format: '204' }));
    w.el('ram:ReferenceReferencedDocument', () => {
      w.leaf('ram:IssuerAssignedID', invoice.number);
      w.leaf('ram:StatusCode', s.documentStatus);
      w.leaf('ram:TypeCode', typeCode);
      w.el('ram:FormattedIssueDateTime', () => w.leaf('qdt:DateTimeString', invoiceDate, { format: '102' }));
      w.leaf('ram:ProcessConditionCode', s.code);
      w.leaf('ram:ProcessCondition', s.label);
      w.el('ram:IssuerTradeParty', () => w.leaf('ram:GlobalID', seller!.id.value, seller!.id.scheme ? { schemeID: seller!.id.scheme } : undefined));
      w.el('ram:SpecifiedDocumentStatus', () => {
        w.leaf('ram:ReasonCode', reasonCode);
        w.leaf('ram:Reason', text(step.reason?.trim() || undefined));
        // BR-FR-CDV-16: every status detail is numbered; one detail per message.
        w.leaf('ram:SequenceNumeric', '1');
        if (step.note !== undefined) w.el('ram:IncludedNote', () => w.leaf('ram:Content', text(step.note)));
        if (step.paymentReference !== undefined) w.el('ram:IncludedNote', () => { w.leaf('ram:Content', text(step.paymentReference)); w.leaf('ram:SubjectCode', 'PMT'); });
        for (const b of blocks) {
          w.el('ram:SpecifiedDocumentCharacteristic', () => {
            w.leaf('ram:TypeCode', b.type);
            w.leaf('ram:ValueAmount', b.amount, { currencyID: currency });
            if (b.date) w.el('ram:ValueDateTime', () => w.leaf('udt:DateTimeString', b.date, { format: '102' }));
            w.leaf('ram:ValuePercent', b.percent);
          });
        }
      }, undefined, hasStatusDetail);
    });
  });
  w.close('rsm:CrossDomainAcknowledgementAndResponse');
  return w.toString();
}
