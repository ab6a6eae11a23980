/**
 * The purchase order as the API reads and writes it: the JSON of `POST /v1/purchase-orders` (with
 * its defaults applied and its totals computed) and what a received Peppol BIS Order 3.0 reads
 * back as. Each field names the UBL 2.1 Order element it travels in; amounts and quantities are
 * JSON numbers (the XML writes amounts with two decimals).
 */

export interface OrderAddress {
  /** cbc:StreetName */
  street?: string;
  /** cbc:AdditionalStreetName */
  additionalStreet?: string;
  /** cbc:CityName */
  city?: string;
  /** cbc:PostalZone */
  postalCode?: string;
  /** cbc:CountrySubentity */
  countrySubentity?: string;
  /** cac:Country/cbc:IdentificationCode (ISO 3166-1 alpha-2) */
  country?: string;
}

export interface OrderContact {
  /** cac:Contact/cbc:Name */
  name?: string;
  /** cbc:Telephone */
  phone?: string;
  /** cbc:ElectronicMail */
  email?: string;
}

export interface OrderParty {
  /** cac:PartyName/cbc:Name and cac:PartyLegalEntity/cbc:RegistrationName */
  name: string;
  /** cbc:EndpointID with its schemeID: the party's Peppol participant id `<icd>:<id>` */
  peppolId?: string;
  /** cac:PartyTaxScheme/cbc:CompanyID (TaxScheme VAT) */
  vatNumber?: string;
  /** cac:PartyLegalEntity/cbc:CompanyID: the legal registration number */
  companyId?: string;
  /** cac:PostalAddress */
  address?: OrderAddress;
  /** cac:Contact */
  contact?: OrderContact;
}

export interface OrderDelivery {
  /** cac:DeliveryLocation/cac:Address */
  address?: OrderAddress;
  /** cac:DeliveryLocation/cbc:ID: a location id (a GLN, a site code) */
  locationId?: string;
  /** cac:RequestedDeliveryPeriod/cbc:StartDate */
  requestedFrom?: string;
  /** cac:RequestedDeliveryPeriod/cbc:EndDate */
  requestedBy?: string;
  /** cac:DeliveryParty/cac:PartyName/cbc:Name: who takes the goods */
  partyName?: string;
}

export interface OrderLine {
  /** cac:LineItem/cbc:ID: the line number, unique in the order */
  id: string;
  /** cac:Item/cbc:Name */
  name: string;
  /** cac:Item/cbc:Description */
  description?: string;
  /** cac:LineItem/cbc:Quantity */
  quantity: number;
  /** cbc:Quantity/@unitCode (UN/ECE Rec 20, default C62 "one") */
  unit: string;
  /** cac:Price/cbc:PriceAmount: the net price of one unit */
  unitPrice?: number;
  /** cac:LineItem/cbc:LineExtensionAmount: quantity × unitPrice unless stated */
  netAmount?: number;
  /** cac:SellersItemIdentification/cbc:ID: the supplier's part number */
  sellerItemId?: string;
  /** cac:BuyersItemIdentification/cbc:ID */
  buyerItemId?: string;
  /** cac:StandardItemIdentification/cbc:ID (a GTIN …) */
  standardItemId?: string;
  /** its @schemeID (ISO 6523 ICD, 0160 for a GTIN) */
  standardItemScheme?: string;
  /** cac:ClassifiedTaxCategory/cbc:ID (UNCL5305) */
  vatCategory?: string;
  /** cac:ClassifiedTaxCategory/cbc:Percent */
  vatRate?: number;
  /** cac:OrderLine/cbc:Note */
  note?: string;
}

export interface OrderTotals {
  /** cac:AnticipatedMonetaryTotal/cbc:LineExtensionAmount: the sum of the lines' net amounts */
  lineExtension: number;
  /** cac:TaxTotal/cbc:TaxAmount: only when every line states its VAT rate */
  tax?: number;
  /** cbc:TaxInclusiveAmount: net plus tax, when tax is known */
  taxInclusive?: number;
  /** cbc:PayableAmount: what the buyer expects to pay */
  payable: number;
}

export interface PurchaseOrder {
  /** cbc:ID: the buyer's order number */
  number: string;
  /** cbc:IssueDate */
  issueDate: string;
  /** cbc:DocumentCurrencyCode (ISO 4217) */
  currency: string;
  /** cbc:Note */
  note?: string;
  /** cbc:CustomerReference: the reference the buyer wants on the invoice (becomes its BT-10) */
  buyerReference?: string;
  /** cbc:AccountingCost: the buyer's cost centre */
  accountingCost?: string;
  /** cac:ValidityPeriod/cbc:EndDate: the order lapses after it */
  validUntil?: string;
  /** cac:QuotationDocumentReference/cbc:ID: the quote this order accepts */
  quotationReference?: string;
  /** cac:Contract/cbc:ID: the framework contract it is placed under */
  contractReference?: string;
  /** cac:BuyerCustomerParty/cac:Party */
  buyer: OrderParty;
  /** cac:SellerSupplierParty/cac:Party */
  seller: OrderParty;
  /** cac:Delivery */
  delivery?: OrderDelivery;
  /** cac:PaymentTerms/cbc:Note */
  paymentTerms?: string;
  /** cac:OrderLine, at least one */
  lines: OrderLine[];
  /** cac:AnticipatedMonetaryTotal (and cac:TaxTotal) */
  totals: OrderTotals;
}

/** Peppol BIS Order 3.0 (UBL 2.1 Order) identifiers. */
export const ORDER_CUSTOMIZATION_ID = 'urn:fdc:peppol.eu:poacc:trns:order:3';
/** The order-only process of BIS Order 3.0 (the Peppol process id under which it is published). */
export const ORDER_PROFILE_ID = 'urn:fdc:peppol.eu:poacc:bis:order_only:3';
export const UBL_ORDER_NS = 'urn:oasis:names:specification:ubl:schema:xsd:Order-2';
/** Lines one order may carry: the XML is rendered in one go on the caller's request. */
export const MAX_ORDER_LINES = 5_000;
