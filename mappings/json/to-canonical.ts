/**
 * The API's JSON send envelope → canonical EN 16931 invoice. Every rule of the spec's Document
 * section is applied here; problems are gathered across the payload and thrown once as a
 * MappingError whose details name each field by its dotted path.
 */
import type {
  Address, CanonicalInvoice, Contact, CustomField, CustomFieldValue, ExtraParty, Line, Party, PaymentInstructions,
  SchemedId, Totals, VatBreakdown,
} from '../canonical/model.ts';
import {
  COUNTRY_CODES, CREDIT_NOTE_TYPE_CODES, CURRENCY_CODES, DOCUMENT_TYPE_CODES, EXEMPT_CATEGORIES, INCOTERMS,
  PAYMENT_MEANS_CODES, PAYMENT_MEANS_NAMES, VAT_CATEGORIES,
} from '../canonical/codes.ts';
import { Dec, money, sum, toDecimalText } from '../canonical/decimal.ts';
import { IssueCollector } from '../errors.ts';
import { isValidIban, normaliseIban } from '../identifiers/iban.ts';
import { ICD_BY_VAT_PREFIX, parsePeppolId, peppolIdFromVat } from '../identifiers/peppol-id.ts';
import { VAT_API_PATTERN, countryOfVat, isValidVatNumber } from '../identifiers/vat.ts';
import { PEPPOL_BIS3_TEMPLATE, hasSlot, isRequired } from './templates.ts';
import type { CustomFieldDefinition, Template } from './templates.ts';

export const DOCUMENT_TYPES = [
  'invoice', 'credit-note', 'debit-note', 'purchase-order', 'purchase-request', 'sales-order', 'quote',
  'goods-receipt', 'event',
] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** Document types that are EN 16931 invoices or credit notes (have a UNCL1001 code). */
const BILLING_TYPES: Readonly<Record<string, string>> = { invoice: '380', 'credit-note': '381', 'debit-note': '383' };

/** `documentSubtype` names and the UNCL1001 code each one sets. */
export const DOCUMENT_SUBTYPES: Readonly<Record<string, string>> = {
  PREPAYMENT_INVOICE: '386',
  CORRECTED_INVOICE: '384',
  SELF_BILLED_INVOICE: '389',
};

export interface JsonToCanonicalOptions {
  /** Template to apply (slots and custom-field definitions). Defaults to Peppol BIS Billing 3.0. */
  template?: Template;
  /** Templates of the organization by id, looked up with `document.templateId`. */
  templates?: Readonly<Record<string, Template>>;
  /** Today's date (from the clock service) used when `issueDate` is omitted. */
  today?: string;
}

type Json = Record<string, unknown>;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function text(v: unknown): string | undefined {
  if (typeof v === 'string') {
    const t = v.trim();
    return t === '' ? undefined : t;
  }
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

/** A fresh object without undefined values, empty arrays or empty objects (no `delete`: see canonical/object.ts). */
function compact<T extends object>(o: T): T {
  const out = {} as T;
  for (const k in o) {
    const v = o[k];
    if (v === undefined || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0)) continue;
    out[k] = v;
  }
  return out;
}

/** Builds the canonical document; one instance per call so the collector and template stay local. */
class Mapper {
  readonly issues = new IssueCollector();
  readonly template: Template;
  readonly today: string;

  constructor(template: Template, today: string) {
    this.template = template;
    this.today = today;
  }

  /** A caller-stated value goes in when the template declares its slot. */
  stated<T>(term: string, value: T | undefined): T | undefined {
    return value !== undefined && hasSlot(this.template, term) ? value : undefined;
  }

  /** An inferred value goes in only where the template marks the slot required. */
  inferred<T>(term: string, value: T | undefined): T | undefined {
    return value !== undefined && isRequired(this.template, term) ? value : undefined;
  }

  date(path: string, v: unknown): string | undefined {
    if (v === undefined || v === null || v === '') return undefined;
    const m = typeof v === 'string' ? DATE_RE.exec(v.trim()) : null;
    if (!m) {
      this.issues.add('INVALID_DATE', path, 'iso8601', `${path} must be an ISO 8601 date (YYYY-MM-DD)`);
      return undefined;
    }
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const probe = new Date(Date.UTC(y, mo - 1, d));
    if (probe.getUTCFullYear() !== y || probe.getUTCMonth() !== mo - 1 || probe.getUTCDate() !== d) {
      this.issues.add('INVALID_DATE', path, 'iso8601', `${path} is not a calendar date`);
      return undefined;
    }
    return `${m[1]}-${m[2]}-${m[3]}`;
  }

  decimal(path: string, v: unknown): string | undefined {
    if (v === undefined || v === null || v === '') return undefined;
    const d = toDecimalText(v);
    if (d === undefined) this.issues.add('INVALID_REQUEST', path, 'number', `${path} must be a number`);
    return d;
  }

  vat(path: string, v: unknown): string | undefined {
    const t = text(v);
    if (t === undefined) return undefined;
    if (!VAT_API_PATTERN.test(t)) {
      this.issues.add('INVALID_VAT_FORMAT', path, 'pattern', `${path} must match ^[A-Z]{2}[A-Z0-9]+$ (country prefix, uppercase, no spaces)`);
      return undefined;
    }
    return t;
  }

  country(path: string, v: unknown): string | undefined {
    const t = text(v);
    if (t === undefined) return undefined;
    if (!COUNTRY_CODES.has(t)) {
      this.issues.add('INVALID_ENUM', path, 'iso3166', `${path} must be an ISO 3166-1 alpha-2 country code`);
      return undefined;
    }
    return t;
  }

  address(path: string, v: unknown): Address | undefined {
    if (!isObject(v)) return undefined;
    return compact<Address>({
      line1: text(v.street) ?? text(v.line1),
      line2: text(v.streetLine2) ?? text(v.street2) ?? text(v.line2),
      line3: text(v.streetLine3) ?? text(v.line3),
      city: text(v.city),
      postalCode: text(v.postalCode) ?? text(v.zipCode),
      subdivision: text(v.region) ?? text(v.subdivision) ?? text(v.state),
      country: this.country(`${path}.country`, v.country),
    });
  }

  /** BG-6/BG-9: `contact` wins; the first of `contacts` supplies the e-mail when `contact.email` is absent. */
  contact(v: Json): Contact | undefined {
    const c = isObject(v.contact) ? v.contact : {};
    const contact = compact<Contact>({
      name: text(c.name),
      phone: text(c.phone) ?? text(c.telephone),
      email: text(c.email) ?? text(c['e-mail']),
    });
    if (!contact.email && Array.isArray(v.contacts) && v.contacts.length > 0) {
      const first: unknown = v.contacts[0];
      const email = typeof first === 'string' ? text(first) : isObject(first) ? text(first.email) ?? text(first['e-mail']) : undefined;
      if (email) contact.email = email;
    }
    return Object.keys(contact).length ? contact : undefined;
  }

  party(path: string, v: unknown, role: 'seller' | 'buyer', required: boolean): Party | undefined {
    if (!isObject(v)) {
      if (required) this.issues.add('MISSING_FIELD', path, 'required', `${path} is required`);
      return undefined;
    }
    const name = text(v.name) ?? text(v.legalName);
    if (!name && required) this.issues.add('MISSING_FIELD', `${path}.name`, 'required', `${path}.name is required`);
    const vatId = this.vat(`${path}.vatNumber`, v.vatNumber);
    const address = this.address(`${path}.address`, v.address) ?? {};
    // Rule 4: BT-40 comes from the address, else from the VAT number's country prefix.
    if (role === 'seller' && !address.country && vatId) {
      const c = countryOfVat(vatId);
      if (c && COUNTRY_CODES.has(c)) address.country = c;
    }
    const siret = text(v.siret);
    const siren = text(v.siren) ?? (siret && /^\d{14}$/.test(siret) ? siret.slice(0, 9) : undefined);
    let legalRegistration: SchemedId | undefined;
    if (isObject(v.legalRegistration) && text(v.legalRegistration.value)) {
      legalRegistration = compact({ value: text(v.legalRegistration.value)!, scheme: text(v.legalRegistration.scheme) });
    } else if (siren) legalRegistration = { value: siren, scheme: '0002' };
    else if (text(v.registrationNumber)) legalRegistration = { value: text(v.registrationNumber)! };
    const term = (seller: string, buyer: string): string => (role === 'seller' ? seller : buyer);

    let electronicAddress: SchemedId | undefined;
    const explicitEndpoint = text(v.peppolId) ?? text(v.electronicAddress);
    const parsed = explicitEndpoint ? parsePeppolId(explicitEndpoint) : undefined;
    if (parsed) electronicAddress = this.stated(term('BT-34', 'BT-49'), { value: parsed.identifier, scheme: parsed.scheme });
    else if (vatId && isValidVatNumber(vatId) && ICD_BY_VAT_PREFIX[vatId.slice(0, 2)]) {
      const [scheme, value] = splitOnce(peppolIdFromVat(vatId));
      electronicAddress = this.inferred(term('BT-34', 'BT-49'), { value, scheme });
    } else if (!vatId && siren && /^\d{9}$/.test(siren)) {
      // A French party without a VAT number (franchise) is reachable under its SIREN, like a VAT-derived FR id.
      electronicAddress = this.inferred(term('BT-34', 'BT-49'), { value: siren, scheme: '0009' });
    }
    const identifiers: SchemedId[] = [];
    if (isObject(v.identifier) && text(v.identifier.value)) identifiers.push(compact({ value: text(v.identifier.value)!, scheme: text(v.identifier.scheme) }));
    return compact<Party>({
      name: name ?? '',
      tradingName: this.stated(term('BT-28', 'BT-45'), text(v.tradingName)),
      identifiers: this.stated(term('BT-29', 'BT-46'), identifiers.length ? identifiers : undefined),
      legalRegistration: this.stated(term('BT-30', 'BT-47'), legalRegistration),
      vatId: this.stated(term('BT-31', 'BT-48'), vatId),
      additionalLegalInfo: role === 'seller' ? this.stated('BT-33', text(v.additionalLegalInfo)) : undefined,
      electronicAddress,
      address: this.stated(term('BG-5', 'BG-8'), Object.keys(address).length ? address : undefined),
      contact: this.stated(term('BG-6', 'BG-9'), this.contact(v)),
    });
  }
}

function splitOnce(id: string): [string, string] {
  const i = id.indexOf(':');
  return [id.slice(0, i), id.slice(i + 1)];
}

function resolveTemplate(doc: Json, options: JsonToCanonicalOptions): Template {
  const id = text(doc.templateId);
  if (id && options.templates?.[id]) return options.templates[id];
  return options.template ?? PEPPOL_BIS3_TEMPLATE;
}

/** Maps the spec's send envelope (`type`, `documentSubtype`, `selfBilled`, `document` …) to canonical. */
export function jsonToCanonical(envelope: unknown, options: JsonToCanonicalOptions = {}): CanonicalInvoice {
  const env: Json = isObject(envelope) ? envelope : {};
  const doc: Json = isObject(env.document) ? env.document : {};
  const template = resolveTemplate(doc, options);
  const m = new Mapper(template, options.today ?? new Date().toISOString().slice(0, 10));
  const { issues } = m;

  // --- document type, subtype, self-billing -------------------------------------------------
  const type = text(env.type);
  if (type === undefined) issues.add('MISSING_FIELD', 'type', 'required', 'type is required');
  else if (!(DOCUMENT_TYPES as readonly string[]).includes(type)) {
    issues.add('INVALID_ENUM', 'type', 'enum', `type must be one of ${DOCUMENT_TYPES.join(', ')}`);
  }
  const isBilling = type !== undefined && BILLING_TYPES[type] !== undefined;
  const subtypeRaw = env.documentSubtype;
  let typeCode: string | undefined = type ? BILLING_TYPES[type] : undefined;
  let typeCodeStated = false;
  let subtypeCode: string | undefined;
  if (subtypeRaw !== undefined && subtypeRaw !== null && subtypeRaw !== '') {
    if (type !== 'invoice') {
      issues.add('INVALID_REQUEST', 'documentSubtype', 'invoice-only', 'documentSubtype is only allowed with type=invoice');
    } else {
      const s = String(subtypeRaw).trim();
      subtypeCode = DOCUMENT_SUBTYPES[s] ?? (DOCUMENT_TYPE_CODES.has(s) ? s : undefined);
      if (!subtypeCode) {
        issues.add('INVALID_ENUM', 'documentSubtype', 'uncl1001', `documentSubtype must be ${Object.keys(DOCUMENT_SUBTYPES).join(', ')} or a UNCL1001 code`);
      } else {
        typeCode = subtypeCode;
        typeCodeStated = true;
      }
    }
  }
  if (env.selfBilled !== undefined && typeof env.selfBilled !== 'boolean') {
    issues.add('INVALID_REQUEST', 'selfBilled', 'boolean', 'selfBilled must be a boolean');
  }
  // selfBilled tags 389 and swaps the roles; SELF_BILLED_INVOICE only tags.
  const swapRoles = env.selfBilled === true && type === 'invoice';
  if (swapRoles) {
    typeCode = '389';
    typeCodeStated = true;
  }

  if (!isObject(env.document)) issues.add('MISSING_FIELD', 'document', 'required', 'document is required');

  // --- header -------------------------------------------------------------------------------
  const number = text(doc.number);
  if (!number) {
    issues.add('MISSING_FIELD', 'document.number', 'required', 'document.number is required (the field is `number`, not `invoiceNumber`)');
  }
  const issueDate = m.date('document.issueDate', doc.issueDate) ?? m.today;
  const dueDate = m.date('document.dueDate', doc.dueDate);
  let currency = text(doc.currency);
  if (currency !== undefined && !CURRENCY_CODES.has(currency)) {
    issues.add('INVALID_CURRENCY', 'document.currency', 'iso4217', 'document.currency must be an ISO 4217 code');
    currency = undefined;
  }
  const exchangeRate = m.decimal('document.exchangeRate', doc.exchangeRate);
  if (exchangeRate !== undefined && !new Dec(exchangeRate).gt(0)) {
    issues.add('INVALID_REQUEST', 'document.exchangeRate', 'positive', 'document.exchangeRate must be positive');
  }
  const billingReference = text(doc.billingReference);
  const billingReferenceDate = m.date('document.billingReferenceDate', doc.billingReferenceDate);
  if (typeCode === '384' && !billingReference) {
    issues.add('MISSING_FIELD', 'document.billingReference', 'corrected-invoice', 'a CORRECTED_INVOICE (384) must reference the original invoice in document.billingReference');
  }
  if (template.frenchReform && (type === 'credit-note' || type === 'debit-note')) {
    if (!billingReference) issues.add('MISSING_FIELD', 'document.billingReference', 'BR-FR-CO-04', `a ${type} needs document.billingReference`);
    if (!billingReferenceDate) issues.add('MISSING_FIELD', 'document.billingReferenceDate', 'BR-FR-CO-05', `a ${type} needs document.billingReferenceDate`);
  }

  // --- parties ------------------------------------------------------------------------------
  let sellerJson: unknown = doc.seller;
  let buyerJson: unknown = doc.buyer;
  const extraParties: ExtraParty[] = [];
  let payeeJson: Json | undefined;
  if (doc.parties !== undefined) {
    if (!Array.isArray(doc.parties)) issues.add('INVALID_REQUEST', 'document.parties', 'array', 'document.parties must be an array');
    else {
      doc.parties.forEach((p: unknown, i: number) => {
        const path = `document.parties[${i}]`;
        if (!isObject(p)) return issues.add('INVALID_REQUEST', path, 'object', `${path} must be an object`);
        const role = text(p.role);
        if (!role || !['seller', 'buyer', 'payee', 'payer'].includes(role)) {
          return issues.add('INVALID_ENUM', `${path}.role`, 'enum', `${path}.role must be seller, buyer, payee or payer`);
        }
        // An entry overrides the same-role object field by field (the list is the more precise source).
        const overlay = (base: unknown): Json => ({ ...(isObject(base) ? base : {}), ...definedOf(p, ['name', 'vatNumber', 'address', 'contact', 'contacts']), ...(text(p.id) && parsePeppolId(text(p.id)!) ? { peppolId: text(p.id) } : {}) });
        if (role === 'seller') sellerJson = overlay(sellerJson);
        else if (role === 'buyer') buyerJson = overlay(buyerJson);
        else if (role === 'payee') payeeJson = p;
        // Seller/buyer VAT numbers are checked once, on the party they override.
        const vatId = role === 'seller' || role === 'buyer' ? text(p.vatNumber) : m.vat(`${path}.vatNumber`, p.vatNumber);
        extraParties.push(compact<ExtraParty>({ role, id: text(p.id), name: text(p.name), vatId, initiator: typeof p.initiator === 'boolean' ? p.initiator : undefined }));
      });
    }
  }
  const requireParties = isBilling;
  // Self-billing: the caller (stated as seller) is the buyer who issues the invoice for its supplier.
  const sellerSource = swapRoles ? buyerJson : sellerJson;
  const seller = swapRoles ? m.party('document.buyer', buyerJson, 'seller', requireParties) : m.party('document.seller', sellerJson, 'seller', requireParties);
  const buyer = swapRoles ? m.party('document.seller', sellerJson, 'buyer', requireParties) : m.party('document.buyer', buyerJson, 'buyer', requireParties);
  // The envelope's Peppol ids are the parties' electronic addresses (BT-34/BT-49) unless the party
  // states its own: `to` is the counterpart (the supplier when self-billing), `from` the caller.
  const toId = typeof env.to === 'string' ? parsePeppolId(env.to) : undefined;
  const fromId = typeof env.from === 'string' ? parsePeppolId(env.from) : undefined;
  const counterpart = swapRoles ? seller : buyer;
  const caller = swapRoles ? buyer : seller;
  const statesEndpoint = (j: unknown): boolean => isObject(j) && (text(j.peppolId) !== undefined || text(j.electronicAddress) !== undefined);
  if (toId && counterpart && !statesEndpoint(swapRoles ? sellerJson : buyerJson)) {
    const ea = m.stated(swapRoles ? 'BT-34' : 'BT-49', { value: toId.identifier, scheme: toId.scheme });
    if (ea) counterpart.electronicAddress = ea;
  }
  if (fromId && caller && !statesEndpoint(swapRoles ? buyerJson : sellerJson)) {
    const ea = m.stated(swapRoles ? 'BT-49' : 'BT-34', { value: fromId.identifier, scheme: fromId.scheme });
    if (ea) caller.electronicAddress = ea;
  }

  // --- lines --------------------------------------------------------------------------------
  const linesJson: unknown[] = Array.isArray(doc.lines) ? doc.lines : [];
  if (doc.lines !== undefined && !Array.isArray(doc.lines)) issues.add('INVALID_REQUEST', 'document.lines', 'array', 'document.lines must be an array');
  if (isBilling && linesJson.length === 0) issues.add('MISSING_FIELD', 'document.lines', 'BR-16', 'an invoice needs at least one line');
  const docDespatch = text(doc.despatchAdviceReference);
  const lines: Line[] = [];
  // Custom fields attach to the caller's own party: the buyer once self-billing swapped the roles.
  const callerRole: 'seller' | 'buyer' = swapRoles ? 'buyer' : 'seller';
  linesJson.forEach((raw, i) => {
    const line = mapLine(m, raw, i, docDespatch, callerRole);
    if (line) lines.push(line);
  });

  // Rule (a): French franchise en base — category E with VATEX-FR-FRANCHISE; BT-32 carries the SIREN
  // when the seller has no VAT number.
  const franchise = lines.some((l) => l.vat.exemptionCode === 'VATEX-FR-FRANCHISE');
  if (franchise && seller && !seller.vatId) {
    const sj = isObject(sellerSource) ? sellerSource : {};
    const siren = text(sj.siren) ?? (text(sj.siret)?.slice(0, 9)) ?? (seller.legalRegistration?.scheme === '0002' ? seller.legalRegistration.value : undefined);
    const sirenPath = `${swapRoles ? 'document.buyer' : 'document.seller'}.siren`;
    if (!siren) {
      issues.add('MISSING_FIELD', sirenPath, 'BR-FR-CO-16', 'a French franchise seller without a VAT number needs its SIREN (BT-32)');
    } else if (!/^\d{9}$/.test(siren)) {
      issues.add('INVALID_REQUEST', sirenPath, 'siren', 'SIREN must be 9 digits');
    } else if (hasSlot(template, 'BT-32')) seller.taxRegistrationId = siren;
  }

  // BR-IC-12: an intra-community supply names the deliver-to country.
  const delivery = isObject(doc.delivery) ? doc.delivery : undefined;
  const location = delivery && isObject(delivery.deliveryLocation) ? delivery.deliveryLocation : undefined;
  if (lines.some((l) => l.vat.category === 'K') && !text(location?.country)) {
    issues.add('MISSING_FIELD', 'document.delivery.deliveryLocation.country', 'BR-IC-12', 'an intra-community supply (category K) needs document.delivery.deliveryLocation.country');
  }

  const vatBreakdown = buildBreakdown(m, lines);
  const totals = buildTotals(m, doc, lines, vatBreakdown);

  // --- currency: non-EUR documents also report the VAT total in EUR (BT-6, BT-111) -----------
  const docCurrency = currency ?? 'EUR';
  let vatAccountingCurrency: string | undefined;
  if (docCurrency !== 'EUR' && exchangeRate === undefined && template.frenchReform) {
    issues.add('MISSING_FIELD', 'document.exchangeRate', 'BR-FR-CO-12', 'a non-EUR invoice must also report its VAT in EUR: document.exchangeRate is required');
  }
  if (docCurrency !== 'EUR' && exchangeRate !== undefined && totals.vatTotal !== undefined && new Dec(exchangeRate).gt(0)) {
    vatAccountingCurrency = m.stated('BT-6', 'EUR');
    if (vatAccountingCurrency) totals.vatTotalAccountingCurrency = m.stated('BT-111', money(new Dec(totals.vatTotal).times(exchangeRate)));
  }

  // --- notes; rule (b): reform flows drop BT-120/121, so the wording also travels as a note ---
  const notes: Array<{ text: string }> = [];
  if (Array.isArray(doc.note)) doc.note.forEach((n) => text(n) && notes.push({ text: text(n)! }));
  else if (text(doc.note)) notes.push({ text: text(doc.note)! });
  if (template.frenchReform) {
    const wordings = new Set<string>();
    for (const l of lines) if (l.vat.exemptionReason) wordings.add(l.vat.exemptionReason);
    for (const w of wordings) if (!notes.some((n) => n.text.includes(w))) notes.push({ text: w });
    vatBreakdown.forEach((b, i) => { vatBreakdown[i] = compact({ ...b, exemptionReason: undefined, exemptionCode: undefined }); });
    for (const l of lines) l.vat = compact({ category: l.vat.category, rate: l.vat.rate });
  }

  // --- payment ------------------------------------------------------------------------------
  const payment = isObject(doc.payment) ? doc.payment : undefined;
  let paymentInstructions: PaymentInstructions | undefined;
  if (payment) {
    const means = text(payment.means);
    let meansCode: string | undefined;
    if (means !== undefined) {
      meansCode = PAYMENT_MEANS_NAMES[means] ?? (PAYMENT_MEANS_CODES.has(means) ? means : undefined);
      if (!meansCode) issues.add('INVALID_ENUM', 'document.payment.means', 'enum', `document.payment.means must be one of ${Object.keys(PAYMENT_MEANS_NAMES).join(', ')} or a UNCL4461 code`);
    }
    const ibanRaw = text(payment.iban);
    let iban: string | undefined;
    if (ibanRaw !== undefined) {
      if (!isValidIban(ibanRaw)) issues.add('INVALID_IBAN', 'document.payment.iban', 'mod-97', 'document.payment.iban fails the IBAN checksum (mod-97)');
      else iban = normaliseIban(ibanRaw);
    }
    const code = meansCode ?? m.inferred('BT-81', iban ? '30' : '1');
    if (code) {
      paymentInstructions = compact<PaymentInstructions>({
        meansCode: code,
        remittanceInformation: m.stated('BT-83', text(payment.reference)),
        creditTransfers: iban && hasSlot(template, 'BG-17')
          ? [compact({ accountId: iban, accountName: m.stated('BT-85', text(payment.accountName)), serviceProviderId: m.stated('BT-86', text(payment.bic)) })]
          : undefined,
      });
    }
  }

  // --- delivery -----------------------------------------------------------------------------
  let deliveryOut: CanonicalInvoice['delivery'];
  if (delivery) {
    const actual = m.date('document.delivery.actualDeliveryDate', delivery.actualDeliveryDate);
    const address = location ? m.address('document.delivery.deliveryLocation', location) : undefined;
    deliveryOut = compact({
      actualDeliveryDate: m.stated('BT-72', actual),
      address: m.stated('BG-15', address),
      partyName: m.stated('BT-70', text(delivery.partyName)),
    });
    if (Object.keys(deliveryOut).length === 0) deliveryOut = undefined;
  }

  // --- incoterms (EXT-FR-FE-185/186) ----------------------------------------------------------
  const incoterms = text(doc.incoterms);
  const incotermsLocation = text(doc.incotermsLocation);
  let incotermsOut: { code: string; location?: string } | undefined;
  if (incoterms !== undefined && !INCOTERMS.has(incoterms)) {
    issues.add('INVALID_ENUM', 'document.incoterms', 'enum', `document.incoterms must be one of ${[...INCOTERMS].join(', ')}`);
  } else if (incoterms === undefined && incotermsLocation !== undefined) {
    issues.add('MISSING_FIELD', 'document.incoterms', 'required-with-location', 'document.incoterms is required when incotermsLocation is given');
  } else if (incoterms !== undefined && hasSlot(template, 'EXT-FR-FE-185')) {
    incotermsOut = compact({ code: incoterms, location: m.stated('EXT-FR-FE-186', incotermsLocation) });
  }

  // --- custom fields ------------------------------------------------------------------------
  const docCustom = mapCustomFields(m, 'document.customFields', doc.customFields);

  const payee = payeeJson && text(payeeJson.name) && hasSlot(template, 'BG-10')
    ? compact({ name: text(payeeJson.name)!, identifier: text(payeeJson.id) ? { value: text(payeeJson.id)! } : undefined })
    : undefined;

  issues.throwIfAny();

  const kind = type === 'credit-note' || (typeCode !== undefined && CREDIT_NOTE_TYPE_CODES.has(typeCode)) ? 'credit-note' : 'invoice';
  const canonical: CanonicalInvoice = compact<CanonicalInvoice>({
    kind,
    customizationId: template.customizationId,
    profileId: template.profileId,
    number: number!,
    issueDate,
    typeCode: typeCodeStated ? m.stated('BT-3', typeCode) : m.inferred('BT-3', typeCode),
    currency: docCurrency,
    vatAccountingCurrency,
    dueDate: m.stated('BT-9', dueDate),
    buyerReference: m.stated('BT-10', text(doc.buyerReference)),
    projectReference: m.stated('BT-11', text(doc.projectReference)),
    contractReference: m.stated('BT-12', text(doc.contractReference)),
    orderReference: m.stated('BT-13', text(doc.orderReference)),
    despatchAdviceReference: m.stated('BT-16', docDespatch),
    paymentTerms: m.stated('BT-20', text(doc.paymentTerms)),
    notes: m.stated('BG-1', notes.length ? notes : undefined),
    precedingInvoices: billingReference && hasSlot(template, 'BG-3')
      ? [compact({ number: billingReference, issueDate: m.stated('BT-26', billingReferenceDate) })]
      : undefined,
    seller: seller ?? { name: '' },
    buyer: buyer ?? { name: '' },
    payee,
    delivery: m.stated('BG-13', deliveryOut),
    paymentInstructions: m.stated('BG-16', paymentInstructions),
    totals,
    vatBreakdown,
    lines,
    extensions: compact({
      documentType: type,
      selfBilled: swapRoles || undefined,
      incoterms: incotermsOut,
      exchangeRate: docCurrency !== 'EUR' ? exchangeRate : undefined,
      customFields: docCustom.length ? { party: callerRole, template: text(doc.templateId), values: docCustom } : undefined,
      parties: extraParties.length ? extraParties : undefined,
      discountTerms: payment?.discountTerms,
      shippingAddresses: compact({
        seller: isObject(doc.seller) ? doc.seller.shippingAddress : undefined,
        buyer: isObject(doc.buyer) ? doc.buyer.shippingAddress : undefined,
      }),
    }),
  });
  // Keep the required arrays even when empty (compact drops empty arrays).
  canonical.lines = lines;
  canonical.vatBreakdown = vatBreakdown;
  canonical.totals = totals;
  return canonical;
}

function definedOf(o: Json, keys: string[]): Json {
  const out: Json = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

function mapLine(m: Mapper, raw: unknown, i: number, docDespatch: string | undefined, callerRole: 'seller' | 'buyer'): Line | undefined {
  const { issues } = m;
  const path = `document.lines[${i}]`;
  if (!isObject(raw)) {
    issues.add('INVALID_REQUEST', path, 'object', `${path} must be an object`);
    return undefined;
  }
  const name = text(raw.description) ?? text(raw.name);
  if (!name) issues.add('MISSING_FIELD', `${path}.description`, 'required', `${path}.description is required (item name, BT-153)`);
  const quantity = m.decimal(`${path}.quantity`, raw.quantity) ?? '1';
  const unit = text(raw.unit) ?? 'C62';
  const statedNet = m.decimal(`${path}.netAmount`, raw.netAmount);
  let unitPrice = m.decimal(`${path}.unitPrice`, raw.unitPrice);
  const baseQuantity = m.decimal(`${path}.priceBaseQuantity`, raw.priceBaseQuantity);
  if (baseQuantity !== undefined && !new Dec(baseQuantity).gt(0)) {
    issues.add('INVALID_REQUEST', `${path}.priceBaseQuantity`, 'positive', `${path}.priceBaseQuantity must be positive`);
  }
  if (unitPrice === undefined && statedNet === undefined) {
    issues.add('MISSING_FIELD', `${path}.unitPrice`, 'required', `${path}.unitPrice is required unless netAmount is given`);
  }
  // Rule 1: a stated netAmount is the line total verbatim; otherwise quantity × unit price
  // (per price base quantity, BT-149).
  let netAmount: string;
  if (statedNet !== undefined) netAmount = statedNet;
  else if (unitPrice !== undefined) {
    const perUnit = baseQuantity && new Dec(baseQuantity).gt(0) ? new Dec(unitPrice).div(baseQuantity) : new Dec(unitPrice);
    netAmount = money(perUnit.times(quantity));
  } else netAmount = '0.00';
  if (unitPrice === undefined && statedNet !== undefined) {
    // BT-146 is mandatory: derive the price from the stated total.
    const q = new Dec(quantity);
    unitPrice = q.isZero() ? statedNet : new Dec(statedNet).div(q).toDecimalPlaces(6).toFixed();
  }

  // VAT category and rate (BT-151, BT-152).
  const rate = m.decimal(`${path}.vatRate`, raw.vatRate);
  if (rate !== undefined && (new Dec(rate).lt(0) || new Dec(rate).gt(100))) {
    issues.add('INVALID_REQUEST', `${path}.vatRate`, 'range', `${path}.vatRate must be between 0 and 100`);
  }
  const reason = text(raw.vatExemptionReason);
  const code = text(raw.vatExemptionCode);
  if (code !== undefined && !/^VATEX-[A-Z]{2}-[A-Z0-9-]+$/.test(code)) {
    issues.add('INVALID_ENUM', `${path}.vatExemptionCode`, 'vatex', `${path}.vatExemptionCode must be a VATEX code`);
  }
  let category = text(raw.vatCategory);
  if (category !== undefined && !(VAT_CATEGORIES as readonly string[]).includes(category)) {
    issues.add('INVALID_ENUM', `${path}.vatCategory`, 'uncl5305', `${path}.vatCategory must be one of ${VAT_CATEGORIES.join(', ')}`);
    category = undefined;
  }
  if (code === 'VATEX-FR-FRANCHISE') category = 'E'; // rule (a): the franchise is exempt, BT-118 = E
  if (category === undefined) category = rate !== undefined && new Dec(rate).gt(0) ? 'S' : reason || code ? 'E' : 'Z';
  let vatRate = rate;
  if (EXEMPT_CATEGORIES.has(category)) {
    if (rate !== undefined && !new Dec(rate).isZero()) {
      issues.add('INVALID_REQUEST', `${path}.vatRate`, `BR-${category}-05`, `category ${category} carries vatRate 0`);
    }
    if (!reason && !code) {
      issues.add('MISSING_FIELD', `${path}.vatExemptionReason`, `BR-${category}-10`, `category ${category} needs vatExemptionReason and/or vatExemptionCode`);
    }
    // 'Not subject to VAT' has no rate at all (BR-O-05/BR-O-09): the API's 0 means "none" there.
    vatRate = category === 'O' ? undefined : '0';
  } else if (vatRate === undefined) {
    if (category === 'S') issues.add('MISSING_FIELD', `${path}.vatRate`, 'BR-S-05', 'category S needs a vatRate above 0');
    else vatRate = '0';
  }

  // BR-CO-24 (API): an object identifier needs its scheme.
  const objectId = text(raw.objectIdentifier);
  const objectScheme = text(raw.objectIdentifierScheme);
  if (objectId && !objectScheme) {
    issues.add('MISSING_FIELD', `${path}.objectIdentifierScheme`, 'BR-CO-24', `${path}.objectIdentifierScheme is required with objectIdentifier`);
  }

  const period = isObject(raw.period) ? compact({ start: m.date(`${path}.period.start`, raw.period.start ?? raw.period.startDate), end: m.date(`${path}.period.end`, raw.period.end ?? raw.period.endDate) }) : undefined;
  const lineDespatch = text(raw.despatchAdviceReference) ?? docDespatch;
  const lineCustom = mapCustomFields(m, `${path}.customFields`, raw.customFields);
  const baseUnit = text(raw.priceBaseUnit);

  return compact<Line>({
    id: text(raw.id) !== undefined ? m.stated('BT-126', text(raw.id)) : m.inferred('BT-126', String(i + 1)),
    note: m.stated('BT-127', text(raw.note)),
    objectIdentifier: objectId && objectScheme ? m.stated('BT-128', { value: objectId, scheme: objectScheme }) : undefined,
    quantity,
    unit,
    netAmount,
    orderLineReference: m.stated('BT-132', text(raw.orderLineReference)),
    accountingCost: m.stated('BT-133', text(raw.accountingCost)),
    period: period && Object.keys(period).length ? m.stated('BG-26', period) : undefined,
    price: compact({
      netPrice: unitPrice ?? '0',
      baseQuantity: m.stated('BT-149', baseQuantity),
      baseUnit: baseQuantity !== undefined || baseUnit ? m.stated('BT-150', baseUnit) : undefined,
    }),
    vat: compact({ category, rate: vatRate, exemptionReason: reason, exemptionCode: code }),
    item: compact({
      name: name ?? '',
      description: m.stated('BT-154', text(raw.itemDescription)),
      sellerId: m.stated('BT-155', text(raw.itemCode)),
      buyerId: m.stated('BT-156', text(raw.buyerItemCode)),
    }),
    despatchAdviceReference: m.stated('EXT-FR-FE-140', lineDespatch),
    despatchAdviceLineReference: m.stated('EXT-FR-FE-141', text(raw.despatchAdviceLineReference)),
    customFields: lineCustom.length ? { party: callerRole, values: lineCustom } : undefined,
  });
}

/**
 * Rule 2 and rules (c)/(d): VAT summed per (category, rate) bucket; the exemption reason and code
 * are lifted to the bucket and repeated on each of its lines.
 */
function buildBreakdown(m: Mapper, lines: Line[]): VatBreakdown[] {
  if (!isRequired(m.template, 'BG-23') && !isRequired(m.template, 'BT-118')) return [];
  // (d) any standard-rated line collapses the breakdown to S and suppresses BT-120/121: the exempt
  // lines' buckets become S buckets (zero-rated Z lines are not exempt and keep their own bucket).
  const collapseToS = lines.some((l) => l.vat.category === 'S');
  // (c) one exemption reason text per document: two different texts emit none.
  const reasons = new Set(lines.filter((l) => EXEMPT_CATEGORIES.has(l.vat.category) && l.vat.exemptionReason).map((l) => l.vat.exemptionReason));
  const oneReasonPerDocument = reasons.size <= 1;

  const buckets = new Map<string, { category: string; rate: string; lines: Line[] }>();
  for (const l of lines) {
    const category = collapseToS && EXEMPT_CATEGORIES.has(l.vat.category) ? 'S' : l.vat.category;
    const rate = new Dec(l.vat.rate ?? '0').toFixed();
    const key = `${category}|${rate}`;
    let b = buckets.get(key);
    if (!b) buckets.set(key, (b = { category, rate, lines: [] }));
    b.lines.push(l);
  }
  const out: VatBreakdown[] = [];
  for (const b of buckets.values()) {
    const taxable = sum(b.lines.map((l) => l.netAmount));
    const entry: VatBreakdown = {
      taxableAmount: money(taxable),
      taxAmount: money(taxable.times(b.rate).div(100)),
      category: b.category,
      rate: b.category === 'O' ? undefined : b.rate,
    };
    if (!collapseToS && EXEMPT_CATEGORIES.has(b.category)) {
      const texts = new Set(b.lines.map((l) => l.vat.exemptionReason).filter(Boolean));
      const codes = new Set(b.lines.map((l) => l.vat.exemptionCode).filter(Boolean));
      const reason = oneReasonPerDocument && texts.size === 1 ? [...texts][0] : undefined;
      const code = codes.size === 1 ? [...codes][0] : undefined;
      if (reason) entry.exemptionReason = m.stated('BT-120', reason);
      if (code) entry.exemptionCode = m.stated('BT-121', code);
      // Repeated on each line: the line view shows what its bucket carries.
      for (const l of b.lines) l.vat = compact({ category: l.vat.category, rate: l.vat.rate, exemptionReason: entry.exemptionReason, exemptionCode: entry.exemptionCode });
    } else {
      for (const l of b.lines) {
        if (l.vat.exemptionReason !== undefined || l.vat.exemptionCode !== undefined) l.vat = compact({ category: l.vat.category, rate: l.vat.rate });
      }
    }
    if (!isRequired(m.template, 'BT-118')) {
      // BT-118 is inferred; without a required slot the bucket cannot be written.
      continue;
    }
    out.push(compact(entry));
  }
  return out;
}

/** Alias names accepted in `document.totals` for each total. */
const TOTAL_ALIASES = {
  net: ['net', 'netAmount', 'totalNet', 'taxExclusiveAmount', 'totalExclVat'],
  vat: ['vat', 'vatAmount', 'taxAmount', 'totalVat'],
  gross: ['gross', 'grossAmount', 'total', 'taxInclusiveAmount', 'totalInclVat'],
  prepaid: ['prepaid', 'prepaidAmount', 'paidAmount'],
  payable: ['payable', 'payableAmount', 'amountDue', 'dueAmount'],
} as const;

/** Rule 2: totals summed from lines; given totals override the sums. */
function buildTotals(m: Mapper, doc: Json, lines: Line[], breakdown: VatBreakdown[]): Totals {
  const given = isObject(doc.totals) ? doc.totals : {};
  const pick = (names: readonly string[]): string | undefined => {
    for (const n of names) if (given[n] !== undefined) return m.decimal(`document.totals.${n}`, given[n]);
    return undefined;
  };
  const gNet = pick(TOTAL_ALIASES.net);
  const gVat = pick(TOTAL_ALIASES.vat);
  const gGross = pick(TOTAL_ALIASES.gross);
  const gPrepaid = pick(TOTAL_ALIASES.prepaid);
  const gPayable = pick(TOTAL_ALIASES.payable);

  const lineSum = sum(lines.map((l) => l.netAmount));
  const vatSum = sum(breakdown.map((b) => b.taxAmount));
  if (gVat !== undefined && breakdown.length === 1 && breakdown[0]) breakdown[0].taxAmount = money(gVat);

  const net = gNet !== undefined ? money(gNet) : money(lineSum);
  const vat = gVat !== undefined ? money(gVat) : money(vatSum);
  const gross = gGross !== undefined ? money(gGross) : money(new Dec(net).plus(vat));
  const prepaid = gPrepaid !== undefined ? money(gPrepaid) : undefined;
  const payable = gPayable !== undefined ? money(gPayable) : money(new Dec(gross).minus(prepaid ?? '0'));

  const pickUse = (term: string, stated: boolean, value: string): string | undefined => (stated ? m.stated(term, value) : m.inferred(term, value));
  return compact<Totals>({
    lineNetTotal: pickUse('BT-106', gNet !== undefined, net),
    taxExclusive: pickUse('BT-109', gNet !== undefined, net),
    vatTotal: pickUse('BT-110', gVat !== undefined, vat),
    taxInclusive: pickUse('BT-112', gGross !== undefined, gross),
    prepaid: prepaid !== undefined ? m.stated('BT-113', prepaid) : undefined,
    payable: pickUse('BT-115', gPayable !== undefined, payable),
  });
}

function mapCustomFields(m: Mapper, path: string, raw: unknown): CustomField[] {
  if (raw === undefined || raw === null) return [];
  if (!isObject(raw)) {
    m.issues.add('INVALID_REQUEST', path, 'object', `${path} must be an object keyed by field name or definition UUID`);
    return [];
  }
  const defs: readonly CustomFieldDefinition[] = m.template.customFields ?? [];
  const out: CustomField[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const fieldPath = `${path}.${key}`;
    const def = defs.find((d) => d.id.toLowerCase() === key.toLowerCase()) ?? defs.find((d) => d.name === key);
    if (!def && !UUID_RE.test(key)) {
      m.issues.add('INVALID_REQUEST', fieldPath, 'custom-field-declared', `custom field "${key}" matches no field declared by the template`);
      continue;
    }
    const shaped = customValue(m, fieldPath, def?.type, value);
    if (shaped === undefined) continue;
    out.push(compact<CustomField>({ key, definitionId: def?.id ?? key, type: def?.type, value: shaped }));
  }
  return out;
}

function customValue(m: Mapper, path: string, type: CustomFieldDefinition['type'] | undefined, v: unknown): CustomFieldValue | undefined {
  const bad = (what: string): undefined => {
    m.issues.add('INVALID_REQUEST', path, 'custom-field-shape', `${path} must be ${what}`);
    return undefined;
  };
  const isMoney = isObject(v) && 'amount' in v && 'currency' in v;
  const isAddress = isObject(v) && !isMoney && ['street', 'street2', 'city', 'zipCode', 'country'].some((k) => k in v);
  if (type === 'monetary' || (type === undefined && isMoney)) {
    if (!isMoney) return bad('{currency, amount}');
    const currency = text(v.currency);
    const amount = toDecimalText(v.amount);
    if (!currency || !CURRENCY_CODES.has(currency)) {
      m.issues.add('INVALID_CURRENCY', `${path}.currency`, 'iso4217', `${path}.currency must be an ISO 4217 code`);
      return undefined;
    }
    if (amount === undefined) return bad('{currency, amount} with a numeric amount');
    return { currency, amount };
  }
  if (type === 'address' || (type === undefined && isAddress)) {
    if (!isAddress) return bad('an address {street, street2, city, zipCode, country}');
    const extra = Object.keys(v).filter((k) => !['street', 'street2', 'city', 'zipCode', 'country'].includes(k));
    if (extra.length) return bad(`an address object (unknown key ${extra[0]})`);
    return compact({ street: text(v.street), street2: text(v.street2), city: text(v.city), zipCode: text(v.zipCode), country: text(v.country) });
  }
  if (typeof v !== 'string') return bad('a string');
  if (type === 'date' && !DATE_RE.test(v)) {
    m.issues.add('INVALID_DATE', path, 'iso8601', `${path} must be an ISO 8601 date`);
    return undefined;
  }
  if (type === 'number' && toDecimalText(v) === undefined) return bad('a numeric string');
  return v;
}
