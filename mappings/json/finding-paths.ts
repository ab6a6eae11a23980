/**
 * Findings in the caller's own terms: a JSON send is validated on the UBL we render from it, so a
 * finding names a UBL node and a UBL fix. This turns its business terms (BT ids) and the line or
 * party its XPath points into the JSON path of the send body (`document.lines[2].vatCategory`) and
 * a hint about that field, so a JSON client never has to read UBL.
 */

/** The `document` field each business term comes from in the JSON model (spec: document body fields). */
const DOCUMENT_FIELDS: Record<string, string> = {
  'BT-1': 'number', 'BT-2': 'issueDate', 'BT-3': 'documentSubtype', 'BT-5': 'currency', 'BT-6': 'currency', 'BT-9': 'dueDate',
  'BT-10': 'buyerReference', 'BT-13': 'orderReference', 'BT-16': 'despatchAdviceReference', 'BT-20': 'paymentTerms',
  'BT-22': 'note', 'BT-25': 'billingReference', 'BT-26': 'billingReferenceDate',
  'BT-72': 'delivery.actualDeliveryDate', 'BT-80': 'delivery.deliveryLocation.country',
  'BT-81': 'payment.means', 'BT-83': 'payment.reference', 'BT-84': 'payment.iban', 'BT-86': 'payment.bic',
  'BT-106': 'totals.net', 'BT-109': 'totals.net', 'BT-110': 'totals.vat', 'BT-111': 'exchangeRate', 'BT-112': 'totals.gross',
  'BT-113': 'totals.prepaid', 'BT-115': 'totals.payable',
  // The VAT breakdown is computed from the lines' categories, rates and exemption reasons.
  'BT-116': 'lines', 'BT-117': 'lines', 'BT-118': 'lines', 'BT-119': 'lines', 'BT-120': 'lines', 'BT-121': 'lines', 'BG-23': 'lines',
  'BG-25': 'lines',
};

/** Party fields, by the seller's term (the buyer's terms map onto them below). */
const PARTY_FIELDS: Record<string, string> = {
  'BT-27': 'name', 'BT-28': 'tradingName', 'BT-29': 'id', 'BT-30': 'registrationNumber', 'BT-31': 'vatNumber', 'BT-32': 'siren',
  'BT-34': 'peppolId', 'BT-35': 'address.street', 'BT-36': 'address.streetLine2', 'BT-37': 'address.city', 'BT-38': 'address.postalCode',
  'BT-40': 'address.country', 'BG-5': 'address', 'BG-6': 'contact',
};
/** Buyer term → the seller term with the same role in PARTY_FIELDS. */
const BUYER_TERMS: Record<string, string> = {
  'BT-44': 'BT-27', 'BT-45': 'BT-28', 'BT-46': 'BT-29', 'BT-47': 'BT-30', 'BT-48': 'BT-31', 'BT-49': 'BT-34', 'BT-50': 'BT-35',
  'BT-51': 'BT-36', 'BT-52': 'BT-37', 'BT-53': 'BT-38', 'BT-55': 'BT-40', 'BG-8': 'BG-5', 'BG-9': 'BG-6',
};

const LINE_FIELDS: Record<string, string> = {
  'BT-126': 'id', 'BT-127': 'note', 'BT-129': 'quantity', 'BT-130': 'unit', 'BT-131': 'netAmount', 'BT-146': 'unitPrice',
  'BT-149': 'baseQuantity', 'BT-151': 'vatCategory', 'BT-152': 'vatRate', 'BT-153': 'description', 'BT-154': 'itemDescription',
  'BT-155': 'itemCode', 'BG-25': '',
};

export interface JsonLocation {
  /** Dotted JSON path in the send body, e.g. `document.lines[2].vatRate`; `document` when nothing closer is known. */
  path: string;
  /** What to change in the JSON body. */
  hint: string;
}

function lineIndexOf(xpath: string): number | undefined {
  const m = /cac:(?:Invoice|CreditNote)Line\[(\d+)\]|ram:IncludedSupplyChainTradeLineItem\[(\d+)\]/.exec(xpath);
  const n = m ? Number(m[1] ?? m[2]) : NaN;
  return Number.isInteger(n) && n > 0 ? n - 1 : undefined;
}

function partyOf(xpath: string, terms: string[]): 'seller' | 'buyer' | undefined {
  if (/AccountingSupplierParty|SellerTradeParty/.test(xpath)) return 'seller';
  if (/AccountingCustomerParty|BuyerTradeParty/.test(xpath)) return 'buyer';
  if (terms.some((t) => BUYER_TERMS[t])) return 'buyer';
  if (terms.some((t) => PARTY_FIELDS[t])) return 'seller';
  return undefined;
}

/** The JSON path and hint of a finding on the UBL rendered from a JSON send. */
export function jsonLocationOf(finding: { location: string; bt: readonly string[] }): JsonLocation {
  const terms = [...finding.bt];
  const line = lineIndexOf(finding.location);
  if (line !== undefined) {
    const field = terms.map((t) => LINE_FIELDS[t]).find((f) => f !== undefined);
    const path = `document.lines[${line}]${field ? `.${field}` : ''}`;
    return { path, hint: `Check ${path}.` };
  }
  const party = partyOf(finding.location, terms);
  if (party) {
    const field = terms.map((t) => PARTY_FIELDS[BUYER_TERMS[t] ?? t]).find((f) => f !== undefined);
    const path = `document.${party}${field ? `.${field}` : ''}`;
    return { path, hint: `Set ${path}.` };
  }
  const field = terms.map((t) => DOCUMENT_FIELDS[t]).find((f) => f !== undefined);
  if (!field) return { path: 'document', hint: 'Check the document against the rule named in this finding.' };
  const path = `document.${field}`;
  if (field === 'lines') return { path, hint: 'The VAT breakdown comes from the lines: check their vatCategory, vatRate and vatExemptionReason / vatExemptionCode.' };
  if (field.startsWith('totals.')) return { path, hint: `${path} is optional: omit document.totals to have it computed from the lines, or state it consistently with them.` };
  return { path, hint: `Set ${path}.` };
}

/** Findings (with all their business terms in `bts`) located in the JSON body, beside their XPath. */
export function withJsonLocations<F extends { location: string; bts: readonly string[] }>(findings: readonly F[]): Array<F & { path: string; jsonHint: string }> {
  return findings.map((f) => {
    const json = jsonLocationOf({ location: f.location, bt: f.bts });
    return { ...f, path: json.path, jsonHint: json.hint };
  });
}
