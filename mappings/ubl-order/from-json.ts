/**
 * The JSON body of a purchase order → `PurchaseOrder`: every problem of the payload reported at
 * once (MappingError with dotted paths under `document.`), defaults applied (issue date today,
 * EUR, unit C62, line ids 1…n) and the totals computed with exact decimals: a line's net amount
 * is quantity × unit price unless stated, the order's net is their sum, and tax is computed only
 * when every line states its VAT rate.
 */
import { IssueCollector, type MappingErrorCode } from '../errors.ts';
import { COUNTRY_CODES, CURRENCY_CODES, VAT_CATEGORIES } from '../canonical/codes.ts';
import { dec, money, sum, toDecimalText, type Dec } from '../canonical/decimal.ts';
import { MAX_ORDER_LINES, type OrderAddress, type OrderContact, type OrderDelivery, type OrderLine, type OrderParty, type PurchaseOrder } from './model.ts';

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const PEPPOL_ID_RE = /^\d{4}:[^\s:]{1,128}$/;
const VAT_RE = /^[A-Z]{2}[A-Z0-9]+$/;
const UNIT_RE = /^[A-Z0-9]{1,3}$/;
/** Longest free text a field takes (a note, a description). */
const MAX_TEXT = 1_000;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function isCalendarDate(s: string): boolean {
  const m = DATE_RE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

class Reader {
  readonly issues: IssueCollector;

  constructor(issues: IssueCollector) {
    this.issues = issues;
  }

  fail(code: MappingErrorCode, field: string, rule: string, message: string): undefined {
    this.issues.add(code, field, rule, message);
    return undefined;
  }

  text(o: Obj, key: string, path: string, required = false, max = MAX_TEXT): string | undefined {
    const v = o[key];
    if (v === undefined || v === null || v === '') {
      return required ? this.fail('MISSING_FIELD', `${path}.${key}`, 'required', `${path}.${key} is required`) : undefined;
    }
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    if (typeof v !== 'string') return this.fail('INVALID_REQUEST', `${path}.${key}`, 'type', `${path}.${key} must be a string`);
    const t = v.trim();
    if (t === '') return required ? this.fail('MISSING_FIELD', `${path}.${key}`, 'required', `${path}.${key} is required`) : undefined;
    if (t.length > max) return this.fail('INVALID_REQUEST', `${path}.${key}`, 'maxLength', `${path}.${key} is longer than ${max} characters`);
    return t;
  }

  date(o: Obj, key: string, path: string): string | undefined {
    const t = this.text(o, key, path);
    if (t === undefined) return undefined;
    const d = t.slice(0, 10);
    if (!isCalendarDate(d) || (t.length > 10 && Number.isNaN(Date.parse(t)))) return this.fail('INVALID_DATE', `${path}.${key}`, 'date', `${path}.${key} must be a date YYYY-MM-DD, got '${t}'`);
    return d;
  }

  /** A decimal number (JSON number or numeric string), `positive` excluding zero; undefined when absent. */
  number(o: Obj, key: string, path: string, rule: { required?: boolean; positive?: boolean; nonNegative?: boolean; max?: number } = {}): Dec | undefined {
    const v = o[key];
    if (v === undefined || v === null || v === '') {
      return rule.required ? this.fail('MISSING_FIELD', `${path}.${key}`, 'required', `${path}.${key} is required`) : undefined;
    }
    const text = toDecimalText(v);
    if (text === undefined) return this.fail('INVALID_REQUEST', `${path}.${key}`, 'number', `${path}.${key} must be a number`);
    const n = dec(text);
    if (rule.positive && !n.gt(0)) return this.fail('INVALID_REQUEST', `${path}.${key}`, 'positive', `${path}.${key} must be greater than 0`);
    if (rule.nonNegative && n.lt(0)) return this.fail('INVALID_REQUEST', `${path}.${key}`, 'nonNegative', `${path}.${key} must not be negative`);
    if (rule.max !== undefined && n.gt(rule.max)) return this.fail('INVALID_REQUEST', `${path}.${key}`, 'maximum', `${path}.${key} must be at most ${rule.max}`);
    if (n.abs().gte('1e15')) return this.fail('INVALID_REQUEST', `${path}.${key}`, 'maximum', `${path}.${key} is too large`);
    return n;
  }

  object(o: Obj, key: string, path: string): Obj | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (!isObj(v)) return this.fail('INVALID_REQUEST', `${path}.${key}`, 'type', `${path}.${key} must be an object`);
    return v;
  }

  country(o: Obj, key: string, path: string): string | undefined {
    const t = this.text(o, key, path);
    if (t === undefined) return undefined;
    if (!COUNTRY_CODES.has(t)) return this.fail('INVALID_REQUEST', `${path}.${key}`, 'country', `${path}.${key} must be an ISO 3166-1 alpha-2 code, got '${t}'`);
    return t;
  }
}

function address(r: Reader, o: Obj | undefined, path: string): OrderAddress | undefined {
  if (!o) return undefined;
  const a: OrderAddress = {};
  const set = <K extends keyof OrderAddress>(k: K, v: OrderAddress[K] | undefined) => { if (v !== undefined) a[k] = v; };
  set('street', r.text(o, 'street', path, false, 200));
  set('additionalStreet', r.text(o, 'additionalStreet', path, false, 200) ?? r.text(o, 'streetLine2', path, false, 200));
  set('city', r.text(o, 'city', path, false, 200));
  set('postalCode', r.text(o, 'postalCode', path, false, 50));
  set('countrySubentity', r.text(o, 'countrySubentity', path, false, 200));
  set('country', r.country(o, 'country', path));
  return Object.keys(a).length ? a : undefined;
}

function contact(r: Reader, o: Obj | undefined, path: string): OrderContact | undefined {
  if (!o) return undefined;
  const c: OrderContact = {};
  const name = r.text(o, 'name', path, false, 200);
  const phone = r.text(o, 'phone', path, false, 50);
  const email = r.text(o, 'email', path, false, 254);
  if (email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(email)) r.fail('INVALID_REQUEST', `${path}.email`, 'email', `${path}.email is not an e-mail address`);
  if (name !== undefined) c.name = name;
  if (phone !== undefined) c.phone = phone;
  if (email !== undefined) c.email = email;
  return Object.keys(c).length ? c : undefined;
}

function party(r: Reader, o: Obj | undefined, path: string, role: string): OrderParty | undefined {
  if (!o) return r.fail('MISSING_FIELD', path, 'required', `${path} (the ${role}) is required`);
  const name = r.text(o, 'name', path, true, 300);
  const peppolId = r.text(o, 'peppolId', path, false, 140);
  if (peppolId === undefined) r.fail('MISSING_FIELD', `${path}.peppolId`, 'required', `${path}.peppolId is required: Peppol BIS Order addresses both parties by their electronic address`);
  else if (!PEPPOL_ID_RE.test(peppolId)) r.fail('INVALID_REQUEST', `${path}.peppolId`, 'peppolId', `${path}.peppolId must be <scheme>:<identifier>, got '${peppolId}'`);
  const vatNumber = r.text(o, 'vatNumber', path, false, 40);
  if (vatNumber !== undefined && !VAT_RE.test(vatNumber)) r.fail('INVALID_VAT_FORMAT', `${path}.vatNumber`, 'pattern', `${path}.vatNumber must match ^[A-Z]{2}[A-Z0-9]+$, got '${vatNumber}'`);
  const companyId = r.text(o, 'companyId', path, false, 100);
  const addr = address(r, r.object(o, 'address', path), `${path}.address`);
  const c = contact(r, r.object(o, 'contact', path), `${path}.contact`);
  if (name === undefined) return undefined;
  return {
    name, ...(peppolId ? { peppolId } : {}), ...(vatNumber ? { vatNumber } : {}), ...(companyId ? { companyId } : {}),
    ...(addr ? { address: addr } : {}), ...(c ? { contact: c } : {}),
  };
}

function delivery(r: Reader, o: Obj | undefined, path: string): OrderDelivery | undefined {
  if (!o) return undefined;
  const d: OrderDelivery = {};
  const addr = address(r, r.object(o, 'address', path), `${path}.address`);
  const locationId = r.text(o, 'locationId', path, false, 100);
  const requestedFrom = r.date(o, 'requestedFrom', path);
  const requestedBy = r.date(o, 'requestedBy', path);
  const partyName = r.text(o, 'partyName', path, false, 300);
  if (requestedFrom && requestedBy && requestedBy < requestedFrom) r.fail('INVALID_DATE', `${path}.requestedBy`, 'period', `${path}.requestedBy is before ${path}.requestedFrom`);
  if (addr) d.address = addr;
  if (locationId) d.locationId = locationId;
  if (requestedFrom) d.requestedFrom = requestedFrom;
  if (requestedBy) d.requestedBy = requestedBy;
  if (partyName) d.partyName = partyName;
  return Object.keys(d).length ? d : undefined;
}

interface ReadLine { line: OrderLine; net: Dec | undefined; rate: Dec | undefined }

function line(r: Reader, o: unknown, index: number, seen: Set<string>): ReadLine | undefined {
  const path = `document.lines[${index}]`;
  if (!isObj(o)) return r.fail('INVALID_REQUEST', path, 'type', `${path} must be an object`);
  const id = r.text(o, 'id', path, false, 50) ?? String(index + 1);
  if (seen.has(id)) r.fail('INVALID_REQUEST', `${path}.id`, 'unique', `${path}.id '${id}' is used by another line`);
  seen.add(id);
  // `description` alone names the item, as an invoice line's does.
  const name = r.text(o, 'name', path, false, 300) ?? r.text(o, 'description', path, false, 300);
  if (name === undefined) r.fail('MISSING_FIELD', `${path}.name`, 'required', `${path}.name (or description) is required: the item ordered`);
  const description = o.name !== undefined ? r.text(o, 'description', path) : undefined;
  const quantity = r.number(o, 'quantity', path, { required: true, positive: true });
  const unit = r.text(o, 'unit', path, false, 3) ?? 'C62';
  if (!UNIT_RE.test(unit)) r.fail('INVALID_REQUEST', `${path}.unit`, 'unitCode', `${path}.unit must be a UN/ECE Rec 20 code (C62, EA, KGM, HUR …), got '${unit}'`);
  const unitPrice = r.number(o, 'unitPrice', path, { nonNegative: true });
  const stated = r.number(o, 'netAmount', path);
  const vatCategory = r.text(o, 'vatCategory', path, false, 2);
  if (vatCategory !== undefined && !(VAT_CATEGORIES as readonly string[]).includes(vatCategory)) r.fail('INVALID_ENUM', `${path}.vatCategory`, 'enum', `${path}.vatCategory must be one of ${VAT_CATEGORIES.join(', ')}`);
  const rate = r.number(o, 'vatRate', path, { nonNegative: true, max: 100 });
  const standardItemId = r.text(o, 'standardItemId', path, false, 100);
  const standardItemScheme = r.text(o, 'standardItemScheme', path, false, 10);
  if (standardItemId !== undefined && standardItemScheme === undefined) r.fail('MISSING_FIELD', `${path}.standardItemScheme`, 'required', `${path}.standardItemScheme is required with standardItemId (0160 for a GTIN)`);
  if (quantity === undefined || name === undefined) return undefined;
  const net = stated ?? (unitPrice !== undefined ? quantity.times(unitPrice) : undefined);
  const l: OrderLine = { id, name, quantity: quantity.toNumber(), unit };
  if (description) l.description = description;
  if (unitPrice !== undefined) l.unitPrice = unitPrice.toNumber();
  if (net !== undefined) l.netAmount = Number(money(net));
  for (const k of ['sellerItemId', 'buyerItemId', 'note'] as const) {
    const v = r.text(o, k, path, false, k === 'note' ? MAX_TEXT : 100);
    if (v !== undefined) l[k] = v;
  }
  if (standardItemId && standardItemScheme) { l.standardItemId = standardItemId; l.standardItemScheme = standardItemScheme; }
  // A rate alone is the standard category (zero rated at 0 %).
  if (vatCategory) l.vatCategory = vatCategory;
  else if (rate !== undefined) l.vatCategory = rate.isZero() ? 'Z' : 'S';
  if (rate !== undefined) l.vatRate = rate.toNumber();
  return { line: l, net, rate };
}

/**
 * `document` of a purchase order → `PurchaseOrder`. `today` is the issue date when none is given.
 * Throws MappingError (code of the first problem, every problem in `details`).
 */
export function purchaseOrderFromJson(document: unknown, options: { today: string }): PurchaseOrder {
  const issues = new IssueCollector();
  const r = new Reader(issues);
  if (!isObj(document)) {
    issues.add('MISSING_FIELD', 'document', 'required', 'document (the purchase order) is required and must be an object');
    issues.throwIfAny();
  }
  const d = document as Obj;
  const path = 'document';
  const number = r.text(d, 'number', path, true, 200);
  const issueDate = r.date(d, 'issueDate', path) ?? options.today;
  const currency = r.text(d, 'currency', path, false, 10) ?? 'EUR';
  if (!CURRENCY_CODES.has(currency)) r.fail('INVALID_CURRENCY', `${path}.currency`, 'iso4217', `${path}.currency must be an ISO 4217 code, got '${currency}'`);
  const validUntil = r.date(d, 'validUntil', path);
  if (validUntil && validUntil < issueDate) r.fail('INVALID_DATE', `${path}.validUntil`, 'afterIssueDate', `${path}.validUntil is before the issue date`);
  const buyer = party(r, r.object(d, 'buyer', path), `${path}.buyer`, 'buyer');
  const seller = party(r, r.object(d, 'seller', path), `${path}.seller`, 'seller (supplier)');
  const deliveryPart = delivery(r, r.object(d, 'delivery', path), `${path}.delivery`);
  const rawLines = d.lines;
  let lines: ReadLine[] = [];
  if (rawLines === undefined || rawLines === null || (Array.isArray(rawLines) && rawLines.length === 0)) {
    r.fail('MISSING_FIELD', `${path}.lines`, 'required', 'a purchase order needs at least one line');
  } else if (!Array.isArray(rawLines)) {
    r.fail('INVALID_REQUEST', `${path}.lines`, 'type', `${path}.lines must be an array`);
  } else if (rawLines.length > MAX_ORDER_LINES) {
    issues.add('PAYLOAD_TOO_LARGE', `${path}.lines`, 'maxItems', `a purchase order takes at most ${MAX_ORDER_LINES} lines, got ${rawLines.length}`);
  } else {
    const seen = new Set<string>();
    lines = rawLines.map((o, i) => line(r, o, i, seen)).filter((l): l is ReadLine => l !== undefined);
  }
  const optional: Partial<PurchaseOrder> = {};
  for (const k of ['note', 'buyerReference', 'accountingCost', 'quotationReference', 'contractReference', 'paymentTerms'] as const) {
    const v = r.text(d, k, path, false, k === 'note' || k === 'paymentTerms' ? MAX_TEXT : 200);
    if (v !== undefined) optional[k] = v;
  }
  issues.throwIfAny();

  const lineExtension = sum(lines.map((l) => l.net ?? dec(0)));
  const taxed = lines.length > 0 && lines.every((l) => l.rate !== undefined && l.net !== undefined);
  const tax = taxed ? sum(lines.map((l) => dec(money(l.net!.times(l.rate!).dividedBy(100))))) : undefined;
  const totals: PurchaseOrder['totals'] = { lineExtension: Number(money(lineExtension)), payable: Number(money(tax ? lineExtension.plus(tax) : lineExtension)) };
  if (tax) { totals.tax = Number(money(tax)); totals.taxInclusive = Number(money(lineExtension.plus(tax))); }
  return {
    number: number!, issueDate, currency, ...optional, ...(validUntil ? { validUntil } : {}),
    buyer: buyer!, seller: seller!, ...(deliveryPart ? { delivery: deliveryPart } : {}),
    lines: lines.map((l) => l.line), totals,
  };
}
