/**
 * Canonical EN 16931 semantic model (the "CEN core invoice"). Every translator reads into and
 * writes from this shape. Field names are readable; the business term (BT) or group (BG) each one
 * carries is named in its TSDoc.
 *
 * Money, quantities, prices and rates are kept as decimal strings ({@link Decimal}) exactly as they
 * were stated or computed with decimal.js: binary floating point never touches an amount, and a
 * parsed document re-renders with the caller's own digits.
 */

/** A decimal number written in plain notation, e.g. `"1250.00"`, `"-3.5"`, `"0.125"`. */
export type Decimal = string;
/** A calendar date `YYYY-MM-DD`. */
export type IsoDate = string;

/** An identifier with an optional scheme (ISO 6523 ICD, EAS, or a free scheme). */
export interface SchemedId {
  value: string;
  scheme?: string;
}

/** BG-5 / BG-8 / BG-12 / BG-15 postal address. */
export interface Address {
  /** BT-35 / BT-50 / BT-64 / BT-75 address line 1. */
  line1?: string;
  /** BT-36 / BT-51 / BT-65 / BT-76 address line 2. */
  line2?: string;
  /** BT-162 / BT-163 / BT-164 / BT-165 address line 3. */
  line3?: string;
  /** BT-37 / BT-52 / BT-66 / BT-77 city. */
  city?: string;
  /** BT-38 / BT-53 / BT-67 / BT-78 post code. */
  postalCode?: string;
  /** BT-39 / BT-54 / BT-68 / BT-79 country subdivision. */
  subdivision?: string;
  /** BT-40 / BT-55 / BT-69 / BT-80 country code (ISO 3166-1 alpha-2). */
  country?: string;
}

/** BG-6 / BG-9 contact. */
export interface Contact {
  /** BT-41 / BT-56 contact point. */
  name?: string;
  /** BT-42 / BT-57 telephone. */
  phone?: string;
  /** BT-43 / BT-58 e-mail address. */
  email?: string;
}

/** BG-4 seller or BG-7 buyer. */
export interface Party {
  /** BT-27 seller name / BT-44 buyer name. */
  name: string;
  /** BT-28 / BT-45 trading name. */
  tradingName?: string;
  /** BT-29 / BT-46 party identifiers (BT-90 bank creditor id travels here with scheme `SEPA`). */
  identifiers?: SchemedId[];
  /** BT-30 / BT-47 legal registration identifier (e.g. SIREN with scheme 0002). */
  legalRegistration?: SchemedId;
  /** BT-31 / BT-48 VAT identifier, with its country prefix. */
  vatId?: string;
  /** BT-32 seller tax registration identifier (local tax id, e.g. the SIREN of a French franchise seller). */
  taxRegistrationId?: string;
  /** BT-33 seller additional legal information. */
  additionalLegalInfo?: string;
  /** BT-34 / BT-49 electronic address, scheme from the EAS list (BT-34-1 / BT-49-1). */
  electronicAddress?: SchemedId;
  /** BG-5 / BG-8 postal address. */
  address?: Address;
  /** BG-6 / BG-9 contact. */
  contact?: Contact;
}

/** BG-10 payee. */
export interface Payee {
  /** BT-59 payee name. */
  name: string;
  /** BT-60 payee identifier. */
  identifier?: SchemedId;
  /** BT-61 payee legal registration identifier. */
  legalRegistration?: SchemedId;
}

/** BG-11 seller tax representative. */
export interface TaxRepresentative {
  /** BT-62 name. */
  name: string;
  /** BT-63 VAT identifier. */
  vatId: string;
  /** BG-12 postal address. */
  address: Address;
}

/** BG-13 delivery information. */
export interface Delivery {
  /** BT-70 deliver-to party name. */
  partyName?: string;
  /** BT-71 deliver-to location identifier. */
  locationId?: SchemedId;
  /** BT-72 actual delivery date. */
  actualDeliveryDate?: IsoDate;
  /** BG-15 deliver-to address (BT-80 is its country). */
  address?: Address;
}

/** BG-14 invoicing period, BG-26 line period. */
export interface Period {
  /** BT-73 / BT-134 start date. */
  start?: IsoDate;
  /** BT-74 / BT-135 end date. */
  end?: IsoDate;
  /** BT-8 value added tax point date code (document level only). */
  descriptionCode?: string;
}

/** BG-17 credit transfer. */
export interface CreditTransfer {
  /** BT-84 payment account identifier (IBAN). */
  accountId: string;
  /** BT-85 payment account name. */
  accountName?: string;
  /** BT-86 payment service provider identifier (BIC). */
  serviceProviderId?: string;
}

/** BG-16 payment instructions. */
export interface PaymentInstructions {
  /** BT-81 payment means type code (UNCL4461). */
  meansCode: string;
  /** BT-82 payment means text. */
  meansText?: string;
  /** BT-83 remittance information. */
  remittanceInformation?: string;
  /** BG-17 credit transfers. */
  creditTransfers?: CreditTransfer[];
  /** BG-18 payment card: BT-87 primary account number (masked), BT-88 holder name. */
  card?: { accountNumber: string; network?: string; holderName?: string };
  /** BG-19 direct debit: BT-89 mandate reference, BT-91 debited account. (BT-90 is a seller identifier.) */
  directDebit?: { mandateReference?: string; debitedAccountId?: string };
}

/** BG-20 / BG-21 document level allowance or charge, BG-27 / BG-28 line level. */
export interface AllowanceCharge {
  /** true for a charge (BG-21/BG-28), false for an allowance (BG-20/BG-27). */
  isCharge: boolean;
  /** BT-92 / BT-99 / BT-136 / BT-141 amount. */
  amount: Decimal;
  /** BT-93 / BT-100 / BT-137 / BT-142 base amount. */
  baseAmount?: Decimal;
  /** BT-94 / BT-101 / BT-138 / BT-143 percentage. */
  percentage?: Decimal;
  /** BT-95 / BT-102 VAT category code (document level only). */
  vatCategory?: string;
  /** BT-96 / BT-103 VAT rate (document level only). */
  vatRate?: Decimal;
  /** BT-97 / BT-104 / BT-139 / BT-144 reason. */
  reason?: string;
  /** BT-98 / BT-105 / BT-140 / BT-145 reason code. */
  reasonCode?: string;
}

/** BG-22 document totals. */
export interface Totals {
  /** BT-106 sum of invoice line net amounts. */
  lineNetTotal?: Decimal;
  /** BT-107 sum of allowances on document level. */
  allowanceTotal?: Decimal;
  /** BT-108 sum of charges on document level. */
  chargeTotal?: Decimal;
  /** BT-109 invoice total amount without VAT. */
  taxExclusive?: Decimal;
  /** BT-110 invoice total VAT amount. */
  vatTotal?: Decimal;
  /** BT-111 invoice total VAT amount in accounting currency (BT-6). */
  vatTotalAccountingCurrency?: Decimal;
  /** BT-112 invoice total amount with VAT. */
  taxInclusive?: Decimal;
  /** BT-113 paid amount. */
  prepaid?: Decimal;
  /** BT-114 rounding amount. */
  rounding?: Decimal;
  /** BT-115 amount due for payment. */
  payable?: Decimal;
}

/** BG-23 VAT breakdown (one entry per category and rate). */
export interface VatBreakdown {
  /** BT-116 VAT category taxable amount. */
  taxableAmount: Decimal;
  /** BT-117 VAT category tax amount. */
  taxAmount: Decimal;
  /** BT-118 VAT category code (UNCL5305). */
  category: string;
  /** BT-119 VAT category rate. */
  rate?: Decimal;
  /** BT-120 VAT exemption reason text. */
  exemptionReason?: string;
  /** BT-121 VAT exemption reason code (VATEX). */
  exemptionCode?: string;
}

/** BG-24 additional supporting document. */
export interface Attachment {
  /** BT-122 supporting document reference. */
  id: string;
  /** BT-123 description. */
  description?: string;
  /** BT-124 external document location. */
  uri?: string;
  /** BT-125 attached document (base64) with BT-125-1 MIME code and BT-125-2 filename. */
  content?: { base64: string; mimeCode: string; filename: string };
}

/** BG-1 invoice note. */
export interface Note {
  /** BT-21 subject code (UNCL4451). */
  subjectCode?: string;
  /** BT-22 note text. */
  text: string;
}

/** BG-3 preceding invoice reference. */
export interface PrecedingInvoice {
  /** BT-25 preceding invoice number. */
  number: string;
  /** BT-26 preceding invoice issue date. */
  issueDate?: IsoDate;
}

/** BG-30 line VAT information, with the exemption reason repeated from BG-23. */
export interface LineVat {
  /** BT-151 invoiced item VAT category code. */
  category: string;
  /** BT-152 invoiced item VAT rate. */
  rate?: Decimal;
  /** BT-120 repeated on the line (reason of the line's breakdown bucket). */
  exemptionReason?: string;
  /** BT-121 repeated on the line. */
  exemptionCode?: string;
}

/** BG-29 price details. */
export interface Price {
  /** BT-146 item net price. */
  netPrice: Decimal;
  /** BT-147 item price discount. */
  discount?: Decimal;
  /** BT-148 item gross price. */
  grossPrice?: Decimal;
  /** BT-149 item price base quantity. */
  baseQuantity?: Decimal;
  /** BT-150 item price base quantity unit of measure code. */
  baseUnit?: string;
}

/** BG-31 item information. */
export interface Item {
  /** BT-153 item name. */
  name: string;
  /** BT-154 item description. */
  description?: string;
  /** BT-155 item seller's identifier. */
  sellerId?: string;
  /** BT-156 item buyer's identifier. */
  buyerId?: string;
  /** BT-157 item standard identifier with BT-157-1 scheme. */
  standardId?: SchemedId;
  /** BT-158 item classification identifiers with BT-158-1 scheme and BT-158-2 version. */
  classifications?: Array<{ value: string; scheme: string; version?: string }>;
  /** BT-159 item country of origin. */
  originCountry?: string;
  /** BG-32 item attributes: BT-160 name, BT-161 value. */
  attributes?: Array<{ name: string; value: string }>;
}

/** A custom-field value: text/date/number as a string, money, or an address. */
export type CustomFieldValue =
  | string
  | { currency: string; amount: Decimal }
  | { street?: string; street2?: string; city?: string; zipCode?: string; country?: string };

/** A custom field attached to a party of the caller's organization. */
export interface CustomField {
  /** The key as sent (a field name or a definition UUID). */
  key: string;
  /** Definition UUID, when the template declared it or the key was a UUID. */
  definitionId?: string;
  /** Declared field type when known from the template. */
  type?: 'text' | 'date' | 'number' | 'monetary' | 'address';
  value: CustomFieldValue;
}

/** BG-25 invoice line. */
export interface Line {
  /** BT-126 invoice line identifier. */
  id?: string;
  /** BT-127 invoice line note. */
  note?: string;
  /** BT-128 invoice line object identifier with BT-128-1 scheme (required with the id, BR-CO-24 in the API). */
  objectIdentifier?: SchemedId;
  /** BT-129 invoiced quantity. */
  quantity: Decimal;
  /** BT-130 invoiced quantity unit of measure code (UN/ECE Rec 20). */
  unit: string;
  /** BT-131 invoice line net amount. */
  netAmount: Decimal;
  /** BT-132 referenced purchase order line reference. */
  orderLineReference?: string;
  /** BT-133 invoice line buyer accounting reference. */
  accountingCost?: string;
  /** BG-26 invoice line period. */
  period?: Period;
  /** BG-27 / BG-28 line allowances and charges. */
  allowanceCharges?: AllowanceCharge[];
  /** BG-29 price details. */
  price: Price;
  /** BG-30 line VAT information. */
  vat: LineVat;
  /** BG-31 item information. */
  item: Item;
  /** EXT-FR-FE-140 despatch advice reference of the line (defaults to BT-16). */
  despatchAdviceReference?: string;
  /** EXT-FR-FE-141 despatch advice line reference. */
  despatchAdviceLineReference?: string;
  /** Custom fields of the line, attached to a per-line party of the caller's organization. */
  customFields?: { party: 'seller' | 'buyer'; values: CustomField[] };
}

/** Role-tagged party from the API's `parties` list that has no EN 16931 slot (payer, initiator flags). */
export interface ExtraParty {
  role: string;
  id?: string;
  name?: string;
  vatId?: string;
  initiator?: boolean;
}

/** The syntax family a canonical document renders to: a UBL Invoice or a UBL CreditNote root. */
export type DocumentKind = 'invoice' | 'credit-note';

/** A canonical EN 16931 invoice or credit note. */
export interface CanonicalInvoice {
  kind: DocumentKind;
  /** BT-24 specification identifier. */
  customizationId: string;
  /** BT-23 business process type. */
  profileId?: string;
  /** BT-1 invoice number. */
  number: string;
  /** BT-2 invoice issue date. */
  issueDate: IsoDate;
  /** BT-3 invoice type code (UNCL1001). */
  typeCode?: string;
  /** BT-5 invoice currency code. */
  currency: string;
  /** BT-6 VAT accounting currency code. */
  vatAccountingCurrency?: string;
  /** BT-7 value added tax point date. */
  taxPointDate?: IsoDate;
  /** BT-9 payment due date. */
  dueDate?: IsoDate;
  /** BT-10 buyer reference. */
  buyerReference?: string;
  /** BT-11 project reference. */
  projectReference?: string;
  /** BT-12 contract reference. */
  contractReference?: string;
  /** BT-13 purchase order reference. */
  orderReference?: string;
  /** BT-14 sales order reference. */
  salesOrderReference?: string;
  /** BT-15 receiving advice reference. */
  receivingAdviceReference?: string;
  /** BT-16 despatch advice reference. */
  despatchAdviceReference?: string;
  /** BT-17 tender or lot reference. */
  tenderReference?: string;
  /** BT-18 invoiced object identifier with BT-18-1 scheme. */
  invoicedObjectIdentifier?: SchemedId;
  /** BT-19 buyer accounting reference. */
  buyerAccountingReference?: string;
  /** BT-20 payment terms. */
  paymentTerms?: string;
  /** BG-1 invoice notes. */
  notes?: Note[];
  /** BG-3 preceding invoice references. */
  precedingInvoices?: PrecedingInvoice[];
  /** BG-4 seller. */
  seller: Party;
  /** BG-7 buyer. */
  buyer: Party;
  /** BG-10 payee. */
  payee?: Payee;
  /** BG-11 seller tax representative. */
  taxRepresentative?: TaxRepresentative;
  /** BG-13 delivery information. */
  delivery?: Delivery;
  /** BG-14 invoicing period. */
  invoicingPeriod?: Period;
  /** BG-16 payment instructions. */
  paymentInstructions?: PaymentInstructions;
  /** BG-20 / BG-21 document level allowances and charges. */
  allowanceCharges?: AllowanceCharge[];
  /** BG-22 document totals. */
  totals: Totals;
  /** BG-23 VAT breakdown. */
  vatBreakdown: VatBreakdown[];
  /** BG-24 additional supporting documents. */
  attachments?: Attachment[];
  /** BG-25 invoice lines. */
  lines: Line[];
  /** Extensions outside EN 16931 that the API carries (French CTC extension terms, API-only data). */
  extensions?: Extensions;
}

export interface Extensions {
  /** EXT-FR-FE-185 incoterms code and EXT-FR-FE-186 place. */
  incoterms?: { code: string; location?: string };
  /** Exchange rate (document currency → EUR) that produced BT-111. */
  exchangeRate?: Decimal;
  /** Document-level custom fields and the canonical role of the caller's party they attach to. */
  customFields?: { party: 'seller' | 'buyer'; template?: string; values: CustomField[] };
  /** Parties of the `parties` list with no EN 16931 slot (payer) and the initiator flag. */
  parties?: ExtraParty[];
  /** Payment discount terms: accepted from the API but not placed on the invoice. */
  discountTerms?: unknown;
  /** Shipping addresses stored only (never placed on the invoice). */
  shippingAddresses?: { seller?: unknown; buyer?: unknown };
  /** The API envelope's document type (`invoice`, `credit-note`, `debit-note`, ...). */
  documentType?: string;
  /** True when the seller and buyer roles were swapped for self-billing. */
  selfBilled?: boolean;
}
