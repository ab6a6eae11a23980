/**
 * Reads a CDAR D22B "cycle de vie" message into the status facts a platform acts on: which status
 * (MDT-105), about which invoice (MDT-87, MDT-100), who says it to whom (MDT-21/40/59 with their
 * identifiers), the motifs (MDT-113) and the amount blocks (MDT-207/215/224). Lenient on what the
 * rules judge (the BR-FR-CDV pack does that), strict on what makes it a status message at all.
 * The document goes through the hardened parser (shape caps, no DTD) first.
 */
import { MappingError } from '../errors.ts';
import { Dec } from '../canonical/decimal.ts';
import { attr, at, kids, readTree, txt, type XEl } from '../xml/tree.ts';
import { CDAR_NS } from './namespaces.ts';

export interface CdarPartyFacts {
  /** MDT-21 / MDT-40 / MDT-59 role code (WK platform, BY buyer, SE seller, DFH tax administration …). */
  role?: string;
  /** Global identifiers with their scheme (0002 SIREN, 0009 SIRET, 0238 platform number …). */
  ids: Array<{ value: string; scheme?: string }>;
  name?: string;
  /** MDT-73 electronic address. */
  address?: { value: string; scheme?: string };
}

export interface CdarAmountFacts {
  /** MDT-207 (MEN, MPA, RAP, MAP, MAPTTC, MNA, MNATTC, MAJ, DIV, DVA …). */
  type?: string;
  /** MDT-215 and its currency. */
  amount?: string;
  currency?: string;
  /** MDT-224 (the VAT rate of a collection). */
  percent?: string;
  /** MDT-219 (YYYY-MM-DD). */
  date?: string;
  /** MDT-206 / MDT-211 (the business term a DIV/DVA pair names, and its label). */
  id?: string;
  name?: string;
}

export interface CdarStatusDetail {
  reasonCode?: string;
  reason?: string;
  /** MDT-121 requested action. */
  actionCode?: string;
  /** MDT-124-2. */
  sequence?: string;
  notes: string[];
  amounts: CdarAmountFacts[];
}

export interface CdarFacts {
  /** MDT-2 billing framework and MDT-3 profile. */
  businessProcess?: string;
  guideline?: string;
  /** MDT-4 and MDT-8 (ISO 8601, UTC as written). */
  messageId?: string;
  issuedAt?: string;
  /** MDT-77: 305 transmission phase, 23 processing phase. */
  phase?: string;
  /** MDT-105 and MDT-106. */
  code: string;
  label?: string;
  /** MDT-78: when the status was set. */
  statusAt?: string;
  invoice: { number: string; issueDate?: string; typeCode?: string; documentStatus?: string };
  sender?: CdarPartyFacts;
  issuer?: CdarPartyFacts;
  recipients: CdarPartyFacts[];
  /** MDT-129: the seller that issued the invoice. */
  seller?: CdarPartyFacts;
  details: CdarStatusDetail[];
  /** Every motif of the message, in order. */
  reasonCodes: string[];
  /** Amount per block type (the sum when a type repeats, e.g. MEN per VAT rate), with two decimals. */
  amounts: Record<string, string>;
}

const ROOT = 'CrossDomainAcknowledgementAndResponse';

/** Format 204 (CCYYMMDDHHMMSS) or 102 (CCYYMMDD) → ISO; other text is returned as written. */
function isoOf(el: XEl | undefined): string | undefined {
  const v = txt(el, 'DateTimeString');
  if (!v) return undefined;
  const m = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2}))?$/.exec(v);
  if (!m) return v;
  return m[4] ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z` : `${m[1]}-${m[2]}-${m[3]}`;
}

function partyOf(el: XEl | undefined): CdarPartyFacts | undefined {
  if (!el) return undefined;
  const ids = kids(el, 'GlobalID').map((g) => ({ value: g.text.trim(), ...(attr(g, 'schemeID') ? { scheme: attr(g, 'schemeID') } : {}) }));
  const uri = at(el, 'URIUniversalCommunication', 'URIID');
  return {
    ...(txt(el, 'RoleCode') ? { role: txt(el, 'RoleCode') } : {}),
    ids,
    ...(txt(el, 'Name') ? { name: txt(el, 'Name') } : {}),
    ...(uri && uri.text.trim() ? { address: { value: uri.text.trim(), ...(attr(uri, 'schemeID') ? { scheme: attr(uri, 'schemeID') } : {}) } } : {}),
  };
}

function amountOf(el: XEl): CdarAmountFacts {
  const amount = at(el, 'ValueAmount');
  const out: CdarAmountFacts = {};
  const set = (k: keyof CdarAmountFacts, v: string | undefined) => { if (v !== undefined) out[k] = v; };
  set('type', txt(el, 'TypeCode'));
  set('id', txt(el, 'ID'));
  set('name', txt(el, 'Name'));
  set('amount', txt(amount));
  set('currency', attr(amount, 'currencyID'));
  set('percent', txt(el, 'ValuePercent'));
  set('date', isoOf(at(el, 'ValueDateTime')));
  return out;
}

/** Parses a CDAR D22B lifecycle message. Throws MappingError (INVALID_REQUEST, MISSING_FIELD, PAYLOAD_TOO_LARGE). */
export function readCdar(xml: string | Buffer): CdarFacts {
  const root = readTree(xml, 'CDAR message');
  if (root.name !== ROOT || root.ns !== CDAR_NS.rsm) {
    throw new MappingError('INVALID_REQUEST', `not a CDAR D22B lifecycle message: the root is {${root.ns}}${root.name}`, [
      { field: 'xml', rule: 'root', message: `expected {${CDAR_NS.rsm}}${ROOT}` },
    ]);
  }
  const ctx = at(root, 'ExchangedDocumentContext');
  const exchanged = at(root, 'ExchangedDocument');
  const ack = at(root, 'AcknowledgementDocument');
  const ref = at(ack, 'ReferenceReferencedDocument');
  const code = txt(ref, 'ProcessConditionCode');
  const number = txt(ref, 'IssuerAssignedID');
  const missing = [!code && 'ProcessConditionCode (MDT-105)', !number && 'IssuerAssignedID (MDT-87)'].filter(Boolean) as string[];
  if (missing.length) {
    throw new MappingError('MISSING_FIELD', `the CDAR message names no ${missing.join(' and no ')} in AcknowledgementDocument/ReferenceReferencedDocument`,
      missing.map((m) => ({ field: `AcknowledgementDocument.ReferenceReferencedDocument.${m.split(' ')[0]}`, rule: 'required', message: `${m} is required` })));
  }
  const details: CdarStatusDetail[] = kids(ref, 'SpecifiedDocumentStatus').map((s) => ({
    ...(txt(s, 'ReasonCode') ? { reasonCode: txt(s, 'ReasonCode') } : {}),
    ...(txt(s, 'Reason') ? { reason: txt(s, 'Reason') } : {}),
    ...(txt(s, 'RequestedActionCode') ? { actionCode: txt(s, 'RequestedActionCode') } : {}),
    ...(txt(s, 'SequenceNumeric') ? { sequence: txt(s, 'SequenceNumeric') } : {}),
    notes: kids(s, 'IncludedNote').map((n) => txt(n, 'Content')).filter((c): c is string => c !== undefined),
    amounts: kids(s, 'SpecifiedDocumentCharacteristic').map(amountOf),
  }));
  const amounts: Record<string, string> = {};
  for (const a of details.flatMap((d) => d.amounts)) {
    if (!a.type || !a.amount || !/^-?\d+(\.\d+)?$/.test(a.amount)) continue;
    amounts[a.type] = new Dec(amounts[a.type] ?? '0').plus(a.amount).toFixed(2);
  }
  const opt = <K extends string, V>(k: K, v: V | undefined) => (v === undefined ? {} : { [k]: v }) as Partial<Record<K, V>>;
  return {
    ...opt('businessProcess', txt(ctx, 'BusinessProcessSpecifiedDocumentContextParameter', 'ID')),
    ...opt('guideline', txt(ctx, 'GuidelineSpecifiedDocumentContextParameter', 'ID')),
    ...opt('messageId', txt(exchanged, 'ID')),
    ...opt('issuedAt', isoOf(at(exchanged, 'IssueDateTime'))),
    ...opt('phase', txt(ack, 'TypeCode')),
    code: code!,
    ...opt('label', txt(ref, 'ProcessCondition')),
    ...opt('statusAt', isoOf(at(ack, 'IssueDateTime'))),
    invoice: {
      number: number!,
      ...opt('issueDate', isoOf(at(ref, 'FormattedIssueDateTime'))),
      ...opt('typeCode', txt(ref, 'TypeCode')),
      ...opt('documentStatus', txt(ref, 'StatusCode')),
    },
    ...opt('sender', partyOf(at(exchanged, 'SenderTradeParty'))),
    ...opt('issuer', partyOf(at(exchanged, 'IssuerTradeParty'))),
    recipients: kids(exchanged, 'RecipientTradeParty').map((r) => partyOf(r)!),
    ...opt('seller', partyOf(at(ref, 'IssuerTradeParty'))),
    details,
    reasonCodes: details.map((d) => d.reasonCode).filter((c): c is string => c !== undefined),
    amounts,
  };
}
