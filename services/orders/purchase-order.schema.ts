/**
 * The purchase order's JSON Schema for the OpenAPI document: the `document` a caller posts and the
 * `order` the API answers with (mappings/ubl-order/model.ts; each field names its UBL 2.1 Order
 * element). Amounts and quantities are numbers (a numeric string is accepted on input).
 */
const str = (description: string, extra: Record<string, unknown> = {}) => ({ type: 'string', description, ...extra });
const num = (description: string, extra: Record<string, unknown> = {}) => ({ type: 'number', description, ...extra });
const date = (description: string) => ({ type: 'string', format: 'date', description });

const ADDRESS = {
  type: 'object',
  properties: {
    street: str('cbc:StreetName'), additionalStreet: str('cbc:AdditionalStreetName'), city: str('cbc:CityName'), postalCode: str('cbc:PostalZone'),
    countrySubentity: str('cbc:CountrySubentity'), country: str('ISO 3166-1 alpha-2 (cac:Country/cbc:IdentificationCode)', { pattern: '^[A-Z]{2}$' }),
  },
};

const PARTY = {
  type: 'object',
  required: ['name'],
  properties: {
    name: str('Party name and registration name'),
    peppolId: str('Electronic address (cbc:EndpointID), `<scheme>:<identifier>`; required by Peppol BIS Order', { examples: ['0088:5790000435951'] }),
    vatNumber: str('VAT number (cac:PartyTaxScheme/cbc:CompanyID)', { pattern: '^[A-Z]{2}[A-Z0-9]+$' }),
    companyId: str('Legal registration number (cac:PartyLegalEntity/cbc:CompanyID)'),
    address: ADDRESS,
    contact: { type: 'object', properties: { name: str('Contact name'), phone: str('Telephone'), email: str('E-mail', { format: 'email' }) } },
  },
};

const LINE = {
  type: 'object',
  required: ['quantity'],
  properties: {
    id: str('Line number (cac:LineItem/cbc:ID); default 1, 2, … in order'),
    name: str('Item name (cac:Item/cbc:Name); `description` alone is taken as the name'),
    description: str('Item description'),
    quantity: num('Quantity ordered (> 0)', { exclusiveMinimum: 0 }),
    unit: str('UN/ECE Rec 20 unit code (default C62, one)', { examples: ['C62', 'EA', 'KGM', 'HUR'] }),
    unitPrice: num('Net price of one unit (cac:Price/cbc:PriceAmount)', { minimum: 0 }),
    netAmount: num('Line net amount; quantity × unitPrice unless stated'),
    sellerItemId: str("Supplier's part number"),
    buyerItemId: str("Buyer's item number"),
    standardItemId: str('Standard item id (a GTIN …)'),
    standardItemScheme: str('Its ISO 6523 ICD scheme (0160 for a GTIN); required with standardItemId'),
    vatCategory: str('UNCL5305 VAT category (default S, or Z at 0 %, when a rate is given)', { enum: ['S', 'Z', 'E', 'AE', 'K', 'G', 'O', 'L', 'M'] }),
    vatRate: num('VAT rate in percent (0–100); with every line rated, the order carries its tax total', { minimum: 0, maximum: 100 }),
    note: str('Line note'),
  },
};

const DELIVERY = {
  type: 'object',
  properties: {
    address: ADDRESS, locationId: str('Delivery location id (a GLN, a site code)'),
    requestedFrom: date('Requested delivery period start'), requestedBy: date('Requested delivery period end'),
    partyName: str('Who takes delivery'),
  },
};

const HEAD = {
  number: str("The buyer's order number (cbc:ID)", { examples: ['PO-2026-0042'] }),
  issueDate: date('Issue date (default today)'),
  currency: str('ISO 4217 (default EUR)', { examples: ['EUR'] }),
  note: str('Free text for the supplier'),
  buyerReference: str('Reference the buyer wants quoted on the invoice (cbc:CustomerReference; becomes the invoice BT-10)'),
  accountingCost: str("The buyer's cost centre"),
  validUntil: date('The order lapses after this date'),
  quotationReference: str('The quote this order accepts'),
  contractReference: str('The framework contract it is placed under'),
  delivery: DELIVERY,
  paymentTerms: str('Payment terms, as text'),
};

/** What a caller posts: the buyer defaults to the acting company, the seller's Peppol id to `to`. */
export const PURCHASE_ORDER_INPUT_SCHEMA = {
  type: 'object',
  required: ['number', 'lines'],
  description: 'A purchase order, rendered as Peppol BIS Order 3.0 (UBL 2.1 Order). `buyer` defaults to the acting company (its name, Peppol id and VAT number); `seller.peppolId` defaults to `to`',
  properties: { ...HEAD, buyer: PARTY, seller: PARTY, lines: { type: 'array', minItems: 1, maxItems: 5000, items: LINE } },
};

/** What the API answers: the same order with its defaults applied and its totals computed (or read from a received UBL Order). */
export const PURCHASE_ORDER_SCHEMA = {
  type: 'object',
  required: ['number', 'issueDate', 'currency', 'buyer', 'seller', 'lines', 'totals'],
  properties: {
    ...HEAD, buyer: PARTY, seller: PARTY,
    lines: { type: 'array', items: { ...LINE, required: ['id', 'name', 'quantity', 'unit'] } },
    totals: {
      type: 'object', required: ['lineExtension', 'payable'],
      properties: {
        lineExtension: num('Sum of the lines net amounts'), tax: num('VAT total, when every line states its rate'),
        taxInclusive: num('Net plus VAT, when VAT is known'), payable: num('Amount the buyer expects to pay (the total payments count against)'),
      },
    },
  },
};
