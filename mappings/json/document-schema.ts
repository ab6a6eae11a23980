/**
 * JSON Schema of the structured document a JSON send or validation carries (`document`): what
 * to-canonical.ts reads, field by field, with the EN 16931 business term each one fills. The
 * mapping stays the judge of validity (its findings name these same paths); this describes it to
 * clients and generators (the OpenAPI document).
 */
type JsonSchema = Record<string, unknown>;

const text = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', description, ...extra });
/** Amounts and quantities: a JSON number or a decimal string (kept exact). */
const decimal = (description: string): JsonSchema => ({ type: ['number', 'string'], description, examples: [100, '99.95'] });
const date = (description: string): JsonSchema => ({ type: 'string', format: 'date', description });

export const ADDRESS_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'Postal address (BG-5, BG-8, BG-15)',
  properties: {
    street: text('Address line 1 (BT-35 / BT-50 / BT-75)'),
    streetLine2: text('Address line 2 (BT-36 / BT-51 / BT-76)'),
    streetLine3: text('Address line 3 (BT-162 / BT-163 / BT-165)'),
    city: text('City (BT-37 / BT-52 / BT-77)'),
    postalCode: text('Post code (BT-38 / BT-53 / BT-78)'),
    region: text('Country subdivision (BT-39 / BT-54 / BT-79)'),
    country: text('ISO 3166-1 alpha-2 (BT-40 / BT-55 / BT-80)', { pattern: '^[A-Z]{2}$' }),
  },
};

const CONTACT_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'Contact (BG-6 / BG-9)',
  properties: { name: text('Contact point (BT-41 / BT-56)'), phone: text('Telephone (BT-42 / BT-57)'), email: text('E-mail (BT-43 / BT-58)', { format: 'email' }) },
};

export const PARTY_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'Seller (BG-4) or buyer (BG-7)',
  properties: {
    name: text('Legal name (BT-27 / BT-44)'),
    tradingName: text('Trading name (BT-28 / BT-45)'),
    vatNumber: text('VAT identifier with its country prefix (BT-31 / BT-48)', { examples: ['BE0403170701'] }),
    registrationNumber: text('Legal registration identifier (BT-30 / BT-47)'),
    legalRegistration: { type: 'object', description: 'Legal registration with its ICD scheme (BT-30 / BT-47 and -1)', required: ['value'], properties: { value: text('Identifier'), scheme: text('ICD scheme', { examples: ['0002'] }) } },
    siren: text('French SIREN (legal registration, scheme 0002)', { pattern: '^\\d{9}$' }),
    siret: text('French SIRET (its SIREN is the legal registration)', { pattern: '^\\d{14}$' }),
    peppolId: text('Electronic address `<scheme>:<identifier>` (BT-34 / BT-49); derived from the VAT number when absent', { examples: ['0208:0403170701'] }),
    address: ADDRESS_SCHEMA,
    contact: CONTACT_SCHEMA,
    contacts: { type: 'array', description: 'Further contacts; the first one\'s e-mail is used when `contact.email` is absent', items: { oneOf: [{ type: 'string', format: 'email' }, CONTACT_SCHEMA] } },
    shippingAddress: { ...ADDRESS_SCHEMA, description: 'Stored only' },
  },
};

const MONEY_SCHEMA: JsonSchema = { type: 'object', required: ['currency', 'amount'], properties: { currency: text('ISO 4217'), amount: decimal('Amount') } };

const CUSTOM_FIELDS_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'Values of the template\'s custom fields, keyed by field name or definition UUID: text, a number, a date, an amount `{currency, amount}` or an address',
  additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, MONEY_SCHEMA, { type: 'object', properties: { street: { type: 'string' }, street2: { type: 'string' }, city: { type: 'string' }, zipCode: { type: 'string' }, country: { type: 'string' } } }] },
};

export const LINE_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'Invoice line (BG-25)',
  required: ['description'],
  properties: {
    id: text('Line identifier (BT-126); its position when absent'),
    description: text('Item name (BT-153)'),
    itemDescription: text('Item description (BT-154)'),
    note: text('Line note (BT-127)'),
    quantity: decimal('Invoiced quantity (BT-129); 1 when absent'),
    unit: text('Unit of measure, UN/ECE Rec 20 (BT-130); C62 when absent', { examples: ['HUR', 'C62'] }),
    unitPrice: decimal('Item net price (BT-146); required unless netAmount is given'),
    priceBaseQuantity: decimal('Price base quantity (BT-149)'),
    priceBaseUnit: text('Unit of the price base quantity (BT-150)'),
    netAmount: decimal('Line net amount (BT-131); quantity × unit price when absent'),
    vatRate: decimal('VAT rate in percent (BT-152)'),
    vatCategory: text('VAT category, UNCL5305 (BT-151); from the rate when absent', { enum: ['S', 'Z', 'E', 'AE', 'K', 'G', 'O', 'L', 'M'] }),
    vatExemptionReason: text('VAT exemption reason text (BT-120), for exempt categories'),
    vatExemptionCode: text('VATEX code (BT-121)', { pattern: '^VATEX-[A-Z]{2}-[A-Z0-9-]+$' }),
    itemCode: text('Seller\'s item identifier (BT-155)'),
    buyerItemCode: text('Buyer\'s item identifier (BT-156)'),
    orderLineReference: text('Referenced purchase order line (BT-132)'),
    accountingCost: text('Buyer accounting reference (BT-133)'),
    objectIdentifier: text('Invoice line object identifier (BT-128)'),
    objectIdentifierScheme: text('Its scheme (BT-128-1); required with objectIdentifier'),
    despatchAdviceReference: text('Despatch advice of this line (French extension)'),
    despatchAdviceLineReference: text('Despatch advice line (French extension)'),
    period: { type: 'object', description: 'Invoice line period (BG-26)', properties: { start: date('Start (BT-134)'), end: date('End (BT-135)') } },
    customFields: CUSTOM_FIELDS_SCHEMA,
  },
};

/** `document.totals`: stated totals override the sums of the lines (each name also has aliases). */
export const TOTALS_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'Document totals; each one stated here wins over the sum of the lines. Aliases: net = netAmount, totalNet, taxExclusiveAmount, totalExclVat; vat = vatAmount, taxAmount, totalVat; gross = grossAmount, total, taxInclusiveAmount, totalInclVat; prepaid = prepaidAmount, paidAmount; payable = payableAmount, amountDue, dueAmount',
  properties: {
    net: decimal('Sum of line net amounts and total without VAT (BT-106, BT-109)'),
    vat: decimal('Total VAT (BT-110)'),
    gross: decimal('Total with VAT (BT-112)'),
    prepaid: decimal('Paid amount (BT-113)'),
    payable: decimal('Amount due for payment (BT-115)'),
  },
};

export const DOCUMENT_BODY_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'The structured document (format `json`). Invoices, credit notes and debit notes follow EN 16931 (the business term of each field is named); other types (orders, quotes, …) carry at least `number`, and are stored and delivered as given',
  required: ['number'],
  properties: {
    number: text('Document number (BT-1); the name is `number`, not `invoiceNumber`'),
    issueDate: date('Issue date (BT-2); today when absent'),
    dueDate: date('Payment due date (BT-9)'),
    currency: text('ISO 4217 (BT-5); a non-EUR invoice also reports its VAT in EUR (BR-FR-CO-12)', { examples: ['EUR'] }),
    exchangeRate: decimal('Rate to the VAT accounting currency'),
    note: text('Invoice note (BT-22), passed to the recipient'),
    buyerReference: text('Buyer reference (BT-10)'),
    orderReference: text('Purchase order reference (BT-13)'),
    despatchAdviceReference: text('Despatch advice reference (BT-16)'),
    projectReference: text('Project reference (BT-11)'),
    contractReference: text('Contract reference (BT-12)'),
    paymentTerms: text('Payment terms (BT-20)'),
    billingReference: text('Preceding invoice (BT-25); required on credit and debit notes under the French reform'),
    billingReferenceDate: date('Its issue date (BT-26)'),
    templateId: text('A template that supplies defaults and custom field definitions'),
    seller: PARTY_SCHEMA,
    buyer: PARTY_SCHEMA,
    parties: {
      type: 'array',
      description: 'Parties by role; an entry overrides the same-role object field by field; `payee` fills BG-10',
      items: {
        type: 'object', required: ['role'],
        properties: {
          role: { type: 'string', enum: ['seller', 'buyer', 'payee', 'payer'] }, id: text('Peppol id or other identifier'), name: text('Name'),
          vatNumber: text('VAT identifier'), initiator: { type: 'boolean', description: 'The party that initiated the document' },
          address: ADDRESS_SCHEMA, contact: CONTACT_SCHEMA,
        },
      },
    },
    payment: {
      type: 'object',
      description: 'Payment instructions (BG-16)',
      properties: {
        means: text('Payment means (BT-81)', { examples: ['credit_transfer', 'card', 'direct_debit', '58'] }),
        reference: text('Remittance information (BT-83)'),
        iban: text('Payment account (BT-84)'),
        bic: text('Service provider (BT-86)'),
        accountName: text('Account name (BT-85)'),
        discountTerms: text('Accepted, not placed on the invoice'),
      },
    },
    delivery: {
      type: 'object',
      description: 'Delivery information (BG-13)',
      properties: {
        actualDeliveryDate: date('Actual delivery date (BT-72)'),
        partyName: text('Deliver-to party name (BT-70)'),
        deliveryLocation: ADDRESS_SCHEMA,
      },
    },
    incoterms: text('Incoterms code (French extension EXT-FR-FE-185)', { enum: ['1', '2', 'EXW', 'FCA', 'CPT', 'CIP', 'DAP', 'DPU', 'DDP', 'FAS', 'FOB', 'CFR', 'CIF'] }),
    incotermsLocation: text('Incoterms place (EXT-FR-FE-186); needs incoterms'),
    lines: { type: 'array', description: 'Invoice lines (BG-25); required for invoices, credit and debit notes', items: LINE_SCHEMA },
    totals: TOTALS_SCHEMA,
    customFields: CUSTOM_FIELDS_SCHEMA,
  },
  additionalProperties: true,
};
